//! Case files: JSON, one list of cases. Errors name the JSON path.

use lh_ctrl::compile::Compiled;
use lh_ctrl::config::Config;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    /// Config file, relative to the case file.
    pub config: PathBuf,
    /// The ToR under test (`s1` ...).
    pub tor: String,
    pub frames: Vec<FrameSpec>,
    pub expect: Vec<Expect>,
    #[serde(skip)]
    pub base: PathBuf,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameSpec {
    pub id: String,
    /// Cycle of the arrival (0-based).
    #[serde(default)]
    pub cycle: u64,
    /// Arrival slice at the ToR under test.
    pub slice: u16,
    /// `hK` (a host of the ToR under test) or `upP` (uplink `P`).
    pub ingress: String,
    /// Source host (default: the ingress host).
    #[serde(default)]
    pub src: Option<String>,
    /// Destination host name or IPv4 address.
    pub dst: String,
    /// Whole frame length in bytes (Ethernet header included).
    #[serde(default = "default_len")]
    pub len: usize,
    #[serde(default = "default_sport")]
    pub sport: u16,
    #[serde(default = "default_dport")]
    pub dport: u16,
    /// A source-route header already on the frame (fabric ingress):
    /// `[port, depart]` steps, `depart` null for "now".
    #[serde(default)]
    pub srh: Option<Vec<(u8, Option<u16>)>>,
    /// An ARP request for `dst` instead of a UDP frame.
    #[serde(default)]
    pub arp: bool,
    /// The sender's IPv4 address instead of `src`'s (ARP and UDP).
    #[serde(default)]
    pub src_ip: Option<Ipv4Addr>,
    /// A push-back message (shim kind 3, docs/wire-formats.md) instead of
    /// a UDP frame.
    #[serde(default)]
    pub pushback: bool,
    /// This EtherType instead of IPv4's (the IPv4 bytes stay).
    #[serde(default)]
    pub ether_type: Option<u16>,
    /// An IEEE 802.1Q tag with this VLAN id (TCI, priority 0) between the
    /// source MAC and the IPv4 EtherType; `len` grows by its 4 bytes.
    #[serde(default)]
    pub vlan: Option<u16>,
    /// This IPv4 protocol instead of UDP's 17 (the UDP bytes stay).
    #[serde(default)]
    pub proto: Option<u8>,
    /// Four bytes of IPv4 options (IHL 6); `len` stays the whole length.
    #[serde(default)]
    pub ip_options: bool,
    /// The source-route header's version (default 1).
    #[serde(default)]
    pub srh_version: Option<u8>,
    /// Microseconds into the arrival slot (default: just past the slot's
    /// dark time on the native ToR, right after the rotation frame on BMv2).
    #[serde(default)]
    pub offset_us: Option<u64>,
    /// BMv2: the rotation frame before this one announces the previous
    /// slot and the frame comes one slice later, so the program must
    /// advance the slice itself (docs/p4.md, "How the P4 program knows the
    /// current slice"). The native ToR has its own clock: no difference.
    #[serde(default)]
    pub late: bool,
    /// With `late`: how many slices late (default 1). The rotation frame
    /// names the slot that many before, and the frame comes that many
    /// slices after it: the program's clock runs forward by all of them.
    #[serde(default)]
    pub late_slices: Option<u64>,
    /// BMv2: just before the frame, a second rotation frame repeats the
    /// slot of the one that set the clock (a late frame's is `lag` slots
    /// behind by then; for a frame on time, the slot before), as one that
    /// waited for a core would. The program's clock must keep its start
    /// (docs/p4.md, "How the P4 program knows the current slice"). The
    /// native ToR: no difference.
    #[serde(default)]
    pub stale_rotation: bool,
    /// The frame carries a departure tag (kind 1). From a host: on both
    /// targets (a host must not send one). From the fabric: on BMv2, where
    /// the program strips it; the native ToR's fabric frames are always
    /// sent tagged by the peer and swtor strips the tag.
    #[serde(default)]
    pub tagged: bool,
}

fn default_len() -> usize {
    100
}
fn default_sport() -> u16 {
    4000
}
fn default_dport() -> u16 {
    5001
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub id: String,
    /// `hK` or `upP`; absent when the frame is dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out: Option<String>,
    /// Departure slice (uplinks of time-slotted fabrics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depart: Option<u16>,
    /// Cycle of the departure slot, from the case's first (0-based): the
    /// rank of a departure that wraps into the next cycle. Not for
    /// deferred frames (the native ToR sends them a cycle later, the
    /// program's tag names the slot they missed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle: Option<u64>,
    /// Source-route steps left on the frame as it leaves (`[]`: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srh: Option<Vec<(u8, Option<u16>)>>,
    /// snake_case drop reason (`swtor::DropReason`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<String>,
    /// The frame took one of the entry's alternates.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rerouted: bool,
    /// The frame fit no choice's slice and waits in the primary queue.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deferred: bool,
    /// An ARP reply carrying this host's MAC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arp_reply_for: Option<String>,
}

/// What a target did with one frame, in the same terms as [`Expect`].
pub type Outcome = Expect;

#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: at {at}: {msg}")]
    Json {
        path: String,
        at: String,
        msg: String,
    },
    #[error("{path}: case {case:?}: {msg}")]
    Invalid {
        path: String,
        case: String,
        msg: String,
    },
}

pub fn load_cases(path: &Path) -> Result<Vec<Case>, CaseError> {
    let p = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| CaseError::Io {
        path: p.clone(),
        source,
    })?;
    parse_cases(&text, &p, path.parent().unwrap_or(Path::new(".")))
}

/// Cases from JSON text; `name` labels errors, config paths resolve
/// against `base`.
pub fn parse_cases(text: &str, name: &str, base: &Path) -> Result<Vec<Case>, CaseError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let mut cases: Vec<Case> =
        serde_path_to_error::deserialize(de).map_err(|e| CaseError::Json {
            path: name.to_string(),
            at: e.path().to_string(),
            msg: e.inner().to_string(),
        })?;
    for c in &mut cases {
        c.base = base.to_path_buf();
        c.check().map_err(|msg| CaseError::Invalid {
            path: name.to_string(),
            case: c.name.clone(),
            msg,
        })?;
    }
    Ok(cases)
}

/// The fabric a case runs on, compiled.
pub struct Fabric {
    pub compiled: Compiled,
    /// Index of the ToR under test.
    pub tor: usize,
}

impl FrameSpec {
    /// Slices between the rotation frame and this frame (0: on time).
    pub fn lag(&self) -> u64 {
        if self.late {
            self.late_slices.unwrap_or(1)
        } else {
            0
        }
    }
}

impl Case {
    fn check(&self) -> Result<(), String> {
        for e in &self.expect {
            if !self.frames.iter().any(|f| f.id == e.id) {
                return Err(format!("expectation for unknown frame {:?}", e.id));
            }
            if e.out.is_some() == e.drop.is_some() {
                return Err(format!("frame {:?}: expect exactly one of out/drop", e.id));
            }
        }
        let mut last = (0, 0);
        for f in &self.frames {
            if (f.cycle, f.slice) < last {
                return Err(format!("frame {:?}: frames must be in time order", f.id));
            }
            last = (f.cycle, f.slice);
            if f.late_slices.is_some() && !f.late {
                return Err(format!("frame {:?}: late_slices without late", f.id));
            }
            if f.late_slices.is_some_and(|n| !(1..=63).contains(&n)) {
                return Err(format!(
                    "frame {:?}: late_slices must be 1 to 63 (how far the program's clock runs forward)",
                    f.id
                ));
            }
        }
        Ok(())
    }

    pub fn config_path(&self) -> PathBuf {
        self.base.join(&self.config)
    }

    pub fn fabric(&self) -> Result<Fabric, String> {
        let cfg = Config::load(&self.config_path()).map_err(|e| e.to_string())?;
        let compiled = lh_ctrl::compile::compile(&cfg).map_err(|e| e.to_string())?;
        let tor = tor_index(&self.tor, compiled.schedule.tors())
            .ok_or_else(|| format!("no ToR {:?}", self.tor))?;
        Ok(Fabric { compiled, tor })
    }
}

/// `sN` → N-1.
pub fn tor_index(name: &str, tors: usize) -> Option<usize> {
    let n: usize = name.strip_prefix('s')?.parse().ok()?;
    (n >= 1 && n <= tors).then(|| n - 1)
}

/// `hK` → K (1-based host number).
pub fn host_number(name: &str) -> Option<usize> {
    name.strip_prefix('h')?.parse().ok().filter(|&k| k >= 1)
}

/// `upP` → P.
pub fn uplink_number(name: &str) -> Option<usize> {
    name.strip_prefix("up")?.parse().ok()
}

/// Mininet addressing: host K is 10.0.0.K.
pub fn host_ip(k: usize) -> Ipv4Addr {
    Ipv4Addr::from((10u32 << 24) | (k as u32 & 0x00ff_ffff))
}

/// Mininet `--mac`: 00:00:00:00:00:KK.
pub fn host_mac(k: usize) -> [u8; 6] {
    let b = (k as u32).to_be_bytes();
    [0, 0, b[0], b[1], b[2], b[3]]
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(d) = &self.drop {
            return write!(f, "drop {d}");
        }
        write!(f, "out {}", self.out.as_deref().unwrap_or("?"))?;
        if let Some(d) = self.depart {
            write!(f, " depart {d}")?;
        }
        if let Some(c) = self.cycle {
            write!(f, " cycle {c}")?;
        }
        if let Some(s) = &self.srh {
            write!(f, " srh {s:?}")?;
        }
        if self.rerouted {
            write!(f, " rerouted")?;
        }
        if self.deferred {
            write!(f, " deferred")?;
        }
        if let Some(h) = &self.arp_reply_for {
            write!(f, " arp-reply-for {h}")?;
        }
        Ok(())
    }
}

/// Compares an outcome with its expectation on the fields the expectation
/// sets (`srh`, `depart`, `cycle` and `arp_reply_for` only when given, but
/// no departure tag on a frame delivered to a host; `rerouted`
/// and `deferred` always: a frame deferred or rerouted unexpectedly is a
/// difference too).
pub fn matches(e: &Expect, o: &Outcome) -> bool {
    // A frame delivered to a host must not carry a departure tag.
    let to_host = e.out.as_deref().is_some_and(|p| host_number(p).is_some());
    e.out == o.out
        && e.drop == o.drop
        && (e.depart.is_none() && !to_host || e.depart == o.depart)
        && (e.cycle.is_none() || e.cycle == o.cycle)
        && (e.srh.is_none() || e.srh == o.srh)
        && e.rerouted == o.rerouted
        && e.deferred == o.deferred
        && (e.arp_reply_for.is_none() || e.arp_reply_for == o.arp_reply_for)
}
