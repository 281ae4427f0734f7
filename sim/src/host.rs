//! The hosts' side in virtual time: Ethernet/IPv4 frames as the kernel
//! would put them on a host's veth, addressed as the live run's plan
//! addresses its hosts (host `n` is 10.0.0.n, [`swtor::testing::host_ip`]).
//! The fabric answers ARP itself (proxy ARP), so a host needs none; ICMP
//! echo is all a ping needs.

use std::net::Ipv4Addr;
use swtor::testing::{host_ip, host_mac, ones_complement_sum as checksum};

/// An ICMP echo: who sent it to whom, and its identifier and sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Echo {
    pub src: usize,
    pub dst: usize,
    pub reply: bool,
    pub id: u16,
    pub seq: u16,
}

/// Bytes of an echo frame as Linux ping sends them: 14 Ethernet + 20 IPv4
/// + 8 ICMP + 56 payload.
pub const ECHO_LEN: usize = 98;

const ETH_IPV4: u16 = 0x0800;

/// The IPv4 header fields a frame sets beyond its hosts.
#[derive(Clone, Copy)]
pub(crate) struct Ipv4 {
    /// IP protocol (1 ICMP, 6 TCP, 17 UDP).
    pub proto: u8,
    /// The TOS byte (DSCP << 2).
    pub tos: u8,
    /// Don't fragment.
    pub df: bool,
}

/// A `len`-byte Ethernet/IPv4 frame from host `src` to `dst` (numbers
/// from 1), its IPv4 header complete with checksum, into `buf`, which
/// keeps only its first `keep` bytes: the rest are zeros nothing reads, so
/// the simulation moves a frame's headers and counts its length on the
/// wire (`MemPort::inject_owned`'s padding). The bytes left out.
pub(crate) fn ipv4_frame_into(
    buf: &mut Vec<u8>,
    src: usize,
    dst: usize,
    ip: Ipv4,
    len: usize,
    keep: usize,
) -> u16 {
    assert!((34..=len).contains(&keep), "a frame keeps its IPv4 header");
    buf.clear();
    buf.resize(keep, 0);
    let f = &mut buf[..];
    f[0..6].copy_from_slice(&host_mac(dst));
    f[6..12].copy_from_slice(&host_mac(src));
    f[12..14].copy_from_slice(&ETH_IPV4.to_be_bytes());
    f[14] = 0x45;
    f[15] = ip.tos;
    f[16..18].copy_from_slice(&((len - 14) as u16).to_be_bytes());
    if ip.df {
        f[20] = 0x40;
    }
    f[22] = 64;
    f[23] = ip.proto;
    f[26..30].copy_from_slice(&host_ip(src).octets());
    f[30..34].copy_from_slice(&host_ip(dst).octets());
    let sum = !checksum(&f[14..34]);
    f[24..26].copy_from_slice(&sum.to_be_bytes());
    (len - keep) as u16
}

/// The frame of echo `e` (host numbers from 1).
pub fn echo_frame(e: &Echo) -> Vec<u8> {
    let mut f = Vec::with_capacity(ECHO_LEN);
    echo_frame_into(&mut f, e);
    f
}

/// [`echo_frame`] into `buf`, whole (its checksum covers its payload).
pub fn echo_frame_into(buf: &mut Vec<u8>, e: &Echo) {
    let icmp = Ipv4 {
        proto: 1,
        tos: 0,
        df: false,
    };
    ipv4_frame_into(buf, e.src, e.dst, icmp, ECHO_LEN, ECHO_LEN);
    let f = &mut buf[..];
    f[34] = if e.reply { 0 } else { 8 };
    f[38..40].copy_from_slice(&e.id.to_be_bytes());
    f[40..42].copy_from_slice(&e.seq.to_be_bytes());
    let icmp = !checksum(&f[34..]);
    f[36..38].copy_from_slice(&icmp.to_be_bytes());
}

/// The echo in `frame`, if it is one between two hosts of the plan.
pub fn parse_echo(frame: &[u8]) -> Option<Echo> {
    if frame.len() < 42 || frame[12..14] != ETH_IPV4.to_be_bytes() || frame[23] != 1 {
        return None;
    }
    let ihl = usize::from(frame[14] & 0x0f) * 4;
    let icmp = frame.get(14 + ihl..)?;
    if icmp.len() < 8 || !matches!(icmp[0], 0 | 8) {
        return None;
    }
    let host = |b: &[u8]| host_of(Ipv4Addr::new(b[0], b[1], b[2], b[3]));
    Some(Echo {
        src: host(&frame[26..30])?,
        dst: host(&frame[30..34])?,
        reply: icmp[0] == 0,
        id: u16::from_be_bytes([icmp[4], icmp[5]]),
        seq: u16::from_be_bytes([icmp[6], icmp[7]]),
    })
}

/// UDP port of RotorLB bulk frames ([`bulk_frame`]).
pub const BULK_PORT: u16 = 4791;

/// Header bytes of a bulk frame before its payload: 14 Ethernet + 20 IPv4
/// + 8 UDP + 12 (flow id, payload bytes, magic), 54 as a TCP segment's.
pub const BULK_HEADER: usize = 54;

const BULK_MAGIC: u32 = 0x524c_4221; // "RLB!"

/// One frame of bulk flow `id` from host `src` to `dst` carrying `payload`
/// bytes (zeros), marked bulk (DSCP CS1) as Opera's RotorLB hosts mark
/// theirs.
pub fn bulk_frame(src: usize, dst: usize, id: u32, payload: usize) -> Vec<u8> {
    let mut f = Vec::new();
    bulk_frame_into(&mut f, src, dst, id, payload, BULK_HEADER + payload);
    f
}

/// [`bulk_frame`] into `buf`, keeping its first `keep` bytes (at least
/// [`BULK_HEADER`]; see [`ipv4_frame_into`]); the bytes left out.
pub fn bulk_frame_into(
    buf: &mut Vec<u8>,
    src: usize,
    dst: usize,
    id: u32,
    payload: usize,
    keep: usize,
) -> u16 {
    let len = BULK_HEADER + payload;
    let udp = Ipv4 {
        proto: 17,
        tos: swtor::wire::DSCP_BULK << 2,
        df: false,
    };
    let pad = ipv4_frame_into(buf, src, dst, udp, len, keep.clamp(BULK_HEADER, len));
    let f = &mut buf[..];
    f[34..36].copy_from_slice(&BULK_PORT.to_be_bytes());
    f[36..38].copy_from_slice(&BULK_PORT.to_be_bytes());
    f[38..40].copy_from_slice(&((len - 34) as u16).to_be_bytes());
    f[42..46].copy_from_slice(&id.to_be_bytes());
    f[46..50].copy_from_slice(&(payload as u32).to_be_bytes());
    f[50..54].copy_from_slice(&BULK_MAGIC.to_be_bytes());
    pad
}

/// A bulk frame's (destination host, flow id, payload bytes), if `frame`
/// is one ([`bulk_frame`]).
pub fn parse_bulk(frame: &[u8]) -> Option<(usize, u32, u64)> {
    if frame.len() < BULK_HEADER
        || frame[12..14] != ETH_IPV4.to_be_bytes()
        || frame[14] != 0x45
        || frame[23] != 17
        || frame[36..38] != BULK_PORT.to_be_bytes()
        || frame[50..54] != BULK_MAGIC.to_be_bytes()
    {
        return None;
    }
    let dst = host_of(Ipv4Addr::new(frame[30], frame[31], frame[32], frame[33]))?;
    let id = u32::from_be_bytes(frame[42..46].try_into().ok()?);
    let payload = u32::from_be_bytes(frame[46..50].try_into().ok()?);
    Some((dst, id, u64::from(payload)))
}

/// The host number of a 10.0.0.0/8 address ([`host_ip`]'s inverse).
pub fn host_of(ip: Ipv4Addr) -> Option<usize> {
    let v = u32::from(ip);
    let n = v.checked_sub(u32::from(Ipv4Addr::new(10, 0, 0, 0)))?;
    (1..1 << 24).contains(&n).then_some(n as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bulk_frame_parses_back_and_is_marked_bulk() {
        let f = bulk_frame(3, 7, 42, 1460);
        assert_eq!(f.len(), 1514);
        assert_eq!(parse_bulk(&f), Some((7, 42, 1460)));
        assert_eq!(swtor::wire::ipv4_dscp(&f), Some(swtor::wire::DSCP_BULK));
        assert_eq!(checksum(&f[14..34]), 0xffff, "IPv4 checksum");
        assert_eq!(parse_echo(&f), None);
        let mut g = f.clone();
        g[50] ^= 1;
        assert_eq!(parse_bulk(&g), None, "not our magic");
        assert_eq!(
            parse_bulk(&echo_frame(&Echo {
                src: 1,
                dst: 2,
                reply: false,
                id: 1,
                seq: 1
            })),
            None
        );
    }

    #[test]
    fn an_echo_frame_parses_back_with_valid_checksums() {
        let e = Echo {
            src: 3,
            dst: 300,
            reply: false,
            id: 0x1234,
            seq: 7,
        };
        let f = echo_frame(&e);
        assert_eq!(f.len(), ECHO_LEN);
        assert_eq!(parse_echo(&f), Some(e));
        // A correct checksum sums to 0xffff.
        assert_eq!(checksum(&f[14..34]), 0xffff);
        assert_eq!(checksum(&f[34..]), 0xffff);
        let r = Echo { reply: true, ..e };
        assert_eq!(parse_echo(&echo_frame(&r)), Some(r));
        assert_eq!(host_of(host_ip(300)), Some(300));
        assert_eq!(host_of(Ipv4Addr::new(192, 168, 0, 1)), None);
        assert_eq!(host_of(Ipv4Addr::new(10, 0, 0, 0)), None);
        // Not ICMP, or too short: not an echo.
        let mut udp = f.clone();
        udp[23] = 17;
        assert_eq!(parse_echo(&udp), None);
        assert_eq!(parse_echo(&f[..40]), None);
    }
}
