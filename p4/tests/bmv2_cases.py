#!/usr/bin/env python3
"""BMv2 conformance cases for the Lighthouse P4 ToR (fixture: fixture.json).

    python3 p4/tests/bmv2_cases.py --json p4/build/lighthouse.json --cli tor0.cli

`tor0.cli` is what lh_p4gen renders for ToR 0 of fixture.json (the Rust test
`p4gen/tests/bmv2.rs` does both). Exit status 0 when every case passes.
Each case is a function taking the running switch; the same inputs and
expectations are meant to be replayed on the native ToR by a shared suite.
"""
import argparse
import struct
import sys
import time
import zlib

from bmv2 import (Bmv2Tor, arp_request, ip, ipv4_udp, mac, parse_tag, push_srh,
                  rotation)

H1, H2 = "02:00:00:00:00:01", "02:00:00:00:00:02"
SLOT0 = 100
DROP_QUEUE_FULL, DROP_UNKNOWN_HOST = 2, 5
EV_REROUTED = 2


def frame(dst_ip, size=None, sport=1000, dport=2000, dst_mac="02:00:00:00:00:09"):
    payload = b"x" * 18 if size is None else b"x" * (size - 14 - 28)
    return ipv4_udp(H1, dst_mac, "10.0.0.1", dst_ip, sport, dport, payload)


def expect_tag(f, slice_, slot, flags=0, nxt=0x0800):
    assert f is not None, "no frame on the uplink"
    tag = parse_tag(f)
    assert tag is not None, "no departure tag: %s" % f[:32].hex()
    kind, fl, sl, st, nx, rest = tag
    assert (kind, fl, sl, st, nx) == (1, flags, slice_, slot, nxt), \
        "tag (kind, flags, slice, slot, next) = %r, want %r" % ((kind, fl, sl, st, nx), (1, flags, slice_, slot, nxt))
    return rest


def case_direct_hop(t):
    """dst ToR 1 in arrival slice 0: the arrival-0 entry (more specific than
    the wildcard one) -> uplink 0, departure slice 2, slot + 2; and the flow
    hash is CRC-32/IEEE over the 13-byte 5-tuple."""
    f = frame("10.0.0.3", sport=1234, dport=5678)
    t.send(1, f)
    out = t.recv(32)
    rest = expect_tag(out, 2, SLOT0 + 2)
    assert out[:12] == f[:12] and rest == f[14:], "payload or MACs changed"
    assert t.recv(33, 0.2) is None
    h = t.register("last_flow_hash", 0)
    want = zlib.crc32(ip("10.0.0.1") + ip("10.0.0.3") + bytes([17]) + struct.pack("!HH", 1234, 5678))
    assert h == want, "flow hash %08x, CRC-32/IEEE %08x" % (h, want)


def case_source_push(t):
    """dst ToR 2: source route (1,0) (0,1) (1,now): leave on uplink 1 in
    slice 0 with the two remaining steps pushed."""
    f = frame("10.0.0.4")
    t.send(1, f)
    rest = expect_tag(t.recv(33), 0, SLOT0, nxt=0x88B5)
    want = bytes([1, 2, 0, 0, 1, 1, 0xFF, 0xFF]) + b"\x08\x00" + f[14:]
    assert rest == want, "pushed header %s, want %s" % (rest[:12].hex(), want[:12].hex())


def case_transit_pop(t):
    """A source-routed frame from the fabric: pop (1, 2), keep (0, now);
    and a last step removes the whole header."""
    f = frame("10.0.0.5")
    t.send(32, push_srh(f, [(1, 2), (0, 0xFFFF)]))
    rest = expect_tag(t.recv(33), 2, SLOT0 + 2, nxt=0x88B5)
    assert rest == bytes([1, 1, 0, 0xFF, 0xFF]) + b"\x08\x00" + f[14:], rest[:10].hex()
    t.send(33, push_srh(f, [(0, 0xFFFF)]))
    rest = expect_tag(t.recv(32), 0, SLOT0)
    assert rest == f[14:], "header not removed: %s" % rest[:10].hex()


def case_proxy_arp(t):
    """ARP for a fabric host is answered with its MAC; others are ignored."""
    t.send(1, arp_request(H1, "10.0.0.1", "10.0.0.3"))
    r = t.recv(1, keep=lambda f: f[12:14] == b"\x08\x06")
    assert r is not None, "no ARP reply"
    assert r[0:6] == mac(H1) and r[6:12] == mac("02:00:00:00:00:03")
    htype, ptype, hl, pl, op, sha, spa, tha, tpa = struct.unpack("!HHBBH6s4s6s4s", r[14:42])
    assert (op, sha, spa, tha, tpa) == (2, mac("02:00:00:00:00:03"), ip("10.0.0.3"), mac(H1), ip("10.0.0.1"))
    t.send(1, arp_request(H1, "10.0.0.1", "10.9.9.9"))
    assert t.recv(1, 0.3, keep=lambda f: f[12:14] == b"\x08\x06") is None, "answered an unknown IP"


def case_local_delivery(t):
    """Frames for this ToR's hosts go to their port, any header stripped."""
    f = ipv4_udp(H1, H2, "10.0.0.1", "10.0.0.2")
    t.send(1, f)
    assert t.recv(2) == f, "host-to-host frame changed or lost"
    t.send(32, push_srh(f, [(0, 5)]))
    assert t.recv(2) == f, "source-route header not stripped"
    before = t.counter("drops", DROP_UNKNOWN_HOST)
    t.send(1, frame("10.0.0.99"))
    time.sleep(0.2)
    assert t.counter("drops", DROP_UNKNOWN_HOST) == before + 1


def case_alternate_on_full_queue(t):
    """Queue capacity 1500 B: a second 1000-byte frame no longer fits the
    primary queue (uplink 0, slice 1) and takes the alternate (uplink 1,
    slice 2, flagged rerouted); a third fits neither and is dropped as
    queue_full."""
    f = frame("10.0.0.5", size=1000)
    t.send(1, f)
    expect_tag(t.recv(32), 1, SLOT0 + 1)
    t.send(1, f)
    expect_tag(t.recv(33), 2, SLOT0 + 2, flags=1)
    assert t.counter("events", EV_REROUTED) == 1
    before = t.counter("drops", DROP_QUEUE_FULL)
    t.send(1, f)
    assert t.recv(32, 0.3) is None and t.recv(33, 0.1) is None
    assert t.counter("drops", DROP_QUEUE_FULL) == before + 1


CASES = [case_direct_hop, case_source_push, case_transit_pop, case_proxy_arp,
         case_local_delivery, case_alternate_on_full_queue]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--log-dir")
    a = ap.parse_args()
    failed = 0
    with Bmv2Tor(a.json, log_dir=a.log_dir) as t:
        t.cli(open(a.cli).read())
        t.send(64, rotation(0, SLOT0))
        time.sleep(0.2)
        assert t.register("cur_slot", 0) == SLOT0, "rotation packet not taken"
        for c in CASES:
            t.drain()
            try:
                c(t)
                print("PASS %s" % c.__name__)
            except AssertionError as e:
                failed += 1
                print("FAIL %s: %s" % (c.__name__, e))
        print("log: %s" % t.log_dir)
    print("%d/%d cases passed" % (len(CASES) - failed, len(CASES)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
