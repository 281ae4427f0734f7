/* Parser states shared by both architectures. Included inside each
 * architecture's parser, whose start state ends in
 * `transition parse_ethernet;`. Needs `pkt`, `hdr` and `meta` in scope.
 *
 * Ethernet [0x88B6 shim] [0x88B5 source-route header] then IPv4 (+ TCP/UDP
 * ports) or ARP. A malformed source-route header (wrong version, count 0 or
 * more than LH_MAX_STEPS steps) sets meta.bad_srh and stops parsing. */

state parse_ethernet {
    pkt.extract(hdr.eth);
    meta.bad_srh = 0;
    transition select(hdr.eth.ether_type) {
        ETH_SHIM: parse_shim;
        ETH_SRH:  parse_srh;
        ETH_IPV4: parse_ipv4;
        ETH_ARP:  parse_arp;
        default:  accept;
    }
}

state parse_shim {
    pkt.extract(hdr.shim);
    transition select(hdr.shim.next_type) {
        ETH_SRH:  parse_srh;
        ETH_IPV4: parse_ipv4;
        default:  accept;
    }
}

state parse_srh {
    pkt.extract(hdr.srh);
    meta.srh_left = hdr.srh.count;
    transition select(hdr.srh.version, hdr.srh.count) {
        (1, 1): parse_step;
        (1, 2): parse_step;
        (1, 3): parse_step;
        (1, 4): parse_step;
        (1, 5): parse_step;
        (1, 6): parse_step;
        (1, 7): parse_step;
        (1, 8): parse_step;
        default: parse_bad_srh;
    }
}

state parse_step {
    pkt.extract(hdr.steps.next);
    meta.srh_left = meta.srh_left - 1;
    transition select(meta.srh_left) {
        0: parse_srh_tail;
        default: parse_step;
    }
}

state parse_srh_tail {
    pkt.extract(hdr.srh_tail);
    transition select(hdr.srh_tail.ether_type) {
        ETH_IPV4: parse_ipv4;
        default:  accept;
    }
}

state parse_bad_srh {
    meta.bad_srh = 1;
    transition accept;
}

state parse_arp {
    pkt.extract(hdr.arp);
    transition accept;
}

state parse_ipv4 {
    pkt.extract(hdr.ipv4);
    transition select(hdr.ipv4.ihl) {
        5: parse_ipv4_l4;
        default: parse_ipv4_opts;
    }
}

state parse_ipv4_opts {
    pkt.extract(hdr.ipv4_opts, (bit<32>)(((bit<16>)hdr.ipv4.ihl - 5) * 32));
    transition parse_ipv4_l4;
}

state parse_ipv4_l4 {
    transition select(hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
        (0, 6):  parse_l4;
        (0, 17): parse_l4;
        default: accept;
    }
}

state parse_l4 {
    pkt.extract(hdr.l4);
    transition accept;
}
