#!/usr/bin/env python3
"""BMv2 conformance cases for the Lighthouse P4 ToR (fixture: fixture.json).

    python3 p4/tests/bmv2_cases.py --json p4/build/lighthouse.json --cli tor0.cli

`tor0.cli` is what lh_p4gen renders for ToR 0 of fixture.json (the Rust test
`p4gen/tests/bmv2.rs` does both). Exit status 0 when every case passes.
Each case is a function taking the running switch; the same inputs and
expectations are meant to be replayed on the native ToR by a shared suite.
"""
import argparse
import re
import struct
import sys
import time
import zlib

from bmv2 import (Bmv2Tor, arp_request, ip, ipv4_udp, mac, parse_tag, push_srh,
                  rotation)

H1, H2 = "02:00:00:00:00:01", "02:00:00:00:00:02"
SLOT0 = 100
DROP_QUEUE_FULL, DROP_UNKNOWN_HOST, DROP_NOT_IPV4, DROP_BAD_HEADER = 2, 5, 7, 12
EV_REROUTED, EV_DEFERRED, EV_LATE_SLICE = 2, 3, 4


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


def case_slice_miss_defers(t):
    """The primary's slice cannot carry the frame (its circuit is dark the
    whole slice) and there is no alternate: the frame keeps the primary
    queue, flagged deferred (swtor waits a cycle)."""
    t.cli("register_write LhIngress.dark %d 60000000\n" % ((0 << 8) | 2))
    try:
        f = frame("10.0.0.3")
        t.send(1, f)
        expect_tag(t.recv(32), 2, SLOT0 + 2, flags=2)
        assert t.counter("events", EV_DEFERRED) >= 1
    finally:
        t.cli("register_write LhIngress.dark %d 0\n" % ((0 << 8) | 2))


EV_LATE_ROTATION = 6
SLICE_US = 100000


def _anchor(t, slot, back_us):
    """Set the program's clock to `slot` (slice 0) starting `back_us`
    before now on BMv2's clock, with 100-ms slices: with no start (no
    clock) a rotation frame starts it, then its start is moved back.
    Returns the start."""
    t.cli("register_write LhIngress.slice_len 0 %d\n" % SLICE_US)
    t.cli("register_write LhIngress.slice_start 0 0\n")
    t.send(64, rotation(0, slot))
    time.sleep(0.05)
    assert t.register("cur_slot", 0) == slot, "a rotation ahead of the clock was not taken"
    start = t.register("slice_start", 0) - back_us
    t.cli("register_write LhIngress.slice_start 0 %d\n" % start)
    return start


def _restore(t):
    t.cli("register_write LhIngress.slice_len 0 60000000\n")
    t.cli("register_write LhIngress.slice_start 0 0\n")
    t.send(64, rotation(0, SLOT0))
    time.sleep(0.1)
    assert t.register("cur_slot", 0) == SLOT0


# dst 1 (10.0.0.3) by arrival slice: arrival 0 has its own entry (uplink 0,
# departure slice 2), the others the wildcard one (uplink 1, slice 1).
DST1_BY_ARRIVAL = {0: (0, 2), 1: (1, 1), 2: (1, 1)}


def case_clock_runs_forward_by_the_slices_passed(t):
    """No rotation taken for 4.5 slices or more: a data frame runs the clock
    forward by every slice that passed, n = (its time - start) / slice as
    the program's own clock (the queue's occ_time) says: arrival n mod 3,
    its slot + rank. One clock advance counted; the registers stay."""
    before = t.counter("events", EV_LATE_SLICE)
    try:
        start = _anchor(t, SLOT0, 4 * SLICE_US + SLICE_US // 2)
        t.send(1, frame("10.0.0.3"))
        out = t.recv(32, 0.5)
        up = 0
        if out is None:
            out, up = t.recv(33, 0.5), 1
        assert out is not None, "no frame on either uplink"
        _, _, d, slot, _, _ = parse_tag(out)
        at = t.register("occ_time", (up << 8) | d)
        n = (at - start) // SLICE_US
        assert 4 <= n < 64, "the frame came %d slices after the start" % n
        arrival = n % 3
        want_up, want_d = DST1_BY_ARRIVAL[arrival]
        rank = (want_d - arrival) % 3
        assert (up, d, slot) == (want_up, want_d, SLOT0 + n + rank), \
            "(uplink, slice, slot) = %r, want %r after %d slices" % ((up, d, slot), (want_up, want_d, SLOT0 + n + rank), n)
        assert t.counter("events", EV_LATE_SLICE) == before + 1
        assert t.register("cur_slot", 0) == SLOT0 and t.register("slice_start", 0) == start
    finally:
        _restore(t)


def case_a_late_rotation_keeps_the_clock(t):
    """The clock is 1.5 slices or more into slot + 10 when a rotation frame
    for slot + 10 comes: it waited, so the clock keeps its start, run
    forward by the n slices passed (slot + 10 + n, slice n mod 3, start +
    n slices), and counts a late rotation. One ahead of the clock
    (slot + 100) starts it again from its own time."""
    try:
        start = _anchor(t, SLOT0 + 10, SLICE_US + SLICE_US // 2)
        before = t.counter("events", EV_LATE_ROTATION)
        t.send(64, rotation(0, SLOT0 + 10))
        time.sleep(0.05)
        slot, st = t.register("cur_slot", 0), t.register("slice_start", 0)
        n = slot - (SLOT0 + 10)
        assert 1 <= n < 64, "the late rotation moved the clock to slot + 10 + %d" % n
        # kept, one microsecond later (the creep that brings back a clock ahead)
        assert st == start + n * SLICE_US + 1, "the late rotation moved the slot's start: %d" % (st - start - n * SLICE_US)
        assert t.register("cur_slice", 0) == n % 3
        assert t.counter("events", EV_LATE_ROTATION) == before + 1
        t.send(64, rotation(2, SLOT0 + 100))
        time.sleep(0.05)
        assert t.register("cur_slot", 0) == SLOT0 + 100 and t.register("cur_slice", 0) == 2
        assert t.register("slice_start", 0) > st
        assert t.counter("events", EV_LATE_ROTATION) == before + 1
    finally:
        _restore(t)


def case_the_first_rotation_sets_the_clock(t):
    """With no clock yet (no start), a rotation frame sets it even for a
    slot the clock would have run past (slot 5, below its 63-slice
    horizon): BMv2 up for seconds must not make it look late."""
    try:
        t.cli("register_write LhIngress.slice_len 0 %d\n" % SLICE_US)
        t.cli("register_write LhIngress.slice_start 0 0\n")
        t.cli("register_write LhIngress.cur_slot 0 0\n")
        before = t.counter("events", EV_LATE_ROTATION)
        t.send(64, rotation(2, 5))
        time.sleep(0.05)
        assert (t.register("cur_slot", 0), t.register("cur_slice", 0)) == (5, 2), \
            "the first rotation was taken for a late one"
        assert t.counter("events", EV_LATE_ROTATION) == before
    finally:
        _restore(t)


def _add(t, line):
    r = t.cli(line + "\n")
    m = re.search(r"handle (\d+)", r.stdout)
    assert m, r.stdout
    return int(m.group(1))


def case_flow_bucket_is_crc32_mod_buckets(t):
    """multipath flow with 3 buckets: the bucket is CRC-32(5-tuple) mod 3;
    one entry per bucket sends bucket b to departure slice b."""
    handles = [_add(t, "table_add LhIngress.time_flow LhIngress.set_choices 1 0&&&65535 0&&&0 0&&&0 "
                       "%d&&&255 => 1 0 %d 0 0 0 0 0 0 0 0 0 0 3" % (b, b)) for b in range(3)]
    t.cli("register_write LhIngress.multipath_mode 0 2\nregister_write LhIngress.n_buckets 0 3\n")
    try:
        for sport in (1, 2, 3, 4, 5, 6):
            t.send(1, frame("10.0.0.3", sport=sport, dport=80))
            h = zlib.crc32(ip("10.0.0.1") + ip("10.0.0.3") + bytes([17]) + struct.pack("!HH", sport, 80))
            expect_tag(t.recv(32), h % 3, SLOT0 + h % 3)
    finally:
        t.cli("register_write LhIngress.multipath_mode 0 0\nregister_write LhIngress.n_buckets 0 1\n"
              + "".join("table_delete LhIngress.time_flow %d\n" % h for h in handles))


def case_packet_bucket_round_robin(t):
    """multipath packet with 3 buckets: buckets 1, 2, 0, 1, ... (the first
    packet gets bucket 1, like swtor's per-ToR counter)."""
    handles = [_add(t, "table_add LhIngress.time_flow LhIngress.set_choices 1 0&&&65535 0&&&0 0&&&0 "
                       "%d&&&255 => 1 0 %d 0 0 0 0 0 0 0 0 0 0 3" % (b, b)) for b in range(3)]
    t.cli("register_write LhIngress.pkt_seq 0 0\nregister_write LhIngress.multipath_mode 0 1\n"
          "register_write LhIngress.n_buckets 0 3\n")
    try:
        for want in (1, 2, 0, 1):
            t.send(1, frame("10.0.0.3"))
            expect_tag(t.recv(32), want, SLOT0 + want)
    finally:
        t.cli("register_write LhIngress.multipath_mode 0 0\nregister_write LhIngress.n_buckets 0 1\n"
              + "".join("table_delete LhIngress.time_flow %d\n" % h for h in handles))


def case_ucmp_class_by_flow_bytes(t):
    """UCMP: class 1 once the flow has sent 200 bytes (range table on the
    per-flow byte register); class-1 entries leave in slice 1."""
    handles = [_add(t, "table_add LhIngress.ucmp_class LhIngress.set_class 0->199 => 0 1"),
               _add(t, "table_add LhIngress.ucmp_class LhIngress.set_class 200->4294967295 => 1 1"),
               _add(t, "table_add LhIngress.time_flow LhIngress.set_choices 1 0&&&65535 0&&&0 1&&&255 "
                       "0&&&0 => 1 0 1 0 0 0 0 0 0 0 0 0 0 3")]
    t.cli("register_write LhIngress.use_classes 0 1\n")
    try:
        f = frame("10.0.0.3", size=120, sport=4242, dport=4242)
        t.send(1, f)
        expect_tag(t.recv(32), 2, SLOT0 + 2)   # 120 bytes seen: class 0
        t.send(1, f)
        expect_tag(t.recv(32), 1, SLOT0 + 1)   # 240 bytes seen: class 1
    finally:
        t.cli("register_write LhIngress.use_classes 0 0\ntable_delete LhIngress.ucmp_class %d\n"
              "table_delete LhIngress.ucmp_class %d\ntable_delete LhIngress.time_flow %d\n" % tuple(handles))


def case_bad_source_route_header(t):
    """A source-route header with version 2 from the fabric is dropped as
    bad_header; a host may not send one at all (not_ipv4, like swtor)."""
    before = t.counter("drops", DROP_BAD_HEADER)
    g = bytearray(push_srh(frame("10.0.0.5"), [(1, 2)]))
    g[14] = 2
    t.send(32, bytes(g))
    assert t.recv(32, 0.3) is None and t.recv(33, 0.1) is None
    assert t.counter("drops", DROP_BAD_HEADER) == before + 1
    # from a host, any Lighthouse header makes the frame "not IPv4"
    before = t.counter("drops", DROP_NOT_IPV4)
    t.send(1, push_srh(frame("10.0.0.5"), [(1, 2)]))
    assert t.recv(32, 0.3) is None and t.recv(33, 0.1) is None
    assert t.counter("drops", DROP_NOT_IPV4) == before + 1


def case_active_queue_drains_at_link_rate(t):
    """The active queue's estimate drains at the uplink rate. With rate 0 a
    1000-byte transit frame for "now" on uplink 0 cannot be carried (kept,
    deferred) and a second one overflows the 1500-byte queue (queue_full);
    with 10 Gb/s restored the estimate has drained and the next is admitted."""
    f = push_srh(frame("10.0.0.5", size=1000), [(0, 0xFFFF)])
    t.cli("register_write LhIngress.uplink_rate 0 0\n")
    try:
        t.send(33, f)
        expect_tag(t.recv(32), 0, SLOT0, flags=2)
        before = t.counter("drops", DROP_QUEUE_FULL)
        t.send(33, f)
        assert t.recv(32, 0.3) is None
        assert t.counter("drops", DROP_QUEUE_FULL) == before + 1
    finally:
        t.cli("register_write LhIngress.uplink_rate 0 1280000\n")
    time.sleep(0.01)
    t.send(33, f)
    expect_tag(t.recv(32), 0, SLOT0, flags=0)


CASES = [case_direct_hop, case_source_push, case_transit_pop, case_proxy_arp,
         case_local_delivery, case_alternate_on_full_queue, case_slice_miss_defers,
         case_clock_runs_forward_by_the_slices_passed, case_a_late_rotation_keeps_the_clock,
         case_the_first_rotation_sets_the_clock,
         case_flow_bucket_is_crc32_mod_buckets,
         case_packet_bucket_round_robin, case_ucmp_class_by_flow_bytes,
         case_bad_source_route_header, case_active_queue_drains_at_link_rate]


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
