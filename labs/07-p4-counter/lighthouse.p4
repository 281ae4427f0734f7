/* Lab 07 starter: a snapshot of p4/ (the ToR program, branch p4 at 464bc22).
 * Add the `lab_arrivals` counter (README.md, step 2). */
/* Lighthouse ToR for BMv2 simple_switch (v1model). Contract: docs/p4.md.
 * Build: make -C p4   (p4c-bm2-ss -> p4/build/lighthouse.json) */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"
#include "include/arch.p4"

parser LhParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        transition parse_ethernet;
    }
#include "include/parser.p4"
}

control LhVerifyChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

#include "include/ingress.p4"

control LhEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control LhComputeChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control LhDeparser(packet_out pkt, in headers_t hdr) {
    apply {
#include "include/deparser.p4"
    }
}

V1Switch(LhParser(), LhVerifyChecksum(), LhIngress(), LhEgress(),
         LhComputeChecksum(), LhDeparser()) main;
