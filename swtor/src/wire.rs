//! Frame parsing and rewriting: Ethernet, IPv4 5-tuple, proxy ARP and the
//! Lighthouse source-route header (docs/wire-formats.md).

use crate::pool::FramePool;
use lh_ctrl::{PortId, TorId};
use std::net::Ipv4Addr;

pub const ETH_IPV4: u16 = 0x0800;
pub const ETH_ARP: u16 = 0x0806;
pub const ETH_IPV6: u16 = 0x86DD;
/// IEEE "local experimental" EtherType 2, used for the source-route header.
pub const ETH_SRH: u16 = 0x88B5;
pub const SRH_VERSION: u8 = 1;
/// Bytes of the fixed part (EtherType + version + count).
pub const SRH_FIXED: usize = 4;
/// Bytes per hop in the header.
pub const SRH_STEP: usize = 3;
/// `depart` value meaning "leave at once" (wildcard).
pub const SRH_NOW: u16 = 0xFFFF;

/// IEEE "local experimental" EtherType 2: the Lighthouse shim header
/// between swtor and an external (BMv2) ToR (docs/p4.md).
pub const ETH_SHIM: u16 = 0x88B6;
/// Bytes of the shim header (EtherType through `slot`); the next EtherType
/// follows it.
pub const SHIM_LEN: usize = 10;
/// Shim kind: departure tag on a frame an external ToR sends on an uplink.
pub const SHIM_DEPARTURE: u8 = 1;
/// Shim kind: rotation packet swtor sends on an external ToR's CPU port.
pub const SHIM_ROTATION: u8 = 2;
/// Shim kind: traffic push-back (paper §7), ToR to ToR and ToR to hosts
/// (docs/wire-formats.md).
pub const SHIM_PUSHBACK: u8 = 3;
/// Length of a push-back frame (a minimum-size Ethernet frame).
pub const PUSHBACK_LEN: usize = 60;
/// Shim flag bit 0: the frame took an alternate (rerouted).
pub const SHIM_FLAG_REROUTED: u8 = 1;
/// Shim flag bit 1: the frame was deferred (no action fitted its slice).
pub const SHIM_FLAG_DEFERRED: u8 = 2;
/// Length of a rotation frame (a minimum-size Ethernet frame).
pub const ROTATION_FRAME_LEN: usize = 60;
/// Source MAC of rotation frames (locally administered, "LH").
pub const ROTATION_SRC_MAC: [u8; 6] = [0x02, 0x4c, 0x48, 0x00, 0x00, 0x01];

/// The Lighthouse shim header (docs/p4.md): after the source MAC, like a
/// VLAN tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shim {
    /// [`SHIM_DEPARTURE`] or [`SHIM_ROTATION`].
    pub kind: u8,
    pub flags: u8,
    /// Departure slice (kind 1) or current slice (kind 2).
    pub slice: u16,
    /// Absolute slot (slices since the epoch), low 32 bits.
    pub slot: u32,
}

/// The shim header of a frame, if it carries one (EtherType 0x88B6 and room
/// for the header and the next EtherType).
#[inline]
pub fn shim_parse(f: &[u8]) -> Option<Shim> {
    if ethertype(f)? != ETH_SHIM || f.len() < 12 + SHIM_LEN + 2 {
        return None;
    }
    Some(Shim {
        kind: f[14],
        flags: f[15],
        slice: u16::from_be_bytes([f[16], f[17]]),
        slot: u32::from_be_bytes([f[18], f[19], f[20], f[21]]),
    })
}

/// Writes shim `s` at offset 12 of `f` (which must hold at least 24 bytes)
/// followed by the next EtherType `next`.
pub fn shim_write(f: &mut [u8], s: &Shim, next: u16) {
    f[12..14].copy_from_slice(&ETH_SHIM.to_be_bytes());
    f[14] = s.kind;
    f[15] = s.flags;
    f[16..18].copy_from_slice(&s.slice.to_be_bytes());
    f[18..22].copy_from_slice(&s.slot.to_be_bytes());
    f[22..24].copy_from_slice(&next.to_be_bytes());
}

/// Removes the departure tag of an external ToR's frame in place and
/// returns it; `None` (frame untouched) if it has no valid departure tag.
#[inline]
pub fn shim_strip_departure(pool: &mut FramePool, i: u32) -> Option<Shim> {
    let s = shim_parse(pool.data(i))?;
    if s.kind != SHIM_DEPARTURE {
        return None;
    }
    pool.remove(i, 12, SHIM_LEN).then_some(s)
}

/// `frame` with shim `s` inserted after the source MAC (what an external
/// ToR sends on an uplink). Allocates: for tests and tools.
pub fn shim_insert(frame: &[u8], s: &Shim) -> Vec<u8> {
    let mut f = Vec::with_capacity(frame.len() + SHIM_LEN);
    f.extend_from_slice(&frame[..12]);
    f.extend_from_slice(&[0; SHIM_LEN]);
    f.extend_from_slice(&frame[12..]);
    let next = u16::from_be_bytes([frame[12], frame[13]]);
    shim_write(&mut f, s, next);
    f
}

/// Fills `f` (at least [`ROTATION_FRAME_LEN`] bytes) with a rotation frame:
/// broadcast, from [`ROTATION_SRC_MAC`], kind 2, the current slice and
/// slot, next EtherType 0, zero padding.
pub fn rotation_frame(f: &mut [u8], slice: u16, slot: u32) {
    f[..ROTATION_FRAME_LEN].fill(0);
    f[0..6].copy_from_slice(&[0xff; 6]);
    f[6..12].copy_from_slice(&ROTATION_SRC_MAC);
    let s = Shim {
        kind: SHIM_ROTATION,
        flags: 0,
        slice,
        slot,
    };
    shim_write(f, &s, 0);
}

/// A decoded push-back message (docs/wire-formats.md, shim kind 3;
/// [`pushback_frame`] writes it, [`pushback_parse`] reads it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PushbackMsg {
    /// The ToR whose hosts must stop sending.
    pub sender_tor: TorId,
    /// The destination ToR they must not send to.
    pub dst_tor: TorId,
    /// The ToR that rejected the frame.
    pub from_tor: TorId,
    /// The slice (and absolute slot, low 32 bits) of the full queue: hosts
    /// pause until it ends.
    pub slice: u16,
    pub slot: u32,
    /// 1: slice miss, 2: queue full.
    pub reason: u8,
}

/// Fills `f` with a push-back message: broadcast, from
/// [`ROTATION_SRC_MAC`] with the rejecting ToR in its last two bytes,
/// shim kind 3 (`slice`/`slot` of the paused slice), next EtherType 0,
/// then `sender_tor`, `dst_tor`, `from_tor` (u16 each, big endian) and the
/// reason byte, zero padding.
pub fn pushback_frame(f: &mut [u8; PUSHBACK_LEN], m: &PushbackMsg) {
    f.fill(0);
    f[0..6].copy_from_slice(&[0xff; 6]);
    f[6..12].copy_from_slice(&ROTATION_SRC_MAC);
    f[10..12].copy_from_slice(&m.from_tor.to_be_bytes());
    let s = Shim {
        kind: SHIM_PUSHBACK,
        flags: 0,
        slice: m.slice,
        slot: m.slot,
    };
    shim_write(f, &s, 0);
    f[24..26].copy_from_slice(&m.sender_tor.to_be_bytes());
    f[26..28].copy_from_slice(&m.dst_tor.to_be_bytes());
    f[28..30].copy_from_slice(&m.from_tor.to_be_bytes());
    f[30] = m.reason;
}

/// The push-back message in `f`, if it is one.
pub fn pushback_parse(f: &[u8]) -> Option<PushbackMsg> {
    let s = shim_parse(f)?;
    if s.kind != SHIM_PUSHBACK || f.len() < 31 {
        return None;
    }
    let u = |k: usize| u16::from_be_bytes([f[k], f[k + 1]]);
    Some(PushbackMsg {
        sender_tor: u(24),
        dst_tor: u(26),
        from_tor: u(28),
        slice: s.slice,
        slot: s.slot,
        reason: f[30],
    })
}

#[inline]
pub fn ethertype(f: &[u8]) -> Option<u16> {
    Some(u16::from_be_bytes([*f.get(12)?, *f.get(13)?]))
}

/// The EtherType the frame carries after an optional source-route header.
#[inline]
pub fn inner_ethertype(f: &[u8]) -> Option<u16> {
    let t = ethertype(f)?;
    if t != ETH_SRH {
        return Some(t);
    }
    let n = *f.get(15)? as usize;
    let at = 12 + SRH_FIXED + n * SRH_STEP;
    Some(u16::from_be_bytes([*f.get(at)?, *f.get(at + 1)?]))
}

/// Offset of the IPv4 header (after any source-route header).
#[inline]
pub fn l3_offset(f: &[u8]) -> usize {
    if ethertype(f) == Some(ETH_SRH) {
        14 + SRH_FIXED + f.get(15).copied().unwrap_or(0) as usize * SRH_STEP
    } else {
        14
    }
}

/// Destination IPv4 address, if this is a well-formed IPv4 frame.
#[inline]
pub fn ipv4_src(f: &[u8]) -> Option<Ipv4Addr> {
    if inner_ethertype(f)? != ETH_IPV4 {
        return None;
    }
    let o = l3_offset(f);
    let h = f.get(o..o + 20)?;
    if h[0] >> 4 != 4 {
        return None;
    }
    Some(Ipv4Addr::new(h[12], h[13], h[14], h[15]))
}

#[inline]
pub fn ipv4_dst(f: &[u8]) -> Option<Ipv4Addr> {
    if inner_ethertype(f)? != ETH_IPV4 {
        return None;
    }
    let o = l3_offset(f);
    let h = f.get(o..o + 20)?;
    if h[0] >> 4 != 4 {
        return None;
    }
    Some(Ipv4Addr::new(h[16], h[17], h[18], h[19]))
}

/// DSCP a host marks bulk with (CS1, "lower effort"; IP TOS 0x20): with
/// `routing.bulk: rotorlb` such a frame takes the bulk class from its first
/// byte, as Opera's hosts, which know their flows' sizes, tag bulk.
pub const DSCP_BULK: u8 = 8;

/// The IPv4 DSCP (TOS >> 2), if this is an IPv4 frame.
#[inline]
pub fn ipv4_dscp(f: &[u8]) -> Option<u8> {
    if inner_ethertype(f)? != ETH_IPV4 {
        return None;
    }
    let h = f.get(l3_offset(f)..l3_offset(f) + 2)?;
    (h[0] >> 4 == 4).then_some(h[1] >> 2)
}

/// Bytes the flow hash covers, in order: source IP, destination IP,
/// protocol, source port, destination port (network byte order).
pub const FLOW_KEY_LEN: usize = 13;

/// The flow key of an IPv4 frame (after any source-route header): the
/// 5-tuple in network byte order; ports are zero for non-TCP/UDP and for
/// fragments after the first. None if there is no IPv4 header.
#[inline]
pub fn flow_key(f: &[u8]) -> Option<[u8; FLOW_KEY_LEN]> {
    let o = l3_offset(f);
    let h = f.get(o..o + 20)?;
    let ihl = (h[0] & 0x0f) as usize * 4;
    let proto = h[9];
    let frag_off = u16::from_be_bytes([h[6], h[7]]) & 0x1fff;
    let mut k = [0u8; FLOW_KEY_LEN];
    k[..8].copy_from_slice(&h[12..20]);
    k[8] = proto;
    if (proto == 6 || proto == 17)
        && frag_off == 0
        && let Some(p) = f.get(o + ihl..o + ihl + 4)
    {
        k[9..13].copy_from_slice(p);
    }
    Some(k)
}

/// Standard CRC-32 (IEEE 802.3, reflected, init and final XOR 0xFFFFFFFF:
/// the P4 `HashAlgorithm.crc32` of BMv2) over [`flow_key`]: the flow hash
/// for flow multipath (bucket = hash % buckets) and per-flow byte counts,
/// so a P4 ToR computes the same buckets (docs/p4.md, "Flow hash"). 0 for
/// frames without an IPv4 header.
#[inline]
pub fn flow_hash(f: &[u8]) -> u32 {
    flow_key(f).map_or(0, |k| crc32fast::hash(&k))
}

/// A parsed ARP request for IPv4 over Ethernet: (sender MAC, sender IP,
/// target IP).
pub fn arp_request(f: &[u8]) -> Option<([u8; 6], Ipv4Addr, Ipv4Addr)> {
    if ethertype(f)? != ETH_ARP {
        return None;
    }
    let a = f.get(14..42)?;
    // htype 1 (Ethernet), ptype IPv4, hlen 6, plen 4, op 1 (request)
    if a[0..2] != [0, 1] || a[2..4] != [8, 0] || a[4] != 6 || a[5] != 4 || a[6..8] != [0, 1] {
        return None;
    }
    let mut sha = [0u8; 6];
    sha.copy_from_slice(&a[8..14]);
    let spa = Ipv4Addr::new(a[14], a[15], a[16], a[17]);
    let tpa = Ipv4Addr::new(a[24], a[25], a[26], a[27]);
    Some((sha, spa, tpa))
}

/// Rewrites an ARP request frame in place into the reply "`tpa` is at
/// `mac`". The frame keeps its length (a minimum-size frame stays one).
pub fn make_arp_reply(f: &mut [u8], mac: [u8; 6]) {
    let mut sha = [0u8; 6];
    sha.copy_from_slice(&f[22..28]);
    let mut spa = [0u8; 4];
    spa.copy_from_slice(&f[28..32]);
    let mut tpa = [0u8; 4];
    tpa.copy_from_slice(&f[38..42]);
    f[0..6].copy_from_slice(&sha);
    f[6..12].copy_from_slice(&mac);
    f[20..22].copy_from_slice(&[0, 2]);
    f[22..28].copy_from_slice(&mac);
    f[28..32].copy_from_slice(&tpa);
    f[32..38].copy_from_slice(&sha);
    f[38..42].copy_from_slice(&spa);
}

/// Pushes a source-route header holding `steps` (port, depart slice or
/// `SRH_NOW`) after the source MAC. False if the headroom is too small.
pub fn srh_push(
    pool: &mut FramePool,
    i: u32,
    steps: impl ExactSizeIterator<Item = (PortId, u16)>,
) -> bool {
    let n = steps.len();
    if n > u8::MAX as usize {
        return false;
    }
    let len = SRH_FIXED + n * SRH_STEP;
    if !pool.insert(i, 12, len) {
        return false;
    }
    let f = pool.data_mut(i);
    f[12..14].copy_from_slice(&ETH_SRH.to_be_bytes());
    f[14] = SRH_VERSION;
    f[15] = n as u8;
    for (k, (port, depart)) in steps.enumerate() {
        let o = 16 + k * SRH_STEP;
        f[o] = port;
        f[o + 1..o + 3].copy_from_slice(&depart.to_be_bytes());
    }
    true
}

/// The frame's source-route header state: `Some(count)` if it has one.
#[inline]
pub fn srh_count(f: &[u8]) -> Option<u8> {
    if ethertype(f)? == ETH_SRH && *f.get(14)? == SRH_VERSION {
        f.get(15).copied()
    } else {
        None
    }
}

/// Pops the first hop of the source-route header: returns (port, depart).
/// Removes the whole header when it was the last hop. `None` if there is no
/// valid header or it is empty.
pub fn srh_pop(pool: &mut FramePool, i: u32) -> Option<(PortId, u16)> {
    let f = pool.data(i);
    let n = srh_count(f)? as usize;
    if n == 0 || f.len() < 16 + n * SRH_STEP + 2 {
        return None;
    }
    let port = f[16];
    let depart = u16::from_be_bytes([f[17], f[18]]);
    if n == 1 {
        pool.remove(i, 12, SRH_FIXED + SRH_STEP);
    } else {
        pool.data_mut(i)[15] = (n - 1) as u8;
        // Move MACs + SRH fixed part forward over the first step.
        pool.remove(i, 16, SRH_STEP);
    }
    Some((port, depart))
}

/// Removes any source-route header (before delivery to a host).
pub fn srh_strip(pool: &mut FramePool, i: u32) {
    if let Some(n) = srh_count(pool.data(i)) {
        pool.remove(i, 12, SRH_FIXED + n as usize * SRH_STEP);
    }
}

/// Completes the TCP or UDP checksum of an IPv4 frame whose sender left it
/// to offload (the host veth's CHECKSUM_PARTIAL): the field then holds only
/// the pseudo-header sum, and the receiving host would discard the segment.
/// Fragments and other protocols are left alone.
pub fn complete_l4_checksum(f: &mut [u8]) {
    let o = l3_offset(f);
    if f.len() < o + 20 {
        return;
    }
    let ihl = (f[o] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([f[o + 2], f[o + 3]]) as usize;
    let proto = f[o + 9];
    let frag = u16::from_be_bytes([f[o + 6], f[o + 7]]) & 0x3fff;
    if frag != 0 || total < ihl || f.len() < o + total {
        return;
    }
    let l4 = o + ihl;
    let l4len = total - ihl;
    let csum_at = match proto {
        6 if l4len >= 20 => l4 + 16,
        17 if l4len >= 8 => l4 + 6,
        _ => return,
    };
    f[csum_at] = 0;
    f[csum_at + 1] = 0;
    let mut sum: u64 = 0;
    for w in f[o + 12..o + 20].chunks(2) {
        sum += u16::from_be_bytes([w[0], w[1]]) as u64;
    }
    sum += proto as u64 + l4len as u64;
    let seg = &f[l4..l4 + l4len];
    let mut it = seg.chunks_exact(2);
    for w in &mut it {
        sum += u16::from_be_bytes([w[0], w[1]]) as u64;
    }
    if let [b] = it.remainder() {
        sum += (*b as u64) << 8;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let mut c = !(sum as u16);
    if proto == 17 && c == 0 {
        c = 0xffff;
    }
    f[csum_at..csum_at + 2].copy_from_slice(&c.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn udp_frame() -> Vec<u8> {
        let mut f = vec![0u8; 60];
        f[0..6].copy_from_slice(&[2, 0, 0, 0, 0, 2]);
        f[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
        f[12..14].copy_from_slice(&ETH_IPV4.to_be_bytes());
        f[14] = 0x45;
        f[23] = 17;
        f[26..30].copy_from_slice(&[10, 0, 0, 1]);
        f[30..34].copy_from_slice(&[10, 0, 0, 2]);
        f[34..36].copy_from_slice(&1000u16.to_be_bytes());
        f[36..38].copy_from_slice(&2000u16.to_be_bytes());
        f
    }

    #[test]
    fn srh_layout_push_pop_roundtrip() {
        let mut p = FramePool::new(1);
        let orig = udp_frame();
        let i = p.alloc_from(&orig).unwrap();
        let h0 = flow_hash(p.data(i));
        assert!(srh_push(&mut p, i, [(3u8, 7u16), (1, SRH_NOW)].into_iter()));
        let f = p.data(i);
        assert_eq!(f.len(), orig.len() + 4 + 6);
        assert_eq!(&f[12..16], &[0x88, 0xB5, 1, 2]);
        assert_eq!(&f[16..22], &[3, 0, 7, 1, 0xFF, 0xFF]);
        assert_eq!(&f[22..24], &[0x08, 0x00]);
        assert_eq!(ipv4_dst(f), Some(Ipv4Addr::new(10, 0, 0, 2)));
        assert_eq!(flow_hash(f), h0, "hash must ignore the header");
        assert_eq!(srh_pop(&mut p, i), Some((3, 7)));
        assert_eq!(&p.data(i)[12..19], &[0x88, 0xB5, 1, 1, 1, 0xFF, 0xFF]);
        assert_eq!(srh_pop(&mut p, i), Some((1, SRH_NOW)));
        assert_eq!(p.data(i), &orig[..]);
        assert_eq!(srh_pop(&mut p, i), None);
    }

    #[test]
    fn shim_layout_parse_and_strip() {
        let orig = udp_frame();
        let tag = Shim {
            kind: SHIM_DEPARTURE,
            flags: SHIM_FLAG_REROUTED,
            slice: 0x0102,
            slot: 0xA0B0_C0D0,
        };
        let f = shim_insert(&orig, &tag);
        assert_eq!(f.len(), orig.len() + SHIM_LEN);
        assert_eq!(
            &f[12..24],
            &[
                0x88, 0xB6, 1, 1, 0x01, 0x02, 0xA0, 0xB0, 0xC0, 0xD0, 0x08, 0x00
            ]
        );
        assert_eq!(shim_parse(&f), Some(tag));
        assert_eq!(shim_parse(&orig), None);
        let mut p = FramePool::new(2);
        let i = p.alloc_from(&f).unwrap();
        assert_eq!(shim_strip_departure(&mut p, i), Some(tag));
        assert_eq!(p.data(i), &orig[..]);
        // No tag, or the wrong kind: untouched.
        assert_eq!(shim_strip_departure(&mut p, i), None);
        let mut rot = [0u8; ROTATION_FRAME_LEN];
        rotation_frame(&mut rot, 3, 7);
        assert_eq!(&rot[0..6], &[0xff; 6]);
        assert_eq!(&rot[12..24], &[0x88, 0xB6, 2, 0, 0, 3, 0, 0, 0, 7, 0, 0]);
        let j = p.alloc_from(&rot).unwrap();
        assert_eq!(shim_strip_departure(&mut p, j), None);
        assert_eq!(p.data(j), &rot[..]);
        // Truncated: no tag.
        assert_eq!(shim_parse(&f[..23]), None);
    }

    #[test]
    fn flow_hash_is_crc32_of_the_five_tuple() {
        // CRC-32 check value of the standard ("123456789" -> 0xCBF43926).
        assert_eq!(crc32fast::hash(b"123456789"), 0xCBF4_3926);
        // Test vector (docs/p4.md, "Flow hash"): UDP 10.0.0.1:1000 ->
        // 10.0.0.2:2000.
        let f = udp_frame();
        let key = [10, 0, 0, 1, 10, 0, 0, 2, 17, 0x03, 0xE8, 0x07, 0xD0];
        assert_eq!(flow_key(&f), Some(key));
        assert_eq!(flow_hash(&f), 0x2359_B4D8);
        // Not TCP/UDP (ICMP): ports count as zero.
        let mut icmp = f.clone();
        icmp[23] = 1;
        assert_eq!(&flow_key(&icmp).unwrap()[8..], &[1, 0, 0, 0, 0]);
        assert_eq!(flow_hash(&icmp), 0x3F6F_49BF);
        // A later fragment: ports zero too.
        let mut frag = f.clone();
        frag[20..22].copy_from_slice(&0x0010u16.to_be_bytes());
        assert_eq!(&flow_key(&frag).unwrap()[9..], &[0, 0, 0, 0]);
        assert_eq!(flow_hash(&[0u8; 20]), 0);
    }

    #[test]
    fn arp_reply_swaps_roles() {
        let mut f = vec![0u8; 42];
        f[0..6].copy_from_slice(&[0xff; 6]);
        f[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
        f[12..14].copy_from_slice(&ETH_ARP.to_be_bytes());
        f[14..22].copy_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
        f[22..28].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
        f[28..32].copy_from_slice(&[10, 0, 0, 1]);
        f[38..42].copy_from_slice(&[10, 0, 0, 2]);
        let (sha, spa, tpa) = arp_request(&f).unwrap();
        assert_eq!(
            (sha, spa, tpa),
            (
                [2, 0, 0, 0, 0, 1],
                Ipv4Addr::new(10, 0, 0, 1),
                Ipv4Addr::new(10, 0, 0, 2)
            )
        );
        make_arp_reply(&mut f, [2, 0, 0, 0, 0, 2]);
        assert_eq!(&f[0..6], &[2, 0, 0, 0, 0, 1]);
        assert_eq!(&f[6..12], &[2, 0, 0, 0, 0, 2]);
        assert_eq!(&f[20..22], &[0, 2]);
        assert_eq!(&f[28..32], &[10, 0, 0, 2]);
        assert_eq!(&f[38..42], &[10, 0, 0, 1]);
        assert!(arp_request(&f).is_none(), "a reply is not a request");
    }

    #[test]
    fn completes_udp_checksum() {
        // A known UDP datagram: 10.0.0.1:1000 -> 10.0.0.2:2000, payload "hi".
        let mut f = vec![0u8; 14 + 20 + 8 + 2];
        f[12..14].copy_from_slice(&ETH_IPV4.to_be_bytes());
        f[14] = 0x45;
        f[16..18].copy_from_slice(&30u16.to_be_bytes());
        f[23] = 17;
        f[26..30].copy_from_slice(&[10, 0, 0, 1]);
        f[30..34].copy_from_slice(&[10, 0, 0, 2]);
        f[34..36].copy_from_slice(&1000u16.to_be_bytes());
        f[36..38].copy_from_slice(&2000u16.to_be_bytes());
        f[38..40].copy_from_slice(&10u16.to_be_bytes());
        f[40..41].fill(0x12); // garbage "partial" checksum
        f[42..44].copy_from_slice(b"hi");
        complete_l4_checksum(&mut f);
        // Verify: the one's-complement sum over pseudo-header + segment is 0xffff.
        let mut sum: u32 = 0;
        for w in f[26..34].chunks(2) {
            sum += u16::from_be_bytes([w[0], w[1]]) as u32;
        }
        sum += 17 + 10;
        for w in f[34..44].chunks(2) {
            sum += u16::from_be_bytes([w[0], w[1]]) as u32;
        }
        while sum >> 16 != 0 {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        assert_eq!(sum, 0xffff);
    }
}
