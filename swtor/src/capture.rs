//! Uplink taps: pcap files of what the OCS sees on a ToR uplink.

use crate::pcap::PcapWriter;
use crate::pool::{FramePool, MAX_FRAME};
use lh_ctrl::PortId;
use std::io::{self, BufWriter};

/// Which frames of a ToR a capture records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CapturePoint {
    /// Both directions of an optical uplink, as the OCS sees them: frames the
    /// ToR transmits (stamped at transmit start) and frames the OCS delivers
    /// to it (stamped at delivery).
    Uplink(PortId),
}

struct Capture {
    w: PcapWriter<BufWriter<std::fs::File>>,
    unix_off: i64,
}

/// One optional pcap writer per uplink (`tor * uplinks + port`).
pub(crate) struct Captures {
    /// Boxed, so that the check on every frame of an untapped uplink reads
    /// a pointer from a small array rather than a cache line of its own.
    taps: Vec<Option<Box<Capture>>>,
    /// Uplinks tapped: with none, a frame is not looked up at all.
    tapped: usize,
}

impl Captures {
    pub(crate) fn new(uplinks_total: usize) -> Captures {
        Captures {
            taps: (0..uplinks_total).map(|_| None).collect(),
            tapped: 0,
        }
    }

    pub(crate) fn start(&mut self, tu: usize, file: std::fs::File) -> io::Result<()> {
        let w = PcapWriter::new(BufWriter::new(file), true, MAX_FRAME as u32)?;
        let old = self.taps[tu].replace(Box::new(Capture {
            w,
            unix_off: crate::pcap::monotonic_to_unix_offset(),
        }));
        self.tapped += usize::from(old.is_none());
        Ok(())
    }

    pub(crate) fn stop(&mut self, tu: usize) -> io::Result<()> {
        if let Some(mut c) = self.taps.get_mut(tu).and_then(Option::take) {
            self.tapped -= 1;
            c.w.flush()?;
        }
        Ok(())
    }

    pub(crate) fn flush(&mut self) {
        for c in self.taps.iter_mut().flatten() {
            let _ = c.w.flush();
        }
    }

    /// Records frame `i` on uplink `tu` at CLOCK_MONOTONIC time `t`, if
    /// tapped (the frame's bytes are only looked at then).
    #[inline]
    pub(crate) fn tap(&mut self, tu: usize, t: u64, pool: &FramePool, i: u32) {
        if self.tapped == 0 {
            return;
        }
        if let Some(c) = &mut self.taps[tu] {
            let frame = pool.data(i);
            let ts = (t as i64 + c.unix_off).max(0) as u64;
            let _ = c.w.write(ts, frame, frame.len());
        }
    }
}
