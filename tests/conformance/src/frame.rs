//! Frames of a case: built as hosts (or an upstream ToR) would send them,
//! each UDP payload carrying a marker with the frame's index so a target's
//! outputs can be told apart; and the parsing of what comes out.

use crate::case::{FrameSpec, host_ip, host_mac, host_number};
use etherparse::PacketBuilder;
use std::net::Ipv4Addr;

/// Payload marker: `b"LHCF"` + frame index (u32, big-endian).
pub const MARK: &[u8; 4] = b"LHCF";
pub const ETH_SRH: u16 = 0x88B5;
pub const ETH_SHIM: u16 = 0x88B6;
pub const SRH_NOW: u16 = 0xFFFF;

/// Resolves `hK` or a dotted IPv4 address.
pub fn resolve(name: &str) -> Option<(Ipv4Addr, [u8; 6])> {
    if let Some(k) = host_number(name) {
        return Some((host_ip(k), host_mac(k)));
    }
    let ip: Ipv4Addr = name.parse().ok()?;
    Some((ip, [0x02, 0, 0, 0, 0, 0x99]))
}

/// The frame for `spec`, which is frame number `index` of its case.
pub fn build(spec: &FrameSpec, index: u32) -> Result<Vec<u8>, String> {
    let src_name = spec.src.as_deref().unwrap_or(&spec.ingress);
    let (sip, smac) = resolve(src_name).ok_or_else(|| format!("bad src {src_name:?}"))?;
    let sip = spec.src_ip.unwrap_or(sip);
    let (dip, dmac) = resolve(&spec.dst).ok_or_else(|| format!("bad dst {:?}", spec.dst))?;
    if spec.arp {
        return Ok(arp_request(smac, sip, dip));
    }
    if spec.pushback {
        return Ok(pushback());
    }
    let mut payload = Vec::with_capacity(spec.len);
    payload.extend_from_slice(MARK);
    payload.extend_from_slice(&index.to_be_bytes());
    let hdr = 14 + 20 + 8;
    if spec.len < hdr + payload.len() {
        return Err(format!(
            "frame {:?}: len {} is too short",
            spec.id, spec.len
        ));
    }
    let opts = if spec.ip_options { 4 } else { 0 };
    if spec.len < hdr + opts + payload.len() {
        return Err(format!(
            "frame {:?}: len {} is too short for IPv4 options",
            spec.id, spec.len
        ));
    }
    payload.resize(spec.len - hdr - opts, 0);
    let b = PacketBuilder::ethernet2(smac, dmac)
        .ipv4(sip.octets(), dip.octets(), 64)
        .udp(spec.sport, spec.dport);
    let mut out = Vec::with_capacity(spec.len);
    b.write(&mut out, &payload).map_err(|e| e.to_string())?;
    if spec.ip_options {
        // NOP, NOP, NOP, end of options.
        out.splice(34..34, [1, 1, 1, 0]);
        out[14] = 0x46;
        let tot = u16::from_be_bytes([out[16], out[17]]) + 4;
        out[16..18].copy_from_slice(&tot.to_be_bytes());
    }
    if let Some(p) = spec.proto {
        out[23] = p;
    }
    if spec.ip_options || spec.proto.is_some() {
        ipv4_checksum(&mut out[14..]);
    }
    if let Some(t) = spec.ether_type {
        out[12..14].copy_from_slice(&t.to_be_bytes());
    }
    if let Some(vid) = spec.vlan {
        let tci = vid & 0x0fff;
        let [a, b] = tci.to_be_bytes();
        out.splice(12..12, [0x81, 0x00, a, b]);
    }
    if let Some(steps) = &spec.srh {
        push_srh_version(&mut out, spec.srh_version.unwrap_or(1), steps);
    }
    if spec.tagged && host_number(&spec.ingress).is_some() {
        out = tag(&out, spec.slice, spec.slice.into());
    }
    Ok(out)
}

/// Recomputes the header checksum of the IPv4 header at the start of `ip`.
fn ipv4_checksum(ip: &mut [u8]) {
    let n = (ip[0] & 0x0f) as usize * 4;
    ip[10..12].fill(0);
    let mut sum: u32 = ip[..n]
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    ip[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
}

/// A push-back message as a ToR would send it (docs/wire-formats.md):
/// ToR 1 rejected a frame of ToR 0's hosts for ToR 2.
fn pushback() -> Vec<u8> {
    let mut f = [0u8; swtor::wire::PUSHBACK_LEN];
    let m = swtor::wire::PushbackMsg {
        sender_tor: 0,
        dst_tor: 2,
        from_tor: 1,
        slice: 0,
        slot: 0,
        reason: 2,
    };
    swtor::wire::pushback_frame(&mut f, &m);
    f.to_vec()
}

fn arp_request(smac: [u8; 6], sip: Ipv4Addr, tip: Ipv4Addr) -> Vec<u8> {
    let mut f = Vec::with_capacity(60);
    f.extend_from_slice(&[0xff; 6]);
    f.extend_from_slice(&smac);
    f.extend_from_slice(&0x0806u16.to_be_bytes());
    f.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    f.extend_from_slice(&smac);
    f.extend_from_slice(&sip.octets());
    f.extend_from_slice(&[0; 6]);
    f.extend_from_slice(&tip.octets());
    f.resize(60, 0);
    f
}

/// Inserts a source-route header (docs/wire-formats.md) after the MACs.
pub fn push_srh(f: &mut Vec<u8>, steps: &[(u8, Option<u16>)]) {
    push_srh_version(f, 1, steps)
}

/// [`push_srh`] with another header version (a malformed header).
pub fn push_srh_version(f: &mut Vec<u8>, version: u8, steps: &[(u8, Option<u16>)]) {
    let orig = [f[12], f[13]];
    let mut h = Vec::with_capacity(4 + 3 * steps.len());
    h.extend_from_slice(&ETH_SRH.to_be_bytes());
    h.push(version);
    h.push(steps.len() as u8);
    for &(p, d) in steps {
        h.push(p);
        h.extend_from_slice(&d.unwrap_or(SRH_NOW).to_be_bytes());
    }
    h.extend_from_slice(&orig);
    f.splice(12..14, h);
}

/// The 0x88B6 shim header (docs/p4.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shim {
    pub kind: u8,
    pub flags: u8,
    pub slice: u16,
    pub slot: u32,
}

pub const SHIM_DEPART: u8 = 1;
pub const SHIM_ROTATE: u8 = 2;
pub const FLAG_REROUTED: u8 = 1;
pub const FLAG_DEFERRED: u8 = 2;

/// A rotation frame (kind 2) for the CPU port of a BMv2 ToR.
pub fn rotation(slice: u16, slot: u32) -> Vec<u8> {
    let mut f = Vec::with_capacity(60);
    f.extend_from_slice(&[0xff; 6]);
    f.extend_from_slice(&[0x02, 0x4c, 0x48, 0, 0, 0]);
    f.extend_from_slice(&ETH_SHIM.to_be_bytes());
    f.push(SHIM_ROTATE);
    f.push(0);
    f.extend_from_slice(&slice.to_be_bytes());
    f.extend_from_slice(&slot.to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    f.resize(60, 0);
    f
}

/// `frame` with a departure tag (kind 1) after the source MAC, as an
/// upstream ToR's data plane would have sent it.
pub fn tag(frame: &[u8], slice: u16, slot: u32) -> Vec<u8> {
    let mut f = Vec::with_capacity(frame.len() + 10);
    f.extend_from_slice(&frame[..12]);
    f.extend_from_slice(&ETH_SHIM.to_be_bytes());
    f.push(SHIM_DEPART);
    f.push(0);
    f.extend_from_slice(&slice.to_be_bytes());
    f.extend_from_slice(&slot.to_be_bytes());
    f.extend_from_slice(&frame[12..]);
    f
}

/// What a frame leaving the ToR carries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub shim: Option<Shim>,
    /// Source-route steps left (empty: no header).
    pub srh: Vec<(u8, Option<u16>)>,
    /// The marker's frame index (UDP frames of a case).
    pub index: Option<u32>,
    /// ARP reply: the sender MAC (the MAC the ToR answered with).
    pub arp_reply_mac: Option<[u8; 6]>,
}

pub fn parse(f: &[u8]) -> Parsed {
    let mut p = Parsed::default();
    let mut off = 12;
    let et = |o: usize| f.get(o..o + 2).map(|b| u16::from_be_bytes([b[0], b[1]]));
    let mut t = et(off);
    if t == Some(ETH_SHIM)
        && let Some(h) = f.get(off + 2..off + 12)
    {
        p.shim = Some(Shim {
            kind: h[0],
            flags: h[1],
            slice: u16::from_be_bytes([h[2], h[3]]),
            slot: u32::from_be_bytes([h[4], h[5], h[6], h[7]]),
        });
        off += 10;
        t = et(off);
    }
    if t == Some(ETH_SRH) && f.get(off + 2) != Some(&1) {
        // A header the next ToR refuses (version 1 only, docs/wire-formats.md):
        // nothing behind it is read, so the frame is not one of the case's.
        return p;
    }
    if t == Some(ETH_SRH)
        && let Some(&n) = f.get(off + 3)
    {
        for k in 0..n as usize {
            let s = off + 4 + 3 * k;
            if let Some(b) = f.get(s..s + 3) {
                let d = u16::from_be_bytes([b[1], b[2]]);
                p.srh.push((b[0], (d != SRH_NOW).then_some(d)));
            }
        }
        off += 4 + 3 * n as usize;
        t = et(off);
    }
    match t {
        Some(0x0806) if f.get(off + 8..off + 10) == Some(&[0, 2]) => {
            p.arp_reply_mac = f.get(off + 10..off + 16).map(|m| m.try_into().unwrap());
        }
        Some(0x0800) => {
            let ip = off + 2;
            let ihl = f.get(ip).map_or(20, |b| (b & 0x0f) as usize * 4);
            let pl = ip + ihl + 8;
            if f.get(pl..pl + 4) == Some(MARK)
                && let Some(b) = f.get(pl + 4..pl + 8)
            {
                p.index = Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
            }
        }
        _ => {}
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(srh: Option<Vec<(u8, Option<u16>)>>) -> FrameSpec {
        serde_json::from_value(serde_json::json!({
            "id": "x", "slice": 0, "ingress": "up0", "src": "h7", "dst": "h5",
            "len": 120, "srh": srh
        }))
        .unwrap()
    }

    #[test]
    fn frames_have_their_length_marker_and_source_route() {
        let f = build(&spec(None), 7).unwrap();
        assert_eq!(f.len(), 120);
        assert_eq!(&f[0..6], &[0, 0, 0, 0, 0, 5]);
        assert_eq!(parse(&f).index, Some(7));
        let g = build(&spec(Some(vec![(0, Some(1)), (2, None)])), 3).unwrap();
        assert_eq!(g.len(), 120 + 4 + 6);
        let p = parse(&g);
        assert_eq!(p.srh, vec![(0, Some(1)), (2, None)]);
        assert_eq!(p.index, Some(3));
    }

    #[test]
    fn a_source_route_header_of_another_version_hides_the_frame() {
        let mut f = build(&spec(Some(vec![(0, Some(1))])), 4).unwrap();
        assert_eq!(parse(&f).index, Some(4));
        assert_eq!(f[14], 1, "version byte after the EtherType");
        f[14] = 2;
        let p = parse(&f);
        assert_eq!((p.index, p.srh.len()), (None, 0));
    }

    #[test]
    fn a_vlan_tag_goes_before_the_ipv4_ethertype() {
        let mut s = spec(None);
        s.vlan = Some(0x1005);
        let f = build(&s, 1).unwrap();
        assert_eq!(f.len(), 124);
        // Only the VLAN id's 12 bits: 0x1005 -> 5.
        assert_eq!(&f[12..18], &[0x81, 0x00, 0x00, 0x05, 0x08, 0x00]);
        assert_eq!(f[18], 0x45, "the IPv4 header follows the tag");
    }

    #[test]
    fn shim_tag_is_read_before_the_source_route() {
        let mut f = build(&spec(Some(vec![(1, Some(2))])), 9).unwrap();
        let tag = [0x88, 0xB6, 1, 3, 0, 2, 0, 0, 1, 0];
        // The tag's own "next EtherType" field is the SRH's EtherType.
        f.splice(12..12, tag.iter().copied());
        let p = parse(&f);
        assert_eq!(
            p.shim,
            Some(Shim {
                kind: 1,
                flags: 3,
                slice: 2,
                slot: 256
            })
        );
        assert_eq!(p.srh, vec![(1, Some(2))]);
        assert_eq!(p.index, Some(9));
    }
}
