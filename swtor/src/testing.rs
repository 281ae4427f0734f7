//! Fixtures for tests, benchmarks and virtual-time experiments of the data
//! plane, shipped with the crate the way smoltcp ships its test devices: a
//! [`FabricSpec`] from a few numbers or from an lh_ctrl compile, host
//! attachments and addresses, time-flow table entries, UDP frames, and the
//! real [`Engine`] on the in-memory [`MemPort`] under a fixed clock.
//!
//! Hosts are numbered from 1 as in Mininet (`h1`, `h2`, ...). Host `n` has
//! IP [`host_ip`]`(n)` (10.0.0.n below 256) and MAC [`host_mac`]`(n)`, is
//! attached through `s<T>-eth<j>` (ToR `T - 1`, its `j`-th host), and on an
//! engine built here, where host ports are numbered in spec order
//! ([`Ifindexes::sequential`]), is ifindex `n` when the spec lists hosts in
//! number order, as every spec built here does.
//!
//! ```
//! use lh_ctrl::config::Lookup;
//! use lh_ctrl::schedule::{Endpoint, Schedule};
//! use swtor::testing::*;
//!
//! // 2 ToRs, 1 uplink, circuit 0-1 in slice 0 of 2; h1 on ToR 0, h2 on ToR 1.
//! let mut s = Schedule::new(2, 1, 2);
//! s.connect(Endpoint::new(0, 0), Endpoint::new(1, 0), 0).unwrap();
//! let t = tables(2, Lookup::Hop, vec![(0, vec![entry(1, None, hop(0, Some(0)), vec![])])]);
//! let spec = spec(s, t, timing(10_000, 1_000, 8_000_000_000), hosts_on(&[0, 1]));
//! let mut e = mem_engine(&spec, clock(&spec), Default::default()).unwrap();
//! e.port_mut().inject(1, EPOCH, &udp(1, 2, 4000, 1000));
//! for k in 0..=30 {
//!     e.poll(EPOCH + k * 1_000).unwrap();
//! }
//! assert_eq!(e.counters().delivered, 1);
//! assert_eq!(e.port().sent_on(2).count(), 1);
//! ```

use crate::engine::Engine;
use crate::{EngineOptions, FabricError, FabricSpec, HostAttach, Ifindexes, MemPort, SliceClock};
use crate::{Timing, wire};
use lh_ctrl::compile::Compiled;
use lh_ctrl::config::{Lookup, Multipath};
use lh_ctrl::schedule::Schedule;
use lh_ctrl::schedule::timing::TimeModel;
use lh_ctrl::tables::{Action, Entry, FlatTables, Ingress, Match, Step, Tables, TimeFlowTable};
use lh_ctrl::units::{BitsPerSec, Nanos};
use lh_ctrl::{PortId, SliceId, TorId};
use std::net::Ipv4Addr;
use std::sync::Arc;

/// The slice-clock epoch of [`clock`]: 1 s of CLOCK_MONOTONIC, so times
/// before it (`EPOCH - x`) stay positive.
pub const EPOCH: u64 = 1_000_000_000;

/// The destination port of [`udp`] frames.
pub const UDP_DST_PORT: u16 = 5001;

/// Host numbers are 1 to 2^24 - 1: they fill 10.0.0.0/8.
fn check_host(n: usize) -> u32 {
    assert!((1..1 << 24).contains(&n), "host number {n} outside 1..2^24");
    n as u32
}

/// Host `n`'s IPv4 address: `10.0.0.0 + n` (10.0.0.n for n < 256, then
/// 10.0.1.0 and so on), as lh_emu's plan numbers its hosts.
pub fn host_ip(n: usize) -> Ipv4Addr {
    Ipv4Addr::from((10 << 24) | check_host(n))
}

/// Host `n`'s MAC: locally administered `02:00` and then `n` in the last
/// four bytes (`02:00:00:00:00:01` for h1), so it never repeats (a single
/// byte would after 255 hosts).
pub fn host_mac(n: usize) -> [u8; 6] {
    let b = check_host(n).to_be_bytes();
    [2, 0, b[0], b[1], b[2], b[3]]
}

/// Host `n` on ToR `tor` as its `port`-th host (1-based): the ToR-side
/// veth end `s<tor+1>-eth<port>` (ignored on a MemPort).
pub fn host(n: usize, tor: TorId, port: usize) -> HostAttach {
    HostAttach {
        ip: host_ip(n),
        mac: host_mac(n),
        tor,
        ifname: format!("s{}-eth{port}", tor + 1),
    }
}

/// One host per entry of `tors` (its ToR): h1 on `tors[0]`, h2 on
/// `tors[1]`, ...; each ToR's hosts take its ports in that order.
pub fn hosts_on(tors: &[TorId]) -> Vec<HostAttach> {
    tors.iter()
        .enumerate()
        .map(|(i, &t)| {
            let port = 1 + tors[..i].iter().filter(|&&u| u == t).count();
            host(i + 1, t, port)
        })
        .collect()
}

/// `per_tor` hosts on each of `tors` ToRs, in order: h1 to h`per_tor` on
/// ToR 0, and so on (lh_emu's plan).
pub fn hosts_per_tor(tors: usize, per_tor: usize) -> Vec<HostAttach> {
    (0..tors * per_tor)
        .map(|k| host(k + 1, (k / per_tor) as TorId, k % per_tor + 1))
        .collect()
}

/// A time model with `slice` ns slices, `guardband` ns of dark time and
/// `link_bps` optical uplinks; no reconfiguration delay beyond the
/// guardband, no propagation delay, no electrical port, 800 Gb/s host links
/// (hosts never pace the fabric), 1 MiB calendar queues, ToR and OCS clocks
/// in step. Change a field for anything else.
pub fn timing(slice: u64, guardband: u64, link_bps: u64) -> Timing {
    Timing {
        model: TimeModel {
            slice: Nanos(slice),
            guardband: Nanos(guardband),
            reconfiguration: Nanos(0),
            propagation: Nanos(0),
            link_rate: BitsPerSec(link_bps),
            electrical_rate: None,
            host_rate: BitsPerSec(800_000_000_000),
            queue_capacity: 1 << 20,
            buffer_capacity: u64::MAX,
        },
        tor_clock_offset: 0,
    }
}

/// A spec of native ToRs only.
pub fn spec(
    schedule: Schedule,
    tables: impl Into<Arc<FlatTables>>,
    timing: Timing,
    hosts: Vec<HostAttach>,
) -> FabricSpec {
    FabricSpec {
        schedule,
        tables: tables.into(),
        timing,
        hosts,
        external: Vec::new(),
    }
}

/// The compiled fabric's schedule, tables and timing with its config's
/// hosts ([`hosts_per_tor`]), every ToR native.
pub fn compiled_spec(c: &Compiled) -> FabricSpec {
    let tors = &c.config.tors;
    spec(
        c.schedule.clone(),
        c.tables.clone(),
        Timing::from_model(&c.timing()),
        hosts_per_tor(tors.count as usize, tors.hosts_per_tor as usize),
    )
}

/// The slice clock of `spec` starting at [`EPOCH`].
pub fn clock(spec: &FabricSpec) -> SliceClock {
    SliceClock {
        epoch: EPOCH,
        slice: spec.timing.model.slice.0,
        slices: spec.schedule.slices() as u64,
    }
}

/// The engine of `spec` on a fresh [`MemPort`], interfaces numbered by
/// [`Ifindexes::sequential`]. Time is what is passed to [`Engine::poll`].
pub fn mem_engine(
    spec: &FabricSpec,
    clock: SliceClock,
    opts: EngineOptions,
) -> Result<Engine<MemPort>, FabricError> {
    Engine::with_ports(
        spec,
        &Ifindexes::sequential(spec),
        MemPort::new(),
        clock,
        opts,
    )
}

/// A one-hop action: leave on uplink `port` in slice `depart` (None: at
/// once).
pub fn hop(port: PortId, depart: Option<SliceId>) -> Action {
    Action::Hop(Step { port, depart })
}

/// Matches every packet to ToR `dst`: any arrival slice, ingress, class and
/// bucket. Narrow it with struct update syntax.
pub fn match_dst(dst: TorId) -> Match {
    Match {
        dst,
        arrival: None,
        ingress: Ingress::Any,
        class: None,
        bucket: None,
    }
}

/// An entry for packets to ToR `dst` arriving in slice `arrival` (None:
/// any).
pub fn entry(
    dst: TorId,
    arrival: Option<SliceId>,
    action: Action,
    alternates: Vec<Action>,
) -> Entry {
    Entry {
        m: Match {
            arrival,
            ..match_dst(dst)
        },
        action,
        alternates,
    }
}

/// Time-flow tables of `slices` slices, one table per `(ToR, entries)`, no
/// multipath, no flow-size classes.
pub fn tables(slices: usize, lookup: Lookup, per_tor: Vec<(TorId, Vec<Entry>)>) -> Tables {
    Tables {
        slices,
        lookup,
        multipath: Multipath::None,
        buckets: 1,
        classes: None,
        tors: per_tor
            .into_iter()
            .map(|(tor, entries)| TimeFlowTable { tor, entries })
            .collect(),
    }
}

/// A `len`-byte UDP/IPv4 frame from host `src` to host `dst` (their MACs
/// and IPs), source port `sport`, destination port [`UDP_DST_PORT`], TTL
/// 64, zero payload, a valid IPv4 header checksum (a kernel takes it) and
/// no UDP checksum. Overwrite `[42..]` for a payload.
pub fn udp(src: usize, dst: usize, sport: u16, len: usize) -> Vec<u8> {
    let mut f = Vec::new();
    udp_into(&mut f, src, dst, sport, len);
    f
}

/// [`udp`] into `f` (its old bytes replaced), so that a generator can reuse
/// one buffer for every frame.
pub fn udp_into(f: &mut Vec<u8>, src: usize, dst: usize, sport: u16, len: usize) {
    assert!(
        len >= 42,
        "a UDP/IPv4 frame has at least 42 bytes, not {len}"
    );
    f.clear();
    f.resize(len, 0);
    f[0..6].copy_from_slice(&host_mac(dst));
    f[6..12].copy_from_slice(&host_mac(src));
    f[12..14].copy_from_slice(&wire::ETH_IPV4.to_be_bytes());
    f[14] = 0x45;
    f[16..18].copy_from_slice(&((len - 14) as u16).to_be_bytes());
    f[22] = 64;
    f[23] = 17;
    f[26..30].copy_from_slice(&host_ip(src).octets());
    f[30..34].copy_from_slice(&host_ip(dst).octets());
    f[34..36].copy_from_slice(&sport.to_be_bytes());
    f[36..38].copy_from_slice(&UDP_DST_PORT.to_be_bytes());
    f[38..40].copy_from_slice(&((len - 34) as u16).to_be_bytes());
    let sum = ones_complement_sum(&f[14..34]);
    f[24..26].copy_from_slice(&(!sum).to_be_bytes());
}

/// The 16-bit one's complement sum of `b` (even length), RFC 1071.
pub fn ones_complement_sum(b: &[u8]) -> u16 {
    let mut sum: u32 = b
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
        .sum();
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn three_hundred_hosts_get_distinct_macs_and_ips() {
        let hs = hosts_per_tor(30, 10);
        assert_eq!(hs.len(), 300);
        let macs: HashSet<[u8; 6]> = hs.iter().map(|h| h.mac).collect();
        let ips: HashSet<Ipv4Addr> = hs.iter().map(|h| h.ip).collect();
        assert_eq!(macs.len(), 300, "MACs repeat");
        assert_eq!(ips.len(), 300, "IPs repeat");
        assert_eq!(host_mac(1), [2, 0, 0, 0, 0, 1]);
        assert_eq!(host_mac(255), [2, 0, 0, 0, 0, 255]);
        assert_eq!(host_mac(256), [2, 0, 0, 0, 1, 0]);
        assert_eq!(host_mac(300), [2, 0, 0, 0, 1, 44]);
        assert_eq!(host_mac((1 << 24) - 1), [2, 0, 0, 0xff, 0xff, 0xff]);
        assert_eq!(host_ip(1), Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(host_ip(300), Ipv4Addr::new(10, 0, 1, 44));
        assert!(std::panic::catch_unwind(|| host_ip(0)).is_err());
        assert!(std::panic::catch_unwind(|| host_mac(1 << 24)).is_err());
    }

    #[test]
    fn hosts_take_their_tors_ports_in_order() {
        let hs = hosts_on(&[0, 1, 0]);
        let got: Vec<(Ipv4Addr, TorId, &str)> = hs
            .iter()
            .map(|h| (h.ip, h.tor, h.ifname.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (host_ip(1), 0, "s1-eth1"),
                (host_ip(2), 1, "s2-eth1"),
                (host_ip(3), 0, "s1-eth2"),
            ]
        );
        let hs = hosts_per_tor(3, 2);
        assert_eq!(hs[3].tor, 1);
        assert_eq!(hs[3].ifname, "s2-eth2");
        assert_eq!(hs[5].mac, host_mac(6));
    }

    #[test]
    fn udp_frames_parse_as_the_hosts_say() {
        let f = udp(3, 300, 4000, 100);
        assert_eq!(f.len(), 100);
        assert_eq!(&f[0..6], &host_mac(300));
        assert_eq!(&f[6..12], &host_mac(3));
        assert_eq!(wire::ethertype(&f), Some(wire::ETH_IPV4));
        assert_eq!(wire::ipv4_src(&f), Some(host_ip(3)));
        assert_eq!(wire::ipv4_dst(&f), Some(host_ip(300)));
        assert_eq!(u16::from_be_bytes([f[16], f[17]]), 86, "IPv4 total length");
        assert_eq!(u16::from_be_bytes([f[36], f[37]]), UDP_DST_PORT);
        assert_eq!(u16::from_be_bytes([f[38], f[39]]), 66, "UDP length");
        // The header sums to 0xffff with its checksum (RFC 1071), and the
        // checksum covers the addresses.
        let sum = |f: &[u8]| ones_complement_sum(&f[14..34]);
        assert_eq!(sum(&f), 0xffff);
        assert_eq!(sum(&udp(1, 2, 0, 42)), 0xffff);
        // The textbook header 45 00 00 73 ... c0 a8 00 c7 has checksum b861.
        let h = [
            0x45, 0, 0, 0x73, 0, 0, 0x40, 0, 0x40, 0x11, 0, 0, 0xc0, 0xa8, 0, 1, 0xc0, 0xa8, 0,
            0xc7,
        ];
        assert_eq!(!ones_complement_sum(&h), 0xb861);
        assert_ne!(&f[24..26], &udp(4, 300, 4000, 100)[24..26]);
        assert_ne!(
            wire::flow_hash(&f),
            wire::flow_hash(&udp(3, 300, 4001, 100)),
            "the source port is in the 5-tuple"
        );
    }

    #[test]
    fn compiled_spec_attaches_every_host_of_the_config() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../topologies/c-through-8.json"
        );
        let cfg = lh_ctrl::config::Config::load(std::path::Path::new(path)).unwrap();
        let c = lh_ctrl::compile::compile(&cfg).unwrap();
        let s = compiled_spec(&c);
        assert_eq!(s.hosts.len(), cfg.host_count());
        let hpt = cfg.tors.hosts_per_tor as usize;
        assert_eq!(
            s.hosts.last().unwrap().tor as usize,
            cfg.tors.count as usize - 1
        );
        assert_eq!(s.hosts[hpt].tor, 1);
        assert_eq!(s.timing, Timing::from_config(&cfg));
        assert!(s.external.is_empty());
        crate::spec::check_spec(&s).unwrap();
        let e = mem_engine(&s, clock(&s), EngineOptions::default()).unwrap();
        assert_eq!(e.clock().epoch, EPOCH);
        assert_eq!(e.clock().slices, c.schedule.slices() as u64);
        assert_eq!(e.host_ifindex(host_ip(hpt + 1)), Some(hpt as i32 + 1));
    }

    #[test]
    fn entries_and_tables_match_what_they_say() {
        let e = entry(2, Some(1), hop(0, Some(3)), vec![hop(1, None)]);
        assert_eq!(
            e.m,
            Match {
                dst: 2,
                arrival: Some(1),
                ingress: Ingress::Any,
                class: None,
                bucket: None
            }
        );
        assert_eq!(
            e.action,
            Action::Hop(Step {
                port: 0,
                depart: Some(3)
            })
        );
        assert_eq!(
            e.alternates,
            vec![Action::Hop(Step {
                port: 1,
                depart: None
            })]
        );
        let t = tables(4, Lookup::Source, vec![(0, vec![e.clone()]), (1, vec![])]);
        assert_eq!(
            (t.slices, t.lookup, t.multipath, t.buckets),
            (4, Lookup::Source, Multipath::None, 1)
        );
        assert!(t.classes.is_none());
        assert_eq!(t.tors.len(), 2);
        assert_eq!((t.tors[1].tor, t.tors[0].entries[0].clone()), (1, e));
    }
}
