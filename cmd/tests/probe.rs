//! The built-in prober and flow tool against the kernel: two namespaces
//! joined directly by a veth (no data plane involved).

mod common;

use common::*;
use lh_emu::kernel::netlink::{self, VethSpec};
use lh_emu::netns;
use lh_emu::traffic::probe::{self, Amount};
use std::fs::File;
use std::net::Ipv4Addr;
use std::os::fd::AsRawFd;
use std::time::Duration;

struct Pair {
    a: std::path::PathBuf,
    b: std::path::PathBuf,
}

impl Drop for Pair {
    fn drop(&mut self) {
        let _ = netns::delete_path(&self.a);
        let _ = netns::delete_path(&self.b);
    }
}

fn pair() -> Pair {
    let p = format!("lh{:04x}", rand::random::<u16>());
    let pair = Pair {
        a: netns::create(&format!("{p}-pa")).unwrap(),
        b: netns::create(&format!("{p}-pb")).unwrap(),
    };
    let fb = File::open(&pair.b).unwrap();
    let fd = fb.as_raw_fd();
    netlink::with_netlink(Some(&pair.a), |h| async move {
        netlink::create_veths(
            &h,
            &[VethSpec {
                local: "a-eth0",
                peer: "b-eth0",
                peer_ns_fd: fd,
                peer_mac: None,
                mtu: 1500,
            }],
        )
        .await?;
        netlink::add_addr(&h, "a-eth0", Ipv4Addr::new(10, 0, 0, 1), 8).await?;
        netlink::set_up(&h, "a-eth0", None).await?;
        netlink::set_up(&h, "lo", None).await
    })
    .unwrap();
    netlink::with_netlink(Some(&pair.b), |h| async move {
        netlink::add_addr(&h, "b-eth0", Ipv4Addr::new(10, 0, 0, 2), 8).await?;
        netlink::set_up(&h, "b-eth0", None).await?;
        netlink::set_up(&h, "lo", None).await
    })
    .unwrap();
    pair
}

#[test]
fn icmp_tcp_and_udp_between_two_namespaces() {
    if skip_unless_root("icmp_tcp_and_udp_between_two_namespaces") {
        return;
    }
    let before = lh_namespaces();
    {
        let p = pair();
        let b_ip = Ipv4Addr::new(10, 0, 0, 2);
        // The first ping may wait for carrier and ARP (the kernel retries
        // ARP after 1 s); measure the second.
        let first = probe::ping(Some(&p.a), b_ip, Duration::from_secs(3)).unwrap();
        assert!(first.is_some(), "veth peer answers");
        let rtt = probe::ping(Some(&p.a), b_ip, Duration::from_secs(1)).unwrap();
        let rtt = rtt.expect("veth peer answers again");
        assert!(rtt < Duration::from_millis(500), "{rtt:?}");
        // Nobody has 10.0.0.9: no answer, and the call honours its timeout.
        let t = std::time::Instant::now();
        let none = probe::ping(
            Some(&p.a),
            Ipv4Addr::new(10, 0, 0, 9),
            Duration::from_millis(300),
        );
        assert_eq!(none.unwrap(), None);
        assert!(t.elapsed() < Duration::from_secs(2));
        // The root namespace cannot reach 10.0.0.2 (we really ping from A).
        let from_root = probe::ping(None, b_ip, Duration::from_millis(200)).unwrap();
        assert_eq!(from_root, None);

        let r = probe::tcp_flow(Some(&p.a), Some(&p.b), b_ip, Amount::Bytes(4 << 20)).unwrap();
        assert_eq!(r.bytes, 4 << 20);
        assert!(r.server_bps > 1e6, "{r:?}");
        assert!(r.fct > Duration::ZERO);

        let (srv, cli) = probe::udp_flow(Some(&p.a), Some(&p.b), b_ip, 20e6, 0.5).unwrap();
        assert!(cli > 10e6 && cli < 30e6, "sender rate {cli}");
        assert!(srv > 5e6, "receiver rate {srv}");
    }
    assert_eq!(lh_namespaces(), before);
}

#[test]
fn seeding_tcp_metrics_stops_once_every_pair_has_tried_even_when_one_fails() {
    if skip_unless_root("seeding_tcp_metrics_stops_once_every_pair_has_tried_even_when_one_fails") {
        return;
    }
    let p = pair();
    // A third "host" on a's loopback: b cannot reach it (b's own loopback
    // answers with a reset), every other ordered pair connects.
    let hosts = [
        (p.a.clone(), Ipv4Addr::new(10, 0, 0, 1)),
        (p.b.clone(), Ipv4Addr::new(10, 0, 0, 2)),
        (p.a.clone(), Ipv4Addr::LOCALHOST),
    ];
    let t = std::time::Instant::now();
    let got = lh_emu::host::tcp::seed_metrics(&hosts, Duration::from_secs(5)).unwrap();
    let took = t.elapsed();
    assert_eq!(got, 5, "5 of the 6 ordered pairs connect");
    // Before: the acceptor waited for the sixth connection until the
    // deadline, holding bring-up 5 s.
    assert!(took < Duration::from_secs(2), "took {took:?}");
}
