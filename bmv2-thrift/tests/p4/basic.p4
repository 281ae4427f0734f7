// Test program for the bmv2-thrift crate: forwarding by ingress port, a
// register, a counter, and one table per key kind (ternary, lpm, range).
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

struct headers_t {
    ethernet_t ethernet;
}

struct meta_t {
    bit<8> mark;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control Ing(inout headers_t hdr, inout meta_t meta,
            inout standard_metadata_t sm) {
    // Frames and bytes seen per ingress port.
    counter(64, CounterType.packets_and_bytes) port_rx;
    // Registers: the tests write and read scratch[0..15]; the program writes
    // the last frame's length into scratch[15] and its mark into marks[0].
    register<bit<32>>(16) scratch;
    register<bit<8>>(1) marks;

    action drop() {
        mark_to_drop(sm);
    }
    action set_port(bit<9> port) {
        sm.egress_spec = port;
    }
    action set_mark(bit<8> v) {
        meta.mark = v;
    }

    table fwd {
        key = { sm.ingress_port : exact; }
        actions = { set_port; drop; }
        default_action = drop();
    }
    table by_type {
        key = { hdr.ethernet.ether_type : ternary; }
        actions = { set_mark; NoAction; }
        default_action = NoAction();
    }
    table by_dst {
        key = { hdr.ethernet.dst : lpm; }
        actions = { set_mark; NoAction; }
        default_action = NoAction();
    }
    table by_src {
        key = { hdr.ethernet.src : range; }
        actions = { set_mark; NoAction; }
        default_action = NoAction();
    }

    apply {
        port_rx.count((bit<32>) sm.ingress_port);
        scratch.write(15, sm.packet_length);
        meta.mark = 0;
        by_dst.apply();
        by_src.apply();
        by_type.apply();
        if (meta.mark != 0) {
            marks.write(0, meta.mark);
        }
        fwd.apply();
    }
}

control Eg(inout headers_t hdr, inout meta_t meta,
           inout standard_metadata_t sm) {
    apply { }
}

control CC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;
