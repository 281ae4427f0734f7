//! Real-namespace tests of the data plane (run as root; they skip with a
//! printed reason otherwise). Each builds its own fabric namespace and host
//! namespaces named `swt<pid>-<n>-*` and deletes them on drop. Here a
//! circuit's traffic; the slices' windows, drops and reroutes (`slices`);
//! an external ToR over veths (`external`).

#[path = "../common/mod.rs"]
mod common;
mod external;
mod slices;

use common::*;
use lh_ctrl::config::Lookup;
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::tables::{Action, Step};
use std::time::Duration;
use swtor::testing::{UDP_DST_PORT, entry, hop, spec, tables, udp};
use swtor::{CapturePoint, DropReason, FabricSpec, monotonic_ns};

fn ep(t: u16, p: u8) -> Endpoint {
    Endpoint::new(t, p)
}

/// Two ToRs, one uplink, a circuit in slice 0 of `slices`.
fn two_tor_schedule(slices: usize) -> Schedule {
    let mut s = Schedule::new(2, 1, slices);
    s.connect(ep(0, 0), ep(1, 0), 0).unwrap();
    s
}

fn send_probes(
    net: &Net,
    from: usize,
    to: std::net::Ipv4Addr,
    payloads: Vec<Vec<u8>>,
    gaps_us: Vec<u64>,
) {
    let ns = net.host_path(from);
    let ip = net.hosts[from].ip;
    in_ns(ns, move || {
        let s = std::net::UdpSocket::bind((ip, 0)).unwrap();
        for (p, g) in payloads.iter().zip(gaps_us) {
            if g > 0 {
                std::thread::sleep(Duration::from_micros(g));
            }
            s.send_to(p, (to, 5000)).unwrap();
        }
    });
}

#[test]
fn static_circuit_delivers_udp_icmp_and_answers_arp() {
    let Some(_serial) = can_run("static_circuit_delivers_udp_icmp_and_answers_arp") else {
        return;
    };
    // h1 and h3 on ToR 0, h2 on ToR 1.
    let net = Net::new(&[0, 1, 0]);
    let tables = tables(
        1,
        Lookup::Hop,
        vec![
            (0, vec![entry(1, None, hop(0, None), vec![])]),
            (1, vec![entry(0, None, hop(0, None), vec![])]),
        ],
    );
    let spec = spec(
        two_tor_schedule(1),
        tables,
        timing(100, 1, 10_000_000_000),
        net.attach(),
    );
    let fab = swtor::start(spec, Some(&net.fabric_path())).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cap_file = dir.path().join("s1-eth1.pcap");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cap =
        swtor::capture_iface(Some(&net.fabric_path()), "s1-eth1", &cap_file, stop.clone()).unwrap();
    let rx = udp_in(net.host_path(1), net.hosts[1].ip, 5000);
    let recv = std::thread::spawn(move || collect(&rx, Duration::from_millis(400)));
    // Resolve ARP first: the kernel may reorder what it queued meanwhile.
    send_probes(&net, 0, net.hosts[1].ip, vec![vec![0xAA]], vec![0]);
    std::thread::sleep(Duration::from_millis(50));
    let payloads: Vec<Vec<u8>> = (0..20u8).map(|i| vec![i; 100 + i as usize]).collect();
    send_probes(&net, 0, net.hosts[1].ip, payloads.clone(), vec![500; 20]);
    let got: Vec<_> = recv
        .join()
        .unwrap()
        .into_iter()
        .filter(|(_, p)| p.len() > 1)
        .collect();
    assert_eq!(got.len(), 20, "every datagram arrives");
    let got_payloads: Vec<Vec<u8>> = got.into_iter().map(|(_, p)| p).collect();
    assert_eq!(
        got_payloads, payloads,
        "in order and intact (checksums completed)"
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let captured = cap.join().unwrap().unwrap();
    let b = std::fs::read(&cap_file).unwrap();
    assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1], "ns pcap");
    assert!(
        captured >= 21,
        "20 datagrams + ARP on h1's ToR port, got {captured}"
    );

    // Same ToR: h1 -> h3 is delivered locally, without the fabric.
    let uplink_before = fab.counters().uplink_tx;
    let rx3 = udp_in(net.host_path(2), net.hosts[2].ip, 5000);
    let recv3 = std::thread::spawn(move || collect(&rx3, Duration::from_millis(300)));
    send_probes(&net, 0, net.hosts[2].ip, vec![vec![3; 30]; 5], vec![200; 5]);
    assert_eq!(recv3.join().unwrap().len(), 5);
    assert_eq!(
        fab.counters().uplink_tx,
        uplink_before,
        "local traffic stays off the uplinks"
    );

    let mut pings = 0;
    if have("ping") {
        let ok = std::process::Command::new("ip")
            .args([
                "netns",
                "exec",
                &net.hosts[0].ns,
                "ping",
                "-c",
                "3",
                "-i",
                "0.2",
                "-W",
                "2",
                "10.0.0.2",
            ])
            .status()
            .unwrap()
            .success();
        assert!(ok, "ping h1 -> h2");
        pings = 6;
    } else {
        skip("ICMP part of static_circuit_delivers_udp_icmp_and_answers_arp: `ping` not installed");
    }
    // ARP for an address no host has is not answered.
    send_probes(
        &net,
        0,
        "10.0.0.99".parse().unwrap(),
        vec![vec![1]],
        vec![0],
    );
    std::thread::sleep(Duration::from_millis(300));

    assert!(
        net.neigh(0)
            .contains("10.0.0.2 dev eth0 lladdr 02:00:00:00:00:02"),
        "h1 learned h2's real MAC by proxy ARP: {}",
        net.neigh(0)
    );
    let c = fab.stop();
    eprintln!("{c}");
    assert!(c.arp_replies >= 2, "both hosts were answered: {c}");
    assert!(c.arp_ignored >= 1, "unknown IP not answered: {c}");
    assert_eq!(c.sent, 21 + 5 + pings, "{c}");
    assert_eq!(c.delivered, c.sent);
    assert_eq!(c.dropped_total(), 0);
    assert!(c.conservation_holds(), "{c}");
}

#[test]
fn source_route_crosses_a_transit_tor_and_shows_in_the_uplink_pcap() {
    let Some(_serial) = can_run("source_route_crosses_a_transit_tor_and_shows_in_the_uplink_pcap")
    else {
        return;
    };
    let net = Net::new(&[0, 2]);
    // Slice 0: ToR0-ToR1; slice 1: ToR1-ToR2. ToR1 has no table at all.
    let mut s = Schedule::new(3, 1, 2);
    s.connect(ep(0, 0), ep(1, 0), 0).unwrap();
    s.connect(ep(1, 0), ep(2, 0), 1).unwrap();
    let route = Action::Source(vec![
        Step {
            port: 0,
            depart: Some(0),
        },
        Step {
            port: 0,
            depart: Some(1),
        },
    ]);
    let tables = tables(
        2,
        Lookup::Source,
        vec![(0, vec![entry(2, None, route, vec![])])],
    );
    let spec = spec(s, tables, timing(1000, 50, 1_000_000_000), net.attach());
    let fab = swtor::start(spec, Some(&net.fabric_path())).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("tor1-up0.pcap");
    fab.capture(1, CapturePoint::Uplink(0), &pcap).unwrap();
    let rx = udp_in(net.host_path(1), net.hosts[1].ip, 5000);
    let recv = std::thread::spawn(move || collect(&rx, Duration::from_millis(600)));
    send_probes(&net, 0, net.hosts[1].ip, vec![vec![5; 80]; 5], vec![200; 5]);
    let got = recv.join().unwrap();
    let c = fab.stop();
    // A route has no alternates: a frame the thread gets to only at the very
    // end of its departure slice (after being descheduled) is a slice miss.
    let miss = c.dropped(DropReason::SliceMiss);
    assert!(miss <= 1, "{c}");
    assert_eq!(got.len() as u64, c.delivered, "{c}");
    assert_eq!(c.delivered + miss, 5, "{c}");
    assert!(c.conservation_holds(), "{c}");
    let b = std::fs::read(&pcap).unwrap();
    assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
    let (mut with_srh, mut plain) = (0, 0);
    let mut o = 24;
    while o + 16 <= b.len() {
        let caplen = u32::from_le_bytes(b[o + 8..o + 12].try_into().unwrap()) as usize;
        let f = &b[o + 16..o + 16 + caplen];
        match (f[12], f[13]) {
            (0x88, 0xB5) => {
                // One remaining hop: ToR1's uplink 0 in slice 1; then IPv4.
                assert_eq!(&f[14..21], &[1, 1, 0, 0, 1, 0x08, 0x00]);
                with_srh += 1;
            }
            (0x08, 0x00) => plain += 1,
            _ => panic!("unexpected frame {f:02x?}"),
        }
        o += 16 + caplen;
    }
    assert!(
        with_srh >= c.delivered && plain == c.delivered && with_srh > 0,
        "arrivals carry the header, departures had it popped: {with_srh} {plain} {c}"
    );
}

#[test]
fn tcp_crosses_the_fabric() {
    let Some(_serial) = can_run("tcp_crosses_the_fabric") else {
        return;
    };
    if !have("ethtool") {
        skip("tcp_crosses_the_fabric: ethtool not installed (needed for `tx off`)");
        return;
    }
    let net = Net::new(&[0, 1]);
    assert!(net.tx_off(0) && net.tx_off(1));
    let tables = tables(
        1,
        Lookup::Hop,
        vec![
            (0, vec![entry(1, None, hop(0, None), vec![])]),
            (1, vec![entry(0, None, hop(0, None), vec![])]),
        ],
    );
    let spec = spec(
        two_tor_schedule(1),
        tables,
        timing(100, 1, 10_000_000_000),
        net.attach(),
    );
    let fab = swtor::start(spec, Some(&net.fabric_path())).unwrap();
    let ip2 = net.hosts[1].ip;
    let listener = in_ns(net.host_path(1), move || {
        std::net::TcpListener::bind((ip2, 5001)).unwrap()
    });
    let server = std::thread::spawn(move || {
        use std::io::Read;
        let (mut s, _) = listener.accept().unwrap();
        let mut v = Vec::new();
        s.read_to_end(&mut v).unwrap();
        v
    });
    let data: Vec<u8> = (0..2_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let d2 = data.clone();
    let t0 = monotonic_ns();
    in_ns(net.host_path(0), move || {
        use std::io::Write;
        let mut s = std::net::TcpStream::connect((ip2, 5001)).unwrap();
        s.write_all(&d2).unwrap();
    });
    let got = server.join().unwrap();
    let secs = (monotonic_ns() - t0) as f64 / 1e9;
    eprintln!("TCP 2 MB in {secs:.3} s ({:.0} Mb/s)", 16.0 / secs);
    assert!(got == data, "stream intact");
    let c = fab.stop();
    assert_eq!(c.dropped(DropReason::TooBig), 0, "{c}");
    assert!(c.conservation_holds(), "{c}");
}
