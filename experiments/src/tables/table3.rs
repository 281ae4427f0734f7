//! Table 3 (§9.3): slice-miss prevention in HOHO, three columns.

use super::*;

/// The scaled setting of Table 3: RotorNet-style round robin over 8 ToRs,
/// HOHO, 50 us slices (the paper: 108 ToRs, 300 us, 100 Gb/s).
pub const TABLE3_CONFIG: &str = include_str!("../../../topologies/table3-hoho-8.json");

/// The paper's setting of Table 3 (§9.3): HOHO on Opera-108, 6 uplinks
/// and 6 hosts per ToR at 100 Gb/s, 300 us slices with a 200 ns guardband.
pub const TABLE3_PAPER_CONFIG: &str =
    include_str!("../../../topologies/table3-hoho-opera-108.json");

/// The three columns of Table 3.
pub fn table3_columns() -> [(&'static str, TorFeatures); 3] {
    let none = TorFeatures {
        slice_miss_detection: false,
        ..Default::default()
    };
    let detect = TorFeatures::default();
    let push = TorFeatures {
        pushback: Some(swtor::PushbackTrigger::FirstRejection),
        ..Default::default()
    };
    [
        ("no protection", none),
        ("detection+rerouting", detect),
        ("detection+rerouting+push-back", push),
    ]
}

/// The paper's setting of Table 3's traffic (§9.3) on `w`: one observed
/// ToR's hosts and its transit, frames stored as their headers in slots
/// enough for every frame (without push-back the queues hold 16 ms of
/// traffic, with it the paused hosts hundreds of MB), two cycles of
/// drain. The load, trace and duration stay `w`'s.
pub fn paper_workload(w: &mut Workload) {
    w.observed_tor = Some(0);
    w.transit = true;
    w.compact = true;
    w.pool_frames = 4 << 20;
    w.drain_ns = 70_000_000;
}

/// Table 3's three columns on `c` with `w`, and the workload as offered:
/// with its transit, the observed ToR's uplinks carry every hop of the
/// paths through it, so the paper's "70% core link utilization" (§9.3)
/// is offered as Table 2's is, divided by the mean hop count.
pub fn table3_run(
    c: &Compiled,
    w: &Workload,
) -> anyhow::Result<(Workload, Vec<(&'static str, RunResult)>)> {
    let offered = if w.transit {
        w.load / mean_hops(c)
    } else {
        w.load
    };
    let w = Workload {
        load: offered,
        ..w.clone()
    };
    let columns = table3_columns();
    let jobs: Vec<_> = columns.iter().map(|(_, f)| (c, *f, w.clone())).collect();
    let cols = columns
        .iter()
        .map(|(name, _)| *name)
        .zip(run_all(&jobs)?)
        .collect();
    Ok((w, cols))
}

#[derive(Serialize)]
struct Table3Report<'a> {
    experiment: &'static str,
    config: &'a Config,
    workload: &'a Workload,
    columns: Vec<(&'static str, RunResult)>,
}

/// `lighthouse experiment table3`: runs the three columns, prints the
/// table and writes the figures (JSON) to `out`.
/// `paper`: the paper's setting ([`TABLE3_PAPER_CONFIG`] unless `cfg`
/// is given), else the scaled one.
pub fn table3(
    cfg: Option<Config>,
    w: &Workload,
    out: &std::path::Path,
    paper: bool,
) -> anyhow::Result<(String, Vec<Check>, crate::at_scale::Work)> {
    let cfg = match (cfg, paper) {
        (Some(c), _) => c,
        (None, false) => Config::from_json(TABLE3_CONFIG, "table3 (built in)")?,
        (None, true) => Config::from_json(TABLE3_PAPER_CONFIG, "table3 --sim (built in)")?,
    };
    let c = lh_ctrl::compile::compile(&cfg).context("compiling the fabric")?;
    let core = w.load;
    let (w, cols) = table3_run(&c, w)?;
    let w = &w;
    let mut s = String::new();
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "Table 3 ({}): {}; {} ToRs x {} uplink(s) at {}, {} slices; load {:.0}%{} ({}){}; virtual time on MemPort",
        if paper {
            "the paper's setting"
        } else {
            "scaled"
        },
        cfg.name.as_deref().unwrap_or("fabric"),
        cfg.tors.count,
        cfg.tors.uplinks,
        cfg.tors.link_rate,
        cfg.slice.duration,
        core * 100.0,
        if w.transit {
            format!(
                " core link utilization (hosts offer {:.1}%)",
                w.load * 100.0
            )
        } else {
            String::new()
        },
        w.traffic(),
        match w.observed_tor {
            Some(k) if w.transit => format!(
                ", sent by the hosts of one observed ToR (s{}) and, for its transit, by the others",
                k + 1
            ),
            Some(k) => format!(", sent by the hosts of one observed ToR (s{})", k + 1),
            None => String::new(),
        }
    );
    let row = |s: &mut String, name: &str, f: &dyn Fn(&RunResult) -> String| {
        let _ = write!(s, "{name:<22}");
        for (_, r) in &cols {
            let _ = write!(s, "{:>14}", f(r));
        }
        s.push('\n');
    };
    let mark = |b: bool| if b { "yes" } else { "no" }.to_string();
    let flags = table3_columns();
    let _ = write!(s, "{:<22}", "Slice-miss detection");
    for (_, f) in &flags {
        let _ = write!(s, "{:>14}", mark(f.slice_miss_detection));
    }
    s.push('\n');
    let _ = write!(s, "{:<22}", "Push back");
    for (_, f) in &flags {
        let _ = write!(s, "{:>14}", mark(f.pushback.is_some()));
    }
    s.push('\n');
    if let Some(k) = w.observed_tor {
        row(&mut s, &format!("Offered by s{}'s hosts", k + 1), &|r| {
            format!("{:.1}%", r.observed_offered.unwrap_or(0.0) * 100.0)
        });
    }
    row(&mut s, "Throughput (Gbps)", &|r| {
        format!("{:.1}", r.throughput_gbps)
    });
    row(&mut s, "Loss rate", &|r| {
        format!("{:.2}%", r.loss_rate * 100.0)
    });
    row(&mut s, "Average delay", &|r| fmt_us(r.mean_delay_us));
    row(&mut s, "95%-ile delay", &|r| fmt_us(r.p95_delay_us));
    // Sampled every 10 us at s1; Tofino2 shares 64 MB (`tors.buffer_capacity`).
    row(&mut s, "ToR buffer (max)", &|r| {
        format!("{:.1} MB", r.tor_buffer_max_bytes as f64 / 1e6)
    });
    row(&mut s, "Held at hosts (max)", &|r| {
        format!("{} KB", r.host_held_max_bytes / 1000)
    });
    let r: Vec<&RunResult> = cols.iter().map(|(_, r)| r).collect();
    let work = work(r.iter().map(|&r| (w, r)));
    let checks = table3_checks(&r);
    let report = Table3Report {
        experiment: "table3",
        config: &cfg,
        workload: w,
        columns: cols,
    };
    std::fs::write(out, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("writing {}", out.display()))?;
    let plots = crate::tables_plot::save_beside(out, &serde_json::to_value(&report)?)?;
    let _ = writeln!(s, "figures: {}", out.display());
    let _ = writeln!(s, "plots: {plots}");
    Ok((s, checks, work))
}

const T3: &str = "Lighthouse §9.3, slice-miss prevention (Table 3)";
const T3_NONE: Claim = Claim {
    source: T3,
    quote: "The queue pauses after the time slice ends, holding buffered packets until the next cycle(s), leading to long delays and packet loss.",
};
const T3_DETECT: Claim = Claim {
    source: T3,
    quote: "With slice-miss detection alone (column 2), loss rates and average delay decrease slightly as packets are deferred to later time slices when the primary queue is full, but queues eventually fill up, causing losses.",
};
const T3_PUSH: Claim = Claim {
    source: T3,
    quote: "This eliminates packet loss, and low queuing delay indicates most packets are enqueued in the primary calendar queue.",
};

/// What Table 3's claims read of one column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Column {
    pub loss_rate: f64,
    pub mean_delay_us: f64,
    pub p95_delay_us: f64,
    pub dropped: u64,
}

impl From<&RunResult> for Column {
    fn from(r: &RunResult) -> Column {
        Column {
            loss_rate: r.loss_rate,
            mean_delay_us: r.mean_delay_us,
            p95_delay_us: r.p95_delay_us,
            dropped: r.counters.dropped_total(),
        }
    }
}

/// Table 3's five claims on its three columns, in [`table3_checks`]'
/// order: column 1 loses frames; column 2 below it in loss and average
/// delay; column 2 still loses; column 3 loses nothing; column 3 below
/// column 2 in average and 95%-ile delay.
pub fn table3_verdicts(none: &Column, detect: &Column, push: &Column) -> [bool; 5] {
    [
        none.loss_rate > 0.0,
        detect.loss_rate < none.loss_rate && detect.mean_delay_us < none.mean_delay_us,
        detect.loss_rate > 0.0,
        push.dropped == 0,
        push.mean_delay_us < detect.mean_delay_us && push.p95_delay_us < detect.p95_delay_us,
    ]
}

/// The claims of [`table3_verdicts`], in its order.
pub const TABLE3_CLAIMS: [(Claim, &str); 5] = [
    (T3_NONE, "column 1 loses frames"),
    (
        T3_DETECT,
        "column 2 below column 1 in loss rate and average delay",
    ),
    (T3_DETECT, "column 2 still loses frames"),
    (T3_PUSH, "column 3 loses nothing"),
    (
        T3_PUSH,
        "column 3 below column 2 in average and 95%-ile delay",
    ),
];

/// The paper's shape of Table 3 on its three columns (no protection,
/// detection, detection and push-back): each column better than the one
/// before, as the paper states it.
pub fn table3_checks(r: &[&RunResult]) -> Vec<Check> {
    let [none, detect, push] = r else {
        return vec![Check::sanity(
            format!("three columns measured (found {})", r.len()),
            false,
        )];
    };
    let pc = |x: f64| format!("{:.2}%", x * 100.0);
    let v = table3_verdicts(&(*none).into(), &(*detect).into(), &(*push).into());
    let conserved = r.iter().all(|x| x.counters.conservation_holds());
    let overflow: u64 = r.iter().map(|x| x.counters.hold_overflow).sum();
    vec![
        Check::sanity(
            "every column conserves frames (sent = delivered + dropped + queued + held)".into(),
            conserved,
        ),
        Check::sanity(
            format!(
                "no paused host sent past its pause for want of memory (hold_overflow: {overflow})"
            ),
            overflow == 0,
        ),
        Check::sanity(
            format!(
                "no frame waited for a free slot of the frame pool (steps with waits: {})",
                r.iter().map(|x| x.pool_waits).sum::<u64>()
            ),
            r.iter().all(|x| x.pool_waits == 0),
        ),
        Check::assert(
            T3_NONE,
            format!(
                "column 1 loses frames: loss rate {} (above 0)",
                pc(none.loss_rate)
            ),
            v[0],
        ),
        Check::assert(
            T3_DETECT,
            format!(
                "column 2 below column 1 in loss rate and average delay: {} vs {}, {} vs {}",
                pc(detect.loss_rate),
                pc(none.loss_rate),
                fmt_us(detect.mean_delay_us),
                fmt_us(none.mean_delay_us)
            ),
            v[1],
        ),
        Check::assert(
            T3_DETECT,
            format!(
                "column 2 still loses frames: loss rate {} (above 0)",
                pc(detect.loss_rate)
            ),
            v[2],
        ),
        Check::assert(
            T3_PUSH,
            format!(
                "column 3 loses nothing: {} frames dropped (0)",
                push.counters.dropped_total()
            ),
            v[3],
        ),
        Check::assert(
            T3_PUSH,
            format!(
                "column 3 below column 2 in average and 95%-ile delay: {} vs {}, {} vs {}",
                fmt_us(push.mean_delay_us),
                fmt_us(detect.mean_delay_us),
                fmt_us(push.p95_delay_us),
                fmt_us(detect.p95_delay_us)
            ),
            v[4],
        ),
    ]
}

fn fmt_us(us: f64) -> String {
    if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.0} us")
    }
}
