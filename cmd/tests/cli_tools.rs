//! The CLI's ping (built-in prober) and iperf paths (iperf3 and the prober)
//! over real namespaces. The two host ports are joined by a kernel bridge in
//! the fabric namespace: this tests the CLI and tools, not the optical data
//! plane (that is tests/e2e.rs).

mod common;

use common::*;
use lh_emu::cli::{Cli, Tools};
use lh_emu::kernel::netlink;
use lh_emu::net::{Network, NetworkOptions};
use lh_emu::plan::Plan;
use lh_emu::text::sink::TextSink as Buf;
use rtnetlink::{LinkBridge, LinkUnspec};

fn bridged_net() -> Network {
    let net = Network::bring_up(Plan::new(1, 2), None, NetworkOptions::default()).unwrap();
    netlink::with_netlink(Some(&net.fabric_ns()), |h| async move {
        h.link()
            .add(LinkBridge::new("br0").up().build())
            .execute()
            .await
            .map_err(|e| netlink::LinkError::Other(e.to_string()))?;
        let br = netlink::index_of(&h, "br0").await?;
        for p in ["s1-eth1", "s1-eth2"] {
            let i = netlink::index_of(&h, p).await?;
            h.link()
                .set(LinkUnspec::new_with_index(i).controller(br).build())
                .execute()
                .await
                .map_err(|e| netlink::LinkError::Other(e.to_string()))?;
        }
        Ok(())
    })
    .unwrap();
    net
}

#[test]
fn ping_and_iperf_with_builtin_and_external_tools() {
    if skip_unless_root("ping_and_iperf_with_builtin_and_external_tools") {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let prefix;
    {
        let mut net = bridged_net();
        prefix = net.prefix.clone();
        let b = Buf::default();
        net.set_output(Box::new(b.clone()));
        let mut cli = Cli::new(&mut net);
        let mut toolsets = vec![Tools::none()];
        let found = Tools::detect();
        if found.iperf3 {
            toolsets.push(found);
        } else {
            eprintln!("note: iperf3 not installed; only the built-in tools are tested");
        }
        for tools in toolsets {
            cli.net.tools = tools;
            // Warm up ARP, then the real check.
            let _ = cli
                .ping("ping", None, Some(3.0), false)
                .map_or((0, 0), |p| (p.sent, p.received));
            b.take();
            let (s, r) = cli
                .ping("ping", None, Some(2.0), false)
                .map_or((0, 0), |p| (p.sent, p.received));
            assert_eq!((s, r), (2, 2), "{tools:?}");
            assert_eq!(
                b.take(),
                "*** Ping: testing ping reachability\nh1 -> h2 \nh2 -> h1 \n*** Results: 0% dropped (2/2 received)\n"
            );
            cli.onecmd("pingallfull");
            let full = b.take();
            assert!(
                full.contains("*** Results: \n h1->h2: 1/1, rtt min/avg/max/mdev "),
                "{full}"
            );
            let v = cli.iperf_pair(0, 1, 1.0);
            let v = v.unwrap_or_else(|| panic!("iperf failed: {}", b.take()));
            assert!(v.server_bps > 1e6 && v.client_bps > 1e6, "{tools:?}: {v:?}");
            let out = b.take();
            assert!(
                out.starts_with(
                    "*** Iperf: testing TCP bandwidth between h1 and h2 \n*** Results: ['"
                ),
                "{out}"
            );
            assert!(out.ends_with("bits/sec']\n"), "{out}");
        }
        cli.onecmd("flow h1 h2 2M");
        let f = b.take();
        assert!(f.starts_with("*** Flow h1 -> h2: 2000000 bytes in "), "{f}");
        cli.onecmd("h1 true");
        cli.onecmd("iperfudp 5M h1 h2");
        let u = b.take();
        assert!(u.contains("*** Results: ['5M', '"), "{u}");
    }
    assert_eq!(
        namespaces_of(&prefix),
        Vec::<String>::new(),
        "namespaces left behind"
    );
}
