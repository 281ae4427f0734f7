//! Links, addresses and neighbours through rtnetlink. Every request runs on a
//! short-lived thread inside the target namespace with its own current-thread
//! tokio runtime: the netlink socket is opened there, so it talks to that
//! namespace, and no tokio worker ever calls `setns`.

use crate::netns::{self, NsError};
use futures::TryStreamExt;
use rtnetlink::packet_route::link::{InfoData, InfoVeth, LinkAttribute};
use rtnetlink::packet_route::neighbour::NeighbourState;
use rtnetlink::{Handle, LinkMessageBuilder, LinkUnspec, LinkVeth, LinkVxlan};
use std::net::{IpAddr, Ipv4Addr};
use std::os::fd::RawFd;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error(transparent)]
    Ns(#[from] NsError),
    #[error("netlink: {what}: {source}")]
    Netlink {
        what: String,
        source: rtnetlink::Error,
    },
    #[error("netlink: {0}")]
    Other(String),
}

/// Attach a description to a netlink error.
trait Ctx<T> {
    fn ctx(self, what: impl FnOnce() -> String) -> Result<T, LinkError>;
}

impl<T> Ctx<T> for Result<T, rtnetlink::Error> {
    fn ctx(self, what: impl FnOnce() -> String) -> Result<T, LinkError> {
        self.map_err(|source| LinkError::Netlink {
            what: what(),
            source,
        })
    }
}

/// Run an async netlink job inside namespace `ns` (ours when `None`).
pub fn with_netlink<T, F, Fut>(ns: Option<&Path>, f: F) -> Result<T, LinkError>
where
    T: Send,
    F: FnOnce(Handle) -> Fut + Send,
    Fut: std::future::Future<Output = Result<T, LinkError>>,
{
    netns::run_in(ns, || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .map_err(|e| LinkError::Other(format!("tokio runtime: {e}")))?;
        rt.block_on(async {
            let (conn, handle, _) = rtnetlink::new_connection()
                .map_err(|e| LinkError::Other(format!("netlink socket: {e}")))?;
            let task = tokio::spawn(conn);
            let r = f(handle).await;
            task.abort();
            r
        })
    })?
}

pub async fn index_of(h: &Handle, name: &str) -> Result<u32, LinkError> {
    let mut s = h.link().get().match_name(name.to_string()).execute();
    match s.try_next().await.ctx(|| format!("look up {name}"))? {
        Some(m) => Ok(m.header.index),
        None => Err(LinkError::Other(format!("no link named {name}"))),
    }
}

pub async fn mac_of(h: &Handle, name: &str) -> Result<[u8; 6], LinkError> {
    let mut s = h.link().get().match_name(name.to_string()).execute();
    let m = s
        .try_next()
        .await
        .ctx(|| format!("look up {name}"))?
        .ok_or_else(|| LinkError::Other(format!("no link named {name}")))?;
    for a in m.attributes {
        if let LinkAttribute::Address(b) = a
            && b.len() == 6
        {
            let mut mac = [0u8; 6];
            mac.copy_from_slice(&b);
            return Ok(mac);
        }
    }
    Err(LinkError::Other(format!("{name} has no MAC address")))
}

pub async fn set_up(h: &Handle, name: &str, mtu: Option<u32>) -> Result<(), LinkError> {
    let idx = index_of(h, name).await?;
    let mut b = LinkUnspec::new_with_index(idx).up();
    if let Some(m) = mtu {
        b = b.mtu(m);
    }
    h.link()
        .set(b.build())
        .execute()
        .await
        .ctx(|| format!("set {name} up"))
}

/// Sets link `name` administratively down.
pub async fn set_down(h: &Handle, name: &str) -> Result<(), LinkError> {
    let idx = index_of(h, name).await?;
    h.link()
        .set(LinkUnspec::new_with_index(idx).down().build())
        .execute()
        .await
        .ctx(|| format!("set {name} down"))
}

/// One veth to create from inside the fabric namespace.
pub struct VethSpec<'a> {
    /// ToR-side end, stays in the namespace the job runs in.
    pub local: &'a str,
    /// Host-side end, created directly inside `peer_ns_fd`'s namespace.
    pub peer: &'a str,
    pub peer_ns_fd: RawFd,
    pub peer_mac: Option<[u8; 6]>,
    pub mtu: u32,
}

/// Create veth pairs whose peers land straight in their host namespaces, so
/// no interface ever appears (or collides by name) in the root namespace.
pub async fn create_veths(h: &Handle, specs: &[VethSpec<'_>]) -> Result<(), LinkError> {
    for s in specs {
        let mut peer = LinkMessageBuilder::<LinkUnspec>::new()
            .name(s.peer.to_string())
            .mtu(s.mtu)
            .setns_by_fd(s.peer_ns_fd);
        if let Some(mac) = s.peer_mac {
            peer = peer.address(mac.to_vec());
        }
        let msg = LinkVeth::new(s.local, s.peer)
            .set_info_data(InfoData::Veth(InfoVeth::Peer(peer.build())))
            .mtu(s.mtu)
            .build();
        h.link()
            .add(msg)
            .execute()
            .await
            .ctx(|| format!("create veth {} <-> {}", s.local, s.peer))?;
    }
    Ok(())
}

/// The UDP port of every VXLAN link a run makes (IANA's).
pub const VXLAN_PORT: u16 = 4789;

/// A point-to-point VXLAN link `name` (VNI `vni`) to `remote` over the
/// underlay interface `dev` (whose address is `local`), like `ip link add
/// NAME type vxlan id VNI remote R local L dev DEV dstport 4789`.
pub async fn create_vxlan(
    h: &Handle,
    name: &str,
    vni: u32,
    dev: &str,
    local: Ipv4Addr,
    remote: Ipv4Addr,
    mtu: u32,
) -> Result<(), LinkError> {
    let idx = index_of(h, dev).await?;
    let msg = LinkVxlan::new(name, vni)
        .dev(idx)
        .local(local)
        .remote(remote)
        .port(VXLAN_PORT)
        .learning(false)
        .mtu(mtu)
        .build();
    h.link()
        .add(msg)
        .execute()
        .await
        .ctx(|| format!("create vxlan {name} (VNI {vni}) to {remote} over {dev}"))
}

pub async fn add_addr(h: &Handle, name: &str, ip: Ipv4Addr, plen: u8) -> Result<(), LinkError> {
    let idx = index_of(h, name).await?;
    h.address()
        .add(idx, IpAddr::V4(ip), plen)
        .execute()
        .await
        .ctx(|| format!("add {ip}/{plen} to {name}"))
}

/// Permanent neighbour entries (`--arp`), like Mininet's `staticArp()`.
pub async fn add_neighbours(
    h: &Handle,
    name: &str,
    entries: &[(Ipv4Addr, [u8; 6])],
) -> Result<(), LinkError> {
    let idx = index_of(h, name).await?;
    for (ip, mac) in entries {
        h.neighbours()
            .add(idx, IpAddr::V4(*ip))
            .state(NeighbourState::Permanent)
            .link_layer_address(mac)
            .replace()
            .execute()
            .await
            .ctx(|| format!("neighbour {ip} on {name}"))?;
    }
    Ok(())
}

/// Names of all links in the namespace the handle talks to.
pub async fn link_names(h: &Handle) -> Result<Vec<String>, LinkError> {
    let mut s = h.link().get().execute();
    let mut v = Vec::new();
    while let Some(m) = s.try_next().await.ctx(|| "list links".into())? {
        for a in m.attributes {
            if let LinkAttribute::IfName(n) = a {
                v.push(n);
            }
        }
    }
    v.sort();
    Ok(v)
}

/// IPv4 addresses (with prefix length) on a link.
pub async fn addrs_of(h: &Handle, name: &str) -> Result<Vec<(Ipv4Addr, u8)>, LinkError> {
    use rtnetlink::packet_route::{AddressFamily, address::AddressAttribute};
    let idx = index_of(h, name).await?;
    let mut s = h.address().get().set_link_index_filter(idx).execute();
    let mut v = Vec::new();
    while let Some(m) = s.try_next().await.ctx(|| format!("addresses of {name}"))? {
        if m.header.family != AddressFamily::Inet {
            continue;
        }
        for a in &m.attributes {
            if let AddressAttribute::Address(IpAddr::V4(ip)) = a {
                v.push((*ip, m.header.prefix_len));
            }
        }
    }
    Ok(v)
}

/// Operational flags of a link: (admin up, mtu).
pub async fn link_state(h: &Handle, name: &str) -> Result<(bool, u32), LinkError> {
    use rtnetlink::packet_route::link::LinkFlags;
    let mut s = h.link().get().match_name(name.to_string()).execute();
    let m = s
        .try_next()
        .await
        .ctx(|| format!("look up {name}"))?
        .ok_or_else(|| LinkError::Other(format!("no link named {name}")))?;
    let up = m.header.flags.contains(LinkFlags::Up);
    let mtu = m
        .attributes
        .iter()
        .find_map(|a| match a {
            LinkAttribute::Mtu(x) => Some(*x),
            _ => None,
        })
        .unwrap_or(0);
    Ok((up, mtu))
}

/// Permanent IPv4 neighbour entries (ip, MAC) of a link.
pub async fn permanent_neighbours(
    h: &Handle,
    name: &str,
) -> Result<Vec<(Ipv4Addr, [u8; 6])>, LinkError> {
    use rtnetlink::packet_route::neighbour::{NeighbourAddress, NeighbourAttribute};
    let idx = index_of(h, name).await?;
    let mut s = h.neighbours().get().execute();
    let mut v = Vec::new();
    while let Some(m) = s.try_next().await.ctx(|| format!("neighbours of {name}"))? {
        if m.header.ifindex != idx || m.header.state != NeighbourState::Permanent {
            continue;
        }
        let (mut ip, mut mac) = (None, None);
        for a in &m.attributes {
            match a {
                NeighbourAttribute::Destination(NeighbourAddress::Inet(x)) => ip = Some(*x),
                NeighbourAttribute::LinkLayerAddress(b) if b.len() == 6 => {
                    let mut x = [0u8; 6];
                    x.copy_from_slice(b);
                    mac = Some(x);
                }
                _ => {}
            }
        }
        if let (Some(ip), Some(mac)) = (ip, mac) {
            v.push((ip, mac));
        }
    }
    v.sort();
    Ok(v)
}
