//! Mininet's `intf.config(bw=, delay=, jitter=, loss=, max_queue_size=)`
//! on a running host link (`TCIntf.config`, as Mininet's `intfoptions`
//! example uses it): each call replaces every option of that interface's
//! outgoing direction, as `tc` does. A host's end sends towards its ToR: its
//! `bw` is the kernel's token bucket on the host interface (the same as
//! `tors.host_link_rate`'s pacing), its netem options are the data plane's
//! own on that direction (`swtor::netem`). A ToR's end sends towards the
//! host: the data plane's options on that direction.

use super::{Network, NetworkError};
use crate::mininet::LinkNetem;
use lh_ctrl::config::HostLinkCfg;
use lh_ctrl::units::BitsPerSec;

/// Which end of a host link an interface is.
enum End {
    /// The host's (`h1-eth0`): index in the data plane's hosts.
    Host(usize),
    /// The ToR's (`s1-eth1`).
    Tor(usize),
}

impl Network {
    /// Sets `intf`'s options (Mininet's `intf.config`): `bw` in Mbit/s,
    /// netem's options as Mininet gives them. Whatever is not given is
    /// removed.
    pub fn intf_config(
        &mut self,
        intf: &str,
        bw: Option<f64>,
        netem: &LinkNetem,
    ) -> Result<(), NetworkError> {
        let fail = |m: String| NetworkError::Op {
            verb: "intf.config",
            msg: m,
        };
        let (end, h) = match self.plan.all_intfs().enumerate().find_map(|(i, h)| {
            if h.host_if == intf {
                Some((End::Host(i), h.clone()))
            } else if h.tor_if == intf {
                Some((End::Tor(i), h.clone()))
            } else {
                None
            }
        }) {
            Some(x) => x,
            None => {
                return Err(fail(format!(
                    "{intf}: not an end of a host link; a switch link is an optical circuit, whose options (delay=, loss=, bw=) are given when the network is built"
                )));
            }
        };
        let cfg: Option<HostLinkCfg> = if netem.is_empty() {
            None
        } else {
            let v = netem
                .to_config(None)
                .map_err(|e| fail(format!("{intf}: {e}")))?;
            Some(serde_json::from_value(v).map_err(|e| fail(format!("{intf}: {e}")))?)
        };
        if self.plan.is_bmv2(h.tor as usize) && cfg.is_some() {
            return Err(fail(format!(
                "{intf}: {}'s host ports are BMv2's; delay=, jitter=, loss= and max_queue_size= are the native data plane's",
                self.plan.tor_label(h.tor as usize)
            )));
        }
        if let Some(b) = bw
            && !(b.is_finite() && b > 0.0 && b <= 1e6)
        {
            return Err(fail(format!(
                "{intf} bw={b}: expected Mbit/s, > 0 and at most 1000000"
            )));
        }
        let (k, to_tor) = match end {
            End::Host(k) => (k, true),
            End::Tor(k) => {
                if bw.is_some() {
                    return Err(fail(format!(
                        "{intf} bw=: a ToR sends to its hosts at tors.host_link_rate; give bw= to the host's end ({})",
                        h.host_if
                    )));
                }
                (k, false)
            }
        };
        if to_tor {
            let ns = self.host_ns(&h);
            match bw {
                Some(b) => {
                    crate::host::pacing::pace(&ns, intf, BitsPerSec((b * 1e6).round() as u64))
                }
                None => crate::host::pacing::unpace(&ns, intf),
            }
            .map_err(|e| fail(e.to_string()))?;
        }
        match self.fabric.as_deref() {
            Some(f) => f
                .set_host_link(k as u16, to_tor, cfg)
                .map_err(|e| fail(format!("{intf}: {e}"))),
            None if cfg.is_none() => Ok(()),
            None => Err(NetworkError::NoDataPlane),
        }
    }
}
