//! The CLI's text of every [`crate::values`] value and of
//! [`NetworkError`]: pure functions, so what a script, a test or the
//! dashboard reads as values prints the same as the CLI shows it.
//! Mininet's own strings come from [`super::format`].

use super::format;
use crate::plan::{Plan, tor_name};
use crate::values::*;

/// The CLI line of an error (`*** Error: ...`, Mininet's `Interrupt`).
pub fn error(e: &NetworkError) -> String {
    use NetworkError as E;
    match e {
        E::Interrupted => "\nInterrupt".into(),
        E::NoSuchNode(n) => format!("*** No such node: {n}"),
        E::NoSuchPort(m) => format!("*** {m}"),
        E::NoDataPlane => "*** No data plane in this run".into(),
        E::NoSchedule => "*** No compiled schedule in this run".into(),
        E::NotCompiled => "*** No compiled network (--no-fabric)".into(),
        E::BadSlice { given, last } => format!("*** Bad slice {given}: expected 0..{last}"),
        E::NoTable(n) => format!("*** {n} has no table"),
        E::OtcpOff => "*** OTCP is off (config hosts.tcp.otcp)".into(),
        E::Telemetry { verb, msg } => format!("*** {verb}: {msg}"),
        E::P4SwitchDied { .. } => format!("\n*** Error: {e}"),
        E::Orch(_)
        | E::P4(_)
        | E::Fabric(_)
        | E::NoLink(..)
        | E::NeedsKernel(_)
        | E::Op { .. }
        | E::Failed(_) => format!("*** Error: {e}"),
    }
}

pub fn nodes(n: &Nodes) -> String {
    let all: Vec<String> = n.hosts.iter().chain(&n.switches).cloned().collect();
    format::nodes(&all)
}

fn peers(n: &NodeIntfs) -> Vec<(&str, Option<&str>)> {
    n.intfs
        .iter()
        .map(|i| (i.name.as_str(), i.peer.as_deref()))
        .collect()
}

/// `net`.
pub fn net(v: &NetView) -> String {
    let mut s = String::new();
    for n in &v.nodes {
        s.push_str(&format::net_line(&n.node, &peers(n)));
        s.push('\n');
    }
    s
}

/// `intfs`: each node's interface names.
pub fn intfs(v: &NetView) -> String {
    let mut s = String::new();
    for n in &v.nodes {
        let l: Vec<&str> = n.intfs.iter().map(|i| i.name.as_str()).collect();
        s.push_str(&format!("{}: {}\n", n.node, l.join(",")));
    }
    s
}

/// `ports`: each switch's interfaces and port numbers.
pub fn ports(v: &NetView) -> String {
    let mut s = String::new();
    for n in &v.nodes {
        let p: Vec<(&str, usize)> = n
            .intfs
            .iter()
            .enumerate()
            .map(|(k, i)| (i.name.as_str(), k))
            .collect();
        s.push_str(&format::ports_line(&n.node, &p));
        s.push('\n');
    }
    s
}

pub fn links(v: &Links) -> String {
    let mut s = String::new();
    for l in &v.links {
        s.push_str(&format::link_line(&l.a, &l.b, l.a_up, l.b_up));
        s.push('\n');
    }
    s
}

pub fn dump(v: &Dump) -> String {
    let mut s = String::new();
    for n in &v.nodes {
        let ifs: Vec<(&str, Option<String>)> = n
            .intfs
            .iter()
            .map(|(i, a)| (i.as_str(), a.clone()))
            .collect();
        s.push_str(&format::dump_line(n.class, &n.name, &ifs, n.pid));
        s.push('\n');
    }
    s
}

pub const PING_HEADER: &str = "*** Ping: testing ping reachability";

/// The start of a ping row (`h1 -> `), printed before its echoes finish.
pub fn ping_source(src: &str) -> String {
    format!("{src} -> ")
}

/// The rest of a ping row: each destination or `X`, then the newline.
pub fn ping_row_rest(row: &PingRow) -> String {
    let mut s = String::new();
    for r in &row.results {
        let cell = format::ping_row("", &[(&r.dst, r.rtt_ms.is_some())]);
        s.push_str(cell.trim_start_matches(" -> "));
    }
    s.push('\n');
    s
}

/// A ping run's closing lines: Mininet's summary or, `full`, each pair.
pub fn ping_summary(p: &PingAll) -> String {
    if !p.full {
        return format::ping_results(p.sent, p.received) + "\n";
    }
    let mut s = "*** Results: \n".to_string();
    for row in &p.rows {
        for r in &row.results {
            let ms = r.rtt_ms.unwrap_or(0.0);
            let got = u64::from(r.rtt_ms.is_some());
            s.push_str(&format::ping_full_line(
                &row.src,
                &r.dst,
                1,
                got,
                [ms, ms, ms, 0.0],
            ));
            s.push('\n');
        }
    }
    s
}

/// A whole ping run as the CLI prints it (header, rows, summary).
pub fn ping(p: &PingAll) -> String {
    let mut s = String::new();
    if p.all {
        s.push_str(PING_HEADER);
        s.push('\n');
    }
    for row in &p.rows {
        s.push_str(&ping_source(&row.src));
        s.push_str(&ping_row_rest(row));
    }
    s + &ping_summary(p)
}

pub fn iperf_header(l4: &str, client: &str, server: &str) -> String {
    format::iperf_header(l4, client, server)
}

/// `iperfudp` asked for more than the host link carries.
pub fn udp_capped(bw: &str, cap: f64) -> String {
    format!(
        "*** iperfudp: {bw} is more than the host link carries; sending at {}",
        format::rate(cap)
    )
}

/// `*** Results: [...]` of iperf (TCP) or iperfudp.
pub fn iperf(v: &Iperf) -> String {
    let mut items = Vec::new();
    if let Some(bw) = &v.bw {
        items.push(bw.clone());
    }
    items.push(format::rate(v.server_bps));
    items.push(format::rate(v.client_bps));
    format::iperf_results(&items)
}

/// `*** Flow h1 -> h2: 10000000 bytes in 81.234 ms, 985 Mbits/sec (receiver), 990 Mbits/sec (sender)`
pub fn flow(f: &Flow) -> String {
    format!(
        "*** Flow {} -> {}: {} bytes in {:.3} ms, {} (receiver), {} (sender)",
        f.client,
        f.server,
        f.bytes,
        f.fct_ns as f64 / 1e6,
        format::rate(f.server_bps),
        format::rate(f.client_bps)
    )
}

/// `flows`: the request, the FCT table per size bucket, the time taken.
pub fn flows(f: &FlowSummary) -> String {
    format!(
        "{}{}*** Flows done in {:.1} s\n",
        f.head,
        f.summary.table(),
        f.elapsed_s
    )
}

/// The line `memcached` prints before it starts.
pub fn memcached_head(plan: &Plan, req: &crate::traffic::apps::MemcachedRequest) -> String {
    use crate::traffic::apps::memcached as mc;
    let names: Vec<&str> = req
        .clients
        .iter()
        .map(|&h| plan.hosts[h].name.as_str())
        .collect();
    let (srv, load) = (&plan.hosts[req.server], &req.load);
    format!(
        "*** memcached on {} ({}:{}), {} client(s) {}: {} SETs of {} B each, one every {:?}",
        srv.name,
        srv.ip,
        mc::PORT,
        req.clients.len(),
        names.join(" "),
        load.count,
        load.size,
        load.interval
    )
}

pub fn memcached(m: &Memcached) -> String {
    format!(
        "{}\n{}*** memcached: {} SETs stored in {:.1} s\n",
        crate::traffic::apps::percentile_line("SET latency", &m.latencies_ns),
        m.summary.table(),
        m.latencies_ns.len(),
        m.elapsed_s
    )
}

/// The line `allreduce` prints before it starts.
pub fn allreduce_head(plan: &Plan, req: &crate::traffic::apps::AllreduceRequest) -> String {
    let names: Vec<&str> = req
        .hosts
        .iter()
        .map(|&h| plan.hosts[h].name.as_str())
        .collect();
    format!(
        "*** Allreduce (ring, reduce-scatter + all-gather) over {} hosts {}: {} B ({} float32) x {} iteration(s)",
        names.len(),
        names.join(" "),
        req.bytes,
        req.bytes / 4,
        req.iters
    )
}

pub fn allreduce(a: &Allreduce) -> String {
    format!(
        "*** Allreduce result checked: every host holds the elementwise sum\n{}\nbus bandwidth at p50 {:.1} Mb/s\n",
        crate::traffic::apps::percentile_line("completion", &a.times_ns),
        a.bus_bps / 1e6
    )
}

/// How a ToR index is named in text: [`tor_name`], or a run's
/// [`Plan::labeler`] (a Mininet topology's own names).
pub use super::render::Names;

/// `schedule [ts]` (also `lighthouse show --slice`).
pub fn slice(v: &SliceView) -> String {
    slice_named(v, &tor_name)
}

/// [`slice`] with the run's ToR names.
pub fn slice_named(v: &SliceView, tor_name: Names<'_>) -> String {
    let mut out = format!(
        "*** Slice {} of {} ({}, guardband {})\n",
        v.slice, v.slices, v.duration, v.guardband
    );
    if v.circuits.is_empty() && v.optical_uplinks > 0 {
        out.push_str("(no circuits)\n");
    }
    for c in &v.circuits {
        let ch = if c.reconfigured {
            " (reconfigured)"
        } else {
            ""
        };
        out.push_str(&format!(
            "{} up{} -> {} up{}{ch}\n",
            tor_name(c.a_tor as usize),
            c.a_port,
            tor_name(c.b_tor as usize),
            c.b_port
        ));
    }
    // Electrical uplinks (Clos, or the packet fabric of a hybrid) reach
    // every ToR in every slice.
    for (p, rate) in &v.electrical {
        out.push_str(&format!(
            "every ToR up{p} -> electrical switch -> any ToR ({rate})\n"
        ));
    }
    out
}

/// `slice`.
pub fn slice_now(v: &SliceNow) -> String {
    format!("*** Slice {} of {}, cycle {}\n", v.slice, v.slices, v.cycle)
}

/// `table <tor>` (also `lighthouse show --tor`).
pub fn table(v: &TableView) -> String {
    table_named(v, &tor_name)
}

/// [`table`] with the run's ToR names.
pub fn table_named(v: &TableView, tor_name: Names<'_>) -> String {
    let name = tor_name(v.tor as usize);
    let mut out = format!(
        "*** {name} time-flow table: {} entries ({} lookup)\n",
        v.entries.len(),
        v.lookup
    );
    for e in &v.entries {
        out.push_str(&super::render::format_entry_named(e, tor_name));
        out.push('\n');
    }
    if let Some(p) = &v.p4 {
        let loaded = match &p.time_flow {
            Ok(n) => n.to_string(),
            Err(e) => format!("? ({e})"),
        };
        out.push_str(&format!(
            "*** {name} runs the P4 program on BMv2: {} P4 entries loaded, {loaded} in time_flow (thrift port {} in its namespace)\n",
            p.entries, p.thrift_port
        ));
    }
    out
}

/// `buffer_usage` / `bw_usage`, with the run's ToR names.
pub fn usage(u: &Usage, tor_name: Names<'_>) -> String {
    let mut out = String::new();
    for r in &u.samples {
        let name = tor_name(r.tor as usize);
        out.push_str(&if u.metric == "bw_usage" {
            format!(
                "{name} up{}: {:.1}% of the link ({:.1} Mb/s over {})\n",
                r.port,
                r.value * 100.0,
                r.extra / 1e6,
                u.interval
            )
        } else {
            format!(
                "{name} up{}: {} bytes (offloaded {})\n",
                r.port, r.value, r.extra
            )
        });
    }
    out
}

/// `queues <tor>`, with the run's ToR names.
pub fn queues(q: &Queues, tor_name: Names<'_>) -> String {
    let mut out = format!(
        "*** {} calendar queues (bytes; column = departure slice)\n",
        tor_name(q.tor as usize)
    );
    let row = |p: usize, r: &[u64]| {
        let cells: Vec<String> = r.iter().map(|b| b.to_string()).collect();
        format!("up{p}: {}\n", cells.join(" "))
    };
    for (p, r) in q.bytes.iter().enumerate() {
        out.push_str(&row(p, r));
    }
    if let Some(est) = &q.p4_estimate {
        out.push_str("*** the P4 program's occupancy estimate (registers occ_bytes, §6.2)\n");
        for (p, r) in est.iter().enumerate() {
            out.push_str(&row(p, r));
        }
    }
    out
}

pub fn otcp(o: &Otcp) -> String {
    o.table.render()
}

/// `drops`: counters by reason, the conservation line, then the kernel's
/// counters outside the data plane.
pub fn drops(d: &Drops) -> String {
    use super::render;
    let mut s = match &d.p4 {
        None => render::format_counters(&d.counters),
        Some(Ok(pc)) => render::format_totals(&d.counters, pc),
        Some(Err(e)) => format!(
            "*** Error reading the P4 ToRs' counters: {e}\n{}",
            render::format_counters(&d.counters)
        ),
    };
    s.push_str(&render::format_kernel_drops(d.port_drops, &d.kernel));
    s
}

/// `pcap ...` started.
pub fn capture(c: &Capture) -> String {
    match &c.uplink {
        None => format!("*** Capturing {} -> {}", c.what, c.file),
        Some((tor, p)) => format!("*** Capturing {tor} uplink {p} to {}", c.file),
    }
}

/// One capture `pcap stop` (or the end of the run) closed.
pub fn capture_stopped(c: &CaptureStopped) -> String {
    match (&c.frames, &c.error) {
        (Some(n), _) => format!("*** {}: {n} frames", c.what),
        (None, Some(e)) => format!("*** {}: {e}", c.what),
        (None, None) => format!("*** {}: closed", c.what),
    }
}

/// `pcap stop`: each capture, then the count.
pub fn captures_stopped(c: &CapturesStopped) -> String {
    let mut s = String::new();
    for x in &c.captures {
        s.push_str(&capture_stopped(x));
        s.push('\n');
    }
    s + &format!("*** Stopped {} capture(s)\n", c.captures.len())
}

/// `*** Flow h1 -> h2: 10000000 bytes in 81.234 ms, 985 Mbits/sec (receiver), 990 Mbits/sec (sender)`
pub fn format_flow(src: &str, dst: &str, f: &crate::traffic::probe::FlowResult) -> String {
    flow(&crate::values::Flow {
        client: src.to_string(),
        server: dst.to_string(),
        bytes: f.bytes,
        server_bps: f.server_bps,
        client_bps: f.client_bps,
        fct_ns: f.fct.as_nanos() as u64,
    })
}

/// `schedule [ts]` text: the circuits of one slice (also `lighthouse show --slice`).
pub fn slice_text(c: &lh_ctrl::compile::Compiled, ts: lh_ctrl::SliceId) -> String {
    slice(&crate::values::SliceView::of(c, ts))
}

/// `table <tor>` text (also `lighthouse show --tor`); `None` for no such ToR.
pub fn table_text(c: &lh_ctrl::compile::Compiled, t: lh_ctrl::TorId) -> Option<String> {
    crate::values::TableView::of(c, t).map(|v| table(&v))
}
