//! A host's NIC at its link rate (`tors.host_link_rate`): a token-bucket
//! qdisc (`tbf`) on the host's interface. The veth under it has no rate, so
//! without it a kernel TCP sender bursts a whole window into the fabric at
//! memory speed; with it the host sends at its link rate and TCP's small
//! queues hold the rest in the host, as a real NIC's ring does. Used for
//! the fat tree (`fabric: "fattree"`), whose multipath schemes (SOPA's
//! round robin against RPS and ECMP) are about how evenly line-rate
//! traffic spreads, which host bursts above line rate would blur.

use crate::netns::{self, NsError};
use lh_ctrl::units::BitsPerSec;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum NicPaceError {
    #[error("pacing {ifname} at {rate} with tc (iproute2): {msg}")]
    Tc {
        ifname: String,
        rate: String,
        msg: String,
    },
    #[error(transparent)]
    Ns(#[from] NsError),
}

/// Bytes the bucket may send back to back: two full frames.
const BURST: u64 = 2 * 1514;
/// How long a frame may wait in the qdisc before it is dropped (TCP's
/// small queues keep it far below this).
const LATENCY_MS: u64 = 50;

/// Paces `ifname` in namespace `ns` at `rate`.
pub fn pace(ns: &Path, ifname: &str, rate: BitsPerSec) -> Result<(), NicPaceError> {
    let bits = format!("{}bit", rate.0);
    let out = netns::run_in(Some(ns), || {
        // The child inherits this thread's network namespace.
        std::process::Command::new("tc")
            .args(["qdisc", "replace", "dev", ifname, "root", "tbf", "rate"])
            .arg(&bits)
            .args(["burst", &BURST.to_string()])
            .args(["latency", &format!("{LATENCY_MS}ms")])
            .output()
    })?;
    let err = |msg: String| NicPaceError::Tc {
        ifname: ifname.to_string(),
        rate: bits.clone(),
        msg,
    };
    match out {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(err(String::from_utf8_lossy(&o.stderr).trim().to_string())),
        Err(e) => Err(err(e.to_string())),
    }
}

/// Removes what [`pace`] put on `ifname` in namespace `ns` (nothing there:
/// nothing to do).
pub fn unpace(ns: &Path, ifname: &str) -> Result<(), NicPaceError> {
    let out = netns::run_in(Some(ns), || {
        std::process::Command::new("tc")
            .args(["qdisc", "del", "dev", ifname, "root"])
            .output()
    })?;
    match out {
        Ok(o) if o.status.success() => Ok(()),
        // The kernel's default qdisc cannot be deleted: nothing was set.
        Ok(o)
            if String::from_utf8_lossy(&o.stderr)
                .contains("Cannot delete qdisc with handle of zero") =>
        {
            Ok(())
        }
        Ok(o) => Err(NicPaceError::Tc {
            ifname: ifname.to_string(),
            rate: "none".into(),
            msg: String::from_utf8_lossy(&o.stderr).trim().to_string(),
        }),
        Err(e) => Err(NicPaceError::Tc {
            ifname: ifname.to_string(),
            rate: "none".into(),
            msg: e.to_string(),
        }),
    }
}
