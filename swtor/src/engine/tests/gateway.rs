//! A frame goes to the host port whose MAC it is sent to (a router host,
//! such as Mininet's `linuxrouter`, reached through its gateway address),
//! and a host interface without an address is reached by its MAC alone.

use super::*;
use crate::testing::host_mac;

/// h1, h2 and h3 on ToR 0 (ifindexes 1-3); h3 has no address.
fn one_tor() -> Engine<MemPort> {
    let s = Schedule::new(1, 1, 4);
    let t = tables(4, Lookup::Hop, vec![]);
    let mut hosts = hosts_on(&[0, 0, 0]);
    hosts[2].ip = std::net::Ipv4Addr::UNSPECIFIED;
    let sp = spec(s, t, timing(SLICE, DARK, RATE), hosts);
    mem_engine(&sp, clock(&sp), EngineOptions::default()).unwrap()
}

/// Sends `f` from h1 and returns the ifindexes it left on.
fn send(e: &mut Engine<MemPort>, f: &[u8]) -> Vec<i32> {
    e.port.inject(1, EPOCH + 1_000, f);
    let mut t = EPOCH + 1_000;
    for _ in 0..100 {
        e.poll(t).unwrap();
        t += 1_000;
    }
    assert!(e.c.conservation_holds());
    e.port.take_sent().iter().map(|s| s.ifindex).collect()
}

#[test]
fn a_frame_goes_to_the_port_whose_mac_it_is_sent_to() {
    let mut e = one_tor();
    // To h2's address and MAC: h2.
    assert_eq!(send(&mut e, &udp(1, 2, 1, 100)), [2]);
    // To an address beyond a router (none of the fabric's), sent to the
    // MAC of h3, the router's interface without an address: h3.
    let mut f = udp(1, 3, 2, 100);
    f[30..34].copy_from_slice(&[192, 168, 7, 9]);
    assert_eq!(send(&mut e, &f), [3]);
    // To h2's address through h3's MAC (h3 is h1's gateway): h3.
    let mut f = udp(1, 2, 3, 100);
    f[0..6].copy_from_slice(&host_mac(3));
    assert_eq!(send(&mut e, &f), [3]);
    // To h2's address with a MAC no port has (a stale neighbour entry):
    // by its address, to h2.
    let mut f = udp(1, 2, 4, 100);
    f[0..6].copy_from_slice(&[2, 9, 9, 9, 9, 9]);
    assert_eq!(send(&mut e, &f), [2]);
    assert_eq!(e.c.delivered, 4);
    // Neither address nor MAC known: dropped as an unknown host.
    let mut f = udp(1, 3, 5, 100);
    f[30..34].copy_from_slice(&[192, 168, 7, 9]);
    f[0..6].copy_from_slice(&[2, 9, 9, 9, 9, 9]);
    assert_eq!(send(&mut e, &f), Vec::<i32>::new());
    assert_eq!(e.c.dropped(DropReason::UnknownHost), 1);
}
