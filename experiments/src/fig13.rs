//! Fig. 13 (§9.3, "Emulation accuracy"): RTT steps per extra hop. The
//! paper sends UDP packets between two hosts and plots the RTT
//! distribution: it rises in steps, one per extra routing hop, because on
//! a TO fabric every extra hop waits for a later circuit.
//!
//! Here: RotorNet-8 (round robin, one uplink) with HOHO one hop per slice
//! and 5 ms slices. Pings leave a host 0.3 slices into a chosen slice, for
//! every destination ToR and every slice of the cycle; the compiled routes
//! say how many slices the request and the reply wait (forward path from
//! the send slice, return path from the slice the request arrives in) and
//! over how many hops. Grouped by slices waited, the median RTT must rise
//! by one slice per extra slice waited.

use super::csv::Csv;
use super::plot::{Axis, Chart, Panel, Series, Style, Unit, si};
use super::{Analysis, Check, Claim, Opts, Progress, pct};
use anyhow::Context;
use lh_ctrl::{SliceId, TorId};
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

/// The fabric: RotorNet-8, HOHO with one hop per slice, 5 ms slices: long
/// enough that the data-plane thread, descheduled for milliseconds on a
/// loaded 2-core machine, still sends inside the slice it was meant to.
pub const CONFIG: &str = r#"{
  "name": "fig13: RotorNet-8, HOHO one hop per slice, 5 ms slices",
  "mode": "TO",
  "fabric": "optical",
  "tors": {"count": 8, "uplinks": 1, "link_rate": "1Gbps",
           "hosts_per_tor": 1, "host_link_rate": "1Gbps"},
  "ocs": {"count": 1, "ports": 8, "reconfiguration_delay": "10us", "cabling": "auto"},
  "slice": {"duration": "5ms", "guardband": "500us", "propagation": "1us"},
  "topology": {"kind": "round_robin"},
  "routing": {"algorithm": "hoho", "lookup": "hop", "same_slice_hops": false}
}"#;

/// Where in its slice a ping leaves, as a fraction of the slice.
const SEND_AT: f64 = 0.3;
/// A send that woke later than this into its slice is retried.
const LATE: f64 = 0.6;
const TIMEOUT: Duration = Duration::from_millis(200);

const COLUMNS: [&str; 11] = [
    "rep",
    "src_tor",
    "dst_tor",
    "send_slice",
    "send_offset_us",
    "fwd_slices",
    "ret_slices",
    "fwd_hops",
    "ret_hops",
    "slice_us",
    "rtt_us",
];

/// (latency in slots, hops) per (src, dst, arrival slice).
fn path_table(c: &lh_ctrl::compile::Compiled) -> HashMap<(TorId, TorId, SliceId), (u64, usize)> {
    let mut m = HashMap::new();
    for p in &c.routes.paths {
        if let (Some(a), Some(l)) = (p.arrival, p.latency_slots())
            && p.class.is_none_or(|k| k == 0)
        {
            m.entry((p.src, p.dst, a))
                .or_insert((l as u64, p.hops.len()));
        }
    }
    m
}

pub fn run(o: &Opts, pb: &Progress) -> anyhow::Result<Csv> {
    let cfg =
        lh_ctrl::config::Config::from_json(CONFIG, "fig13 (built in)").context("fig13's config")?;
    let reps = if o.quick { 3 } else { 12 };
    let mut net = super::live_network(&cfg)?;
    let c = net.compiled.clone().context("no compiled config")?;
    let paths = path_table(&c);
    let tors = c.schedule.tors();
    let slices = c.schedule.slices();
    let clock = net.fabric().context("no data plane")?.clock();
    let d = clock.slice;
    pb.line(&format!(
        "fig13: run {} ({}), {reps} round(s) of {} pings",
        net.prefix,
        cfg.name.as_deref().unwrap_or(""),
        (tors - 1) * slices
    ));
    pb.set_len((reps * (tors - 1) * slices) as u64);
    let mut out = Csv::new(&COLUMNS);
    let hosts = net.plan.hosts.clone();
    let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(o.seed);
    for rep in 0..reps {
        // A different source ToR each round.
        let src = rep % tors;
        let h = hosts
            .iter()
            .find(|h| h.tor as usize == src)
            .context("a host per ToR")?;
        let pinger = lh_emu::traffic::probe::Pinger::open(Some(&net.host_ns(h)))?;
        let mut order: Vec<(usize, usize)> = (0..tors)
            .filter(|&t| t != src)
            .flat_map(|t| (0..slices).map(move |s| (t, s)))
            .collect();
        rand::seq::SliceRandom::shuffle(&mut order[..], &mut rng);
        for (dst, ts) in order {
            if lh_emu::kernel::signals::take_interrupt() || lh_emu::kernel::signals::terminating() {
                anyhow::bail!("interrupted");
            }
            let dh = hosts
                .iter()
                .find(|h| h.tor as usize == dst)
                .context("a host per ToR")?;
            let (slot, offset, rtt) = ping_in_slice(&pinger, dh.ip, &clock, ts as u64)?;
            let ts = (slot % clock.slices) as usize;
            let (lf, hf) = *paths
                .get(&(src as TorId, dst as TorId, ts as SliceId))
                .context("no path for a ToR pair")?;
            let back = ((ts as u64 + lf) % slices as u64) as SliceId;
            let (lr, hr) = *paths
                .get(&(dst as TorId, src as TorId, back))
                .context("no return path")?;
            out.push(vec![
                rep.to_string(),
                src.to_string(),
                dst.to_string(),
                ts.to_string(),
                format!("{:.1}", offset as f64 / 1e3),
                lf.to_string(),
                lr.to_string(),
                hf.to_string(),
                hr.to_string(),
                format!("{}", d as f64 / 1e3),
                rtt.map_or(String::new(), |r| format!("{:.1}", r.as_secs_f64() * 1e6)),
            ]);
            pb.inc(1);
        }
    }
    super::stop_network(&mut net, pb)?;
    Ok(out)
}

/// One echo aimed `SEND_AT` into the next occurrence of slice `ts`: (the
/// slot it left in, its offset into that slot in ns, the RTT). A loaded
/// machine wakes late: the slot is where the request really left, read
/// before and after the send; a send that straddles a slot boundary or
/// leaves later than `LATE` into its slot is measured again.
fn ping_in_slice(
    p: &lh_emu::traffic::probe::Pinger,
    ip: std::net::Ipv4Addr,
    clock: &swtor::SliceClock,
    ts: u64,
) -> anyhow::Result<(u64, u64, Option<Duration>)> {
    let d = clock.slice;
    for _ in 0..50 {
        let now = swtor::monotonic_ns();
        let n = clock.slot(now) + 1;
        let m = n + (ts + clock.slices - n % clock.slices) % clock.slices;
        let at = clock.start_of_slot(m) + (d as f64 * SEND_AT) as u64;
        // Sleep to 1 ms before, then spin: sleeps overshoot.
        let early = at.saturating_sub(1_000_000);
        let t = swtor::monotonic_ns();
        if early > t {
            std::thread::sleep(Duration::from_nanos(early - t));
        }
        while swtor::monotonic_ns() < at {
            std::hint::spin_loop();
        }
        let before = swtor::monotonic_ns();
        let (rtt, after) = p.echo_sent(ip, TIMEOUT)?;
        let slot = clock.slot(before);
        let offset = after - clock.start_of_slot(slot);
        if clock.slot(after) == slot && offset as f64 <= LATE * d as f64 {
            return Ok((slot, offset, rtt));
        }
        // Let a late request's reply come back before the next one.
        std::thread::sleep(TIMEOUT.min(Duration::from_millis(20)));
    }
    anyhow::bail!("50 pings in a row left too late in their slice (machine overloaded?)")
}

struct Row {
    rtts: Vec<f64>,
    lost: usize,
    hops: Vec<f64>,
    floors: Vec<f64>,
}

/// Slack for the floor check: clock reads around the send.
const FLOOR_SLACK_MS: f64 = 0.05;

/// The claim (§9.3, "Emulation accuracy"), in the paper's words.
const STEPS: Claim = Claim {
    source: "Lighthouse §9.3, emulation accuracy (Fig. 13)",
    quote: "Both curves exhibit similar latency distribution patterns, with stepped RTT increases corresponding to additional routing hops.",
};

/// Over `points` (slices waited, RTT ms) with slices of `d` ms: the rise
/// in slices per slice waited from the first to the last, the steps
/// printed, and whether no step falls by more than half a slice.
fn steps_of(points: &[(f64, f64)], d: f64) -> (f64, String, bool) {
    let mut steps = Vec::new();
    let mut monotone = points.len() >= 2;
    for w in points.windows(2) {
        let ((k0, m0), (k1, m1)) = (w[0], w[1]);
        steps.push(format!("{k0}->{k1}: {:+.2}", (m1 - m0) / (k1 - k0) / d));
        monotone &= m1 >= m0 - 0.5 * d;
    }
    let rise = match (points.first(), points.last()) {
        (Some(a), Some(b)) if b.0 > a.0 => (b.1 - a.1) / (b.0 - a.0) / d,
        _ => 0.0,
    };
    (rise, steps.join(", "), monotone)
}

pub fn analyze(c: &Csv) -> anyhow::Result<Analysis> {
    let col = c.columns(&COLUMNS)?;
    let mut groups: BTreeMap<u64, Row> = BTreeMap::new();
    let mut by_hops: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    let mut d_us = 0.0;
    let mut samples = Vec::new();
    let mut beaten = Vec::new();
    for r in 0..c.rows.len() {
        let n = |k: &str| c.num(r, k, col[k]);
        let k = (n("fwd_slices")?.unwrap_or(0.0) + n("ret_slices")?.unwrap_or(0.0)) as u64;
        let hops = n("fwd_hops")?.unwrap_or(0.0) + n("ret_hops")?.unwrap_or(0.0);
        d_us = n("slice_us")?.unwrap_or(d_us);
        let d = d_us / 1e3;
        // No ping beats its circuits: a request (or reply) that waits
        // leaves after the guardband (a tenth of the slice) of the slot its
        // route names, so k slices waited take at least k - offset + 0.1
        // slices.
        let floor = if k == 0 {
            0.0
        } else {
            k as f64 * d - n("send_offset_us")?.unwrap_or(0.0) / 1e3 + 0.1 * d
        };
        let g = groups.entry(k).or_insert(Row {
            rtts: Vec::new(),
            lost: 0,
            hops: Vec::new(),
            floors: Vec::new(),
        });
        g.hops.push(hops);
        g.floors.push(floor);
        match n("rtt_us")? {
            Some(us) => {
                let ms = us / 1e3;
                g.rtts.push(ms);
                by_hops.entry(hops as u64).or_default().push(ms);
                samples.push((k as f64, ms));
                if ms < floor - FLOOR_SLACK_MS {
                    beaten.push(format!("row {}: {ms:.2} < {floor:.2} ms", r + 2));
                }
            }
            None => g.lost += 1,
        }
    }
    anyhow::ensure!(d_us > 0.0, "no samples");
    let d = d_us / 1e3;
    let mut t = format!(
        "Fig. 13 (scaled): ping RTT vs slices waited on RotorNet-8, HOHO one hop per slice, {d} ms slices; pings aimed {SEND_AT} into a slice\n{:>13} {:>8} {:>5} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
        "slices waited",
        "samples",
        "lost",
        "mean hops",
        "floor ms",
        "min ms",
        "p10 ms",
        "median ms"
    );
    let mut mins = Vec::new();
    let mut medians = Vec::new();
    let (mut sent, mut lost) = (0, 0);
    let f2 = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2}"));
    for (k, g) in &groups {
        sent += g.rtts.len() + g.lost;
        lost += g.lost;
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        t += &format!(
            "{:>13} {:>8} {:>5} {:>10.2} {:>10.2} {:>10} {:>10} {:>10}\n",
            k,
            g.rtts.len(),
            g.lost,
            mean(&g.hops),
            mean(&g.floors),
            f2(pct(&g.rtts, 0.0)),
            f2(pct(&g.rtts, 10.0)),
            f2(pct(&g.rtts, 50.0)),
        );
        if g.rtts.len() >= 3 {
            mins.extend(pct(&g.rtts, 0.0).map(|v| (*k as f64, v)));
            medians.extend(pct(&g.rtts, 50.0).map(|v| (*k as f64, v)));
        }
    }
    t += "median by hops (request + reply):";
    for (h, v) in &by_hops {
        t += &format!(
            " {h} hops {:.2} ms (n={});",
            pct(v, 50.0).unwrap_or(0.0),
            v.len()
        );
    }
    t.push('\n');
    let mut checks = vec![
        Check::sanity(
            format!(
                "at least 3 distinct numbers of slices waited with 3+ answered pings (found {})",
                mins.len()
            ),
            mins.len() >= 3,
        ),
        Check::sanity(
            format!("pings answered: {lost} of {sent} lost (at most 5%)"),
            (lost as f64) <= 0.05 * sent as f64,
        ),
        Check::sanity(
            format!(
                "no ping beats its circuits (RTT >= floor - {FLOOR_SLACK_MS} ms): {} below{}",
                beaten.len(),
                beaten
                    .first()
                    .map_or(String::new(), |b| format!(", first {b}"))
            ),
            beaten.is_empty(),
        ),
    ];
    // The paper's statistic is the RTT distribution: its steps show in the
    // median of each group, and in the lower envelope (the fastest ping),
    // which a loaded machine cannot move down (its delays only add). Each
    // must not fall by more than half a slice from one group to the next,
    // and over the whole range rise by at least half a slice per extra
    // slice waited.
    for (what, points) in [("median", &medians), ("fastest", &mins)] {
        let (rise, steps, monotone) = steps_of(points, d);
        checks.push(Check::assert(
            STEPS,
            format!(
                "the {what} RTT rises with the slices waited: {rise:.2} slices per slice waited overall (at least 0.5), steps {steps} (none below -0.5)"
            ),
            monotone && rise >= 0.5,
        ));
    }
    // The chart, in seconds; the pings spread a little around their
    // number of slices waited, as their RTTs come in whole milliseconds.
    let secs = |v: Vec<(f64, f64)>| v.into_iter().map(|(k, ms)| (k, ms / 1e3)).collect();
    let spread = samples
        .iter()
        .enumerate()
        .map(|(j, &(k, ms))| (k + 0.5 * super::plot::jitter(j), ms / 1e3))
        .collect();
    let chart = Chart::single(
        format!(
            "Fig. 13: ping RTT vs slices waited ({} slices, HOHO)",
            si(d / 1e3, Unit::Seconds)
        ),
        Panel {
            title: String::new(),
            x: Axis::linear("slices waited (request + reply)", Unit::Plain),
            y: Axis::linear("round-trip time", Unit::Seconds),
            series: vec![
                Series::new("each ping", Style::Points, spread),
                Series::new("fastest", Style::Line, secs(mins)),
                Series::new("median", Style::Line, secs(medians)),
            ],
        },
    );
    Ok(Analysis {
        table: t,
        chart,
        checks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(k_f: u64, k_r: u64, rtt: Option<f64>) -> Vec<String> {
        vec![
            "0".into(),
            "0".into(),
            "1".into(),
            "0".into(),
            "300".into(),
            k_f.to_string(),
            k_r.to_string(),
            "1".into(),
            "1".into(),
            "1000".into(),
            rtt.map_or(String::new(), |v| v.to_string()),
        ]
    }

    #[test]
    fn steps_of_one_slice_hold_and_flat_rtts_do_not() {
        let mut good = Csv::new(&COLUMNS);
        let mut flat = Csv::new(&COLUMNS);
        for k in 0..4u64 {
            for j in 0..3 {
                good.push(row(k, 0, Some(k as f64 * 1000.0 + 100.0 + j as f64)));
                flat.push(row(k, 0, Some(500.0 + j as f64)));
            }
        }
        let a = analyze(&good).unwrap();
        assert!(a.checks.iter().all(|c| c.holds), "{:?}", a.checks);
        let b = analyze(&flat).unwrap();
        assert!(!b.checks.iter().all(|c| c.holds));
        let mut fast = good.clone();
        fast.push(row(3, 0, Some(1000.0)));
        let f = analyze(&fast).unwrap();
        assert!(
            f.checks
                .iter()
                .any(|c| !c.holds && c.what.contains("beats"))
        );
        // Steps in the fastest pings but not in the medians: the median's
        // check fails alone, under the paper's quote.
        let mut low = Csv::new(&COLUMNS);
        for k in 0..4u64 {
            low.push(row(k, 0, Some(k as f64 * 1000.0 + 100.0)));
            low.push(row(k, 0, Some(5000.0)));
            low.push(row(k, 0, Some(5001.0)));
        }
        let f = analyze(&low).unwrap().failing();
        assert!(
            f.len() == 1 && f[0].starts_with("the median RTT rises"),
            "{f:?}"
        );
        assert!(
            analyze(&low)
                .unwrap()
                .checks
                .iter()
                .filter(|c| c.claim == Some(STEPS))
                .count()
                == 2
        );
        good.push(row(1, 1, None));
        good.push(row(1, 1, None));
        let lossy = analyze(&good).unwrap();
        assert!(
            lossy
                .checks
                .iter()
                .any(|c| !c.holds && c.what.contains("lost"))
        );
    }
}
