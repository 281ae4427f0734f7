/* Lighthouse ToR for Tofino2 (TNA). Same headers, parser states, ingress
 * and deparser as ../lighthouse.p4; only the architecture wrapper differs
 * (include/arch.p4 maps registers, counters, hash, time and ports).
 * Check: p4test -I /opt/p4/share/open-tofino/p4include -D__TARGET_TOFINO__=2
 *
 * On a real Tofino2 the calendar queues would be the switch's own egress
 * queues (one per (uplink, slice), paused and resumed by the ghost thread /
 * advanced flow control of T2NA): the departure tag would become the queue
 * id. Those externs are T2NA-only and not checkable with Open-Tofino, so
 * this program stops at the same point as the BMv2 one: it tags the frame. */
#include <core.p4>
#include <tna.p4>
#include "../include/headers.p4"
#include "../include/arch.p4"

parser LhIngressParser(packet_in pkt, out headers_t hdr, out meta_t meta,
                       out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        meta = { bad_srh = 0, ... };
        transition parse_ethernet;
    }
#include "../include/parser.p4"
}

#include "../include/ingress.p4"

control LhIngressDeparser(packet_out pkt, inout headers_t hdr, in meta_t meta,
                          in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
#include "../include/deparser.p4"
    }
}

struct egress_headers_t { }
struct egress_meta_t { }

parser LhEgressParser(packet_in pkt, out egress_headers_t hdr, out egress_meta_t meta,
                      out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        transition accept;
    }
}

control LhEgress(inout egress_headers_t hdr, inout egress_meta_t meta,
                 in egress_intrinsic_metadata_t eg_intr_md,
                 in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                 inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                 inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply { }
}

control LhEgressDeparser(packet_out pkt, inout egress_headers_t hdr, in egress_meta_t meta,
                         in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply { }
}

Pipeline(LhIngressParser(), LhIngress(), LhIngressDeparser(),
         LhEgressParser(), LhEgress(), LhEgressDeparser()) pipe;

Switch(pipe) main;
