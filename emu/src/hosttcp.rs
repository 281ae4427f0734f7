//! The config's `hosts.tcp` knobs applied inside one host namespace:
//! `net.ipv4.tcp_reordering` and `net.ipv4.tcp_congestion_control` are
//! per-namespace sysctls (written through /proc/sys/net from a thread inside
//! the namespace), and the minimum RTO is a locked `rto_min` metric on each
//! of the host's IPv4 routes (`ip route change ... rto_min 5ms`), because
//! not every kernel has a sysctl for it.

use crate::links::{self, LinkError};
use crate::netns::{self, NsError};
use futures::TryStreamExt;
use lh_ctrl::config::HostTcp;
use rtnetlink::packet_route::route::{RouteAttribute, RouteMetric, RouteType};
use std::path::Path;

/// The kernel's RTAX_RTO_MIN: bit 13 of the RTAX_LOCK mask makes the route
/// metric override the socket's default minimum.
const RTAX_RTO_MIN: u32 = 13;
/// The main routing table.
const RT_TABLE_MAIN: u32 = 254;

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
    netns::run_in(Some(ns), || apply_sysctls(tcp))??;
    if let Some(r) = tcp.rto_min {
        let ms = (r.0 / 1_000_000) as u32;
        links::with_netlink(Some(ns), |h| async move { set_rto_min(&h, ms).await })?;
    }
    Ok(())
}

fn apply_sysctls(tcp: &HostTcp) -> Result<(), HostTcpError> {
    if let Some(r) = tcp.reordering {
        std::fs::write(sysctl_path("net.ipv4.tcp_reordering"), r.to_string()).map_err(|e| {
            HostTcpError::Refused {
                path: "$.hosts.tcp.reordering",
                msg: format!("net.ipv4.tcp_reordering = {r}: {e}"),
            }
        })?;
    }
    if let Some(cc) = &tcp.congestion_control
        && let Err(e) = std::fs::write(sysctl_path("net.ipv4.tcp_congestion_control"), cc)
    {
        let avail =
            read_sysctl("net.ipv4.tcp_available_congestion_control").unwrap_or_else(|_| "?".into());
        return Err(HostTcpError::Refused {
            path: "$.hosts.tcp.congestion_control",
            msg: format!(
                "congestion control {cc:?} is not available on this machine ({e}); available: {avail} (a module that is not loaded yet loads as tcp_{cc}, e.g. `modprobe tcp_{cc}`)"
            ),
        });
    }
    Ok(())
}

/// `ip route change ROUTE rto_min MS` for every unicast route of the main
/// table: the route is replaced with the same keys and a locked metric.
async fn set_rto_min(h: &rtnetlink::Handle, ms: u32) -> Result<(), LinkError> {
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
        m.attributes.push(RouteAttribute::Metrics(vec![
            RouteMetric::Lock(1 << RTAX_RTO_MIN),
            RouteMetric::RtoMin(ms),
        ]));
        h.route()
            .add(m)
            .replace()
            .execute()
            .await
            .map_err(|e| LinkError::Other(format!("set rto_min {ms}ms on a route: {e}")))?;
        changed += 1;
    }
    if changed == 0 {
        return Err(LinkError::Other(
            "set rto_min: the host has no route to change".into(),
        ));
    }
    Ok(())
}
