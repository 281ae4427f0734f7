//! The receive ring (`swtor::afpacket::RingSocket`) against real veths: it
//! gives the engine what `recvmmsg` gives it (the bytes, the interface,
//! truncation of a frame longer than a slot), skips the socket's own
//! transmissions, and leaves a frame in the ring when the pool is empty.

mod common;

use common::*;
use swtor::afpacket::{RawSocket, RingSocket, SocketOptions, if_nametoindex};
use swtor::pool::{FramePool, MAX_FRAME};

/// A frame of `len` bytes: broadcast, the local experimental EtherType,
/// then `tag` repeated.
fn frame(len: usize, tag: u8) -> Vec<u8> {
    let mut f = vec![tag; len];
    f[..6].copy_from_slice(&[0xff; 6]);
    f[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
    f[12..14].copy_from_slice(&0x88b5u16.to_be_bytes());
    f
}

/// Receives until `want` frames came or `ms` milliseconds passed.
fn recv_for(
    ring: &mut RingSocket,
    pool: &mut FramePool,
    want: usize,
    ms: u64,
) -> Vec<swtor::afpacket::RxFrame> {
    let mut out = Vec::new();
    let t0 = std::time::Instant::now();
    while out.len() < want && t0.elapsed() < std::time::Duration::from_millis(ms) {
        ring.recv_batch(pool, &mut out, swtor::monotonic_ns())
            .unwrap();
        if out.len() < want {
            ring.wait(10_000_000).unwrap();
        }
    }
    out
}

/// Receives until `want` frames came or two seconds passed.
fn recv_n(
    ring: &mut RingSocket,
    pool: &mut FramePool,
    want: usize,
) -> Vec<swtor::afpacket::RxFrame> {
    recv_for(ring, pool, want, 2000)
}

#[test]
fn the_receive_ring_gives_what_recvmmsg_gives() {
    let Some(_serial) = can_run("the_receive_ring_gives_what_recvmmsg_gives") else {
        return;
    };
    let net = Net::new(&[0]);
    let (host, tor_if) = (net.hosts[0].ns.clone(), net.hosts[0].attach.ifname.clone());
    // A jumbo MTU so that a frame longer than a pool slot can be sent.
    run(&["ip", "-n", &host, "link", "set", "eth0", "mtu", "9000"]);
    run(&[
        "ip",
        "-n",
        &net.fabric,
        "link",
        "set",
        &tor_if,
        "mtu",
        "9000",
    ]);
    let tor_if2 = tor_if.clone();
    let (mut ring, ifindex) = in_ns(net.fabric_path(), move || {
        (
            RingSocket::open(SocketOptions::default()).unwrap(),
            if_nametoindex(&tor_if2).unwrap(),
        )
    });
    let mut tx = in_ns(net.host_path(0), || {
        RawSocket::open(SocketOptions {
            ifindex: Some(if_nametoindex("eth0").unwrap()),
            ..Default::default()
        })
        .unwrap()
    });
    let eth0 = in_ns(net.host_path(0), || if_nametoindex("eth0").unwrap());
    let send = |tx: &mut RawSocket, frames: &[Vec<u8>]| {
        let mut pool = FramePool::with_slot(frames.len(), 4096);
        let idx: Vec<(u32, i32)> = frames
            .iter()
            .map(|f| (pool.alloc_from(f).unwrap(), eth0))
            .collect();
        assert_eq!(tx.send_batch(&pool, &idx).unwrap(), frames.len());
    };

    // Sizes up to a slot arrive whole, in order, on the ToR-side interface.
    let sent = [frame(60, 1), frame(1514, 2), frame(MAX_FRAME, 3)];
    send(&mut tx, &sent);
    let mut pool = FramePool::new(8);
    let got = recv_n(&mut ring, &mut pool, 3);
    assert_eq!(got.len(), 3, "{got:?}");
    for (g, s) in got.iter().zip(&sent) {
        assert_eq!(g.ifindex, ifindex);
        assert!(!g.truncated && !g.csum_not_ready, "{g:?}");
        assert_eq!(pool.data(g.idx), &s[..]);
        pool.release(g.idx);
    }

    // A longer frame (a UDP datagram of 2,900 bytes to a neighbour the
    // host knows, one 2,942-byte frame) arrives cut to a slot and marked so.
    run(&[
        "ip",
        "-n",
        &host,
        "neigh",
        "add",
        "10.0.0.99",
        "lladdr",
        "02:00:00:00:00:99",
        "dev",
        "eth0",
    ]);
    let ip = net.hosts[0].ip;
    in_ns(net.host_path(0), move || {
        let u = std::net::UdpSocket::bind((ip, 0)).unwrap();
        assert_eq!(u.send_to(&[4u8; 2900], ("10.0.0.99", 9)).unwrap(), 2900);
    });
    let got = recv_n(&mut ring, &mut pool, 1);
    assert_eq!(got.len(), 1);
    assert!(got[0].truncated, "{got:?}");
    let d = pool.data(got[0].idx);
    assert_eq!(d.len(), MAX_FRAME);
    assert_eq!(&d[..6], &[2, 0, 0, 0, 0, 0x99]);
    assert!(d[42..].iter().all(|&b| b == 4));
    pool.release(got[0].idx);

    // With no free slot a frame waits in the ring, and comes next.
    let mut small = FramePool::new(1);
    send(&mut tx, &[frame(100, 5), frame(100, 6)]);
    let first = recv_for(&mut ring, &mut small, 2, 200);
    assert_eq!(first.len(), 1, "one slot, one frame");
    assert_eq!(small.data(first[0].idx)[20], 5);
    small.release(first[0].idx);
    let second = recv_n(&mut ring, &mut small, 1);
    assert_eq!(small.data(second[0].idx)[20], 6);
    small.release(second[0].idx);

    // What the socket itself sends is not received.
    let mut own = FramePool::new(1);
    let i = own.alloc_from(&frame(100, 7)).unwrap();
    assert_eq!(
        swtor::Port::send_batch(&mut ring, &own, &[(i, ifindex)]).unwrap(),
        1
    );
    std::thread::sleep(std::time::Duration::from_millis(50));
    let mut rest = Vec::new();
    ring.recv_batch(&mut pool, &mut rest, swtor::monotonic_ns())
        .unwrap();
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(swtor::Port::take_drops(&mut ring), 0);
}
