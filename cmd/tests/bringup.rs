//! Namespace/veth/address/offload bring-up and teardown against the kernel.

mod common;

use common::*;
use lh_emu::host::nic_offload::{self, Offload};
use lh_emu::kernel::netlink;
use lh_emu::kernel::state;
use lh_emu::netns;
use lh_emu::plan::Plan;
use lh_emu::run::bringup::{Net, NetOptions};
use std::net::Ipv4Addr;

#[test]
fn bring_up_and_teardown_leave_no_trace() {
    if skip_unless_root("bring_up_and_teardown_leave_no_trace") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let ns_before = lh_namespaces();
    let links_before = root_links();

    let opts = NetOptions {
        mac: true,
        arp: true,
        ..Default::default()
    };
    let mut net = Net::bring_up(Plan::new(2, 2), &opts).expect("bring up");
    let p = net.prefix.clone();
    assert!(state::valid_prefix(&p), "{p}");
    let st = state::load(&p).expect("state.json written");
    assert_eq!(st.pid, std::process::id());
    assert_eq!(st.namespaces.len(), 5);

    let ns_now = lh_namespaces();
    for n in ["h1", "h2", "h3", "h4", "fab"] {
        assert!(
            ns_now.contains(&format!("{p}-{n}")),
            "{n} missing in {ns_now:?}"
        );
    }
    // Nothing leaked into the root namespace.
    assert_eq!(root_links(), links_before);

    let h3 = net.plan.host("h3").unwrap().clone();
    let ns3 = net.host_ns(&h3);
    let (names, addrs, state3) = netlink::with_netlink(Some(&ns3), |h| async move {
        Ok((
            netlink::link_names(&h).await?,
            netlink::addrs_of(&h, "h3-eth0").await?,
            netlink::link_state(&h, "h3-eth0").await?,
        ))
    })
    .unwrap();
    assert_eq!(names, vec!["h3-eth0", "lo"]);
    assert_eq!(addrs, vec![(Ipv4Addr::new(10, 0, 0, 3), 8)]);
    assert_eq!(state3, (true, 1500));
    assert_eq!(net.macs[2], [0, 0, 0, 0, 0, 3]);
    // --arp: permanent entries for every other host, with --mac's MACs.
    let neigh = netlink::with_netlink(Some(&ns3), |h| async move {
        netlink::permanent_neighbours(&h, "h3-eth0").await
    })
    .unwrap();
    let want: Vec<(Ipv4Addr, [u8; 6])> = [1u8, 2, 4]
        .iter()
        .map(|&k| (Ipv4Addr::new(10, 0, 0, k), [0, 0, 0, 0, 0, k]))
        .collect();
    assert_eq!(neigh, want);
    let offs = netns::run_in(Some(&ns3), || {
        [
            Offload::TxChecksum,
            Offload::Tso,
            Offload::Gso,
            Offload::Gro,
        ]
        .map(|o| nic_offload::get("h3-eth0", o).unwrap())
    })
    .unwrap();
    assert_eq!(offs, [false; 4], "tx/tso/gso/gro must be off");

    let fab = net.fabric_ns();
    let fab_links =
        netlink::with_netlink(Some(&fab), |h| async move { netlink::link_names(&h).await })
            .unwrap();
    assert_eq!(
        fab_links,
        vec!["lo", "s1-eth1", "s1-eth2", "s2-eth1", "s2-eth2"]
    );
    let tx = netns::run_in(Some(&fab), || {
        nic_offload::get("s2-eth1", Offload::TxChecksum).unwrap()
    })
    .unwrap();
    assert!(!tx, "fabric end tx checksum must be off");

    // A process inside a host namespace is killed by teardown.
    let mut cmd = std::process::Command::new("sleep");
    cmd.arg("30");
    let mut child = netns::spawn_in(&ns3, &mut cmd).unwrap();
    let rep = net.teardown();
    assert!(
        rep.procs_killed.iter().any(|(pid, _)| *pid == child.id()),
        "{rep:?}"
    );
    let _ = child.wait();
    assert_eq!(rep.namespaces.len(), 5, "{rep:?}");
    assert!(rep.errors.is_empty(), "{rep:?}");
    assert!(!state::run_dir(&p).exists());
    assert_eq!(lh_namespaces(), ns_before);
    assert_eq!(root_links(), links_before);
}

#[test]
fn kernel_random_macs_are_read_back_and_two_runs_coexist() {
    if skip_unless_root("kernel_random_macs_are_read_back_and_two_runs_coexist") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let ns_before = lh_namespaces();
    let a = Net::bring_up(Plan::new(2, 1), &NetOptions::default()).expect("run a");
    let b = Net::bring_up(Plan::new(2, 1), &NetOptions::default()).expect("run b");
    assert_ne!(a.prefix, b.prefix);
    assert_ne!(a.macs[0], [0, 0, 0, 0, 0, 1]);
    assert_eq!(a.macs[0][0] & 1, 0, "unicast MAC");
    let h1 = a.plan.hosts[0].clone();
    let mac = netlink::with_netlink(Some(&a.host_ns(&h1)), |h| async move {
        netlink::mac_of(&h, "h1-eth0").await
    })
    .unwrap();
    assert_eq!(mac, a.macs[0]);
    // The same prefix cannot be claimed twice.
    let again = Net::bring_up(
        Plan::new(2, 1),
        &NetOptions {
            prefix: Some(a.prefix.clone()),
            ..Default::default()
        },
    );
    assert!(again.is_err());
    drop(a);
    drop(b);
    assert_eq!(lh_namespaces(), ns_before);
}

#[test]
fn a_bmv2_tor_gets_its_own_namespace_with_host_uplink_and_cpu_ports() {
    if skip_unless_root("a_bmv2_tor_gets_its_own_namespace_with_host_uplink_and_cpu_ports") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let ns_before = lh_namespaces();
    let mut plan = Plan::new(3, 2);
    plan.uplinks = 2;
    plan.targets = lh_emu::plan::target::parse("bmv2:s2", 3).unwrap();
    let mut net = Net::bring_up(plan, &NetOptions::default()).expect("bring up");
    let p = net.prefix.clone();
    assert!(lh_namespaces().contains(&format!("{p}-s2")));
    let mut in_tor = netlink::with_netlink(Some(&net.tor_ns(1)), |h| async move {
        netlink::link_names(&h).await
    })
    .unwrap();
    in_tor.sort();
    assert_eq!(
        in_tor,
        vec!["lo", "s2-cpu", "s2-eth1", "s2-eth2", "s2-up0", "s2-up1"]
    );
    let mut in_fab = netlink::with_netlink(Some(&net.fabric_ns()), |h| async move {
        netlink::link_names(&h).await
    })
    .unwrap();
    in_fab.sort();
    // Native ToRs' host ports, and the OCS ends of s2's uplinks and CPU port.
    assert_eq!(
        in_fab,
        vec![
            "lo", "s1-eth1", "s1-eth2", "s2-cpu", "s2-up0", "s2-up1", "s3-eth1", "s3-eth2"
        ]
    );
    let ns = net.fabric_ns();
    let off = netns::run_in(Some(&ns), || {
        nic_offload::get("s2-up0", Offload::TxChecksum)
    })
    .unwrap();
    assert!(
        !off.unwrap(),
        "tx checksum offload must be off on the OCS end"
    );
    net.teardown();
    assert_eq!(lh_namespaces(), ns_before);
}
