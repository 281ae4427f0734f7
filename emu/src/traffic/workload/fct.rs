//! Flow completion time statistics: per-size-bucket percentiles
//! (nearest rank), throughput, and the kernel's TCP counters.

use super::arrivals::FlowSpec;

/// One flow's outcome.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct FlowRecord {
    pub flow: FlowSpec,
    /// Start (connect) to the receiver holding every byte; `None` if the
    /// flow did not complete.
    pub fct_ns: Option<u64>,
    /// From the flow's first data leaving the sender (the connection open)
    /// to the sender holding the ACK of its last byte: how htsim measures
    /// an NDP flow, which starts without a handshake (docs/fidelity.md).
    /// Virtual time only (`None` live, and for a flow not acknowledged).
    pub data_fct_ns: Option<u64>,
    /// From the sender's `TCP_INFO`: segments retransmitted, and the
    /// reordering events the kernel saw.
    pub retrans: u32,
    pub reord_seen: u32,
    /// Out-of-order packets the receiver queued (`tcpi_rcv_ooopack`), and
    /// the sender's retransmission timeouts (`tcpi_total_rto`).
    pub ooo_pkts: u32,
    pub timeouts: u32,
}

/// Size buckets: mice below `mice_below` bytes, elephants from
/// `elephants_from`, medium in between.
#[derive(Clone, Copy, Debug)]
pub struct Buckets {
    pub mice_below: u64,
    pub elephants_from: u64,
}

impl Default for Buckets {
    /// pFabric's split: mice < 100 KB, elephants >= 10 MB.
    fn default() -> Self {
        Buckets {
            mice_below: 100_000,
            elephants_from: 10_000_000,
        }
    }
}

impl Buckets {
    pub fn name(&self, size: u64) -> &'static str {
        if size < self.mice_below {
            "mice"
        } else if size >= self.elephants_from {
            "elephants"
        } else {
            "medium"
        }
    }
}

/// The value at percentile `p` (0 < p <= 100) of `sorted` by the nearest
/// rank: the ceil(p/100 x n)-th smallest.
pub fn percentile(sorted: &[u64], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let n = sorted.len();
    let rank = ((p / 100.0) * n as f64).ceil().clamp(1.0, n as f64) as usize;
    Some(sorted[rank - 1])
}

/// FCT figures of one bucket.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BucketStats {
    pub name: &'static str,
    pub flows: usize,
    pub completed: usize,
    /// p50, p95, p99 and max FCT in ns over the completed flows.
    pub p50: Option<u64>,
    pub p95: Option<u64>,
    pub p99: Option<u64>,
    pub max: Option<u64>,
}

/// Summary of a workload run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    pub buckets: Vec<BucketStats>,
    pub flows: usize,
    pub completed: usize,
    /// Bytes of completed flows over the span from the first start to the
    /// last completion, bits/s.
    pub goodput_bps: f64,
    pub retrans: u64,
    pub reord_seen: u64,
    pub ooo_pkts: u64,
    pub timeouts: u64,
}

pub fn summarize(records: &[FlowRecord], b: Buckets) -> Summary {
    let mut buckets = Vec::new();
    for name in ["mice", "medium", "elephants", "all"] {
        let mut v: Vec<u64> = Vec::new();
        let mut flows = 0;
        for r in records
            .iter()
            .filter(|r| name == "all" || b.name(r.flow.size) == name)
        {
            flows += 1;
            v.extend(r.fct_ns);
        }
        v.sort_unstable();
        buckets.push(BucketStats {
            name,
            flows,
            completed: v.len(),
            p50: percentile(&v, 50.0),
            p95: percentile(&v, 95.0),
            p99: percentile(&v, 99.0),
            max: v.last().copied(),
        });
    }
    let done: Vec<&FlowRecord> = records.iter().filter(|r| r.fct_ns.is_some()).collect();
    let start = records.iter().map(|r| r.flow.start_ns).min().unwrap_or(0);
    let end = done
        .iter()
        .map(|r| r.flow.start_ns + r.fct_ns.unwrap_or(0))
        .max()
        .unwrap_or(start);
    let bytes: u64 = done.iter().map(|r| r.flow.size).sum();
    Summary {
        buckets,
        flows: records.len(),
        completed: done.len(),
        goodput_bps: if end > start {
            bytes as f64 * 8.0 / ((end - start) as f64 / 1e9)
        } else {
            0.0
        },
        retrans: records.iter().map(|r| r.retrans as u64).sum(),
        reord_seen: records.iter().map(|r| r.reord_seen as u64).sum(),
        ooo_pkts: records.iter().map(|r| r.ooo_pkts as u64).sum(),
        timeouts: records.iter().map(|r| r.timeouts as u64).sum(),
    }
}

fn ms(v: Option<u64>) -> String {
    v.map_or("-".into(), |ns| format!("{:.3}", ns as f64 / 1e6))
}

impl Summary {
    /// A table: one row per bucket, FCTs in ms.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{:<10} {:>6} {:>6} {:>10} {:>10} {:>10} {:>10}\n",
            "bucket", "flows", "done", "p50 ms", "p95 ms", "p99 ms", "max ms"
        );
        for b in &self.buckets {
            s += &format!(
                "{:<10} {:>6} {:>6} {:>10} {:>10} {:>10} {:>10}\n",
                b.name,
                b.flows,
                b.completed,
                ms(b.p50),
                ms(b.p95),
                ms(b.p99),
                ms(b.max)
            );
        }
        s += &format!(
            "goodput {:.1} Mb/s, {} of {} flows completed, {} retransmitted segments, {} timeouts, {} reordering events, {} out-of-order packets\n",
            self.goodput_bps / 1e6,
            self.completed,
            self.flows,
            self.retrans,
            self.timeouts,
            self.reord_seen,
            self.ooo_pkts
        );
        s
    }
}

/// One CSV line per flow, with a header.
pub fn csv(records: &[FlowRecord]) -> String {
    let mut s = String::from(
        "id,src,dst,size_bytes,start_ns,fct_ns,retrans,timeouts,reord_seen,ooo_pkts,data_fct_ns\n",
    );
    let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    for r in records {
        let f = r.flow;
        s += &format!(
            "{},h{},h{},{},{},{},{},{},{},{},{}\n",
            f.id,
            f.src + 1,
            f.dst + 1,
            f.size,
            f.start_ns,
            opt(r.fct_ns),
            r.retrans,
            r.timeouts,
            r.reord_seen,
            r.ooo_pkts,
            opt(r.data_fct_ns)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: u32, size: u64, start: u64, fct: Option<u64>) -> FlowRecord {
        FlowRecord {
            flow: FlowSpec {
                id,
                src: 0,
                dst: 1,
                size,
                start_ns: start,
            },
            fct_ns: fct,
            data_fct_ns: None,
            retrans: id,
            reord_seen: 1,
            ooo_pkts: 2,
            timeouts: 0,
        }
    }

    #[test]
    fn nearest_rank_percentiles_by_hand() {
        let v: Vec<u64> = (1..=10).map(|x| x * 10).collect();
        assert_eq!(percentile(&v, 50.0), Some(50)); // ceil(5) = 5th
        assert_eq!(percentile(&v, 95.0), Some(100)); // ceil(9.5) = 10th
        assert_eq!(percentile(&v, 90.0), Some(90));
        assert_eq!(percentile(&v, 1.0), Some(10)); // ceil(0.1) = 1st
        assert_eq!(percentile(&[7], 99.0), Some(7));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn a_known_set_of_flows_gives_known_figures() {
        // Mice: 20 flows of 1 KB with FCTs 1..=20 ms; one medium (1 MB,
        // 50 ms); one elephant (20 MB) that never completed.
        let mut r: Vec<FlowRecord> = (1..=20)
            .map(|k| rec(k, 1000, k as u64 * 1_000_000, Some(k as u64 * 1_000_000)))
            .collect();
        r.push(rec(21, 1_000_000, 0, Some(50_000_000)));
        r.push(rec(22, 20_000_000, 0, None));
        let s = summarize(&r, Buckets::default());
        let mice = &s.buckets[0];
        assert_eq!((mice.name, mice.flows, mice.completed), ("mice", 20, 20));
        assert_eq!(mice.p50, Some(10_000_000)); // 10th of 20
        assert_eq!(mice.p95, Some(19_000_000)); // 19th of 20
        assert_eq!(mice.p99, Some(20_000_000)); // ceil(19.8) = 20th
        let med = &s.buckets[1];
        assert_eq!(
            (med.flows, med.p50, med.max),
            (1, Some(50_000_000), Some(50_000_000))
        );
        let ele = &s.buckets[2];
        assert_eq!((ele.flows, ele.completed, ele.p50), (1, 0, None));
        let all = &s.buckets[3];
        assert_eq!((all.flows, all.completed), (22, 21));
        assert_eq!(all.p50, Some(11_000_000)); // 11th of 21 sorted FCTs
        // Last completion: flow 20 at 20 + 20 ms = 40 ms... and the medium
        // at 0 + 50 ms: the span is 50 ms for 20 KB + 1 MB.
        let want = (20_000.0 + 1_000_000.0) * 8.0 / 0.050;
        assert!((s.goodput_bps - want).abs() < 1e-6, "{}", s.goodput_bps);
        assert_eq!(s.retrans, (1..=22).sum::<u64>());
        assert_eq!((s.reord_seen, s.ooo_pkts, s.timeouts), (22, 44, 0));
        let t = s.table();
        assert!(
            t.contains("mice           20     20     10.000     19.000     20.000     20.000"),
            "{t}"
        );
        assert!(t.contains("21 of 22 flows completed"), "{t}");
        let c = csv(&r[20..]);
        assert_eq!(
            c,
            "id,src,dst,size_bytes,start_ns,fct_ns,retrans,timeouts,reord_seen,ooo_pkts,data_fct_ns\n21,h1,h2,1000000,0,50000000,21,0,1,2,\n22,h1,h2,20000000,0,,22,0,1,2,\n"
        );
    }
}
