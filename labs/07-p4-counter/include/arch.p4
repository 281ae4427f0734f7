/* The one architecture switch. Everything after this file is written
 * against these macros, so include/ingress.p4 compiles unchanged for
 * v1model (BMv2 simple_switch) and for TNA (Tofino2, __TARGET_TOFINO__).
 *
 * Time unit of LH_NOW, of the registers slice_len / dark and of the
 * rate (bytes per 1024 time units): microseconds on BMv2
 * (ingress_global_timestamp), nanoseconds on Tofino (global_tstamp). */
#ifndef LH_ARCH_P4
#define LH_ARCH_P4

#ifdef __TARGET_TOFINO__

#define LH_INGRESS_PARAMS                                        \
    in ingress_intrinsic_metadata_t ig_intr_md,                  \
    in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,      \
    inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md, \
    inout ingress_intrinsic_metadata_for_tm_t ig_tm_md
#define LH_REG(T, N, name)      Register<T, bit<32>>(N) name
#define LH_READ(dst, reg, idx)  dst = reg.read((bit<32>)(idx))
#define LH_WRITE(reg, idx, v)   reg.write((bit<32>)(idx), v)
#define LH_COUNTER(N, name)     Counter<bit<32>, bit<32>>(N, CounterType_t.PACKETS) name
#define LH_COUNT(c, idx)        c.count((bit<32>)(idx))
#define LH_NOW                  ig_prsr_md.global_tstamp
#define LH_IN_PORT              ig_intr_md.ingress_port
#define LH_SET_PORT(p)          ig_tm_md.ucast_egress_port = (p)
#define LH_DROP()               ig_dprsr_md.drop_ctl = 1
#define LH_FLOW_HASH_DECL       Hash<bit<32>>(HashAlgorithm_t.CRC32) flow_hasher;
#define LH_FLOW_HASH(dst)       dst = flow_hasher.get({hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol, meta.sport, meta.dport})
/* No runtime modulo on Tofino: buckets must be a power of two there. */
#define LH_MOD(dst, x, n)       dst = (bit<8>)((x) & ((bit<32>)(n) - 1))
/* The packet generator's rotation packets come every slice on Tofino: the
 * clock runs forward one slice at most, so one subtraction reduces it. */
#define LH_CLOCK_WIDE
#define LH_CLOCK_HORIZON        32w1
#define LH_MOD_SLICES(dst, x, n) dst = (bit<16>)(x); if (dst >= (n)) { dst = dst - (n); }

#else /* v1model */

#define LH_INGRESS_PARAMS       inout standard_metadata_t sm
#define LH_REG(T, N, name)      register<T>(N) name
#define LH_READ(dst, reg, idx)  reg.read(dst, (bit<32>)(idx))
#define LH_WRITE(reg, idx, v)   reg.write((bit<32>)(idx), v)
#define LH_COUNTER(N, name)     counter(N, CounterType.packets) name
#define LH_COUNT(c, idx)        c.count((bit<32>)(idx))
#define LH_NOW                  sm.ingress_global_timestamp
#define LH_IN_PORT              sm.ingress_port
#define LH_SET_PORT(p)          sm.egress_spec = (p)
#define LH_DROP()               mark_to_drop(sm)
#define LH_FLOW_HASH_DECL
/* CRC-32 over the 13-byte 5-tuple; max 2^32 keeps all 32 bits. */
#define LH_FLOW_HASH(dst)       hash(dst, HashAlgorithm.crc32, 32w0, {hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol, meta.sport, meta.dport}, 64w0x100000000)
/* x mod n without a runtime `%`: the identity "hash" of x reduced by n. */
#define LH_MOD(dst, x, n)       hash(dst, HashAlgorithm.identity, 8w0, {x}, (bit<32>)(n))
/* The clock runs forward up to 63 slices past the last rotation frame the
 * program took: on a busy machine BMv2's threads wait for a core, and its
 * frames with them. */
#define LH_CLOCK_WIDE           LH_CLOCK_STEP(5) LH_CLOCK_STEP(4) LH_CLOCK_STEP(3) \
                                LH_CLOCK_STEP(2) LH_CLOCK_STEP(1)
#define LH_CLOCK_HORIZON        32w63
#define LH_MOD_SLICES(dst, x, n) hash(dst, HashAlgorithm.identity, 16w0, {x}, (bit<32>)(n))

#endif
#endif
