// Compiles, but with a warning (an unused register on line 14): compile()
// treats warnings as failures.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> x; }
struct hs_t { h_t h; }
struct m_t { }
parser P(packet_in pkt, out hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout hs_t hdr, inout m_t meta) { apply { } }
control Ing(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(1) unused_reg;
    apply { sm.egress_spec = 1; }
}
control Eg(inout hs_t hdr, inout m_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout hs_t hdr, inout m_t meta) { apply { } }
control D(packet_out pkt, in hs_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;
