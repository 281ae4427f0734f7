//! What the engine is asked to do beyond its fabric: its tunables (frame
//! pool, host queues, epoch, CPU, a fat tree's switches, the links'
//! netem options) and the ToR and host systems' mechanisms (paper §6.2,
//! §7), both as a config gives them.

use crate::estimator::Occupancy;
use crate::nic::FlowPausing;
use crate::pushback::PushbackTrigger;
use crate::switch::FatTreeOptions;

/// Tunables of the engine beyond [`Timing`](crate::Timing).
#[derive(Clone, Copy, Debug)]
pub struct EngineOptions {
    /// Frame slots in the pool.
    pub pool_frames: usize,
    /// The pool doubles when it runs out (virtual time only:
    /// [`FramePool::set_growable`](crate::pool::FramePool::set_growable)).
    pub pool_grows: bool,
    /// Bytes per slot: [`crate::pool::SLOT`] (2 KiB) for socket ports; a
    /// [`MemPort`](crate::port::MemPort) fed padded frames
    /// ([`MemPort::inject_padded`](crate::port::MemPort::inject_padded))
    /// can use small ones (`pool::FramePool::with_slot`).
    pub pool_slot: usize,
    /// Byte limit of each host port's egress queue.
    pub host_queue_bytes: u64,
    /// A fixed slice-clock epoch (CLOCK_MONOTONIC ns of slice 0 of cycle
    /// 0) for [`crate::start_with`], e.g. one shared with another process or
    /// chosen by a test; None: the latest aligned cycle boundary.
    pub epoch: Option<u64>,
    /// The ToR and host systems of paper §6–§7 (estimator, slice-miss
    /// detection, push-back, flow pausing).
    pub tor: TorFeatures,
    /// A fat tree of electrical switches above the ToRs (its edge
    /// switches): frames from hosts go to [`crate::switch`] instead of the
    /// ToR pipeline.
    pub fattree: Option<FatTreeOptions>,
    /// Put the external ToRs' interfaces in promiscuous mode for as long
    /// as the engine's socket is open ([`crate::start_with`]): hardware
    /// ToRs behind NICs address the hosts, not this machine
    /// (`lighthouse ocs`). Veths pass every frame anyway.
    pub promiscuous_external: bool,
    /// Pin the data-plane thread to this CPU ([`crate::sched::dataplane_cpu`]
    /// says when and why; `lighthouse run --own-cpu`).
    pub cpu: Option<usize>,
    /// netem's options on every host link (config `hosts.link`;
    /// [`crate::netem`]).
    pub host_link: Option<lh_ctrl::config::HostLinkCfg>,
    /// The loss of every optical circuit and its seed (config
    /// `tors.link_loss`, `hosts.link.seed`).
    pub circuit_loss: Option<(lh_ctrl::config::LossPercent, u64)>,
    /// Every optical circuit's delay spread in ns, and its draws' seed
    /// (config `tors.link_jitter`, `hosts.link.seed`).
    pub circuit_jitter: Option<(u64, u64)>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            pool_frames: 32 * 1024,
            pool_grows: false,
            pool_slot: crate::pool::SLOT,
            host_queue_bytes: 4 << 20,
            epoch: None,
            tor: TorFeatures::default(),
            fattree: None,
            promiscuous_external: false,
            cpu: None,
            host_link: None,
            circuit_loss: None,
            circuit_jitter: None,
        }
    }
}

impl EngineOptions {
    /// What a config asks of the engine (its `tor` section, a fat tree's
    /// switches), the rest default: a live run and a simulation start the
    /// engine the same way.
    pub fn from_config(cfg: &lh_ctrl::config::Config) -> EngineOptions {
        EngineOptions {
            tor: TorFeatures::from_config(cfg),
            fattree: FatTreeOptions::from_config(cfg),
            host_link: cfg.hosts.as_ref().and_then(|h| h.link),
            circuit_loss: cfg
                .tors
                .link_loss
                .filter(|l| l.0 > 0)
                .map(|l| (l, link_seed(cfg))),
            circuit_jitter: cfg
                .tors
                .link_jitter
                .filter(|j| j.0 > 0)
                .map(|j| (j.0, link_seed(cfg))),
            ..Default::default()
        }
    }
}

/// The seed of the links' draws: `hosts.link.seed`, else 1.
fn link_seed(cfg: &lh_ctrl::config::Config) -> u64 {
    cfg.hosts.as_ref().and_then(|h| h.link?.seed).unwrap_or(1)
}

/// Optional mechanisms of the ToR and host systems (paper §6.2, §7),
/// from config.json's `tor` section ([`TorFeatures::from_config`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TorFeatures {
    /// How admission learns calendar-queue occupancy (§6.2).
    pub occupancy: Occupancy,
    /// Slice-miss detection (§6.2). Off, every frame goes to its primary
    /// calendar queue while the buffer lasts (paper Table 3, column 1).
    pub slice_miss_detection: bool,
    /// A frame that fits no action's slice is dropped (`slice_miss`), as
    /// Opera's capped queues do, instead of waiting a cycle in its primary
    /// calendar queue (config `tor.on_slice_miss`).
    pub drop_on_miss: bool,
    /// Traffic push-back (§7), and when it fires.
    pub pushback: Option<PushbackTrigger>,
    /// Flow pausing at the hosts (§7): elephants wait for their direct
    /// circuit.
    pub flow_pausing: Option<FlowPausing>,
    /// Buffer offloading (§7): calendar queues per uplink kept on the ToR
    /// (the nearest `N` slices); the rest wait at its hosts.
    pub offload_queues: Option<usize>,
    /// RotorLB for Opera's bulk class (config `routing.bulk: rotorlb`;
    /// [`crate::rotorlb`]).
    pub rotorlb: bool,
}

impl Default for TorFeatures {
    fn default() -> Self {
        TorFeatures {
            occupancy: Occupancy::Exact,
            slice_miss_detection: true,
            drop_on_miss: false,
            pushback: None,
            flow_pausing: None,
            offload_queues: None,
            rotorlb: false,
        }
    }
}

impl TorFeatures {
    /// The `tor` section of a config (defaults when absent).
    pub fn from_config(cfg: &lh_ctrl::config::Config) -> TorFeatures {
        use lh_ctrl::config::{OccupancyMode, PushbackWhen};
        let rotorlb = cfg.routing.bulk == lh_ctrl::config::BulkTransport::Rotorlb;
        let Some(t) = &cfg.tor else {
            return TorFeatures {
                rotorlb,
                ..TorFeatures::default()
            };
        };
        TorFeatures {
            rotorlb,
            occupancy: match t.occupancy {
                OccupancyMode::Exact => Occupancy::Exact,
                OccupancyMode::Estimated { update_interval } => Occupancy::Estimated {
                    update_interval: update_interval.0,
                },
            },
            slice_miss_detection: t.slice_miss_detection,
            drop_on_miss: t.on_slice_miss == lh_ctrl::config::SliceMissAction::Drop,
            pushback: t.pushback.map(|p| match p {
                PushbackWhen::FirstRejection => PushbackTrigger::FirstRejection,
                PushbackWhen::AfterReroutes(n) => PushbackTrigger::AfterReroutes(n),
            }),
            offload_queues: t.offload.map(|o| o.queues as usize),
            flow_pausing: t.flow_pausing.map(|f| FlowPausing {
                elephant_bytes: f.elephant_bytes,
                aging: f.aging.0.max(1),
            }),
        }
    }
}
