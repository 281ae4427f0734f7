//! Packet captures (`pcap`) on host ports, ToR ports and uplinks.

use super::values::{Capture, CaptureStopped, CapturesStopped};
use super::*;

pub(super) enum PcapJob {
    Iface {
        what: String,
        stop: Arc<AtomicBool>,
        /// Shared with an exit hook, which stops and joins the capture (so
        /// the file is flushed) if the run ends by a signal or a panic.
        join: Arc<Mutex<Option<CaptureJoin>>>,
        hook: u64,
    },
    Uplink {
        what: String,
        tor: TorId,
        port: lh_ctrl::PortId,
    },
}

pub(super) type CaptureJoin = std::thread::JoinHandle<std::io::Result<u64>>;

/// Where a capture reads: an interface in a namespace, or a native ToR's
/// uplink inside the data plane.
pub enum PcapTarget {
    Iface(PathBuf, String),
    Uplink(usize, lh_ctrl::PortId),
}

impl Network {
    /// Where `pcap <node> <port>` captures, checked before any file exists.
    pub fn pcap_target(&self, node: &str, port: &str) -> Result<PcapTarget, NetworkError> {
        let i = match self.node(node) {
            Some(Node::Host(i)) => i,
            Some(Node::NativeTor(t) | Node::Bmv2Tor(t)) => {
                return self.tor_pcap_target(node, t, port);
            }
            _ => return Err(NetworkError::NoSuchNode(node.to_string())),
        };
        let h = &self.plan.hosts[i];
        let ifn = h.host_if.clone();
        if port != ifn && port != "eth0" && port != "0" {
            return Err(NetworkError::NoSuchPort(format!(
                "{node} has one port: eth0 ({ifn})"
            )));
        }
        Ok(PcapTarget::Iface(self.host_ns(h), ifn))
    }

    /// A ToR's port or uplink for `pcap`.
    fn tor_pcap_target(
        &self,
        node: &str,
        t: usize,
        port: &str,
    ) -> Result<PcapTarget, NetworkError> {
        let tname = self.plan.tor_label(t);
        let num = port.strip_prefix("up").unwrap_or(port);
        if let Ok(p) = num.parse::<lh_ctrl::PortId>() {
            self.need_fabric()?;
            // Checked here, before the file is created (the data plane
            // would refuse it only after).
            if p as usize >= self.plan.uplinks {
                return Err(NetworkError::NoSuchPort(format!(
                    "{tname} has no uplink {p} (up0..up{})",
                    self.plan.uplinks.saturating_sub(1)
                )));
            }
            return Ok(PcapTarget::Uplink(t, p));
        }
        let ifn = if port.starts_with(&format!("{tname}-")) {
            port.to_string()
        } else {
            format!("{tname}-{port}")
        };
        // A BMv2 ToR's own end of an uplink or of its CPU port: what BMv2
        // sends and takes there, with the departure tags and rotation
        // frames swtor strips before `up<N>` (docs/wire-formats.md). Its
        // veths are named `s<T>-up<N>` / `s<T>-cpu` whatever the ToR's
        // label, so `cpu`, `LABEL-cpu` and the veth's own name all work.
        if matches!(self.node(node), Some(Node::Bmv2Tor(_))) {
            let own = crate::plan::tor_name(t);
            let asked = [
                port.to_string(),
                format!("{tname}-{port}"),
                format!("{own}-{port}"),
            ];
            let veth = std::iter::once(crate::plan::cpu_if(t))
                .chain((0..self.plan.uplinks).map(|p| crate::plan::uplink_if(t, p)))
                .find(|v| asked.contains(v));
            if let Some(v) = veth {
                let ns = self.node_ns(node).unwrap_or_else(|| self.fabric_ns());
                return Ok(PcapTarget::Iface(ns, v));
            }
        }
        if !self.plan.hosts_of(t).iter().any(|h| h.tor_if == ifn) {
            return Err(NetworkError::NoSuchPort(format!(
                "{tname} has no port {port}"
            )));
        }
        let ns = self.node_ns(node).unwrap_or_else(|| self.fabric_ns());
        Ok(PcapTarget::Iface(ns, ifn))
    }

    /// Capture `target` into `file` (created with `mode`, never through a
    /// symlink) in the background until [`Network::stop_pcaps`].
    pub fn pcap(
        &mut self,
        target: PcapTarget,
        file: &Path,
        mode: u32,
    ) -> Result<Capture, NetworkError> {
        // Root opens the file itself, without following a symlink, and
        // hands the open file to the capture through /proc/self/fd.
        let opened = crate::kernel::securefs::create_file(file, mode)
            .map_err(|e| NetworkError::op("pcap", e))?;
        let fd_file = crate::kernel::securefs::fd_path(&opened);
        match target {
            PcapTarget::Iface(ns, ifn) => {
                let what = format!("{ifn} -> {}", file.display());
                let stop = Arc::new(AtomicBool::new(false));
                let join = swtor::capture_iface(Some(&ns), &ifn, &fd_file, stop.clone())
                    .map_err(|e| NetworkError::Failed(e.to_string()))?;
                let join = Arc::new(Mutex::new(Some(join)));
                let (s2, j2) = (stop.clone(), join.clone());
                let hook = crate::kernel::exitguard::register(move || {
                    s2.store(true, Ordering::Relaxed);
                    let j = j2.lock().unwrap_or_else(|e| e.into_inner()).take();
                    if let Some(j) = j {
                        let _ = j.join();
                    }
                });
                let c = Capture {
                    what: ifn,
                    file: file.display().to_string(),
                    uplink: None,
                };
                self.pcaps.push(PcapJob::Iface {
                    what,
                    stop,
                    join,
                    hook,
                });
                Ok(c)
            }
            PcapTarget::Uplink(t, p) => {
                let f = self.need_fabric()?;
                let tname = self.plan.tor_label(t);
                f.capture(t as TorId, swtor::CapturePoint::Uplink(p), &fd_file)
                    .map_err(|e| NetworkError::Failed(e.to_string()))?;
                self.pcaps.push(PcapJob::Uplink {
                    what: format!("{tname} up{p} -> {}", file.display()),
                    tor: t as TorId,
                    port: p,
                });
                Ok(Capture {
                    what: format!("{tname} up{p}"),
                    file: file.display().to_string(),
                    uplink: Some((tname, p)),
                })
            }
        }
    }

    /// Stop every capture; what each wrote.
    pub fn stop_pcaps(&mut self) -> CapturesStopped {
        let mut captures = Vec::new();
        for j in std::mem::take(&mut self.pcaps) {
            let (what, frames, error) = match j {
                PcapJob::Iface {
                    what,
                    stop,
                    join,
                    hook,
                } => {
                    crate::kernel::exitguard::unregister(hook);
                    stop.store(true, Ordering::Relaxed);
                    let j = join.lock().unwrap_or_else(|e| e.into_inner()).take();
                    match j.map(|j| j.join()) {
                        Some(Ok(Ok(frames))) => (what, Some(frames), None),
                        Some(Ok(Err(e))) => (what, None, Some(e.to_string())),
                        Some(Err(_)) => (what, None, Some("capture thread panicked".into())),
                        None => (what, None, None),
                    }
                }
                PcapJob::Uplink { what, tor, port } => {
                    if let Some(f) = &self.fabric {
                        let _ = f.stop_capture(tor, swtor::CapturePoint::Uplink(port));
                    }
                    (what, None, None)
                }
            };
            captures.push(CaptureStopped {
                what,
                frames,
                error,
            });
        }
        CapturesStopped { captures }
    }
}
