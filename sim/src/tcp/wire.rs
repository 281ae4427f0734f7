//! TCP segments on the wire: real Ethernet/IPv4/TCP headers (no options),
//! payload zeros left out of what a frame stores.

use super::{ETH_IPV4, HEADERS, Segment};

/// A TCP frame from host `src` to `dst` with `len` zero payload bytes.
#[allow(clippy::too_many_arguments)]
pub fn frame(
    src: usize,
    dst: usize,
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    len: usize,
) -> Vec<u8> {
    let s = Segment {
        src,
        dst,
        sport,
        dport,
        seq,
        ack,
        flags,
        len,
    };
    let mut f = Vec::with_capacity(HEADERS + len);
    frame_into(&mut f, &s);
    f.resize(HEADERS + len, 0);
    f
}

/// Segment `s`'s frame into `buf`, its headers only: the payload's zeros
/// are left out. The bytes left out (the payload's length), which the
/// frame still has on the wire.
pub fn frame_into(buf: &mut Vec<u8>, s: &Segment) -> u16 {
    let ip = crate::host::Ipv4 {
        proto: 6,
        tos: 0,
        df: true,
    };
    let pad = crate::host::ipv4_frame_into(buf, s.src, s.dst, ip, HEADERS + s.len, HEADERS);
    let f = &mut buf[..];
    f[34..36].copy_from_slice(&s.sport.to_be_bytes());
    f[36..38].copy_from_slice(&s.dport.to_be_bytes());
    f[38..42].copy_from_slice(&s.seq.to_be_bytes());
    f[42..46].copy_from_slice(&s.ack.to_be_bytes());
    f[46] = 5 << 4;
    f[47] = s.flags;
    f[48..50].copy_from_slice(&u16::MAX.to_be_bytes());
    pad
}

/// The TCP segment in `frame`, if it is one between two hosts of the plan.
pub fn parse(frame: &[u8]) -> Option<Segment> {
    if frame.len() < HEADERS || frame[12..14] != ETH_IPV4.to_be_bytes() || frame[23] != 6 {
        return None;
    }
    let ihl = usize::from(frame[14] & 0x0f) * 4;
    let total = usize::from(u16::from_be_bytes([frame[16], frame[17]]));
    let t = frame.get(14 + ihl..)?;
    if t.len() < 20 {
        return None;
    }
    let doff = usize::from(t[12] >> 4) * 4;
    let host = |b: &[u8]| crate::host::host_of(std::net::Ipv4Addr::new(b[0], b[1], b[2], b[3]));
    Some(Segment {
        src: host(&frame[26..30])?,
        dst: host(&frame[30..34])?,
        sport: u16::from_be_bytes([t[0], t[1]]),
        dport: u16::from_be_bytes([t[2], t[3]]),
        seq: u32::from_be_bytes([t[4], t[5], t[6], t[7]]),
        ack: u32::from_be_bytes([t[8], t[9], t[10], t[11]]),
        flags: t[13],
        len: total.checked_sub(ihl + doff)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::{ACK, PSH};
    use swtor::testing::ones_complement_sum as checksum;

    #[test]
    fn a_frame_parses_back() {
        let f = frame(3, 300, 40000, 11211, 0xffff_fff0, 7, ACK | PSH, 1460);
        assert_eq!(f.len(), 1514);
        assert_eq!(checksum(&f[14..34]), 0xffff);
        let s = parse(&f).unwrap();
        assert_eq!(
            s,
            Segment {
                src: 3,
                dst: 300,
                sport: 40000,
                dport: 11211,
                seq: 0xffff_fff0,
                ack: 7,
                flags: ACK | PSH,
                len: 1460
            }
        );
        assert_eq!(parse(&f[..50]), None);
        let mut udp = f.clone();
        udp[23] = 17;
        assert_eq!(parse(&udp), None);
    }
}
