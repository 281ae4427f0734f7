//! A minimal pcap writer (the classic libpcap file format, LINKTYPE_ETHERNET)
//! with nanosecond (magic 0xa1b23c4d) or microsecond (0xa1b2c3d4) stamps.

use std::io::{self, Write};

pub const MAGIC_US: u32 = 0xa1b2_c3d4;
pub const MAGIC_NS: u32 = 0xa1b2_3c4d;
pub const LINKTYPE_ETHERNET: u32 = 1;

pub struct PcapWriter<W: Write> {
    out: W,
    nanos: bool,
    snaplen: u32,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the global header. `nanos` selects nanosecond timestamps.
    pub fn new(mut out: W, nanos: bool, snaplen: u32) -> io::Result<Self> {
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&(if nanos { MAGIC_NS } else { MAGIC_US }).to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone and sigfigs stay 0
        h[16..20].copy_from_slice(&snaplen.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter {
            out,
            nanos,
            snaplen,
        })
    }

    /// Appends one record stamped `ts_ns` (ns since the Unix epoch or any
    /// other origin the reader agrees on); `orig_len` is the frame's length
    /// on the wire, `data` what was captured (cut to the snap length).
    pub fn write(&mut self, ts_ns: u64, data: &[u8], orig_len: usize) -> io::Result<()> {
        let cap = data.len().min(self.snaplen as usize);
        let sec = (ts_ns / 1_000_000_000) as u32;
        let frac = if self.nanos {
            (ts_ns % 1_000_000_000) as u32
        } else {
            ((ts_ns % 1_000_000_000) / 1_000) as u32
        };
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&sec.to_le_bytes());
        h[4..8].copy_from_slice(&frac.to_le_bytes());
        h[8..12].copy_from_slice(&(cap as u32).to_le_bytes());
        h[12..16].copy_from_slice(&(orig_len.max(cap) as u32).to_le_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(&data[..cap])
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    #[cfg(test)]
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Offset that turns CLOCK_MONOTONIC ns into Unix-epoch ns (for pcap
/// readers that print wall-clock times).
pub fn monotonic_to_unix_offset() -> i64 {
    let wall = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0);
    wall - crate::clock::monotonic_ns() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_record_layout() {
        let mut w = PcapWriter::new(Vec::new(), true, 100).unwrap();
        w.write(3_000_000_123, &[0xAB; 150], 150).unwrap();
        let b = w.into_inner();
        assert_eq!(b.len(), 24 + 16 + 100);
        assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(u16::from_le_bytes([b[4], b[5]]), 2);
        assert_eq!(u16::from_le_bytes([b[6], b[7]]), 4);
        assert_eq!(u32::from_le_bytes(b[16..20].try_into().unwrap()), 100);
        assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 1);
        let r = &b[24..40];
        assert_eq!(u32::from_le_bytes(r[0..4].try_into().unwrap()), 3);
        assert_eq!(u32::from_le_bytes(r[4..8].try_into().unwrap()), 123);
        assert_eq!(u32::from_le_bytes(r[8..12].try_into().unwrap()), 100);
        assert_eq!(u32::from_le_bytes(r[12..16].try_into().unwrap()), 150);

        let mut w = PcapWriter::new(Vec::new(), false, 65535).unwrap();
        w.write(1_500_002_999, &[1, 2, 3], 3).unwrap();
        let b = w.into_inner();
        assert_eq!(&b[0..4], &[0xd4, 0xc3, 0xb2, 0xa1]);
        assert_eq!(u32::from_le_bytes(b[28..32].try_into().unwrap()), 500_002);
        assert_eq!(&b[40..], &[1, 2, 3]);
    }
}
