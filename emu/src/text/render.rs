//! Text renderers shared by the CLI, `lighthouse show`, the network object
//! and [`super::view`]: time-flow table entries, data-plane counters and
//! kernel drop counters. Pure functions of their inputs (no I/O except
//! [`iface_drops`], which reads the calling thread's `/proc/thread-self/net/dev`).

use lh_ctrl::tables::{Action, Ingress};

pub use crate::values::IfaceDrops;

/// A ToR index to its name (`s1`, or the run's own names).
pub type Names<'n> = &'n dyn Fn(usize) -> String;

fn fmt_action(a: &Action) -> String {
    let step = |s: &lh_ctrl::tables::Step| match s.depart {
        Some(d) => format!("up{}@{d}", s.port),
        None => format!("up{}@now", s.port),
    };
    match a {
        Action::Hop(s) => step(s),
        Action::Source(v) => {
            let l: Vec<String> = v.iter().map(step).collect();
            format!("source[{}]", l.join(" "))
        }
    }
}

/// One table entry, human readable:
/// `dst=s3 arrival=2 from=host class=* bucket=* -> up1@4 (alt up0@5)`.
pub fn format_entry(e: &lh_ctrl::tables::Entry) -> String {
    format_entry_named(e, &crate::plan::tor_name)
}

/// [`format_entry`] with the run's ToR names.
pub fn format_entry_named(e: &lh_ctrl::tables::Entry, tor_name: Names<'_>) -> String {
    let opt = |o: Option<String>| o.unwrap_or_else(|| "*".into());
    let m = &e.m;
    let ing = match m.ingress {
        Ingress::Any => "any",
        Ingress::Host => "host",
        Ingress::Fabric => "fabric",
    };
    let mut s = format!(
        "dst={} arrival={} from={ing} class={} bucket={} -> {}",
        tor_name(m.dst as usize),
        opt(m.arrival.map(|a| a.to_string())),
        opt(m.class.map(|a| a.to_string())),
        opt(m.bucket.map(|a| a.to_string())),
        fmt_action(&e.action)
    );
    if !e.alternates.is_empty() {
        let l: Vec<String> = e.alternates.iter().map(fmt_action).collect();
        s.push_str(&format!(" (alt {})", l.join(", ")));
    }
    s
}

/// Sum the drop/error counters of `ifs` in /proc/net/dev text.
pub fn parse_net_dev(text: &str, ifs: &[String]) -> IfaceDrops {
    let mut d = IfaceDrops::default();
    for line in text.lines().skip(2) {
        let Some((name, rest)) = line.split_once(':') else {
            continue;
        };
        if !ifs.iter().any(|i| i == name.trim()) {
            continue;
        }
        let v: Vec<u64> = rest
            .split_whitespace()
            .map(|x| x.parse().unwrap_or(0))
            .collect();
        if v.len() >= 12 {
            d.add(&IfaceDrops {
                rx_errors: v[2],
                rx_dropped: v[3],
                tx_errors: v[10],
                tx_dropped: v[11],
            });
        }
    }
    d
}

/// The calling thread's namespace's counters for `ifs`.
pub fn iface_drops(ifs: &[String]) -> std::io::Result<IfaceDrops> {
    // thread-self: the namespace this (run_in) thread entered.
    let t = std::fs::read_to_string("/proc/thread-self/net/dev")?;
    Ok(parse_net_dev(&t, ifs))
}

/// The part of `drops` about loss outside the data plane's own counters.
pub fn format_kernel_drops(port_drops: u64, ifs: &[(&str, IfaceDrops)]) -> String {
    let mut s = format!(
        "*** outside the data plane (not in the conservation check):\n  {:<16} {port_drops}   (kernel socket drops on host ports: never entered `sent`)\n",
        "port_drops"
    );
    for (what, d) in ifs {
        s.push_str(&format!(
            "  {what}: rx_dropped {} tx_dropped {} rx_errors {} tx_errors {}\n",
            d.rx_dropped, d.tx_dropped, d.rx_errors, d.tx_errors
        ));
    }
    s
}

/// `drops` text: totals, every drop reason, and the conservation line.
pub fn format_counters(c: &swtor::Counters) -> String {
    let mut s = format!(
        "*** sent {} delivered {} queued {} dropped {}\n",
        c.sent,
        c.delivered,
        c.queued,
        c.dropped_total()
    );
    for r in swtor::DropReason::ALL {
        let n = c.dropped(r);
        s.push_str(&format!("  {:<16} {n}\n", r.name()));
    }
    s.push_str(&format!(
        "*** conservation: sent {} = delivered {} + dropped {} + queued {}: {}\n",
        c.sent,
        c.delivered,
        c.dropped_total(),
        c.queued,
        if c.conservation_holds() {
            "OK"
        } else {
            "VIOLATED"
        }
    ));
    s
}

/// `drops` with P4 ToRs: swtor's counters (native ToRs, calendar queues,
/// OCS) and the P4 program's, added up; frames still inside BMv2 or on its
/// veths show as in flight.
pub fn format_totals(c: &swtor::Counters, p: &crate::tor::bmv2::P4Counters) -> String {
    let t = crate::tor::fabric::Totals::of(c, Some(p));
    let mut s = format!(
        "*** sent {} delivered {} queued {} dropped {} (native ToRs and OCS + P4 ToRs)\n",
        t.sent, t.delivered, t.queued, t.dropped
    );
    for r in swtor::DropReason::ALL {
        let (n, m) = (c.dropped(r), p.dropped[r as usize]);
        s.push_str(&format!("  {:<16} {}", r.name(), n + m));
        if m > 0 {
            s.push_str(&format!(" ({m} at P4 ToRs)"));
        }
        s.push('\n');
    }
    s.push_str(&format!(
        "*** P4 ToRs: from hosts {} to hosts {} to uplinks {} rerouted {} deferred {} clock run forward {} late rotations {}\n",
        p.host_rx, p.host_tx, p.uplink_tx, p.rerouted, p.deferred, p.late_slice, p.late_rotation
    ));
    s.push_str(&format!(
        "*** swtor: from P4 uplinks {} to P4 uplinks {} late departure tags {} port_drops {}\n",
        c.from_external, c.to_external, c.late_from_tor, c.port_drops
    ));
    s.push_str(&format!(
        "*** conservation: sent {} = delivered {} + dropped {} + queued {} + in flight {}: {}\n",
        t.sent,
        t.delivered,
        t.dropped,
        t.queued,
        t.in_bmv2 + t.on_veths,
        if c.conservation_holds()
            && t.sent as i64 == (t.delivered + t.dropped + t.queued) as i64 + t.in_bmv2 + t.on_veths
        {
            "OK"
        } else {
            "VIOLATED"
        }
    ));
    s
}
