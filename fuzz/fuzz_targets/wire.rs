//! The frame parsers of swtor/src/wire.rs on arbitrary bytes, and the
//! in-place editors (ARP reply, checksum completion, SRH) on copies.
#![no_main]

use libfuzzer_sys::fuzz_target;
use swtor::wire;

fuzz_target!(|data: &[u8]| {
    let _ = wire::ethertype(data);
    let _ = wire::inner_ethertype(data);
    let off = wire::l3_offset(data);
    assert!(off <= data.len().max(off));
    let _ = wire::ipv4_dst(data);
    let _ = wire::flow_hash(data);
    let _ = wire::srh_count(data);
    if wire::arp_request(data).is_some() {
        let mut f = data.to_vec();
        wire::make_arp_reply(&mut f, [2, 0, 0, 0, 0, 1]);
    }
    let mut f = data.to_vec();
    wire::complete_l4_checksum(&mut f);
    let mut pool = swtor::pool::FramePool::new(4);
    if let Some(i) = pool.alloc_from(data) {
        let _ = wire::srh_pop(&mut pool, i);
        wire::srh_strip(&mut pool, i);
    }
});
