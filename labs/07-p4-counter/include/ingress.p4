/* The Lighthouse ToR ingress: slice learning, host table, time-flow lookup,
 * occupancy estimation, slice-miss detection, recirculation-free choice,
 * source-route push/pop, proxy ARP, departure tag. Shared by both
 * architectures through the macros of include/arch.p4. docs/p4.md has the
 * register and table reference. */

/* One admission try for choice K (0 primary, 1 and 2 alternates), the
 * estimator of paper §6.2 and swtor's `admit()`:
 *   d      = departure slice (arrival for "now"), rank = (d - a) mod S
 *   occ    = estimated bytes in calendar queue (uplink, d), after draining:
 *            a queue last charged for an older slot had that whole slice
 *            (minus its dark time) to send; the active queue (rank 0) also
 *            drains at the uplink rate since max(last update, window start)
 *   need   = occ + len (+ 4 + 3n bytes for a pushed source-route header)
 *   full   : need > queue_capacity
 *   miss   : need > what the circuit can still carry in that slot
 *            (rate x (slot end - max(window start, now)) for rank 0,
 *             rate x (slice_len - dark) later) */
#define LH_TRY(K)                                                              \
    if (meta.n_choices > K && meta.chosen == 0) {                              \
        bit<16> d = meta.depart##K;                                            \
        if (d == DEPART_NOW) { d = meta.arrival; }                             \
        bit<16> rank = d + meta.n_slices - meta.arrival;                       \
        if (d >= meta.arrival) { rank = d - meta.arrival; }                    \
        bit<32> idx = ((bit<32>)meta.port##K << 8) | (bit<32>)d;               \
        bit<32> occ;  bit<32> oslot;  bit<48> otime;                           \
        bit<32> dark32;  bit<32> rate;                                         \
        LH_READ(occ, occ_bytes, idx);                                          \
        LH_READ(oslot, occ_slot, idx);                                         \
        LH_READ(otime, occ_time, idx);                                         \
        LH_READ(dark32, dark, idx);                                            \
        LH_READ(rate, uplink_rate, meta.port##K);                              \
        bit<48> dk = (bit<48>)dark32;                                          \
        bit<32> target = meta.slot + (bit<32>)rank;                            \
        bit<64> cap = 0;                                                       \
        if (meta.slice_len > dk) {                                             \
            cap = ((bit<64>)rate * (bit<64>)(meta.slice_len - dk)) >> 10;      \
        }                                                                      \
        if (oslot != target) {                                                 \
            if ((bit<64>)occ > cap) { occ = occ - (bit<32>)cap; }              \
            else { occ = 0; }                                                  \
            otime = 0;                                                         \
        }                                                                      \
        bit<48> ws = meta.slot_start + (bit<48>)rank * meta.slice_len + dk;    \
        bit<64> avail = cap;                                                   \
        if (rank == 0) {                                                       \
            bit<48> from = ws;                                                 \
            if (otime > ws) { from = otime; }                                  \
            if (meta.now > from) {                                             \
                bit<64> gone = ((bit<64>)rate * (bit<64>)(meta.now - from)) >> 10; \
                if ((bit<64>)occ > gone) { occ = occ - (bit<32>)gone; }        \
                else { occ = 0; }                                              \
            }                                                                  \
            bit<48> start = ws;                                                \
            if (meta.now > ws) { start = meta.now; }                           \
            bit<48> end = meta.slot_start + meta.slice_len;                    \
            avail = 0;                                                         \
            if (end > start) {                                                 \
                avail = ((bit<64>)rate * (bit<64>)(end - start)) >> 10;        \
            }                                                                  \
        }                                                                      \
        bit<32> need = occ + meta.len;                                         \
        if (meta.push##K != 0) {                                               \
            need = need + 4 + 3 * (bit<32>)meta.push##K;                       \
        }                                                                      \
        meta.qidx##K = idx;                                                    \
        meta.occ##K = need;                                                    \
        meta.target##K = target;                                               \
        meta.d##K = d;                                                         \
        if (meta.port##K >= meta.n_uplinks) {                                  \
            meta.adm##K = ADM_NOPORT;                                          \
        } else if (need > meta.qcap) {                                         \
            meta.adm##K = ADM_FULL;                                            \
        } else if (meta.check_slice == 1 && (bit<64>)need > avail) {           \
            meta.adm##K = ADM_MISS;                                            \
        } else {                                                               \
            meta.adm##K = ADM_OK;                                              \
            meta.chosen = 1;                                                   \
            meta.pick = K;                                                     \
        }                                                                      \
    }

#define LH_TAKE(K)                                                             \
    meta.out_uplink = meta.port##K;                                            \
    meta.out_slice = meta.d##K;                                                \
    meta.out_slot = meta.target##K;                                            \
    meta.out_route = meta.route##K;                                            \
    LH_WRITE(occ_bytes, meta.qidx##K, meta.occ##K);                            \
    LH_WRITE(occ_slot, meta.qidx##K, meta.target##K);                          \
    LH_WRITE(occ_time, meta.qidx##K, meta.now);

/* The slice clock (docs/p4.md, "How the P4 program knows the current
 * slice"): the slot, slice and start the last rotation frame left in
 * cur_slot / cur_slice / slice_start, run forward to now by whole slices.
 * No runtime division: the slices passed are found bit by bit, largest
 * first (LH_CLOCK_WIDE in arch.p4 holds the steps above one slice). */
#define LH_CLOCK_STEP(B)                                                       \
    if (meta.elapsed >= (meta.slice_len << B)) {                               \
        meta.elapsed = meta.elapsed - (meta.slice_len << B);                   \
        meta.slot_start = meta.slot_start + (meta.slice_len << B);             \
        meta.advanced = meta.advanced + (32w1 << B);                           \
    }

#define LH_CLOCK()                                                             \
    bit<32> len32;                                                             \
    LH_READ(meta.arrival, cur_slice, 0);                                       \
    LH_READ(meta.slot, cur_slot, 0);                                           \
    LH_READ(meta.slot_start, slice_start, 0);                                  \
    LH_READ(len32, slice_len, 0);                                              \
    meta.slice_len = (bit<48>)len32;                                           \
    LH_READ(meta.n_slices, n_slices, 0);                                       \
    if (meta.n_slices == 0) { meta.n_slices = 1; }                             \
    meta.clock_unset = 0;                                                      \
    if (meta.slot_start == 0) { meta.clock_unset = 1; }                        \
    meta.advanced = 0;                                                         \
    meta.elapsed = 0;                                                          \
    if (meta.slice_len != 0 && meta.now > meta.slot_start) {                   \
        meta.elapsed = meta.now - meta.slot_start;                             \
        LH_CLOCK_WIDE                                                          \
        LH_CLOCK_STEP(0)                                                       \
    }                                                                          \
    if (meta.advanced != 0) {                                                  \
        meta.slot = meta.slot + meta.advanced;                                 \
        LH_MOD_SLICES(meta.arrival, (bit<32>)meta.arrival + meta.advanced, meta.n_slices); \
    }

#define LH_PUSH_STEP(I)                                                        \
    if (meta.rs_n > I) {                                                       \
        hdr.steps[I].setValid();                                               \
        hdr.steps[I].port = meta.rs_port##I;                                   \
        hdr.steps[I].depart = meta.rs_depart##I;                               \
    }

control LhIngress(inout headers_t hdr, inout meta_t meta, LH_INGRESS_PARAMS) {

    /* ---- registers written by the control plane (p4gen) ---- */
    LH_REG(bit<16>, 1, n_slices);          /* S */
    LH_REG(bit<32>, 1, slice_len);         /* slice duration (time units) */
    LH_REG(bit<8>,  1, n_uplinks);         /* uplinks of this ToR */
    LH_REG(bit<8>,  1, multipath_mode);    /* 0 none, 1 packet, 2 flow */
    LH_REG(bit<8>,  1, n_buckets);         /* buckets (>= 1) */
    LH_REG(bit<8>,  1, use_classes);       /* 1: UCMP classes by flow bytes */
    LH_REG(bit<8>,  1, slice_check);       /* 1: slice-miss detection on */
    LH_REG(bit<32>, 1, queue_capacity);    /* calendar queue bytes */
    LH_REG(bit<32>, LH_MAX_UPLINKS, uplink_rate); /* bytes per 1024 time units */
    LH_REG(bit<32>, LH_QUEUES, dark);      /* [uplink<<8|slice] window start */
    /* ---- slice clock, written by rotation packets ---- */
    LH_REG(bit<16>, 1, cur_slice);
    LH_REG(bit<32>, 1, cur_slot);
    LH_REG(bit<48>, 1, slice_start);
    /* ---- data-plane state ---- */
    LH_REG(bit<32>, LH_QUEUES, occ_bytes); /* estimated queue bytes */
    LH_REG(bit<32>, LH_QUEUES, occ_slot);  /* absolute slot they were for */
    LH_REG(bit<48>, LH_QUEUES, occ_time);  /* last update */
    LH_REG(bit<8>,  1, pkt_seq);           /* multipath packet: bucket of the last packet */
    LH_REG(bit<32>, LH_FLOW_SLOTS, flow_bytes); /* UCMP bytes per flow slot */
    LH_REG(bit<32>, 1, last_flow_hash);    /* debug: CRC-32 of the last frame */

    LH_COUNTER(LH_DROP_REASONS, drops);
    LH_COUNTER(32, host_rx);               /* by host port (1 + k) */
    LH_COUNTER(32, host_tx);               /* by host port (1 + k) */
    LH_COUNTER(LH_MAX_UPLINKS, uplink_tx); /* by uplink */
    LH_COUNTER(LH_EVENTS, events);

    LH_FLOW_HASH_DECL

    action drop_with(bit<8> reason) {
        meta.drop = 1;
        meta.drop_reason = reason;
    }

    /* ---- hosts: destination IPv4 -> local host port or destination ToR */
    action to_host(bit<9> port) {
        meta.local = 1;
        meta.host_port = port;
    }
    action to_tor(bit<16> tor) {
        meta.local = 0;
        meta.dst_tor = tor;
    }
    table hosts {
        key = { hdr.ipv4.dst_addr : exact; }
        actions = { to_host; to_tor; @defaultonly NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    /* ---- proxy ARP: target IP -> MAC of that fabric host */
    action arp_answer(bit<48> mac) {
        meta.arp_hit = 1;
        meta.arp_mac = mac;
    }
    table arp_proxy {
        key = { hdr.arp.tpa : exact; }
        actions = { arp_answer; @defaultonly NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    /* ---- UCMP class from the bytes the flow has sent so far */
    action set_class(bit<8> class) {
        meta.class = class;
    }
    table ucmp_class {
        key = { meta.flow_seen : range; }
        actions = { set_class; @defaultonly NoAction; }
        default_action = NoAction();
        size = 16;
    }

    /* ---- the time-flow table (docs/tables.md): most specific entry wins
     * through the priority; primary + up to 2 alternates per entry. */
    action set_choices(bit<2> n,
                       bit<8> port0, bit<16> depart0, bit<16> route0, bit<8> push0,
                       bit<8> port1, bit<16> depart1, bit<16> route1, bit<8> push1,
                       bit<8> port2, bit<16> depart2, bit<16> route2, bit<8> push2) {
        meta.n_choices = n;
        meta.port0 = port0; meta.depart0 = depart0; meta.route0 = route0; meta.push0 = push0;
        meta.port1 = port1; meta.depart1 = depart1; meta.route1 = route1; meta.push1 = push1;
        meta.port2 = port2; meta.depart2 = depart2; meta.route2 = route2; meta.push2 = push2;
    }
    table time_flow {
        key = {
            meta.dst_tor : exact   @name("dst");
            meta.arrival : ternary @name("arrival");
            meta.kind    : ternary @name("ingress");
            meta.class   : ternary @name("class");
            meta.bucket  : ternary @name("bucket");
        }
        actions = { set_choices; @defaultonly NoAction; }
        default_action = NoAction();
        size = 65536;
    }

    /* ---- source routes: route id -> the steps after the first */
    action set_route(bit<8> n,
                     bit<8> port0, bit<16> depart0, bit<8> port1, bit<16> depart1,
                     bit<8> port2, bit<16> depart2, bit<8> port3, bit<16> depart3,
                     bit<8> port4, bit<16> depart4, bit<8> port5, bit<16> depart5,
                     bit<8> port6, bit<16> depart6) {
        meta.rs_n = n;
        meta.rs_port0 = port0; meta.rs_depart0 = depart0;
        meta.rs_port1 = port1; meta.rs_depart1 = depart1;
        meta.rs_port2 = port2; meta.rs_depart2 = depart2;
        meta.rs_port3 = port3; meta.rs_depart3 = depart3;
        meta.rs_port4 = port4; meta.rs_depart4 = depart4;
        meta.rs_port5 = port5; meta.rs_depart5 = depart5;
        meta.rs_port6 = port6; meta.rs_depart6 = depart6;
    }
    table source_routes {
        key = { meta.out_route : exact @name("route"); }
        actions = { set_route; @defaultonly NoAction; }
        default_action = NoAction();
        size = 65536;
    }

    apply {
        meta.now = LH_NOW;
        meta.drop = 0;
        meta.chosen = 0;
        meta.pick = 0;
        meta.flags = 0;
        meta.local = 0;
        meta.arp_hit = 0;
        meta.n_choices = 0;
        meta.class = 0;
        meta.bucket = 0;
        meta.kind = KIND_HOST;
        if (LH_IN_PORT >= UPLINK_BASE) { meta.kind = KIND_FABRIC; }

        if (LH_IN_PORT == CPU_PORT) {
            /* Rotation packet (docs/p4.md): learn the slice, then drop. */
            if (hdr.shim.isValid() && hdr.shim.kind == SHIM_ROTATION) {
                LH_CLOCK()
                /* The frame says slot `slot` had begun by now. Rotation
                 * frames are only ever late: swtor sends one at the slot's
                 * start, and the switch stamps it when its receive thread
                 * reads it off the socket, after any wait for a core. So
                 * a clock already at that slot or past it keeps its start:
                 * taking `now` would date the slot as late as the frame
                 * waited, and every tag after it with it. A clock behind
                 * the frame (`behind` wraps), none yet (no start), or more
                 * than its horizon ahead (a restarted sender) starts from
                 * the frame. */
                bit<32> behind = meta.slot - hdr.shim.slot;
                if (meta.clock_unset == 1 || behind > LH_CLOCK_HORIZON) {
                    LH_WRITE(cur_slice, 0, hdr.shim.slice);
                    LH_WRITE(cur_slot, 0, hdr.shim.slot);
                    LH_WRITE(slice_start, 0, meta.now);
                } else {
                    /* A start kept creeps one time unit later per rotation
                     * (never past the rotation's own time): a clock that
                     * ran ahead (BMv2's wall clock stepped forward, or a
                     * slice_len rounded down to whole microseconds) comes
                     * back, until a rotation shows an earlier start again
                     * (then the clock is behind it and starts from it). */
                    if (meta.now > meta.slot_start) {
                        meta.slot_start = meta.slot_start + 1;
                    }
                    LH_WRITE(cur_slice, 0, meta.arrival);
                    LH_WRITE(cur_slot, 0, meta.slot);
                    LH_WRITE(slice_start, 0, meta.slot_start);
                    if (behind != 0) { LH_COUNT(events, EV_LATE_ROTATION); }
                }
                LH_COUNT(events, EV_ROTATION);
            }
            LH_DROP();
        } else if (hdr.arp.isValid()) {
            /* Proxy ARP for the hosts of the fabric; never forwarded. */
            if (meta.kind == KIND_HOST && hdr.arp.htype == 1 && hdr.arp.ptype == ETH_IPV4
                    && hdr.arp.hlen == 6 && hdr.arp.plen == 4 && hdr.arp.oper == 1
                    && hdr.arp.spa != hdr.arp.tpa) {
                arp_proxy.apply();
            }
            if (meta.arp_hit == 1 && meta.arp_mac != hdr.arp.sha) {
                bit<32> asked = hdr.arp.tpa;
                hdr.eth.dst_addr = hdr.arp.sha;
                hdr.eth.src_addr = meta.arp_mac;
                hdr.arp.oper = 2;
                hdr.arp.tha = hdr.arp.sha;
                hdr.arp.tpa = hdr.arp.spa;
                hdr.arp.sha = meta.arp_mac;
                hdr.arp.spa = asked;
                LH_SET_PORT(LH_IN_PORT);
                LH_COUNT(events, EV_ARP_REPLY);
            } else {
                LH_COUNT(events, EV_ARP_IGNORED);
                LH_DROP();
            }
        } else {
            if (meta.kind == KIND_HOST) {
                LH_COUNT(host_rx, LH_IN_PORT);
            }
            if (meta.kind == KIND_HOST
                    && (hdr.shim.isValid() || hdr.srh.isValid() || meta.bad_srh == 1)) {
                /* Hosts send plain Ethernet/IPv4 (swtor: EtherType not IPv4). */
                drop_with(DROP_NOT_IPV4);
            } else if (meta.bad_srh == 1) {
                drop_with(DROP_BAD_HEADER);
            } else if (!hdr.ipv4.isValid()) {
                if (meta.kind == KIND_FABRIC) {
                    drop_with(DROP_BAD_HEADER);
                } else if (hdr.eth.ether_type == ETH_IPV6) {
                    drop_with(DROP_IPV6);
                } else {
                    drop_with(DROP_NOT_IPV4);
                }
            } else if (!hosts.apply().hit) {
                drop_with(DROP_UNKNOWN_HOST);
            }

            /* A stray tag from the fabric is not ours to keep. */
            if (hdr.shim.isValid()) {
                hdr.eth.ether_type = hdr.shim.next_type;
                hdr.shim.setInvalid();
            }

            if (meta.drop == 0 && meta.local == 1) {
                /* Local delivery: strip any source-route header. */
                hdr.srh.setInvalid();
                hdr.steps[0].setInvalid(); hdr.steps[1].setInvalid();
                hdr.steps[2].setInvalid(); hdr.steps[3].setInvalid();
                hdr.steps[4].setInvalid(); hdr.steps[5].setInvalid();
                hdr.steps[6].setInvalid(); hdr.steps[7].setInvalid();
                hdr.srh_tail.setInvalid();
                hdr.eth.ether_type = ETH_IPV4;
                LH_SET_PORT(meta.host_port);
                LH_COUNT(host_tx, meta.host_port);
            } else if (meta.drop == 0) {
                /* ---- the current slice: the rotation clock, run forward */
                LH_CLOCK()
                if (meta.advanced != 0) { LH_COUNT(events, EV_LATE_SLICE); }
                LH_READ(meta.qcap, queue_capacity, 0);
                LH_READ(meta.n_uplinks, n_uplinks, 0);
                bit<8> chk;
                LH_READ(chk, slice_check, 0);
                meta.check_slice = (bit<1>)chk;

                if (meta.kind == KIND_FABRIC && hdr.srh.isValid()) {
                    /* Transit of a source route: pop our step, no lookup. */
                    meta.n_choices = 1;
                    meta.port0 = hdr.steps[0].port;
                    meta.depart0 = hdr.steps[0].depart;
                    meta.route0 = ROUTE_NONE;
                    meta.push0 = 0;
                    hdr.steps.pop_front(1);
                    hdr.srh.count = hdr.srh.count - 1;
                    if (hdr.srh.count == 0) {
                        hdr.eth.ether_type = hdr.srh_tail.ether_type;
                        hdr.srh.setInvalid();
                        hdr.srh_tail.setInvalid();
                    }
                } else {
                    /* ---- flow hash, UCMP class, multipath bucket, lookup */
                    meta.sport = 0;
                    meta.dport = 0;
                    if (hdr.l4.isValid()) {
                        meta.sport = hdr.l4.sport;
                        meta.dport = hdr.l4.dport;
                    }
                    LH_FLOW_HASH(meta.flow_hash);
                    LH_WRITE(last_flow_hash, 0, meta.flow_hash);
                    bit<32> flen = (bit<32>)hdr.ipv4.total_len + 14;
                    bit<8> ucmp;
                    LH_READ(ucmp, use_classes, 0);
                    if (ucmp == 1) {
                        bit<32> seen;
                        LH_READ(seen, flow_bytes, meta.flow_hash & 0xFFFF);
                        seen = seen + flen;
                        LH_WRITE(flow_bytes, meta.flow_hash & 0xFFFF, seen);
                        meta.flow_seen = seen;
                        ucmp_class.apply();
                    }
                    bit<8> mode;
                    bit<8> nb;
                    LH_READ(mode, multipath_mode, 0);
                    LH_READ(nb, n_buckets, 0);
                    if (nb == 0) { nb = 1; }
                    if (mode == 2) {
                        LH_MOD(meta.bucket, meta.flow_hash, nb);
                    } else if (mode == 1) {
                        bit<8> b;
                        LH_READ(b, pkt_seq, 0);
                        b = b + 1;
                        if (b >= nb) { b = 0; }
                        LH_WRITE(pkt_seq, 0, b);
                        meta.bucket = b;
                    }
                    if (!time_flow.apply().hit) {
                        drop_with(DROP_NO_ROUTE);
                    }
                }

                if (meta.drop == 0) {
                    /* Frame bytes as swtor counts them (no tag). */
                    meta.len = (bit<32>)hdr.ipv4.total_len + 14;
                    if (hdr.srh.isValid()) {
                        meta.len = meta.len + 4 + 3 * (bit<32>)hdr.srh.count;
                    }
                    /* ---- recirculation-free choice: primary, then alternates */
                    LH_TRY(0)
                    LH_TRY(1)
                    LH_TRY(2)
                    if (meta.chosen == 0) {
                        if (meta.adm0 == ADM_MISS) {
                            /* No choice fits its slice: keep the primary
                             * (it waits a cycle), like swtor. */
                            meta.chosen = 1;
                            meta.pick = 0;
                            meta.flags = FLAG_DEFERRED;
                        } else if (meta.adm0 == ADM_FULL) {
                            drop_with(DROP_QUEUE_FULL);
                        } else {
                            drop_with(DROP_NO_ROUTE);
                        }
                    }
                }

                if (meta.drop == 0) {
                    if (meta.pick == 0) {
                        LH_TAKE(0)
                    } else if (meta.pick == 1) {
                        LH_TAKE(1)
                    } else {
                        LH_TAKE(2)
                    }
                    if (meta.pick != 0) {
                        meta.flags = meta.flags | FLAG_REROUTED;
                        LH_COUNT(events, EV_REROUTED);
                    }
                    if (meta.flags & FLAG_DEFERRED != 0) {
                        LH_COUNT(events, EV_DEFERRED);
                    }
                    if (meta.out_route != ROUTE_NONE) {
                        meta.rs_n = 0;
                        source_routes.apply();
                        if (meta.rs_n != 0) {
                            hdr.srh.setValid();
                            hdr.srh.version = 1;
                            hdr.srh.count = meta.rs_n;
                            LH_PUSH_STEP(0)
                            LH_PUSH_STEP(1)
                            LH_PUSH_STEP(2)
                            LH_PUSH_STEP(3)
                            LH_PUSH_STEP(4)
                            LH_PUSH_STEP(5)
                            LH_PUSH_STEP(6)
                            hdr.srh_tail.setValid();
                            hdr.srh_tail.ether_type = ETH_IPV4;
                        }
                    }
                    /* Departure tag for swtor (docs/p4.md). */
                    hdr.shim.setValid();
                    hdr.shim.kind = SHIM_DEPART;
                    hdr.shim.flags = meta.flags;
                    hdr.shim.slice = meta.out_slice;
                    hdr.shim.slot = meta.out_slot;
                    hdr.shim.next_type = ETH_IPV4;
                    if (hdr.srh.isValid()) { hdr.shim.next_type = ETH_SRH; }
                    hdr.eth.ether_type = ETH_SHIM;
                    LH_SET_PORT(UPLINK_BASE + (bit<9>)meta.out_uplink);
                    LH_COUNT(uplink_tx, meta.out_uplink);
                }
            }

            if (meta.drop == 1) {
                LH_COUNT(drops, meta.drop_reason);
                LH_DROP();
            }
        }
    }
}
