//! A topology as Mininet describes it (the API objects): switches, hosts,
//! links, and the options of `addLink` (ports, interface names and
//! addresses, `TCLink`'s netem options) and of `addHost` (address, default
//! route), read from the JSON the exporter writes.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::net::Ipv4Addr;

/// A topology as Mininet sees it: names and links.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MnTopo {
    pub switches: Vec<String>,
    pub hosts: Vec<String>,
    /// `(a, b, bw in Mbit/s if given)`.
    pub links: Vec<(String, String, Option<f64>)>,
    /// Mininet's `port1`/`port2` of each link, where given (index as in
    /// `links`; missing entries: numbered in link order).
    pub ports: Vec<(Option<usize>, Option<usize>)>,
    /// netem's options of each link (index as in `links`; missing
    /// entries: none), Mininet's `TCLink(delay=, jitter=, loss=,
    /// max_queue_size=)`.
    pub netem: Vec<LinkNetem>,
    /// Each link's two ends as the topology names and addresses them
    /// (index as in `links`; missing entries: Mininet's defaults).
    pub ends: Vec<[LinkEnd; 2]>,
    /// Mininet's `addHost(ip=..., defaultRoute=...)`, by host.
    pub host_opts: BTreeMap<String, HostOpts>,
    /// Link options that cannot be honoured: said at start-up, never
    /// dropped silently.
    pub warnings: Vec<String>,
}

/// One end of a link as Mininet's `addLink` gives it: `intfName1` (or
/// `2`) and the `ip` of `params1` (or `2`). Unset: Mininet's `NODE-ethK`
/// and no address (a host's first interface gets the host's).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkEnd {
    pub intf: Option<String>,
    pub ip: Option<String>,
}

impl LinkEnd {
    /// Both ends from a link's JSON object (`{"intfName2": "r0-eth1",
    /// "params2": {"ip": "192.168.1.1/24"}}`); an error names the key.
    pub fn pair_from_json(o: &Value) -> Result<[LinkEnd; 2], String> {
        let one = |side: u8| -> Result<LinkEnd, String> {
            let intf = match o.get(format!("intfName{side}")) {
                None | Some(Value::Null) => None,
                Some(Value::String(n)) => Some(n.clone()),
                Some(x) => return Err(format!("intfName{side}={x}: expected a name")),
            };
            let ip = match o.get(format!("params{side}")) {
                None | Some(Value::Null) => None,
                Some(Value::Object(m)) => {
                    if let Some(k) = m.keys().find(|k| k.as_str() != "ip") {
                        return Err(format!(
                            "params{side}: {k}= is not taken; an interface's params take ip= only (give the link bw=, delay=, loss= ...)"
                        ));
                    }
                    match m.get("ip") {
                        None | Some(Value::Null) => None,
                        Some(Value::String(a)) => Some(a.clone()),
                        Some(x) => {
                            return Err(format!("params{side} ip={x}: expected 'A.B.C.D/N'"));
                        }
                    }
                }
                Some(x) => return Err(format!("params{side}={x}: expected {{'ip': 'A.B.C.D/N'}}")),
            };
            Ok(LinkEnd { intf, ip })
        };
        Ok([one(1)?, one(2)?])
    }
}

/// A host's own options (Mininet's `addHost`): its address and default
/// route (`'via 192.168.1.1'`, or an interface).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostOpts {
    pub ip: Option<String>,
    pub default_route: Option<String>,
}

/// `A.B.C.D` or `A.B.C.D/N` (without `/N`: the prefix of the run's
/// ipBase); `what` names the option in the error.
pub fn parse_ip(s: &str, what: &str) -> Result<(Ipv4Addr, Option<u8>), String> {
    let (a, n) = match s.split_once('/') {
        Some((a, n)) => (a, Some(n)),
        None => (s, None),
    };
    let ip: Ipv4Addr = a
        .parse()
        .map_err(|_| format!("{what}={s:?}: expected 'A.B.C.D/N'"))?;
    let len = n
        .map(|n| n.parse::<u8>().ok().filter(|n| (1..=32).contains(n)))
        .map(|l| l.ok_or_else(|| format!("{what}={s:?}: expected a prefix length 1..32")))
        .transpose()?;
    if ip.is_unspecified() || ip.is_broadcast() || ip.is_multicast() {
        return Err(format!("{what}={s:?}: expected a unicast address"));
    }
    Ok((ip, len))
}

/// A link's netem options as Mininet takes them: times as strings
/// (`'10ms'`), loss in percent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkNetem {
    pub delay: Option<String>,
    pub jitter: Option<String>,
    pub loss: Option<f64>,
    pub max_queue_size: Option<u64>,
}

impl LinkNetem {
    pub fn is_empty(&self) -> bool {
        *self == LinkNetem::default()
    }

    /// The options of a link's JSON object (`{"delay": "10ms", ...}`,
    /// what Mininet's `addLink` got); None where a value is not of the
    /// type Mininet takes.
    pub fn from_json(o: &Value) -> Result<LinkNetem, String> {
        let time = |k: &str| -> Result<Option<String>, String> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(t)) => Ok(Some(t.clone())),
                Some(x) => Err(format!("{k}={x}: expected a time such as '10ms'")),
            }
        };
        let loss = match o.get("loss") {
            None | Some(Value::Null) => None,
            Some(x) => Some(
                x.as_f64()
                    .ok_or(format!("loss={x}: expected a percentage"))?,
            ),
        };
        let max_queue_size = match o.get("max_queue_size") {
            None | Some(Value::Null) => None,
            Some(x) => Some(
                x.as_u64()
                    .ok_or(format!("max_queue_size={x}: expected a number of packets"))?,
            ),
        };
        Ok(LinkNetem {
            delay: time("delay")?,
            jitter: time("jitter")?,
            loss,
            max_queue_size,
        })
    }

    /// As config `hosts.link` (JSON), checked: a clear error naming the
    /// option otherwise.
    pub fn to_config(&self, seed: Option<u64>) -> Result<Value, String> {
        let mut o = serde_json::Map::new();
        for (k, v) in [("delay", &self.delay), ("jitter", &self.jitter)] {
            if let Some(t) = v {
                t.parse::<lh_ctrl::units::Nanos>()
                    .map_err(|e| format!("{k}='{t}': {e}"))?;
                o.insert(k.into(), json!(t));
            }
        }
        if let Some(l) = self.loss {
            if !(0.0..=100.0).contains(&l) {
                return Err(format!("loss={l}: expected a percentage, 0 to 100"));
            }
            o.insert("loss".into(), json!(l));
        }
        if let Some(q) = self.max_queue_size {
            if q == 0 || q > u32::MAX as u64 {
                return Err(format!("max_queue_size={q}: expected 1 to {}", u32::MAX));
            }
            o.insert("max_queue_size".into(), json!(q));
        }
        if let Some(s) = seed {
            o.insert("seed".into(), json!(s));
        }
        Ok(Value::Object(o))
    }
}

/// Frames a shaped Mininet link's queue holds when `max_queue_size` is not
/// given: netem's default `limit`, and the txqueuelen of the pfifo that
/// `tc`'s htb gets when only `bw=` is set, both 1000.
pub const TC_QUEUE_FRAMES: u64 = 1000;

/// `tors.queue_capacity` for switch links shaped as a `TCLink`: their
/// `max_queue_size` (or [`TC_QUEUE_FRAMES`]) full frames. Without it a
/// shaped switch link would have the calendar queue's default (eight
/// slices, 64 KiB at least: 43 frames), and TCP over a long, slow Mininet
/// link would lose where Mininet's queue of 1000 holds.
pub fn tc_queue_bytes(max_queue_size: Option<u64>) -> u64 {
    max_queue_size.unwrap_or(TC_QUEUE_FRAMES) * u64::from(lh_ctrl::config::DEFAULT_MAX_FRAME)
}

/// `{"h1": {"ip": "10.0.0.1/8", "defaultRoute": "via 10.0.0.254"}}`:
/// each host's own options; an error names the host and the key.
pub fn host_opts_from_json(v: &Value) -> Result<BTreeMap<String, HostOpts>, String> {
    let mut out = BTreeMap::new();
    for (h, o) in v.as_object().into_iter().flatten() {
        let s = |k: &str| -> Result<Option<String>, String> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(x)) => Ok(Some(x.clone())),
                Some(x) => Err(format!("host {h} {k}={x}: expected a string")),
            }
        };
        out.insert(
            h.clone(),
            HostOpts {
                ip: s("ip")?,
                default_route: s("defaultRoute")?,
            },
        );
    }
    Ok(out)
}
