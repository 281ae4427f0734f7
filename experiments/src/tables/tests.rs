use super::*;

/// The built-in Opera-108 setting on 24 ToRs x 3 uplinks and hosts (a
/// 24-slice cycle), so the test runs in seconds.
fn opera_24() -> Config {
    let mut v: serde_json::Value = serde_json::from_str(TABLE2_CONFIG).unwrap();
    v["name"] = "Opera-24".into();
    for k in ["count", "uplinks", "hosts_per_tor"] {
        v["tors"][k] = if k == "count" { 24 } else { 3 }.into();
    }
    v["ocs"]["count"] = 3.into();
    v["ocs"]["ports"] = 24.into();
    Config::from_json(&v.to_string(), "opera-24").unwrap()
}

#[test]
fn every_frame_a_step_injects_enters_the_fabric_at_high_rates() {
    // 8 ToRs x 8 hosts at 100 Gb/s, each host offering 75% of its link
    // (6x a ToR's one uplink): about 200 frames a 500 ns step, three times
    // the engine's batch. The fabric must take them all (what was sent is
    // the offered load within the Poisson count's sampling error), not a
    // batch a step.
    let cfg = Config::from_json(
        &TABLE3_CONFIG
            .replace(r#""hosts_per_tor": 4"#, r#""hosts_per_tor": 8"#)
            .replace("10Gbps", "100Gbps"),
        "table3 at 100 Gb/s",
    )
    .unwrap();
    let c = lh_ctrl::compile::compile(&cfg).unwrap();
    let w = Workload {
        load: 6.0,
        incast_share: 0.0,
        duration_ns: 1_000_000,
        drain_ns: 0,
        ..Workload::default()
    };
    let r = run(&c, TorFeatures::default(), &w).unwrap();
    let offered = w.load * 8.0 * 100e9 * 1e-3 / (8.0 * w.frame_len as f64);
    let sent = r.at_drain_end.sent as f64;
    assert!((sent / offered - 1.0).abs() < 0.05, "{sent} of {offered}");
}

#[test]
fn every_frame_due_at_a_host_leaves_in_its_step_at_high_rates() {
    // VLB on 24 ToRs x 3 uplinks at 100 Gb/s with 5 us steps: in the
    // drain, no frame is injected, and the frames the circuits bring to
    // the ToRs' host ports (up to 72 uplinks x 40 frames a step) are more
    // than the engine sends to hosts a poll (64). Polled until nothing
    // moves, the fabric is empty two cycles after the traffic; with one
    // poll a step, frames were still waiting at the host ports.
    let mut v: serde_json::Value = serde_json::to_value(opera_24()).unwrap();
    v["tors"]["link_rate"] = "100Gbps".into();
    v["tors"]["host_link_rate"] = "100Gbps".into();
    let c =
        lh_ctrl::compile::compile(&Config::from_json(&v.to_string(), "opera-24").unwrap()).unwrap();
    let cycle = c.config.slice.duration.0 * c.schedule.slices() as u64;
    let w = Workload {
        load: 0.35,
        incast_share: 0.0,
        duration_ns: 2_000_000,
        drain_ns: 2 * cycle,
        step_ns: 5_000,
        compact: true,
        ..Workload::default()
    };
    let r = run(&c, TorFeatures::default(), &w).unwrap();
    assert!(r.at_drain_end.sent > 100_000, "{:?}", r.at_drain_end);
    assert_eq!(
        r.at_drain_end.delivered, r.at_drain_end.sent,
        "{:?}",
        r.at_drain_end
    );
}

#[test]
fn table2_has_the_papers_shape() {
    let cfg = opera_24();
    let w = Workload {
        load: 0.4,
        incast_share: 0.0,
        duration_ns: 20_000_000,
        ..Workload::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("table2.json");
    let (text, checks, work) = table2(Some(cfg), &w, 1, &out, false).unwrap();
    assert!(checks.iter().all(|c| !c.fails()), "{checks:?}");
    // The figures are read back from the file the experiment wrote.
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    // The work is the four runs' traffic and drain, and every frame at
    // each link it crossed.
    let sum = |f: &dyn Fn(&serde_json::Value) -> u64| rows.iter().map(f).sum::<u64>();
    let n = |x: &serde_json::Value| x.as_u64().unwrap();
    assert_eq!(
        work.simulated_ns,
        sum(&|r| n(&r[2]["duration_ns"]) + n(&r[2]["drain_ns"]))
    );
    let c = |r: &serde_json::Value, k: &str| n(&r[3]["counters"][k]);
    assert_eq!(
        work.frame_hops,
        sum(&|r| c(r, "sent") + c(r, "uplink_tx") + c(r, "ocs_delivered") + c(r, "delivered"))
    );
    assert!(
        work.frame_hops > 2 * sum(&|r| c(r, "delivered")),
        "{work:?}"
    );
    let names: Vec<(&str, bool)> = rows
        .iter()
        .map(|r| (r[0].as_str().unwrap(), !r[1].is_null()))
        .collect();
    assert_eq!(
        names,
        [
            ("vlb", false),
            ("vlb", true),
            ("hoho", false),
            ("ucmp", false)
        ]
    );
    let p999 = |i: usize| rows[i][3]["tor_buffer_p999_bytes"].as_u64().unwrap();
    let (vlb, off, hoho, ucmp) = (p999(0), p999(1), p999(2), p999(3));
    // VLB parks frames at intermediates until their direct circuit
    // (up to a cycle); HOHO and UCMP take the nearest slices.
    assert!(vlb >= 2 * hoho && vlb >= 2 * ucmp, "{text}");
    // Offloading keeps only the active calendar queue on the ToR.
    assert!(vlb >= 3 * off, "{text}");
    assert!(hoho > 0 && off > 0, "{text}");
    for (i, r) in rows.iter().enumerate() {
        // Every row ran at the paper's 40% core link utilization.
        let u = r[3]["core_utilization"].as_f64().unwrap();
        assert!((0.3..0.5).contains(&u), "row {i}: {u}");
        for at in ["at_traffic_end", "at_drain_end"] {
            let l = |k: &str| r[3][at][k].as_u64().unwrap();
            assert_eq!(
                l("sent"),
                l("delivered") + l("dropped") + l("queued_at_tors") + l("held_at_hosts"),
                "row {i} {at}: {}",
                r[3][at]
            );
            assert_eq!(l("dropped"), 0, "row {i} {at}");
        }
        assert_eq!(r[3]["at_drain_end"]["queued_at_tors"], 0, "row {i}");
        assert_eq!(r[3]["at_drain_end"]["held_at_hosts"], 0, "row {i}");
    }
    // With offloading, frames wait at the hosts (counted there, not in
    // the ToR buffer) and all come back.
    assert!(
        rows[1][3]["at_traffic_end"]["held_at_hosts"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(rows[0][3]["at_traffic_end"]["held_at_hosts"] == 0);
    assert_eq!(
        rows[0][3]["at_drain_end"]["delivered"],
        rows[1][3]["at_drain_end"]["delivered"]
    );
    assert!(text.contains("VLB (offloaded)"), "{text}");
}

fn col(loss: f64, mean_us: f64, p95_us: f64, dropped: u64) -> RunResult {
    let mut r = RunResult {
        loss_rate: loss,
        mean_delay_us: mean_us,
        p95_delay_us: p95_us,
        ..Default::default()
    };
    // Conserved: every frame sent was delivered or dropped.
    r.counters.sent = 1000;
    r.counters.delivered = 1000 - dropped;
    r.counters.dropped[0] = dropped;
    r
}

fn failing(checks: &[Check]) -> Vec<&str> {
    checks
        .iter()
        .filter(|c| c.fails())
        .map(|c| c.what.as_str())
        .collect()
}

#[test]
fn table3_verdict_wants_each_column_better_than_the_one_before() {
    let (a, b, c) = (
        col(0.1, 1700.0, 4700.0, 100),
        col(0.09, 1600.0, 4200.0, 90),
        col(0.0, 170.0, 460.0, 0),
    );
    assert!(failing(&table3_checks(&[&a, &b, &c])).is_empty());
    // Detection no better than nothing.
    let f = table3_checks(&[&a, &col(0.1, 1800.0, 4700.0, 100), &c]);
    assert!(
        matches!(failing(&f)[..], [w] if w.starts_with("column 2 below column 1")),
        "{f:?}"
    );
    // Push-back that loses frames, or does not cut the tail.
    let f = table3_checks(&[&a, &b, &col(0.0, 170.0, 460.0, 1)]);
    assert!(
        matches!(failing(&f)[..], [w] if w.starts_with("column 3 loses nothing")),
        "{f:?}"
    );
    let f = table3_checks(&[&a, &b, &col(0.0, 170.0, 5000.0, 0)]);
    assert!(
        matches!(failing(&f)[..], [w] if w.starts_with("column 3 below column 2")),
        "{f:?}"
    );
    // A lossless first column is not the paper's.
    let f = table3_checks(&[&col(0.0, 1700.0, 4700.0, 0), &b, &c]);
    assert!(
        failing(&f).iter().any(|w| w.starts_with("column 1 loses")),
        "{f:?}"
    );
    assert!(failing(&table3_checks(&[&a, &b])).len() == 1);
    // A paused host that sent past its pause, or frames that waited for
    // a slot: the run measured something else.
    let mut over = c.clone();
    over.counters.hold_overflow = 1;
    let f = table3_checks(&[&a, &b, &over]);
    assert!(
        matches!(failing(&f)[..], [w] if w.starts_with("no paused host sent past its pause")),
        "{f:?}"
    );
    let mut waited = c.clone();
    waited.pool_waits = 3;
    let f = table3_checks(&[&a, &b, &waited]);
    assert!(
        matches!(failing(&f)[..], [w] if w.starts_with("no frame waited for a free slot")),
        "{f:?}"
    );
}

#[test]
fn table2_verdict_wants_vlb_highest_and_offloading_lowest() {
    let buf = |b: u64| RunResult {
        tor_buffer_p999_bytes: b,
        ..Default::default()
    };
    let ok = table2_checks(&buf(9000), &buf(1200), &buf(2400), &buf(2500));
    assert!(failing(&ok).is_empty(), "{ok:?}");
    let f = table2_checks(&buf(2000), &buf(1200), &buf(2400), &buf(2500));
    assert!(
        matches!(failing(&f)[..], [w] if w.starts_with("VLB's 99.9%-ile")),
        "{f:?}"
    );
    assert!(
        failing(&table2_checks(
            &buf(9000),
            &buf(3900),
            &buf(2400),
            &buf(2500)
        ))
        .is_empty()
    );
    let f = table2_checks(&buf(9000), &buf(3901), &buf(2400), &buf(2500));
    assert!(
        matches!(failing(&f)[..], [w] if w.starts_with("offloaded VLB's")),
        "{f:?}"
    );
    let mut left = buf(9000);
    left.at_drain_end.queued_at_tors = 1;
    let f = table2_checks(&left, &buf(1200), &buf(2400), &buf(2500));
    assert!(
        matches!(failing(&f)[..], [w] if w.starts_with("every row conserves")),
        "{f:?}"
    );
}

#[test]
fn table3_has_the_papers_shape() {
    let cfg = Config::from_json(TABLE3_CONFIG, "t3").unwrap();
    let c = lh_ctrl::compile::compile(&cfg).unwrap();
    let w = Workload {
        duration_ns: 6_000_000,
        drain_ns: 6_000_000,
        ..Workload::default()
    };
    let r: Vec<RunResult> = table3_columns()
        .iter()
        .map(|(_, f)| run(&c, *f, &w).unwrap())
        .collect();
    // Without push-back the fabric loses frames and queues for cycles.
    assert!(r[0].loss_rate > 0.005, "{:?}", r[0].loss_rate);
    assert!(r[1].loss_rate > 0.005, "{:?}", r[1].loss_rate);
    assert!(r[0].p95_delay_us > 1000.0, "{}", r[0].p95_delay_us);
    // With all three mechanisms nothing is lost and the tail is an
    // order of magnitude shorter.
    assert_eq!(r[2].counters.dropped_total(), 0, "{}", r[2].counters);
    assert!(
        r[2].p95_delay_us * 5.0 < r[0].p95_delay_us,
        "{} vs {}",
        r[2].p95_delay_us,
        r[0].p95_delay_us
    );
    assert!(r[2].counters.pushbacks > 0 && r[2].counters.held_total > 0);
    for x in &r {
        assert!(x.counters.conservation_holds());
        assert_eq!((x.counters.queued, x.counters.held), (0, 0));
    }
    let cols: Vec<&RunResult> = r.iter().collect();
    assert!(failing(&table3_checks(&cols)).is_empty());
}

#[test]
fn compact_frames_give_the_results_of_whole_ones_in_small_slots() {
    // Losses and push-back (Table 3's columns 1 and 3 at 70%) and frames
    // held at hosts (Table 2's offloaded VLB): stored headers padded to
    // the frame length behave as the whole frames, to the byte.
    let t3 =
        lh_ctrl::compile::compile(&Config::from_json(TABLE3_CONFIG, "table3").unwrap()).unwrap();
    let t2 = lh_ctrl::compile::compile(&opera_24()).unwrap();
    let w = |compact| Workload {
        duration_ns: 2_000_000,
        drain_ns: 1_000_000,
        compact,
        ..Workload::default()
    };
    let off = TorFeatures {
        offload_queues: Some(1),
        ..Default::default()
    };
    let cols = table3_columns();
    for (c, f) in [(&t3, cols[0].1), (&t3, cols[2].1), (&t2, off)] {
        let json = |compact| serde_json::to_string(&run(c, f, &w(compact)).unwrap()).unwrap();
        let whole = json(false);
        assert_eq!(json(true), whole);
        let v: serde_json::Value = serde_json::from_str(&whole).unwrap();
        assert!(v["counters"]["sent"].as_u64().unwrap() > 1000, "{whole}");
    }
    // The slots are small, and whole frames would not fit them.
    let e = engine(&t3, cols[0].1, 0, &w(true)).unwrap();
    assert_eq!(e.pool().max_frame(), STORED);
    let e = engine(&t3, cols[0].1, 0, &w(false)).unwrap();
    assert_eq!(e.pool().max_frame(), swtor::pool::MAX_FRAME);
}

#[test]
fn a_full_frame_pool_is_counted_and_fails_table2() {
    let c =
        lh_ctrl::compile::compile(&Config::from_json(TABLE3_CONFIG, "table3").unwrap()).unwrap();
    let w = |pool_frames| Workload {
        duration_ns: 1_000_000,
        drain_ns: 1_000_000,
        pool_frames,
        ..Workload::default()
    };
    let f = table3_columns()[0].1;
    let roomy = run(&c, f, &w(256 * 1024)).unwrap();
    assert_eq!(roomy.pool_waits, 0);
    let tight = run(&c, f, &w(64)).unwrap();
    assert!(tight.pool_waits > 0);
    let ok = table2_checks(&roomy, &roomy, &roomy, &roomy);
    let bad = table2_checks(&roomy, &tight, &roomy, &roomy);
    let waits = |c: &[Check]| {
        failing(c)
            .iter()
            .filter(|t| t.starts_with("no frame waited"))
            .count()
    };
    assert_eq!((waits(&ok), waits(&bad)), (0, 1), "{bad:?}");
}

#[test]
fn runs_on_both_cores_give_what_runs_one_after_the_other_give() {
    // Three different runs (features, loads, seeds), in parallel and in
    // order: the same results, to the byte, in the order given.
    let c =
        lh_ctrl::compile::compile(&Config::from_json(TABLE3_CONFIG, "table3").unwrap()).unwrap();
    let w = |load: f64, seed: u64| Workload {
        load,
        seed,
        duration_ns: 1_000_000,
        drain_ns: 1_000_000,
        ..Workload::default()
    };
    let jobs = [
        (&c, table3_columns()[0].1, w(0.7, 1)),
        (&c, table3_columns()[2].1, w(0.7, 1)),
        (&c, table3_columns()[1].1, w(0.3, 2)),
    ];
    let json = |r: &RunResult| serde_json::to_string(r).unwrap();
    let parallel: Vec<String> = run_all(&jobs).unwrap().iter().map(json).collect();
    let serial: Vec<String> = jobs
        .iter()
        .map(|(c, f, w)| json(&run(c, *f, w).unwrap()))
        .collect();
    assert_eq!(parallel, serial);
    // The runs differ, so the order is checked too.
    assert_ne!(serial[0], serial[1]);
    assert_ne!(serial[0], serial[2]);
}

#[test]
fn an_observed_tor_alone_offers_the_load_of_its_own_uplinks() {
    // 8 ToRs x 1 uplink at 10 Gb/s: the load is a fraction of one ToR's
    // uplink capacity, offered by that ToR's hosts alone (bursts too),
    // where every host sending offers it at each of the 8 ToRs.
    let c =
        lh_ctrl::compile::compile(&Config::from_json(TABLE3_CONFIG, "table3").unwrap()).unwrap();
    let w = |observed_tor| Workload {
        load: 0.5,
        duration_ns: 40_000_000,
        drain_ns: 0,
        observed_tor,
        ..Workload::default()
    };
    let one = run(&c, TorFeatures::default(), &w(Some(3))).unwrap();
    let all = run(&c, TorFeatures::default(), &w(None)).unwrap();
    let offered = 0.5 * 10e9 * 40e-3 / (8.0 * 1500.0);
    let (s1, sa) = (one.at_drain_end.sent as f64, all.at_drain_end.sent as f64);
    assert!((s1 / offered - 1.0).abs() < 0.15, "{s1} of {offered}");
    assert!(
        (sa / (8.0 * offered) - 1.0).abs() < 0.1,
        "{sa} of 8 x {offered}"
    );
    // Every frame goes to a host that exists.
    for r in [&one, &all] {
        assert_eq!(r.counters.dropped(swtor::DropReason::NoRoute), 0);
    }
    // Only the observed ToR's hosts send; every ToR's hosts do otherwise.
    let sent = |r: &RunResult| r.sent_from_tor.iter().sum::<u64>();
    assert_eq!(one.sent_from_tor[3], sent(&one));
    assert!(all.sent_from_tor.iter().all(|&x| x * 10 > sent(&all) / 8));
    // Bursts alone: from the observed ToR to hosts on the others, all of
    // them reached.
    let bursts = run(
        &c,
        TorFeatures::default(),
        &Workload {
            incast_share: 1.0,
            ..w(Some(3))
        },
    )
    .unwrap();
    assert!(sent(&bursts) > 0);
    assert_eq!(bursts.sent_from_tor[3], sent(&bursts));
    assert_eq!(bursts.sent_to_tor[3], 0);
    assert!(
        (0..8)
            .filter(|&k| k != 3)
            .all(|k| bursts.sent_to_tor[k] > 0),
        "{:?}",
        bursts.sent_to_tor
    );
    assert!(
        (sent(&bursts) as f64 / offered - 1.0).abs() < 0.3,
        "{} of {offered}",
        sent(&bursts)
    );
    // Its buffer is the only one sampled; an observed ToR must exist.
    assert!(one.tor_buffer_max_bytes > 0);
    assert!(run::samples(Some(3), 3) && !run::samples(Some(3), 2));
    assert!((0..8).all(|k| run::samples(None, k)));
    let err = run(&c, TorFeatures::default(), &w(Some(8))).unwrap_err();
    assert!(err.to_string().contains("observed ToR 8"), "{err}");
}

#[test]
fn an_observed_tors_transit_comes_from_the_others_and_leaves_its_own_traffic_as_it_was() {
    // Poisson frames, and a trace's flows.
    for trace in [None, Some("kvstore".to_string())] {
        transit_of_tor_3(trace);
    }
}

fn transit_of_tor_3(trace: Option<String>) {
    let c =
        lh_ctrl::compile::compile(&Config::from_json(TABLE3_CONFIG, "table3").unwrap()).unwrap();
    let w = |transit| Workload {
        load: 0.5,
        duration_ns: 20_000_000,
        drain_ns: 0,
        observed_tor: Some(3),
        transit,
        trace: trace.clone(),
        ..Workload::default()
    };
    let alone = run(&c, TorFeatures::default(), &w(false)).unwrap();
    let with = run(&c, TorFeatures::default(), &w(true)).unwrap();
    let all = run(
        &c,
        TorFeatures::default(),
        &Workload {
            observed_tor: None,
            ..w(false)
        },
    )
    .unwrap();
    // The observed ToR's own frames are the same ones.
    assert_eq!(alone.sent_from_tor[3], with.sent_from_tor[3]);
    // Every other ToR sends some of its every-host traffic: the part whose
    // path crosses ToR 3, not all of it.
    for a in (0..8).filter(|&a| a != 3) {
        let (t, f) = (with.sent_from_tor[a], all.sent_from_tor[a]);
        assert!(t > 0 && t * 2 < f, "ToR {a}: {t} of {f}");
        assert_eq!(alone.sent_from_tor[a], 0);
    }
    // And none of it is for ToR 3's own hosts (that is no transit).
    let to3 = |r: &RunResult| r.sent_to_tor[3];
    assert_eq!(to3(&with), to3(&alone));
    assert_eq!(with.counters.dropped(swtor::DropReason::NoRoute), 0);
}

/// Flows with sizes from `cdf`, `per_us` a microsecond per host, among
/// `n` hosts on 1 Gb/s links, in 1500-byte frames.
fn every_flow(cdf: &lh_emu::traffic::workload::cdf::SizeCdf, per_us: f64, n: usize) -> Flows<'_> {
    Flows {
        cdf,
        lambda: per_us / 1000.0,
        host_bps: 1e9,
        frame_len: 1500,
        n,
    }
}

/// Every flow `bytes` long.
fn constant(bytes: u64) -> lh_emu::traffic::workload::cdf::SizeCdf {
    lh_emu::traffic::workload::cdf::SizeCdf::parse("test", &format!("{bytes} 0\n{bytes} 1\n"))
        .unwrap()
}

/// The frames `FlowSender` sends from host 2 of 4 over 1 ms at 1 Gb/s,
/// every flow 3700 bytes, `per_us` flows arriving per microsecond:
/// (step time, destination, length).
fn flow_frames(per_us: f64) -> Vec<(u64, usize, usize)> {
    let cdf = constant(3700);
    let fl = every_flow(&cdf, per_us, 4);
    let mut rng = SmallRng::seed_from_u64(7);
    let epoch = 1_000_000;
    let mut fs = FlowSender::new(epoch, &fl, &mut rng);
    let mut sent = Vec::new();
    for k in 0..2000u64 {
        let t = epoch + k * 500;
        fs.due(t, 2, &fl, &mut rng, u64::MAX, &mut |d, len| {
            sent.push((t, d, len))
        });
    }
    sent
}

#[test]
fn a_hosts_flows_go_whole_one_after_the_other_at_its_link_rate() {
    // 0.74 Gb/s offered (idle gaps between flows), then 1.48 Gb/s (the
    // link always busy).
    for per_us in [1.0 / 40.0, 1.0 / 20.0] {
        let sent = flow_frames(per_us);
        assert!(sent.len() > 30, "{sent:?}");
        for flow in sent.chunks(3) {
            // Whole, in order, to one other host: 1500 + 1500 + 700.
            let lens: Vec<usize> = flow.iter().map(|f| f.2).collect();
            assert_eq!(lens, [1500, 1500, 700][..lens.len()], "{sent:?}");
            assert!(flow.iter().all(|f| f.1 == flow[0].1 && f.1 != 2 && f.1 < 4));
        }
        // Back to back at 1 Gb/s: a frame's 8 ns a byte before the next
        // (a step is 500 ns).
        for w in sent.windows(2) {
            assert!(w[1].0 + 500 >= w[0].0 + w[0].2 as u64 * 8, "{w:?}");
        }
        let bytes: usize = sent.iter().map(|f| f.2).sum();
        if per_us > 1.0 / 25.0 {
            // More offered than the link carries: it never idles.
            assert!((110_000..=126_500).contains(&bytes), "{bytes}");
        } else {
            // About what is offered: 25 flows of 3700 B a millisecond
            // (92.5 KB), not the link's 125 KB.
            assert!((75_000..=110_000).contains(&bytes), "{bytes}");
        }
    }
}

#[test]
fn a_short_flow_is_one_short_frame() {
    let cdf = constant(10);
    let fl = every_flow(&cdf, 1.0 / 10.0, 2);
    let mut rng = SmallRng::seed_from_u64(1);
    let mut fs = FlowSender::new(0, &fl, &mut rng);
    let mut sent = Vec::new();
    fs.due(1_000_000, 0, &fl, &mut rng, u64::MAX, &mut |d, len| {
        sent.push((d, len))
    });
    assert!(sent.len() > 50, "{sent:?}");
    assert!(sent.iter().all(|&s| s == (1, 64)), "{sent:?}");
}

#[test]
fn a_host_without_room_waits_then_sends_at_its_link_rate() {
    let cdf = constant(3700);
    let fl = every_flow(&cdf, 1.0 / 5.0, 4);
    let mut rng = SmallRng::seed_from_u64(3);
    let mut fs = FlowSender::new(0, &fl, &mut rng);
    let mut sent = Vec::new();
    for k in 0..1000u64 {
        // Room for less than ROOM and a frame: blocked for 250 us.
        let room = if k < 500 { ROOM + 1499 } else { u64::MAX };
        let t = k * 500;
        fs.due(t, 1, &fl, &mut rng, room, &mut |d, len| {
            sent.push((t, d, len))
        });
    }
    assert!(sent.iter().all(|f| f.0 >= 250_000), "{sent:?}");
    assert!(sent.len() > 15, "{sent:?}");
    // No burst to catch up: one frame's time between frames.
    for w in sent.windows(2) {
        assert!(w[1].0 + 500 >= w[0].0 + w[0].2 as u64 * 8, "{w:?}");
    }
}

#[test]
fn a_step_sends_no_more_than_the_room_its_host_has() {
    let cdf = constant(30_000);
    let fl = every_flow(&cdf, 1.0 / 5.0, 4);
    let mut rng = SmallRng::seed_from_u64(3);
    let mut fs = FlowSender::new(0, &fl, &mut rng);
    let mut sent = 0;
    // 100 us due at once (8 frames at 1 Gb/s), room for two.
    fs.due(100_000, 1, &fl, &mut rng, ROOM + 4000, &mut |_, _| {
        sent += 1
    });
    assert_eq!(sent, 2);
}
