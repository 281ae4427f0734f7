//! The experiments at the paper's scale in virtual time: the same output
//! on every run, and their claims.

use super::*;

#[test]
fn fig10_at_the_papers_scale_holds_and_is_the_same_on_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for d in [&a, &b] {
        let o = experiment(&["fig10", "--sim", "--quick", "--out", d.to_str().unwrap()]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{out}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(out.contains("the paper's shape holds"), "{out}");
        // The benchmark's figures, apart from the (deterministic) result.
        // (A flow's connection stays open until its sender holds the last
        // ACK, for `data_fct_ns`: those ACKs' hops are simulated too; the
        // FCTs are the same to the byte.)
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("*** Simulated 461.334 ms in "), "{err}");
        assert!(err.contains(" s: 1871728 frame-hops ("), "{err}");
        // Every slice of the paper's range, both routings.
        let rows: Vec<(&str, &str)> = out
            .lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                Some((w.next()?, w.next()?))
            })
            .collect();
        for alg in ["VLB", "UCMP"] {
            for us in ["2", "300"] {
                assert!(rows.contains(&(alg, us)), "{alg} {us}: {out}");
            }
        }
    }
    let csv = |d: &std::path::Path| std::fs::read(d.join("fig10-sim.csv")).unwrap();
    assert_eq!(csv(&a), csv(&b), "the same seed gives the same flows");
}

#[test]
fn fig8_at_the_papers_scale_is_the_same_on_every_run() {
    // Its verdict is not asserted: several of the paper's Fig. 8 claims do
    // not hold in this model yet (docs/experiments.md, "At the paper's
    // scale"); the claims are checked and printed.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for d in [&a, &b] {
        let o = experiment(&["fig8", "--sim", "--quick", "--out", d.to_str().unwrap()]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains("every SET and every allreduce of every architecture completed"),
            "{out}"
        );
        assert!(
            out.contains("[ok] 4 MB: Jupiter's median allreduce"),
            "{out}"
        );
        // Opera as designed (hosts mark bulk, RotorLB): its ring's steps
        // stay low-latency; with the ToR's byte count they waited for
        // direct circuits (5.34x Clos's; docs/experiments.md).
        assert!(out.contains("[ok] 4 MB: Opera's median allreduce"), "{out}");
    }
    let csv = |d: &std::path::Path| std::fs::read(d.join("fig8-sim.csv")).unwrap();
    assert_eq!(csv(&a), csv(&b));
    // Another seed, other SET arrivals.
    let c = dir.path().join("c");
    experiment(&[
        "fig8",
        "--sim",
        "--quick",
        "--seed",
        "2",
        "--out",
        c.to_str().unwrap(),
    ]);
    assert_ne!(csv(&a), csv(&c));
}

#[test]
fn fig8_mordias_elephants_are_similar_to_clos() {
    // Mordia as designed (each BvN permutation held in proportion to its
    // weight, on every uplink; the ring's ACKs in the demand): the ring's
    // steps take its circuits. With one slice per term on uplink 0 they
    // waited for them: 8.9x, 4.0x and 7.8x Clos's (docs/experiments.md).
    // The full run: in --quick's 3 allreduces the first ones, still in
    // slow start, set the median.
    let dir = tempfile::tempdir().unwrap();
    let o = experiment(&["fig8", "--sim", "--out", dir.path().to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    for size in ["0.8 MB", "4 MB", "20 MB"] {
        assert!(
            out.contains(&format!("[ok] {size}: Mordia's median allreduce")),
            "{size}: {out}"
        );
    }
}

#[test]
fn fig8_sweep_shows_where_each_failing_claim_would_hold() {
    // Fig. 8's failing claims, each swept over its responsible
    // parameter (docs/experiments.md): the same CSV on every run, and
    // c-Through within 1.5x of Clos once its electrical fabric matches the
    // hosts' 100 Gb/s, UCMP below VLB with fewer rotors.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for d in [&a, &b] {
        let o = experiment(&[
            "fig8-sweep",
            "--sim",
            "--quick",
            "--out",
            d.to_str().unwrap(),
        ]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{out}");
        assert!(
            out.contains("[ok] every allreduce and SET of every sweep completed"),
            "{out}"
        );
        assert!(
            out.contains("(within 1.5x of Clos) holds at 100Gbps, 200Gbps"),
            "{out}"
        );
        assert!(out.contains("(below VLB) holds at 1, 2\n"), "{out}");
        // RotorNet-VLB's 0.8 MB allreduce at the testbed's duty cycle.
        assert!(
            out.contains("(1.5x to 3x Clos) holds at 2us, 5us, 10us, 25us\n"),
            "{out}"
        );
        // The mice: c-Through's from an electrical fabric of 25 Gb/s,
        // UCMP's p99 below VLB's with fewer rotors.
        assert!(
            out.contains("(median within 2x of Clos) holds at 25Gbps, 50Gbps"),
            "{out}"
        );
        assert!(out.contains("(p99 below VLB's) holds at 1, 2\n"), "{out}");
    }
    let csv = |d: &std::path::Path| std::fs::read(d.join("fig8-sweep-sim.csv")).unwrap();
    assert_eq!(csv(&a), csv(&b));
    for sweep in ["fig8-sweep", "table3-sweep"] {
        let o = experiment(&[sweep]);
        assert!(!o.status.success());
        assert!(
            String::from_utf8_lossy(&o.stderr)
                .contains(&format!("{sweep} runs in virtual time only: add --sim")),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn table3_at_the_papers_scale_is_the_same_on_every_run() {
    // HOHO on Opera-108 at 100 Gb/s with 300 us slices, one observed ToR
    // and its transit at 70% core link utilization, the Hadoop trace's
    // flows: the five claims hold for this seed (on 4 of seeds 1-8;
    // docs/experiments.md, "Table 3 at the paper's setting"), each pinned
    // with its figures.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    for f in [&a, &b] {
        let o = experiment(&["table3", "--sim", "--quick", "--out", f.to_str().unwrap()]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{out}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        // The three columns' traffic and drain and their frame-hops.
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("*** Simulated 510.000 ms in "), "{err}");
        assert!(err.contains(" s: 59429907 frame-hops ("), "{err}");
        for w in [
            "Table 3 (the paper's setting): HOHO on Opera-108 at 100 Gb/s; 108 ToRs x 6 uplink(s) at 100Gbps, 300us slices; load 70% core link utilization (hosts offer 27.3%) (flows of the hadoop trace, each sent whole at its host's link rate)",
            "sent by the hosts of one observed ToR (s1) and, for its transit, by the others",
            "Offered by s1's hosts          26.5%         26.5%         25.8%",
            "ToR buffer (max)             64.0 MB       64.0 MB       21.4 MB",
            "[ok] every column conserves frames",
            "[ok] no paused host sent past its pause for want of memory (hold_overflow: 0)",
            "[ok] no frame waited for a free slot of the frame pool (steps with waits: 0)",
            "[ok] column 1 loses frames: loss rate 67.21%",
            "[ok] column 2 below column 1 in loss rate and average delay: 22.30% vs 67.21%, 2.49 ms vs 19.10 ms",
            "[ok] column 2 still loses frames: loss rate 22.30%",
            "[ok] column 3 loses nothing: 0 frames dropped",
            "[ok] column 3 below column 2 in average and 95%-ile delay: 634 us vs 2.49 ms, 852 us vs 2.36 ms",
            "table3: the paper's shape holds (3 claims asserted, 0 reported only)",
        ] {
            assert!(out.contains(w), "{w:?} not in:\n{out}");
        }
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn table2_quick_is_the_papers_fabric_at_a_hundredth_of_its_rate() {
    // `table2 --sim` runs the paper's 100 Gb/s for about 17 minutes
    // (docs/experiments.md); --quick runs the same fabric, load and slices
    // at 1 Gb/s, frames stored as their headers: the figures of the
    // whole-frame `table2`, to the frame-hop.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t2.json");
    let o = experiment(&["table2", "--sim", "--quick", "--out", f.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(err.contains("*** Simulated 791.200 ms in "), "{err}");
    assert!(err.contains(" s: 24973930 frame-hops ("), "{err}");
    for w in [
        "Table 2 (scaled): 99.9%-ile buffer usage of one ToR; Opera-108: 108 ToRs x 6 uplink(s) at 1Gbps",
        "virtual time on MemPort, frames stored as their headers",
        "99.9%-ile ToR buffer       2374.5 KB (31.5 KB)       91.5 KB       91.7 KB",
        "[ok] every row conserves frames and delivers all of them after the drain",
        "[ok] no frame waited for a free slot of the frame pool (steps with waits: 0)",
        "table2: the paper's shape holds",
    ] {
        assert!(out.contains(w), "{w:?} not in:\n{out}");
    }
}
