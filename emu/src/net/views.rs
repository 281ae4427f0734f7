//! Views of a run's state: the schedule and current slice, time-flow
//! tables, telemetry, calendar queues, OTCP and drops.

use super::values::{
    Conservation, Drops, IfaceDrops, Otcp, P4Table, Queues, SliceNow, SliceView, TableView, Usage,
};
use super::*;

impl Network {
    pub(super) fn need_compiled(&self) -> Result<&Compiled, NetworkError> {
        self.compiled.as_ref().ok_or(NetworkError::NoSchedule)
    }

    pub(super) fn need_fabric(&self) -> Result<&FabricHandle, NetworkError> {
        self.fabric.as_deref().ok_or(NetworkError::NoDataPlane)
    }

    /// `schedule [ts]`: the circuits of slice `ts` (default: the current one).
    pub fn schedule(&self, ts: Option<&str>) -> Result<SliceView, NetworkError> {
        let c = self.need_compiled()?;
        let s = &c.schedule;
        let ts: SliceId = match ts {
            None => self.fabric.as_ref().map(|f| f.now_slice().0).unwrap_or(0),
            Some(t) => match t.parse::<SliceId>() {
                Ok(t) if (t as usize) < s.slices() => t,
                _ => {
                    return Err(NetworkError::BadSlice {
                        given: t.to_string(),
                        last: s.slices() - 1,
                    });
                }
            },
        };
        Ok(SliceView::of(c, ts))
    }

    /// `slice`: the current slice and cycle.
    pub fn slice(&self) -> Result<SliceNow, NetworkError> {
        let clock = self.need_fabric()?.clock();
        let slices = self
            .compiled
            .as_ref()
            .map(|c| c.schedule.slices())
            .unwrap_or(0);
        Ok(SliceNow::at(&clock, slices))
    }

    /// `table <tor>`: a ToR's time-flow table (and, for a BMv2 ToR, what
    /// its program has loaded).
    pub fn table(&self, t: TorId) -> Result<TableView, NetworkError> {
        let c = self.need_compiled()?;
        let mut v =
            TableView::of(c, t).ok_or_else(|| NetworkError::NoTable(tor_name(t as usize)))?;
        if let Some(p) = self.p4.as_ref().and_then(|p| p.get(t as usize)) {
            let n = p
                .client
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .table_num_entries("time_flow");
            v.p4 = Some(P4Table {
                entries: p.entries,
                time_flow: n.map_err(|e| e.to_string()),
                thrift_port: crate::tor::bmv2::THRIFT_PORT,
            });
        }
        Ok(v)
    }

    /// `buffer_usage`/`bw_usage` (telemetry, paper Table 1; the same
    /// records as `--telemetry`).
    pub fn usage(&self, m: &lh_ctrl::config::Monitor) -> Result<Usage, NetworkError> {
        use lh_ctrl::config::Metric;
        let verb = match m.metric {
            Metric::BwUsage => "bw_usage",
            Metric::BufferUsage => "buffer_usage",
        };
        let f = self.need_fabric()?;
        let t0 = std::time::Instant::now();
        let read = || {
            f.usage().map_err(|e| NetworkError::Telemetry {
                verb,
                msg: e.to_string(),
            })
        };
        let prev = read()?;
        let cur = if m.metric == Metric::BwUsage {
            std::thread::sleep(Duration::from_nanos(m.interval.0));
            read()?
        } else {
            prev.clone()
        };
        let dt = t0.elapsed().as_nanos() as u64;
        Ok(Usage {
            metric: verb,
            interval: m.interval.to_string(),
            samples: crate::control::telemetry::records(m, &prev, &cur, dt, 0),
        })
    }

    /// `queues <tor>`: bytes in each calendar queue, per uplink (and a BMv2
    /// ToR's occupancy estimate).
    pub fn queues(&self, t: TorId) -> Result<Queues, NetworkError> {
        let q = self.need_fabric()?.queues(t);
        let slices = q.first().map_or(0, Vec::len);
        let p4_estimate = self
            .p4
            .as_ref()
            .and_then(|p| p.estimates(t as usize, q.len(), slices));
        Ok(Queues {
            tor: t,
            bytes: q,
            p4_estimate,
        })
    }

    /// The OTCP table the hosts got (`otcp` verb, docs/otcp.md).
    pub fn otcp(&self) -> Result<Otcp, NetworkError> {
        let c = self.compiled.as_ref().ok_or(NetworkError::NotCompiled)?;
        lh_ctrl::otcp::table(c)
            .map(|table| Otcp { table })
            .ok_or(NetworkError::OtcpOff)
    }

    /// `drops`: the data plane's counters by reason with the conservation
    /// check, then the kernel's drop counters on the veths.
    pub fn drops(&self) -> Result<Drops, NetworkError> {
        use render::iface_drops;
        let f = self.need_fabric()?;
        let c = f.counters();
        let p4 = self
            .p4
            .as_ref()
            .map(|p| p.counters().map_err(|e| e.to_string()));
        let conservation = Conservation::of(&c, p4.as_ref().and_then(|r| r.as_ref().ok()));
        // Loss the data plane cannot count itself: frames the kernel
        // dropped on the veths (either end) before or after the ToRs. A
        // BMv2 ToR's host ports are in its own namespace.
        let tor_ifs: Vec<String> = self
            .plan
            .hosts
            .iter()
            .filter(|h| !self.plan.is_bmv2(h.tor as usize))
            .map(|h| h.tor_if.clone())
            .collect();
        let mut kernel = Vec::new();
        if let Ok(Ok(mut v)) = netns::run_in(Some(&self.fabric_ns()), || iface_drops(&tor_ifs)) {
            for t in self.plan.bmv2_tors() {
                let ifs: Vec<String> = self
                    .plan
                    .hosts_of(t)
                    .iter()
                    .map(|h| h.tor_if.clone())
                    .collect();
                if let Ok(Ok(w)) = netns::run_in(Some(&self.tor_ns(t)), || iface_drops(&ifs)) {
                    v.add(&w);
                }
            }
            kernel.push(("ToR-side veths", v));
        }
        let mut hosts = IfaceDrops::default();
        for h in &self.plan.hosts {
            let ifs = [h.host_if.clone()];
            if let Ok(Ok(v)) = netns::run_in(Some(&self.host_ns(h)), || iface_drops(&ifs)) {
                hosts.add(&v);
            }
        }
        kernel.push(("host-side veths", hosts));
        Ok(Drops {
            port_drops: c.port_drops,
            counters: c,
            conservation,
            p4,
            kernel,
        })
    }
}
