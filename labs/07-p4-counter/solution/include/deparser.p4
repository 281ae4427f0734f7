/* Emit order shared by both deparsers (invalid headers are skipped). */
pkt.emit(hdr.eth);
pkt.emit(hdr.shim);
pkt.emit(hdr.srh);
pkt.emit(hdr.steps);
pkt.emit(hdr.srh_tail);
pkt.emit(hdr.arp);
pkt.emit(hdr.ipv4);
pkt.emit(hdr.ipv4_opts);
pkt.emit(hdr.l4);
