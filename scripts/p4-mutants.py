#!/usr/bin/env python3
"""Mutation testing of the P4 ToR's smoke test (`lighthouse p4 check`).

Each mutant is one single-line change to a copy of p4/include/*.p4: an
operator swap, a constant off by one, a dropped statement or assignment, a
swapped action or parameter. The script never edits p4/: it copies
p4/lighthouse.p4 and p4/include/ into a temporary directory per mutant and
runs

    lighthouse p4 check --fail-fast --p4 <copy>/lighthouse.p4

A mutant is *caught* when a step fails (the first failing step is named),
*survives* when every step passes, and is *not viable* when it does not
compile (the check's compile step fails; p4c-bm2-ss runs with warnings as
errors). A mutant caught only by the pingall step is run again and counts
as caught only if it fails again (pingall is timing-sensitive). A
conformance step that fails without a frame that differs (a switch or the
harness failed, e.g. Thrift "not open" on a loaded machine) is no evidence:
the mutant runs once more, and is an *error* (not scored) if that happens
again. Before any
mutant, the unmutated copy must pass twice: a flaky baseline would inflate
the score.

    sudo python3 scripts/p4-mutants.py                    # all mutants
    sudo python3 scripts/p4-mutants.py --list             # list them, run nothing
    sudo python3 scripts/p4-mutants.py --only 3,17        # some of them
    sudo python3 scripts/p4-mutants.py --lighthouse target/release/lighthouse

Survivors listed in EQUIVALENT are reported with the reason no frame can
tell them apart, and left out of the score.

Exit status: 0 when the score (caught / viable) reaches --target (default
0.9), 1 when it does not, 2 when the baseline fails or a mutant no longer
applies to the program (the list must be kept in step with p4/include/).
Logs and a JSON report go to --out (default target/p4-mutants/).
Python standard library only.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
P4_DIR = os.path.join(ROOT, "p4")

# (file in p4/include/, the line as it is (stripped, must match exactly one
# line), old text in that line, new text, what the mutant does)
# An empty `new` with old == the whole line drops the statement.
MUTANTS = [
    # ---- LH_TRY: the admission try per choice (paper §6.2)
    ("ingress.p4", "if (d == DEPART_NOW) { d = meta.arrival; }                             \\",
     "d == DEPART_NOW", "d != DEPART_NOW", "'now' not resolved to the arrival slice (== -> !=)"),
    ("ingress.p4", "if (d >= meta.arrival) { rank = d - meta.arrival; }                    \\",
     "d >= meta.arrival", "d > meta.arrival", "rank of d == arrival wraps to S (>= -> >)"),
    ("ingress.p4", "bit<16> rank = d + meta.n_slices - meta.arrival;                       \\",
     "d + meta.n_slices - meta.arrival", "d + meta.n_slices - meta.arrival - 1", "wrapped rank off by one"),
    ("ingress.p4", "bit<32> idx = ((bit<32>)meta.port##K << 8) | (bit<32>)d;               \\",
     "<< 8", "<< 7", "queue index uplink << 7: uplink 1 reads another queue's dark time"),
    ("ingress.p4", "bit<32> target = meta.slot + (bit<32>)rank;                            \\",
     "meta.slot + (bit<32>)rank", "meta.slot", "target slot ignores the rank"),
    ("ingress.p4", "cap = ((bit<64>)rate * (bit<64>)(meta.slice_len - dk)) >> 10;      \\",
     ">> 10", ">> 9", "window capacity doubled (>> 10 -> >> 9)"),
    ("ingress.p4", "cap = ((bit<64>)rate * (bit<64>)(meta.slice_len - dk)) >> 10;      \\",
     "(meta.slice_len - dk)", "(meta.slice_len)", "window capacity ignores the dark time"),
    ("ingress.p4", "if (oslot != target) {                                                 \\",
     "oslot != target", "oslot == target", "decay applied to the current slot, not older ones (!= -> ==)"),
    ("ingress.p4", "if ((bit<64>)occ > cap) { occ = occ - (bit<32>)cap; }              \\",
     "occ = occ - (bit<32>)cap;", "occ = occ;", "an older slot's bytes never drain"),
    ("ingress.p4", "else { occ = 0; }                                                  \\",
     "occ = 0;", "occ = occ;", "an older slot that drained completely keeps its bytes"),
    ("ingress.p4", "bit<48> ws = meta.slot_start + (bit<48>)rank * meta.slice_len + dk;    \\",
     " + dk;", ";", "window start ignores the dark time"),
    ("ingress.p4", "if (rank == 0) {                                                       \\",
     "rank == 0", "rank != 0", "active-queue drain applied to later slots (== -> !=)"),
    ("ingress.p4", "if (otime > ws) { from = otime; }                                  \\",
     "if (otime > ws) { from = otime; }", "", "drain counted from the window start even after an update (dropped)"),
    ("ingress.p4", "if (meta.now > from) {                                             \\",
     "meta.now > from", "meta.now < from", "active queue never drains (> -> <)"),
    ("ingress.p4", "bit<64> gone = ((bit<64>)rate * (bit<64>)(meta.now - from)) >> 10; \\",
     ">> 10", ">> 11", "active queue drains at half the rate"),
    ("ingress.p4", "if (meta.now > ws) { start = meta.now; }                           \\",
     "if (meta.now > ws) { start = meta.now; }", "", "what is left of the window counted from its start (dropped)"),
    ("ingress.p4", "bit<48> end = meta.slot_start + meta.slice_len;                    \\",
     "meta.slot_start + meta.slice_len", "meta.slot_start + meta.slice_len + meta.slice_len",
     "active slot ends one slice late"),
    ("ingress.p4", "bit<32> need = occ + meta.len;                                         \\",
     "occ + meta.len", "meta.len", "the estimate ignores queued bytes"),
    ("ingress.p4", "if (meta.push##K != 0) {                                               \\",
     "meta.push##K != 0", "meta.push##K == 0", "pushed-header bytes counted for the wrong choices (!= -> ==)"),
    ("ingress.p4", "need = need + 4 + 3 * (bit<32>)meta.push##K;                       \\",
     "need + 4 + 3", "need + 3 + 3", "pushed header's fixed part off by one (4 -> 3)"),
    ("ingress.p4", "need = need + 4 + 3 * (bit<32>)meta.push##K;                       \\",
     "+ 3 * (bit<32>)", "+ 2 * (bit<32>)", "pushed header's step size off by one (3 -> 2)"),
    ("ingress.p4", "if (meta.port##K >= meta.n_uplinks) {                                  \\",
     "meta.port##K >= meta.n_uplinks", "meta.port##K > meta.n_uplinks", "uplink n_uplinks accepted (>= -> >)"),
    ("ingress.p4", "} else if (need > meta.qcap) {                                         \\",
     "need > meta.qcap", "need >= meta.qcap", "a queue filled exactly is full (> -> >=)"),
    ("ingress.p4", "} else if (meta.check_slice == 1 && (bit<64>)need > avail) {           \\",
     "(bit<64>)need > avail", "(bit<64>)need >= avail", "a frame that fills the window exactly misses it (> -> >=)"),
    ("ingress.p4", "} else if (meta.check_slice == 1 && (bit<64>)need > avail) {           \\",
     "meta.check_slice == 1", "meta.check_slice == 0", "slice-miss test on exactly when it is off (== 1 -> == 0)"),
    ("ingress.p4", "meta.pick = K;                                                     \\",
     "meta.pick = K;", "meta.pick = 0;", "the chosen alternate is not recorded"),
    ("ingress.p4", "meta.chosen = 1;                                                   \\",
     "meta.chosen = 1;", "", "later choices are tried after one fits (dropped)"),
    # ---- LH_TAKE: the chosen queue's registers
    ("ingress.p4", "meta.out_slot = meta.target##K;                                            \\",
     "meta.target##K", "meta.slot", "tag's slot is the arrival slot"),
    ("ingress.p4", "LH_WRITE(occ_bytes, meta.qidx##K, meta.occ##K);                            \\",
     "LH_WRITE(occ_bytes, meta.qidx##K, meta.occ##K);", "", "the estimate is never charged (dropped)"),
    ("ingress.p4", "LH_WRITE(occ_slot, meta.qidx##K, meta.target##K);                          \\",
     "LH_WRITE(occ_slot, meta.qidx##K, meta.target##K);", "", "the estimate's slot is never recorded (dropped)"),
    ("ingress.p4", "LH_WRITE(occ_time, meta.qidx##K, meta.now);",
     "LH_WRITE(occ_time, meta.qidx##K, meta.now);", "", "the estimate's update time is never recorded (dropped)"),
    # ---- source-route push
    ("ingress.p4", "if (meta.rs_n > I) {                                                       \\",
     "meta.rs_n > I", "meta.rs_n >= I", "one step too many pushed (> -> >=)"),
    ("ingress.p4", "hdr.steps[I].depart = meta.rs_depart##I;                               \\",
     "hdr.steps[I].depart = meta.rs_depart##I;", "", "pushed steps lose their departure slice (dropped)"),
    # ---- actions
    ("ingress.p4", "meta.local = 1;",
     "meta.local = 1;", "meta.local = 0;", "to_host does not mark the frame local"),
    ("ingress.p4", "meta.dst_tor = tor;",
     "meta.dst_tor = tor;", "", "to_tor does not set the destination ToR (dropped)"),
    ("ingress.p4", "meta.port1 = port1; meta.depart1 = depart1; meta.route1 = route1; meta.push1 = push1;",
     "meta.depart1 = depart1;", "meta.depart1 = depart2;", "set_choices: the first alternate gets the second's slice"),
    ("ingress.p4", "meta.port2 = port2; meta.depart2 = depart2; meta.route2 = route2; meta.push2 = push2;",
     "meta.port2 = port2;", "meta.port2 = port1;", "set_choices: the second alternate gets the first's uplink"),
    ("ingress.p4", "meta.port0 = port0; meta.depart0 = depart0; meta.route0 = route0; meta.push0 = push0;",
     "meta.push0 = push0;", "meta.push0 = 0;", "set_choices: the primary's pushed steps are not counted"),
    ("ingress.p4", "meta.rs_port6 = port6; meta.rs_depart6 = depart6;",
     "meta.rs_depart6 = depart6;", "meta.rs_depart6 = depart5;", "set_route: the 7th pushed step gets the 6th's slice"),
    ("ingress.p4", "meta.class = class;",
     "meta.class = class;", "", "set_class does nothing (dropped)"),
    # ---- apply: ingress kind, rotation, ARP, checks
    ("ingress.p4", "if (LH_IN_PORT >= UPLINK_BASE) {",
     "LH_IN_PORT >= UPLINK_BASE", "LH_IN_PORT > UPLINK_BASE", "uplink 0 is taken for a host port (>= -> >)"),
    # ---- the count swtor paces itself to (docs/p4.md, "Pacing")
    ("ingress.p4", "LH_COUNT(fabric_rx, 0);",
     "LH_COUNT(fabric_rx, 0);", "", "frames from swtor are not counted: its pacing starves"),
    ("ingress.p4", "LH_COUNT(fabric_rx, 0);",
     "fabric_rx, 0", "fabric_rx, 1", "the count goes to a cell nobody reads (index 0 -> 1)"),
    ("ingress.p4", "LH_WRITE(cur_slot, 0, hdr.shim.slot);",
     "LH_WRITE(cur_slot, 0, hdr.shim.slot);", "", "rotation does not set the slot (dropped)"),
    ("ingress.p4", "LH_WRITE(slice_start, 0, meta.now);",
     "LH_WRITE(slice_start, 0, meta.now);", "", "rotation does not set the slice start (dropped)"),
    ("ingress.p4", "&& hdr.arp.spa != hdr.arp.tpa) {",
     "hdr.arp.spa != hdr.arp.tpa", "hdr.arp.spa == hdr.arp.tpa", "proxy ARP answers only gratuitous ARP (!= -> ==)"),
    ("ingress.p4", "if (meta.arp_hit == 1 && meta.arp_mac != hdr.arp.sha) {",
     "meta.arp_mac != hdr.arp.sha", "meta.arp_mac == hdr.arp.sha", "proxy ARP answers only about the asker's own MAC (!= -> ==)"),
    ("ingress.p4", "hdr.arp.oper = 2;",
     "hdr.arp.oper = 2;", "hdr.arp.oper = 1;", "the ARP reply is sent as a request"),
    ("ingress.p4", "drop_with(DROP_NOT_IPV4);",
     "DROP_NOT_IPV4", "DROP_BAD_HEADER", "a host frame with a tag or source-route header counted as bad_header",
     0),
    ("ingress.p4", "} else if (hdr.eth.ether_type == ETH_IPV6) {",
     "hdr.eth.ether_type == ETH_IPV6", "hdr.eth.ether_type != ETH_IPV6", "IPv6 counted as not_ipv4 and others as ipv6 (== -> !=)"),
    ("ingress.p4", "} else if (!hosts.apply().hit) {",
     "!hosts.apply().hit", "hosts.apply().hit", "known hosts are unknown_host (hit negated)"),
    ("ingress.p4", "hdr.eth.ether_type = hdr.shim.next_type;",
     "hdr.eth.ether_type = hdr.shim.next_type;", "", "a stray tag is removed but its EtherType kept (dropped)"),
    ("ingress.p4", "hdr.srh.setInvalid();",
     "hdr.srh.setInvalid();", "", "local delivery keeps the source-route header (dropped)", 0),
    ("ingress.p4", "LH_SET_PORT(meta.host_port);",
     "LH_SET_PORT(meta.host_port);", "", "local delivery sends nowhere (dropped)"),
    # ---- the slice clock (docs/p4.md, "How the P4 program knows the current slice")
    ("ingress.p4", "if (meta.elapsed >= (meta.slice_len << B)) {                               \\",
     "meta.elapsed >= (meta.slice_len << B)", "meta.elapsed > (meta.slice_len << B)",
     "a frame exactly 2^B slices after the clock's start runs it fewer (>= -> >)"),
    ("ingress.p4", "meta.elapsed = meta.elapsed - (meta.slice_len << B);                   \\",
     "meta.elapsed = meta.elapsed - (meta.slice_len << B);", "", "a step does not use up its time: the smaller steps run too (dropped)"),
    ("ingress.p4", "meta.slot_start = meta.slot_start + (meta.slice_len << B);             \\",
     "meta.slot_start = meta.slot_start + (meta.slice_len << B);", "", "the clock run forward keeps the old slot start (dropped)"),
    ("ingress.p4", "meta.advanced = meta.advanced + (32w1 << B);                           \\",
     "32w1 << B", "32w2 << B", "a step counts twice its slices"),
    ("ingress.p4", "if (meta.slice_len != 0 && meta.now > meta.slot_start) {                   \\",
     "meta.now > meta.slot_start", "meta.now < meta.slot_start", "the clock never runs forward (> -> <)"),
    ("ingress.p4", "meta.slot = meta.slot + meta.advanced;                                 \\",
     "meta.slot = meta.slot + meta.advanced;", "", "the clock run forward keeps the old slot (dropped)"),
    ("ingress.p4", "LH_MOD_SLICES(meta.arrival, (bit<32>)meta.arrival + meta.advanced, meta.n_slices); \\",
     "(bit<32>)meta.arrival + meta.advanced", "(bit<32>)meta.arrival + 1", "the arrival slice runs one slice forward, however many passed (before 2026-12-06)"),
    ("arch.p4", "#define LH_CLOCK_WIDE           LH_CLOCK_STEP(5) LH_CLOCK_STEP(4) LH_CLOCK_STEP(3) \\",
     "LH_CLOCK_STEP(5) ", "", "the clock runs 31 slices forward at most (step 32 dropped)"),
    ("arch.p4", "LH_CLOCK_STEP(2) LH_CLOCK_STEP(1)",
     "LH_CLOCK_STEP(2) ", "", "no step of 4 slices (dropped)"),
    ("ingress.p4", "if (meta.clock_unset == 1 || behind > LH_CLOCK_HORIZON) {",
     "behind > LH_CLOCK_HORIZON", "behind <= LH_CLOCK_HORIZON", "a late rotation sets the clock and one ahead is ignored (> -> <=)"),
    ("ingress.p4", "if (meta.clock_unset == 1 || behind > LH_CLOCK_HORIZON) {",
     "meta.clock_unset == 1 || ", "", "a rotation with no clock yet may be taken for a late one"),
    ("ingress.p4", "if (meta.slot_start == 0) { meta.clock_unset = 1; }                        \\",
     "meta.clock_unset = 1;", "meta.clock_unset = 0;", "a cleared clock still counts as a clock"),
    ("ingress.p4", "meta.slot_start = meta.slot_start + 1;",
     "meta.slot_start = meta.slot_start + 1;", "", "a kept clock does not creep (dropped)"),
    ("ingress.p4", "LH_WRITE(cur_slice, 0, meta.arrival);",
     "LH_WRITE(cur_slice, 0, meta.arrival);", "", "a late rotation keeps the clock's slot but not its slice (dropped)"),
    ("ingress.p4", "LH_WRITE(cur_slot, 0, meta.slot);",
     "LH_WRITE(cur_slot, 0, meta.slot);", "", "a late rotation keeps the clock's start but not its slot (dropped)"),
    ("ingress.p4", "LH_WRITE(slice_start, 0, meta.slot_start);",
     "LH_WRITE(slice_start, 0, meta.slot_start);", "", "a late rotation keeps the clock's slot but not its start (dropped)"),
    # ---- source-route transit
    ("ingress.p4", "meta.depart0 = hdr.steps[0].depart;",
     "hdr.steps[0].depart", "hdr.steps[1].depart", "transit takes the next hop's slice"),
    ("ingress.p4", "hdr.srh.count = hdr.srh.count - 1;",
     "hdr.srh.count = hdr.srh.count - 1;", "", "transit does not count its step (dropped)"),
    ("ingress.p4", "if (hdr.srh.count == 0) {",
     "hdr.srh.count == 0", "hdr.srh.count == 1", "the header goes one step early (0 -> 1)"),
    ("ingress.p4", "hdr.eth.ether_type = hdr.srh_tail.ether_type;",
     "hdr.eth.ether_type = hdr.srh_tail.ether_type;", "", "the last pop keeps the source-route EtherType (dropped)"),
    # ---- flow hash, UCMP, multipath
    ("ingress.p4", "if (hdr.l4.isValid()) {",
     "hdr.l4.isValid()", "!hdr.l4.isValid()", "the flow hash never reads the ports (negated)"),
    ("ingress.p4", "bit<32> flen = (bit<32>)hdr.ipv4.total_len + 14;",
     "+ 14", "+ 13", "UCMP counts one byte less per frame (14 -> 13)"),
    ("ingress.p4", "if (ucmp == 1) {",
     "ucmp == 1", "ucmp == 0", "UCMP classes on exactly when off (== 1 -> == 0)"),
    ("ingress.p4", "seen = seen + flen;",
     "seen = seen + flen;", "", "the frame's own bytes not counted (dropped)"),
    ("ingress.p4", "LH_WRITE(flow_bytes, meta.flow_hash & 0xFFFF, seen);",
     "LH_WRITE(flow_bytes, meta.flow_hash & 0xFFFF, seen);", "", "flow bytes never stored (dropped)"),
    ("ingress.p4", "if (!time_flow.apply().hit) {",
     "!time_flow.apply().hit", "time_flow.apply().hit", "a time_flow hit is no_route, a miss goes on (hit negated)"),
    ("ingress.p4", "if (mode == 2) {",
     "mode == 2", "mode == 1", "flow and packet multipath swapped (2 -> 1)"),
    ("ingress.p4", "if (b >= nb) { b = 0; }",
     "b >= nb", "b > nb", "the packet bucket does not wrap at n (>= -> >)"),
    ("ingress.p4", "b = b + 1;",
     "b = b + 1;", "", "the packet bucket never advances (dropped)"),
    # ---- admission outcome
    ("ingress.p4", "meta.len = (bit<32>)hdr.ipv4.total_len + 14;",
     "+ 14", "+ 13", "frame bytes off by one (14 -> 13)"),
    ("ingress.p4", "meta.len = meta.len + 4 + 3 * (bit<32>)hdr.srh.count;",
     "meta.len + 4 + 3", "meta.len + 3", "a carried header's fixed part not counted"),
    ("ingress.p4", "LH_TRY(1)",
     "LH_TRY(1)", "", "the first alternate is never tried (dropped)"),
    ("ingress.p4", "LH_TRY(2)",
     "LH_TRY(2)", "", "the second alternate is never tried (dropped)"),
    ("ingress.p4", "if (meta.adm0 == ADM_MISS) {",
     "ADM_MISS", "ADM_FULL", "a full primary is deferred, a missed one dropped (MISS -> FULL)"),
    ("ingress.p4", "drop_with(DROP_QUEUE_FULL);",
     "DROP_QUEUE_FULL", "DROP_NO_ROUTE", "a full queue counted as no_route"),
    ("ingress.p4", "} else if (meta.pick == 1) {",
     "meta.pick == 1", "meta.pick == 2", "the first and second alternates' takes swapped (1 -> 2)"),
    ("ingress.p4", "if (meta.pick != 0) {",
     "meta.pick != 0", "meta.pick > 1", "the first alternate is not flagged rerouted (!= 0 -> > 1)"),
    ("ingress.p4", "if (meta.out_route != ROUTE_NONE) {",
     "meta.out_route != ROUTE_NONE", "meta.out_route == ROUTE_NONE", "route tails pushed for the wrong choices (!= -> ==)"),
    ("ingress.p4", "hdr.srh.version = 1;",
     "hdr.srh.version = 1;", "hdr.srh.version = 2;", "pushed header has version 2"),
    ("ingress.p4", "hdr.shim.slice = meta.out_slice;",
     "meta.out_slice", "meta.arrival", "tag's slice is the arrival slice"),
    ("ingress.p4", "if (hdr.srh.isValid()) { hdr.shim.next_type = ETH_SRH; }",
     "if (hdr.srh.isValid()) { hdr.shim.next_type = ETH_SRH; }", "", "a tag before a source-route header says IPv4 (dropped)"),
    # ---- parser
    ("parser.p4", "(1, 8): parse_step;",
     "(1, 8): parse_step;", "", "an 8-step header is malformed (dropped)"),
    ("parser.p4", "ETH_SRH:  parse_srh;",
     "ETH_SRH:  parse_srh;", "", "a tagged frame's source-route header is not parsed (dropped)", 1),
    ("parser.p4", "5: parse_ipv4_l4;",
     "5: parse_ipv4_l4;", "6: parse_ipv4_l4;", "IPv4 options skipped by the wrong length (5 -> 6)"),
    ("parser.p4", "(0, 17): parse_l4;",
     "(0, 17): parse_l4;", "", "UDP ports are not parsed (dropped)"),
    ("parser.p4", "(0, 6):  parse_l4;",
     "(0, 6):  parse_l4;", "(0, 7):  parse_l4;", "protocol 7's bytes taken for ports instead of TCP's (6 -> 7)"),
    # ---- constants
    ("headers.p4", "const bit<8> DROP_IPV6          = 8;",
     "= 8;", "= 9;", "ipv6 drops counted as host_queue (8 -> 9)"),
    ("headers.p4", "const bit<16> DEPART_NOW = 0xFFFF;   /* a step's \"leave now\" */",
     "0xFFFF", "0xFFFE", "'now' is 0xFFFE"),
]


# Survivors known to be equivalent: no frame can tell them from the
# program. Keyed by (file, old, new); each says why. They are reported as
# such and left out of the score's denominator. One that is caught is
# reported too: its note is wrong and must go.
EQUIVALENT = {
    ("ingress.p4", "hdr.eth.ether_type = hdr.shim.next_type;", ""):
        "dead assignment: every path after it sets the EtherType again (local delivery: IPv4;"
        " an uplink: the departure tag's)",
    ("ingress.p4", "meta.elapsed >= (meta.slice_len << B)", "meta.elapsed > (meta.slice_len << B)"):
        "differs only for a frame stamped exactly a whole number of slices, to the microsecond,"
        " after the clock's start: BMv2 stamps frames itself, so no case can place a frame there",
    ("ingress.p4", "meta.slot_start = meta.slot_start + 1;", ""):
        "one microsecond per late rotation: no frame of a case is that close to a slot's edge"
        " (p4/tests/bmv2_cases.py reads the register and checks it)",
    ("ingress.p4", "hdr.eth.ether_type = hdr.srh_tail.ether_type;", ""):
        "dead assignment: the popped frame always leaves on an uplink, whose departure tag sets"
        " the EtherType (tag, then IPv4)",
}


def equivalent(m):
    return EQUIVALENT.get((m["file"], m["old"], m["new"]))


def mutant_list():
    out = []
    for i, m in enumerate(MUTANTS, 1):
        fname, line, old, new, what = m[:5]
        nth = m[5] if len(m) > 5 else None
        out.append({"id": i, "file": fname, "line": line, "old": old, "new": new,
                    "what": what, "nth": nth})
    return out


def apply(m, src_dir):
    """Applies mutant m to the copy in src_dir; returns the line number."""
    path = os.path.join(src_dir, "include", m["file"])
    with open(path) as f:
        lines = f.read().split("\n")
    hits = [i for i, l in enumerate(lines) if l.strip() == m["line"]]
    if m["nth"] is not None and len(hits) > m["nth"]:
        hits = [hits[m["nth"]]]
    if len(hits) != 1:
        raise ValueError("mutant %d: %d lines of %s are %r" % (m["id"], len(hits), m["file"], m["line"]))
    i = hits[0]
    if lines[i].count(m["old"]) != 1:
        raise ValueError("mutant %d: %r is not once in %s:%d" % (m["id"], m["old"], m["file"], i + 1))
    lines[i] = lines[i].replace(m["old"], m["new"])
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return i + 1


def copy_program(dst):
    os.makedirs(dst)
    shutil.copy(os.path.join(P4_DIR, "lighthouse.p4"), dst)
    shutil.copytree(os.path.join(P4_DIR, "include"), os.path.join(dst, "include"))
    return os.path.join(dst, "lighthouse.p4")


def stop(p):
    """SIGTERM (lighthouse tears its run down), SIGKILL after 30 s."""
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def on_sigterm(_sig, _frame):
    raise KeyboardInterrupt


# How `p4 check` reports a frame whose outcome differs (cmd/src/cmd/p4.rs).
MISMATCH = ": expected "

STEP_RE = re.compile(r"^\[(PASS|FAIL)\] ([^:]+):")


def check(lighthouse, p4, log_path, timeout):
    """Runs the check; returns (status, first failing step, seconds)."""
    t0 = time.monotonic()
    cmd = [lighthouse, "p4", "check", "--fail-fast", "--p4", p4]
    with open(log_path, "w") as log:
        log.write("$ %s\n" % " ".join(cmd))
        log.flush()
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.PIPE,
                             text=True, errors="replace")
        try:
            _, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop(p)
            log.write(p.stderr.read() if p.stderr else "")
            return ("error", "timeout after %d s" % timeout, time.monotonic() - t0)
        except KeyboardInterrupt:
            # Ctrl-C or SIGTERM: the check removes its own run on SIGTERM.
            stop(p)
            raise
        log.write(err)
    secs = time.monotonic() - t0
    failed = None
    for l in err.splitlines():
        mm = STEP_RE.match(l)
        if mm and mm.group(1) == "FAIL" and failed is None:
            failed = mm.group(2).strip()
    if p.returncode == 0 and failed is None:
        return ("passed", None, secs)
    if failed is None:
        tail = " | ".join(err.strip().splitlines()[-3:])
        return ("error", "exit %d: %s" % (p.returncode, tail), secs)
    if failed.startswith("conformance") and MISMATCH not in err:
        # The step failed without a frame that differs: the harness or a
        # switch failed (e.g. Thrift "not open" under load), not the program.
        line = next((l.strip() for l in err.splitlines() if l.startswith("       ")), "")
        return ("error", "%s failed without a differing frame: %s" % (failed, line[:160]), secs)
    return ("failed", failed, secs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lighthouse", default=os.path.join(ROOT, "target/release/lighthouse"))
    ap.add_argument("--out", default=os.path.join(ROOT, "target/p4-mutants"))
    ap.add_argument("--only", help="comma-separated mutant ids")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--target", type=float, default=0.9, help="score to reach (default 0.9)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per check")
    ap.add_argument("--skip-baseline", action="store_true",
                    help="do not check the unmutated program first (the score is then unverified)")
    a = ap.parse_args()

    ms = mutant_list()
    if a.only:
        want = {int(x) for x in a.only.split(",") if x}
        ms = [m for m in ms if m["id"] in want]
    if a.list:
        for m in ms:
            print("%3d %-10s %s -> %s: %s" % (m["id"], m["file"], m["old"], m["new"] or "(dropped)", m["what"]))
        return 0
    if os.geteuid() != 0:
        print("p4-mutants: needs root (lighthouse p4 check makes network namespaces)", file=sys.stderr)
        return 2
    if not os.access(a.lighthouse, os.X_OK):
        print("p4-mutants: no %s (cargo build --release)" % a.lighthouse, file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    signal.signal(signal.SIGTERM, on_sigterm)
    tmp = tempfile.mkdtemp(prefix="lh-p4mut-")
    t_all = time.monotonic()
    try:
        # Every mutant must still apply: a stale list would score nothing.
        for m in ms:
            apply(m, os.path.dirname(copy_program(os.path.join(tmp, "dry%d" % m["id"]))))
        if not a.skip_baseline:
            base = copy_program(os.path.join(tmp, "baseline"))
            for k in (1, 2):
                st, step, secs = check(a.lighthouse, base, os.path.join(a.out, "baseline-%d.log" % k), a.timeout)
                print("baseline %d: %s%s (%.0f s)" % (k, st, " at " + step if step else "", secs), flush=True)
                if st != "passed":
                    print("p4-mutants: the unmutated program does not pass `p4 check` (%s); no score"
                          % os.path.join(a.out, "baseline-%d.log" % k), file=sys.stderr)
                    return 2
        results = []
        for m in ms:
            p4 = copy_program(os.path.join(tmp, "m%d" % m["id"]))
            lineno = apply(m, os.path.dirname(p4))
            log = os.path.join(a.out, "mutant-%02d.log" % m["id"])
            st, step, secs = check(a.lighthouse, p4, log, a.timeout)
            if st == "error":
                # Not evidence either way: once more.
                st, step, secs2 = check(a.lighthouse, p4, log.replace(".log", "-again.log"), a.timeout)
                secs += secs2
            if st == "failed" and step and step.startswith("compile"):
                verdict = "not viable"
            elif st == "failed" and step and step.startswith("pingall"):
                # Timing-sensitive: a catch must repeat.
                st2, step2, secs2 = check(a.lighthouse, p4, log.replace(".log", "-again.log"), a.timeout)
                secs += secs2
                verdict = "caught" if st2 == "failed" else "survived"
                if st2 != "failed":
                    step = "pingall failed once, passed on the rerun"
            elif st == "failed":
                verdict = "caught"
            elif st == "passed":
                verdict = "survived"
            else:
                verdict = "error"
            r = dict(m, lineno=lineno, verdict=verdict, step=step, seconds=round(secs, 1))
            results.append(r)
            print("%3d %-10s %-14s %-28s %4.0f s  %s" % (
                m["id"], verdict, "%s:%d" % (m["file"], lineno), (step or "-")[:28], secs, m["what"]),
                flush=True)
        for r in results:
            if r["verdict"] == "survived" and equivalent(r):
                r["verdict"] = "equivalent"
        viable = [r for r in results if r["verdict"] in ("caught", "survived")]
        caught = [r for r in viable if r["verdict"] == "caught"]
        score = len(caught) / len(viable) if viable else 0.0
        wall = time.monotonic() - t_all
        by_step = {}
        for r in caught:
            by_step[r["step"]] = by_step.get(r["step"], 0) + 1
        print("\n*** Mutants: %d, not viable %d, equivalent %d, errors %d, viable %d, caught %d, survived %d"
              % (len(results), sum(r["verdict"] == "not viable" for r in results),
                 sum(r["verdict"] == "equivalent" for r in results),
                 sum(r["verdict"] == "error" for r in results), len(viable), len(caught),
                 len(viable) - len(caught)))
        for s, n in sorted(by_step.items(), key=lambda x: -x[1]):
            print("    caught by %s: %d" % (s, n))
        for r in results:
            if r["verdict"] == "equivalent":
                print("    EQUIVALENT: %d %s:%d %s -> %s: %s" % (
                    r["id"], r["file"], r["lineno"], r["old"], r["new"] or "(dropped)", equivalent(r)))
            elif r["verdict"] == "caught" and equivalent(r):
                print("    NOTE: %d is listed as equivalent but was caught (%s): remove it from EQUIVALENT"
                      % (r["id"], r["step"]))
        for r in results:
            if r["verdict"] in ("survived", "error"):
                print("    %s: %d %s:%d %s -> %s (%s)%s" % (
                    r["verdict"].upper(), r["id"], r["file"], r["lineno"], r["old"], r["new"] or "(dropped)",
                    r["what"], ": " + r["step"] if r["step"] else ""))
        print("*** Score: %d/%d = %.0f%% (target %.0f%%), %.0f s wall"
              % (len(caught), len(viable), 100 * score, 100 * a.target, wall))
        with open(os.path.join(a.out, "report.json"), "w") as f:
            json.dump({"score": score, "viable": len(viable), "caught": len(caught),
                       "wall_seconds": round(wall), "load": os.getloadavg(),
                       "mutants": results}, f, indent=1)
        return 0 if score >= a.target else 1
    except ValueError as e:
        print("p4-mutants: %s" % e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("p4-mutants: interrupted; no score", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
