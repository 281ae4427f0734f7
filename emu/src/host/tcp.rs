//! The config's `hosts.tcp` knobs applied inside one host namespace:
//! `net.ipv4.tcp_reordering`, `tcp_max_reordering`, `tcp_sack`, `tcp_rmem`
//! and `tcp_congestion_control` are per-namespace sysctls (written through /proc/sys/net from a thread inside
//! the namespace), and so is `tcp_rto_max_ms` (`rto_max`); the minimum RTO,
//! the initial window and the window's cap are metrics on each of the
//! host's IPv4 routes (`ip route change ... rto_min lock 5ms initcwnd 20
//! cwnd lock 20`), because not every kernel has a sysctl for them. The
//! initial RTO has no kernel knob: a live run refuses it.
//!
//! OTCP (`hosts.tcp.otcp`, docs/otcp.md): [`apply_otcp`] adds one /32 route
//! per destination host with the controller's per-route parameters as
//! metrics (`rto_min`, `initcwnd`, `initrwnd`, locked `cwnd`) and sets the
//! socket-level maximum RTO (`net.ipv4.tcp_rto_max_ms`, Linux >= 6.15).

use crate::kernel::netlink::{self, LinkError};
use crate::netns::{self, NsError};
use futures::TryStreamExt;
use lh_ctrl::config::HostTcp;
use rtnetlink::packet_route::route::{RouteAttribute, RouteMetric, RouteType};
use std::path::Path;

/// The kernel's RTAX_RTO_MIN: bit 13 of the RTAX_LOCK mask makes the route
/// metric override the socket's default minimum.
const RTAX_RTO_MIN: u32 = 13;
/// The kernel's RTAX_CWND: locked, the metric clamps the congestion window.
const RTAX_CWND: u32 = 7;
/// The main routing table.
const RT_TABLE_MAIN: u32 = 254;
/// The per-namespace default of every new socket's `TCP_RTO_MAX_MS`.
pub const SYSCTL_RTO_MAX: &str = "net.ipv4.tcp_rto_max_ms";

#[derive(Debug, thiserror::Error)]
pub enum HostTcpError {
    /// A knob the kernel refused, with the config path it came from.
    #[error("config {path}: {msg}")]
    Refused { path: &'static str, msg: String },
    #[error(transparent)]
    Ns(#[from] NsError),
    #[error(transparent)]
    Link(#[from] LinkError),
}

/// A per-namespace sysctl file under /proc/sys.
fn sysctl_path(key: &str) -> String {
    format!("/proc/sys/{}", key.replace('.', "/"))
}

/// Reads a sysctl of the calling thread's namespace.
pub fn read_sysctl(key: &str) -> std::io::Result<String> {
    std::fs::read_to_string(sysctl_path(key)).map(|s| s.trim().to_string())
}

/// Applies `tcp` in namespace `ns`. A congestion control the kernel does
/// not have is an error naming `$.hosts.tcp.congestion_control` and what
/// is available.
pub fn apply(ns: &Path, tcp: &HostTcp) -> Result<(), HostTcpError> {
    refuse_unsupported(tcp)?;
    netns::run_in(Some(ns), || apply_sysctls(tcp))??;
    let metrics = route_metrics(tcp);
    if !metrics.is_empty() {
        netlink::with_netlink(
            Some(ns),
            |h| async move { set_route_metrics(&h, metrics).await },
        )?;
    }
    Ok(())
}

/// What a kernel host cannot do: an error naming the field, before
/// anything is changed.
pub fn refuse_unsupported(tcp: &HostTcp) -> Result<(), HostTcpError> {
    if let Some(r) = tcp.rto_initial {
        return Err(HostTcpError::Refused {
            path: "$.hosts.tcp.rto_initial",
            msg: format!(
                "{r}: the kernel's initial RTO is fixed (TCP_TIMEOUT_INIT, 1 s) and has no knob; only virtual time (`lighthouse sim`) models it"
            ),
        });
    }
    Ok(())
}

/// The route metrics `tcp` sets on every route: `rto_min` (locked),
/// `initcwnd`, and a locked `cwnd` (the window's cap).
fn route_metrics(tcp: &HostTcp) -> Vec<RouteMetric> {
    let mut lock = 0;
    let mut m = Vec::new();
    if let Some(r) = tcp.rto_min {
        lock |= 1 << RTAX_RTO_MIN;
        m.push(RouteMetric::RtoMin((r.0 / 1_000_000) as u32));
    }
    if let Some(w) = tcp.initial_window {
        m.push(RouteMetric::InitCwnd(w));
    }
    if let Some(w) = tcp.max_window {
        lock |= 1 << RTAX_CWND;
        m.push(RouteMetric::Cwnd(w));
    }
    if !m.is_empty() && lock != 0 {
        m.insert(0, RouteMetric::Lock(lock));
    }
    m
}

fn apply_sysctls(tcp: &HostTcp) -> Result<(), HostTcpError> {
    let rmem = tcp.receive_buffer.map(|b| format!("4096 {b} {b}"));
    let plain = [
        (
            "$.hosts.tcp.reordering",
            "net.ipv4.tcp_reordering",
            tcp.reordering.map(|r| r.to_string()),
        ),
        (
            "$.hosts.tcp.max_reordering",
            "net.ipv4.tcp_max_reordering",
            tcp.max_reordering.map(|r| r.to_string()),
        ),
        (
            "$.hosts.tcp.sack",
            "net.ipv4.tcp_sack",
            tcp.sack.map(|s| u8::from(s).to_string()),
        ),
        ("$.hosts.tcp.receive_buffer", "net.ipv4.tcp_rmem", rmem),
        (
            "$.hosts.tcp.rto_max",
            SYSCTL_RTO_MAX,
            tcp.rto_max.map(|r| (r.0 / 1_000_000).to_string()),
        ),
    ];
    for (path, key, v) in plain {
        if let Some(v) = v {
            std::fs::write(sysctl_path(key), &v).map_err(|e| HostTcpError::Refused {
                path,
                msg: format!("{key} = {v}: {e}"),
            })?;
        }
    }
    if let Some(cc) = &tcp.congestion_control
        && let Err(e) = std::fs::write(sysctl_path("net.ipv4.tcp_congestion_control"), cc)
    {
        let avail =
            read_sysctl("net.ipv4.tcp_available_congestion_control").unwrap_or_else(|_| "?".into());
        let allowed =
            read_sysctl("net.ipv4.tcp_allowed_congestion_control").unwrap_or_else(|_| "?".into());
        // Linux lets a namespace other than the first default only to an
        // algorithm the machine allows; the rest are for CAP_NET_ADMIN's
        // sockets (`flows ... cc=NAME` sets it per socket).
        let msg = if avail.split_whitespace().any(|a| a == cc) {
            format!(
                "congestion control {cc:?} is loaded but not allowed as a namespace's default ({e}); allowed: {} (`sysctl -w net.ipv4.tcp_allowed_congestion_control=\"{} {cc}\"` allows it; `flows ... cc={cc}` uses it without)",
                allowed.trim(),
                allowed.trim()
            )
        } else {
            format!(
                "congestion control {cc:?} is not available on this machine ({e}); available: {} (a module that is not loaded yet loads as tcp_{cc}, e.g. `modprobe tcp_{cc}`)",
                avail.trim()
            )
        };
        return Err(HostTcpError::Refused {
            path: "$.hosts.tcp.congestion_control",
            msg,
        });
    }
    Ok(())
}

/// `ip route change ROUTE METRICS` for every unicast route of the main
/// table (e.g. `rto_min lock 5ms initcwnd 20 cwnd lock 20`): the route is
/// replaced with the same keys and `metrics`.
async fn set_route_metrics(
    h: &rtnetlink::Handle,
    metrics: Vec<RouteMetric>,
) -> Result<(), LinkError> {
    let q = rtnetlink::RouteMessageBuilder::<std::net::Ipv4Addr>::new().build();
    let routes: Vec<_> = h
        .route()
        .get(q)
        .execute()
        .try_collect()
        .await
        .map_err(|e| LinkError::Other(format!("list routes: {e}")))?;
    let mut changed = 0;
    for mut m in routes {
        let table = m
            .attributes
            .iter()
            .find_map(|a| match a {
                RouteAttribute::Table(t) => Some(*t),
                _ => None,
            })
            .unwrap_or(m.header.table as u32);
        if table != RT_TABLE_MAIN || m.header.kind != RouteType::Unicast {
            continue;
        }
        m.attributes
            .retain(|a| !matches!(a, RouteAttribute::Metrics(_)));
        m.attributes.push(RouteAttribute::Metrics(metrics.clone()));
        h.route()
            .add(m)
            .replace()
            .execute()
            .await
            .map_err(|e| LinkError::Other(format!("set {metrics:?} on a route: {e}")))?;
        changed += 1;
    }
    if changed == 0 {
        return Err(LinkError::Other(format!(
            "set {metrics:?}: the host has no route to change"
        )));
    }
    Ok(())
}

/// Most hosts [`seed_metrics`] connects all pairs of (16,256 connections).
pub const SEED_MAX_HOSTS: usize = 128;

/// Makes the kernel's TCP metrics entry of every ordered pair of `hosts`
/// (namespace, address) with one connection each, and returns how many
/// connected.
///
/// Why: the kernel takes a route's locked `cwnd` (the cap of
/// `hosts.tcp.max_window` and OTCP's CWNDmax) from its per-destination
/// metrics cache, and makes a destination's entry only when a connection
/// to it closes, so a host's first connection to each peer ran uncapped
/// (a Reno flow at cwnd 219 under a cap of 64, which overran its ToR
/// queue). Seeded, every later connection starts with the cap. The
/// kernel saves no slow-start threshold from these short connections
/// (`tcp_no_ssthresh_metrics_save`, on by default), only their RTT.
pub fn seed_metrics(
    hosts: &[(std::path::PathBuf, std::net::Ipv4Addr)],
    timeout: std::time::Duration,
) -> Result<usize, HostTcpError> {
    use socket2::{Domain, Socket, Type};
    use std::net::{SocketAddrV4, TcpListener};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let n = hosts.len();
    let mut listeners = Vec::with_capacity(n);
    let mut sockets = Vec::with_capacity(n * n.saturating_sub(1));
    for (i, (ns, ip)) in hosts.iter().enumerate() {
        let (l, s) = netns::run_in(Some(ns), || -> std::io::Result<_> {
            let l = TcpListener::bind(SocketAddrV4::new(*ip, 0))?;
            l.set_nonblocking(true)?;
            let s: Vec<Socket> = (1..n)
                .map(|_| Socket::new(Domain::IPV4, Type::STREAM, None))
                .collect::<std::io::Result<_>>()?;
            Ok((l, s))
        })?
        .map_err(|e| HostTcpError::Link(LinkError::Other(format!("seed TCP metrics: {e}"))))?;
        let addr = match l.local_addr() {
            Ok(std::net::SocketAddr::V4(a)) => a,
            _ => {
                return Err(
                    LinkError::Other("seed TCP metrics: no listener address".into()).into(),
                );
            }
        };
        listeners.push((l, addr));
        let peers = (0..n).filter(|&j| j != i);
        sockets.extend(s.into_iter().zip(peers));
    }
    let addrs: Vec<SocketAddrV4> = listeners.iter().map(|(_, a)| *a).collect();
    let (connected, accepted) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let finished = AtomicUsize::new(0);
    let deadline = std::time::Instant::now() + timeout;
    let workers = sockets.len().clamp(1, 32);
    let mut chunks: Vec<Vec<(Socket, usize)>> = (0..workers).map(|_| Vec::new()).collect();
    for (k, s) in sockets.into_iter().enumerate() {
        chunks[k % workers].push(s);
    }
    let total = chunks.iter().map(Vec::len).sum::<usize>();
    std::thread::scope(|sc| {
        sc.spawn(|| {
            // Accept and close: the passive side's handshake is all it takes.
            // Stop once every connector has finished and each connection it
            // made is accepted, so a pair that fails does not hold bring-up
            // until the deadline.
            let settled = || {
                finished.load(Ordering::Acquire) == workers
                    && accepted.load(Ordering::Relaxed) >= connected.load(Ordering::Relaxed)
            };
            while accepted.load(Ordering::Relaxed) < total
                && std::time::Instant::now() < deadline
                && !settled()
            {
                let mut any = false;
                for (l, _) in &listeners {
                    while let Ok((c, _)) = l.accept() {
                        drop(c);
                        accepted.fetch_add(1, Ordering::Relaxed);
                        any = true;
                    }
                }
                if !any {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
            }
        });
        for chunk in chunks {
            let (addrs, connected, finished) = (&addrs, &connected, &finished);
            sc.spawn(move || {
                for (s, j) in chunk {
                    let left = deadline.saturating_duration_since(std::time::Instant::now());
                    if !left.is_zero() && s.connect_timeout(&addrs[j].into(), left).is_ok() {
                        connected.fetch_add(1, Ordering::Relaxed);
                    }
                }
                finished.fetch_add(1, Ordering::Release);
            });
        }
    });
    Ok(connected.into_inner())
}

/// The route from one host to one destination with OTCP's metrics. The
/// sending side of a connection reads `rto_min`, `initcwnd` and `cwnd`;
/// the receiving side reads `initrwnd` from its own route back to the
/// sender, so that one comes from the opposite direction's route. (No
/// `window` metric: receive-buffer autotuning moves the window clamp it
/// sets, so it does not bound a connection.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OtcpRoute {
    pub dst: std::net::Ipv4Addr,
    /// This host -> dst: RTOmin (ms), IW, CWNDmax (segments).
    pub rto_min_ms: u32,
    pub initcwnd: u32,
    pub cwnd_max: u32,
    /// dst -> this host: the receive window first advertised, segments.
    pub initrwnd: u32,
}

impl OtcpRoute {
    /// From the controller's parameters of both directions.
    pub fn new(
        dst: std::net::Ipv4Addr,
        out: &lh_ctrl::otcp::OtcpParams,
        back: &lh_ctrl::otcp::OtcpParams,
    ) -> OtcpRoute {
        OtcpRoute {
            dst,
            rto_min_ms: out.rto_min_ms,
            initcwnd: out.iw,
            cwnd_max: out.cwnd_max,
            initrwnd: back.initrwnd,
        }
    }
}

/// Installs `routes` in namespace `ns` as /32 routes out of `ifname`
/// (`ip route replace 10.0.0.J/32 dev IF cwnd lock C initcwnd IW rto_min
/// lock R initrwnd RW`) and writes `net.ipv4.tcp_rto_max_ms`. A
/// kernel without that sysctl (< 6.15) keeps its fixed 120 s maximum: a
/// warning, not an error (docs/otcp.md says what the kernel cannot express).
pub fn apply_otcp(
    ns: &Path,
    ifname: &str,
    routes: &[OtcpRoute],
    socket_rto_max_ms: u32,
) -> Result<(), HostTcpError> {
    netns::run_in(Some(ns), || {
        let path = sysctl_path(SYSCTL_RTO_MAX);
        if !std::path::Path::new(&path).exists() {
            tracing::warn!(
                "{SYSCTL_RTO_MAX} does not exist (Linux < 6.15): OTCP's RTOmax is not applied"
            );
            return Ok(());
        }
        std::fs::write(&path, socket_rto_max_ms.to_string()).map_err(|e| HostTcpError::Refused {
            path: "$.hosts.tcp.otcp.socket_rto_max",
            msg: format!("{SYSCTL_RTO_MAX} = {socket_rto_max_ms}: {e}"),
        })
    })??;
    netlink::with_netlink(Some(ns), |h| async move {
        let idx = netlink::index_of(&h, ifname).await?;
        for r in routes {
            add_otcp_route(&h, idx, r).await?;
        }
        Ok(())
    })?;
    Ok(())
}

/// The route attributes of one destination's OTCP parameters.
fn otcp_metrics(r: &OtcpRoute) -> Vec<RouteMetric> {
    vec![
        RouteMetric::Lock((1 << RTAX_RTO_MIN) | (1 << RTAX_CWND)),
        RouteMetric::RtoMin(r.rto_min_ms),
        RouteMetric::InitCwnd(r.initcwnd),
        RouteMetric::Cwnd(r.cwnd_max),
        RouteMetric::InitRwnd(r.initrwnd),
    ]
}

async fn add_otcp_route(h: &rtnetlink::Handle, idx: u32, r: &OtcpRoute) -> Result<(), LinkError> {
    let dst = r.dst;
    use rtnetlink::packet_route::route::{RouteProtocol, RouteScope};
    let mut m = rtnetlink::RouteMessageBuilder::<std::net::Ipv4Addr>::new()
        .destination_prefix(dst, 32)
        .output_interface(idx)
        .scope(RouteScope::Link)
        .protocol(RouteProtocol::Static)
        .build();
    m.attributes.push(RouteAttribute::Metrics(otcp_metrics(r)));
    h.route()
        .add(m)
        .replace()
        .execute()
        .await
        .map_err(|e| LinkError::Other(format!("OTCP route to {dst}: {e}")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_live_host_refuses_the_initial_rto_and_sets_the_windows_as_route_metrics() {
        use rtnetlink::packet_route::route::RouteMetric;
        let t: lh_ctrl::config::HostTcp = serde_json::from_value(serde_json::json!({
            "rto_min": "5ms", "initial_window": 20, "max_window": 40
        }))
        .unwrap();
        assert!(super::refuse_unsupported(&t).is_ok());
        assert_eq!(
            super::route_metrics(&t),
            vec![
                RouteMetric::Lock((1 << super::RTAX_RTO_MIN) | (1 << super::RTAX_CWND)),
                RouteMetric::RtoMin(5),
                RouteMetric::InitCwnd(20),
                RouteMetric::Cwnd(40),
            ]
        );
        let iw: lh_ctrl::config::HostTcp =
            serde_json::from_value(serde_json::json!({"initial_window": 4})).unwrap();
        assert_eq!(super::route_metrics(&iw), vec![RouteMetric::InitCwnd(4)]);
        let t: lh_ctrl::config::HostTcp =
            serde_json::from_value(serde_json::json!({"rto_initial": "10ms"})).unwrap();
        let e = super::refuse_unsupported(&t).unwrap_err().to_string();
        assert!(e.starts_with("config $.hosts.tcp.rto_initial: 10ms"), "{e}");
    }

    #[test]
    fn otcp_assumes_the_data_planes_host_queue() {
        assert_eq!(
            swtor::engine::EngineOptions::default().host_queue_bytes,
            lh_ctrl::otcp::HOST_PORT_QUEUE_BYTES
        );
    }
}
