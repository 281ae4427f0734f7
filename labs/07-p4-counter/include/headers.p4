/* Lighthouse ToR: headers, metadata and constants shared by the v1model
 * (BMv2) and TNA (Tofino2) programs. Contract: docs/p4.md. */
#ifndef LH_HEADERS_P4
#define LH_HEADERS_P4

const bit<16> ETH_IPV4  = 0x0800;
const bit<16> ETH_ARP   = 0x0806;
const bit<16> ETH_IPV6  = 0x86DD;
const bit<16> ETH_SRH   = 0x88B5;   /* source-route header (docs/wire-formats.md) */
const bit<16> ETH_SHIM  = 0x88B6;   /* departure tag / rotation (docs/p4.md) */

const bit<8>  SHIM_DEPART   = 1;
const bit<8>  SHIM_ROTATION = 2;
const bit<8>  FLAG_REROUTED = 1;
const bit<8>  FLAG_DEFERRED = 2;

const bit<16> DEPART_NOW = 0xFFFF;   /* a step's "leave now" */
const bit<16> ROUTE_NONE = 0;        /* choice without a pushed route */

/* Ports (docs/p4.md "Ports of a BMv2 ToR"). */
const bit<9>  UPLINK_BASE = 32;
const bit<9>  CPU_PORT    = 64;

/* Program limits (p4gen refuses tables beyond them). */
#define LH_MAX_STEPS     8      /* source-route steps per route (stack size) */
#define LH_MAX_PUSH      7      /* steps written into the header (route - first) */
#define LH_MAX_UPLINKS   32
#define LH_MAX_SLICES    256    /* register index = uplink << 8 | slice */
#define LH_QUEUES        8192   /* LH_MAX_UPLINKS * LH_MAX_SLICES */
#define LH_FLOW_SLOTS    65536  /* per-flow byte counters (flow hash & 0xFFFF) */

/* Ingress kinds in the time-flow key (docs/tables.md "ingress"). */
const bit<2>  KIND_HOST   = 1;
const bit<2>  KIND_FABRIC = 2;

/* Drop reasons: index = swtor::DropReason as usize (swtor/src/counters.rs). */
const bit<8> DROP_GUARDBAND     = 0;
const bit<8> DROP_NO_CIRCUIT    = 1;
const bit<8> DROP_QUEUE_FULL    = 2;
const bit<8> DROP_SLICE_MISS    = 3;
const bit<8> DROP_NO_ROUTE      = 4;
const bit<8> DROP_UNKNOWN_HOST  = 5;
const bit<8> DROP_TOO_BIG       = 6;
const bit<8> DROP_NOT_IPV4      = 7;
const bit<8> DROP_IPV6          = 8;
const bit<8> DROP_HOST_QUEUE    = 9;
const bit<8> DROP_TX_ERROR      = 10;
const bit<8> DROP_HOP_LIMIT     = 11;
const bit<8> DROP_BAD_HEADER    = 12;
#define LH_DROP_REASONS 13

/* `events` counter indices. */
const bit<8> EV_ARP_REPLY   = 0;
const bit<8> EV_ARP_IGNORED = 1;
const bit<8> EV_REROUTED    = 2;
const bit<8> EV_DEFERRED    = 3;
const bit<8> EV_LATE_SLICE  = 4;   /* data packet advanced the slice itself */
const bit<8> EV_ROTATION    = 5;   /* rotation packets taken */
const bit<8> EV_LATE_ROTATION = 6; /* rotation behind the clock: start kept */
#define LH_EVENTS 8

/* Admission results. */
const bit<2> ADM_OK     = 0;
const bit<2> ADM_FULL   = 1;   /* queue byte capacity */
const bit<2> ADM_MISS   = 2;   /* the slice cannot carry it any more */
const bit<2> ADM_NOPORT = 3;   /* uplink beyond n_uplinks */

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

/* 0x88B6: kind, flags, slice, slot, next EtherType (10 bytes incl. type). */
header shim_t {
    bit<8>  kind;
    bit<8>  flags;
    bit<16> slice;
    bit<32> slot;
    bit<16> next_type;
}

/* 0x88B5: version, count, then `count` steps, then the original EtherType. */
header srh_t {
    bit<8> version;
    bit<8> count;
}

header srh_step_t {
    bit<8>  port;
    bit<16> depart;
}

header srh_tail_t {
    bit<16> ether_type;
}

header arp_t {
    bit<16> htype;
    bit<16> ptype;
    bit<8>  hlen;
    bit<8>  plen;
    bit<16> oper;
    bit<48> sha;
    bit<32> spa;
    bit<48> tha;
    bit<32> tpa;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

header ipv4_opts_t {
    varbit<320> options;
}

/* TCP and UDP both start with the two ports. */
header l4_ports_t {
    bit<16> sport;
    bit<16> dport;
}

struct headers_t {
    ethernet_t  eth;
    shim_t      shim;
    srh_t       srh;
    srh_step_t[LH_MAX_STEPS] steps;
    srh_tail_t  srh_tail;
    arp_t       arp;
    ipv4_t      ipv4;
    ipv4_opts_t ipv4_opts;
    l4_ports_t  l4;
}

struct meta_t {
    bit<8>  srh_left;      /* parser: steps still to extract */
    bit<1>  bad_srh;       /* parser: malformed source-route header */
    bit<2>  kind;          /* KIND_HOST / KIND_FABRIC */
    bit<48> now;
    /* current slice (the rotation clock run forward to now) */
    bit<16> arrival;
    bit<32> slot;
    bit<48> slot_start;
    bit<48> slice_len;
    bit<48> elapsed;       /* since slot_start, while the clock runs forward */
    bit<32> advanced;      /* slices the clock ran forward */
    bit<1>  clock_unset;   /* no rotation taken yet (slice_start 0) */
    bit<16> n_slices;
    /* lookup key */
    bit<16> dst_tor;
    bit<1>  local;
    bit<9>  host_port;
    bit<8>  class;
    bit<8>  bucket;
    bit<32> flow_hash;
    bit<32> flow_seen;
    bit<16> sport;
    bit<16> dport;
    /* choices: primary + 2 alternates */
    bit<2>  n_choices;
    bit<8>  port0;  bit<16> depart0;  bit<16> route0;  bit<8> push0;
    bit<8>  port1;  bit<16> depart1;  bit<16> route1;  bit<8> push1;
    bit<8>  port2;  bit<16> depart2;  bit<16> route2;  bit<8> push2;
    /* admission per choice */
    bit<2>  adm0;  bit<32> qidx0;  bit<32> occ0;  bit<32> target0;  bit<16> d0;
    bit<2>  adm1;  bit<32> qidx1;  bit<32> occ1;  bit<32> target1;  bit<16> d1;
    bit<2>  adm2;  bit<32> qidx2;  bit<32> occ2;  bit<32> target2;  bit<16> d2;
    bit<32> len;          /* frame bytes (before a push) */
    bit<32> qcap;
    bit<8>  n_uplinks;
    bit<1>  check_slice;
    /* outcome */
    bit<1>  chosen;
    bit<2>  pick;
    bit<8>  flags;
    bit<8>  out_uplink;
    bit<16> out_slice;
    bit<32> out_slot;
    bit<16> out_route;
    bit<1>  drop;
    bit<1>  arp_hit;
    bit<48> arp_mac;
    bit<8>  drop_reason;
    /* route being pushed */
    bit<8>  rs_n;
    bit<8>  rs_port0; bit<16> rs_depart0;
    bit<8>  rs_port1; bit<16> rs_depart1;
    bit<8>  rs_port2; bit<16> rs_depart2;
    bit<8>  rs_port3; bit<16> rs_depart3;
    bit<8>  rs_port4; bit<16> rs_depart4;
    bit<8>  rs_port5; bit<16> rs_depart5;
    bit<8>  rs_port6; bit<16> rs_depart6;
}

#endif
