//! ToRs that run the Lighthouse P4 program on stock BMv2 (`--tor bmv2`,
//! docs/p4.md). One `simple_switch` per such ToR, inside the ToR's own
//! namespace, with its host ports, its uplinks (whose other ends swtor
//! holds in the fabric namespace: the calendar queues and the OCS) and its
//! CPU port (rotation frames from swtor). The tables are the controller's
//! `Tables`, translated by `lh_p4gen` and loaded over Thrift.

use crate::kernel::state;
use crate::run::bringup::Net;
use bmv2_thrift::{Bmv2Client, Bmv2Switch, SwitchOpts};
use lh_ctrl::compile::Compiled;
use lh_p4gen::{FabricTiming, HostPlan, P4Inputs, Target};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use swtor::DropReason;

/// BMv2 port numbers (docs/p4.md, "Ports of a BMv2 ToR").
pub const HOST_PORT_BASE: u32 = 1;
pub const UPLINK_PORT_BASE: u32 = 32;
pub const CPU_PORT: u32 = 64;
/// Nice value of every simple_switch (hosts and other work stay at 0).
pub const BMV2_NICE: i32 = -5;
/// BMv2 egress queue depth per port (frames; BMv2's default is 64).
pub const EGRESS_QUEUE_FRAMES: i32 = 16_384;
/// Each BMv2 ToR's Thrift server, inside its own namespace.
pub const THRIFT_PORT: u16 = 9090;

/// The program shipped with the binary, compiled at start-up when no
/// `--p4 FILE` is given: (path relative to the program's directory, text).
pub const P4_SOURCES: &[(&str, &str)] = &[
    ("lighthouse.p4", include_str!("../../../p4/lighthouse.p4")),
    (
        "include/arch.p4",
        include_str!("../../../p4/include/arch.p4"),
    ),
    (
        "include/deparser.p4",
        include_str!("../../../p4/include/deparser.p4"),
    ),
    (
        "include/headers.p4",
        include_str!("../../../p4/include/headers.p4"),
    ),
    (
        "include/ingress.p4",
        include_str!("../../../p4/include/ingress.p4"),
    ),
    (
        "include/parser.p4",
        include_str!("../../../p4/include/parser.p4"),
    ),
];

#[derive(Debug, thiserror::Error)]
pub enum P4TorError {
    #[error("{0}")]
    Toolchain(#[from] bmv2_thrift::ToolchainError),
    #[error("compiling the P4 program: {0}")]
    Compile(#[from] bmv2_thrift::CompileError),
    #[error("{0}")]
    Switch(#[from] bmv2_thrift::SwitchError),
    #[error("{tor}: {source}")]
    Thrift {
        tor: String,
        source: bmv2_thrift::Error,
    },
    #[error(transparent)]
    Translate(#[from] lh_p4gen::P4GenError),
    #[error(transparent)]
    Load(#[from] lh_p4gen::load::LoadError),
    #[error("{0}")]
    Io(String),
}

/// The P4 program to run: the shipped one, or a user's file (`--p4`).
#[derive(Clone, Debug, Default)]
pub enum P4Source {
    #[default]
    Shipped,
    File(PathBuf),
    /// Already compiled BMv2 JSON.
    Json(PathBuf),
}

/// Compiles `src` into `dir` (warnings are failures); returns the JSON.
pub fn compile(src: &P4Source, dir: &Path) -> Result<PathBuf, P4TorError> {
    bmv2_thrift::toolchain()?;
    let io = |e: std::io::Error| P4TorError::Io(format!("{}: {e}", dir.display()));
    match src {
        P4Source::Json(j) => Ok(j.clone()),
        P4Source::File(f) => Ok(bmv2_thrift::compile(f, dir, &[])?),
        P4Source::Shipped => {
            let sdir = dir.join("src");
            std::fs::create_dir_all(sdir.join("include")).map_err(io)?;
            for (rel, text) in P4_SOURCES {
                std::fs::write(sdir.join(rel), text).map_err(io)?;
            }
            Ok(bmv2_thrift::compile(&sdir.join("lighthouse.p4"), dir, &[])?)
        }
    }
}

/// One running P4 ToR.
pub struct P4Tor {
    pub tor: usize,
    pub switch: Bmv2Switch,
    /// Shared with [`P4CounterReader`]s (the dashboard's sampler).
    pub client: Arc<Mutex<Bmv2Client>>,
    pub entries: usize,
}

/// Every P4 ToR of a run.
pub struct P4Tors {
    pub tors: Vec<P4Tor>,
    pub json: PathBuf,
}

/// Reads the P4 ToRs' counters without holding [`P4Tors`].
#[derive(Clone)]
pub struct P4CounterReader {
    tors: Vec<(usize, Arc<Mutex<Bmv2Client>>)>,
}

impl P4CounterReader {
    /// The program's counters over all P4 ToRs.
    pub fn counters(&self) -> Result<P4Counters, P4TorError> {
        let mut s = P4Counters::default();
        for (tor, client) in &self.tors {
            let mut c = client.lock().unwrap_or_else(|e| e.into_inner());
            let name = crate::plan::tor_name(*tor);
            let err = |source| P4TorError::Thrift {
                tor: name.clone(),
                source,
            };
            let mut sum = |counter: &str, n: u32| -> Result<u64, P4TorError> {
                let mut v = 0;
                for i in 0..n {
                    v += c.counter_read(counter, i).map_err(err)?.0;
                }
                Ok(v)
            };
            s.host_rx += sum("host_rx", 32)?;
            s.host_tx += sum("host_tx", 32)?;
            s.uplink_tx += sum("uplink_tx", 32)?;
            for (i, d) in s.dropped.iter_mut().take(DropReason::TOR_COUNT).enumerate() {
                *d += c.counter_read("drops", i as u32).map_err(err)?.0;
            }
            let mut ev = |i: u32| c.counter_read("events", i).map(|x| x.0).map_err(err);
            s.arp_replies += ev(0)?;
            s.rerouted += ev(2)?;
            s.deferred += ev(3)?;
            s.late_slice += ev(4)?;
            s.late_rotation += ev(6)?;
        }
        Ok(s)
    }
}

/// The program's packet counters, summed over the P4 ToRs.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct P4Counters {
    /// Frames from hosts (swtor's `sent`).
    pub host_rx: u64,
    /// Frames to hosts (swtor's `delivered`).
    pub host_tx: u64,
    /// Frames sent on uplinks (to swtor's calendar queues).
    pub uplink_tx: u64,
    pub dropped: [u64; DropReason::COUNT],
    pub arp_replies: u64,
    pub rerouted: u64,
    pub deferred: u64,
    /// Frames the clock ran forward for (no rotation taken for a slice).
    pub late_slice: u64,
    /// Rotation frames that came behind the clock (its start was kept).
    pub late_rotation: u64,
}

impl P4Counters {
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }
}

/// The fabric's hosts as the P4 program knows them.
pub fn host_plan(net: &Net) -> Vec<HostPlan> {
    // A host's further interfaces are on native ToRs (bring-up checks):
    // BMv2 needs to know only the ToR of their addresses.
    net.plan
        .all_intfs()
        .zip(&net.macs)
        .filter(|(h, _)| !h.ip.is_unspecified())
        .map(|(h, mac)| HostPlan {
            ip: h.ip,
            mac: *mac,
            tor: h.tor,
        })
        .collect()
}

/// A device id unique on the machine: BMv2's IPC names are not namespaced.
fn device_id(prefix: &str, tor: usize) -> u64 {
    let run = u64::from_str_radix(&prefix[2..], 16).unwrap_or(0);
    (run << 12) | (tor as u64 + 1)
}

impl P4Tors {
    /// Compiles (or takes) the program and starts one switch per BMv2 ToR
    /// of `net`, loaded with `c`'s tables. Call from a thread that lives as
    /// long as the run (the switches die with it). `packet_log`: BMv2's
    /// per-packet log in `<run dir>/p4/sN.log` (several times slower).
    pub fn start(
        net: &Net,
        c: &Compiled,
        src: &P4Source,
        packet_log: bool,
    ) -> Result<P4Tors, P4TorError> {
        let dir = state::run_dir(&net.prefix).join("p4");
        std::fs::create_dir_all(&dir)
            .map_err(|e| P4TorError::Io(format!("{}: {e}", dir.display())))?;
        let json = compile(src, &dir)?;
        let hosts = host_plan(net);
        let timing = FabricTiming::from_config(&c.config, &c.schedule);
        // P4 entries come from the expanded form (BMv2 fabrics are small).
        let expanded = c.tables.to_tables();
        let inputs = P4Inputs {
            tables: &expanded,
            hosts: &hosts,
            timing: &timing,
            target: Target::Bmv2,
        };
        let mut tors = Vec::new();
        for t in net.plan.bmv2_tors() {
            let name = crate::plan::tor_name(t);
            let mut o = SwitchOpts::new(
                name.clone(),
                &json,
                device_id(&net.prefix, t),
                THRIFT_PORT,
                &dir,
            );
            o.netns = Some(net.tor_ns(t));
            o.packet_log = packet_log;
            // Like swtor's data-plane thread (swtor::DATAPLANE_NICE), a
            // ToR should not be starved by compilers and hosts on 2 cores.
            o.nice = Some(BMV2_NICE);
            o.interfaces = net
                .plan
                .hosts_of(t)
                .iter()
                .enumerate()
                .map(|(k, h)| (HOST_PORT_BASE + k as u32, h.tor_if.clone()))
                .chain(
                    (0..net.plan.uplinks)
                        .map(|p| (UPLINK_PORT_BASE + p as u32, crate::plan::uplink_if(t, p))),
                )
                .chain([(CPU_PORT, crate::plan::cpu_if(t))])
                .collect();
            let switch = Bmv2Switch::spawn(o)?;
            let mut client = switch.client().map_err(|source| P4TorError::Thrift {
                tor: name.clone(),
                source,
            })?;
            let prog = lh_p4gen::translate(&inputs, t as u16)?;
            let entries = lh_p4gen::load::load(&mut client, &prog)?;
            // BMv2's egress queues hold 64 frames by default and drop
            // silently beyond (nothing the P4 program can count). The real
            // calendar queues are swtor's, so BMv2 only needs to absorb
            // bursts: make its queues deep enough never to drop.
            {
                use bmv2_thrift::generated::simple_switch::TSimpleSwitchSyncClient;
                client
                    .raw_simple_switch()
                    .set_all_egress_queue_depths(EGRESS_QUEUE_FRAMES)
                    .map_err(|e| P4TorError::Thrift {
                        tor: name.clone(),
                        source: bmv2_thrift::Error::Thrift {
                            call: "set_all_egress_queue_depths",
                            source: e,
                        },
                    })?;
            }
            tors.push(P4Tor {
                tor: t,
                switch,
                client: Arc::new(Mutex::new(client)),
                entries,
            });
        }
        Ok(P4Tors { tors, json })
    }

    pub fn get(&self, tor: usize) -> Option<&P4Tor> {
        self.tors.iter().find(|p| p.tor == tor)
    }

    /// Every switch still running, or the first that died (with its exit
    /// status and the tail of its log).
    pub fn check(&mut self) -> Result<(), P4TorError> {
        for t in &mut self.tors {
            t.switch.check()?;
        }
        Ok(())
    }

    /// The program's counters over all P4 ToRs.
    pub fn counters(&self) -> Result<P4Counters, P4TorError> {
        self.counter_reader().counters()
    }

    /// A handle that reads [`P4Tors::counters`] from another thread; its
    /// reads fail once the ToRs have stopped.
    pub fn counter_reader(&self) -> P4CounterReader {
        P4CounterReader {
            tors: self
                .tors
                .iter()
                .map(|t| (t.tor, t.client.clone()))
                .collect(),
        }
    }

    /// The program's occupancy estimate of one ToR's calendar queues:
    /// `[uplink][slice]` bytes, for the slots they were last updated for.
    pub fn estimates(&self, tor: usize, uplinks: usize, slices: usize) -> Option<Vec<Vec<u64>>> {
        let t = self.get(tor)?;
        let mut c = t.client.lock().unwrap_or_else(|e| e.into_inner());
        (0..uplinks)
            .map(|p| {
                (0..slices)
                    .map(|d| c.register_read("occ_bytes", ((p << 8) | d) as u32).ok())
                    .collect()
            })
            .collect()
    }

    pub fn stop(&mut self) {
        for t in &mut self.tors {
            let _ = t.switch.stop();
        }
    }

    /// The ToRs swtor paces itself to: those whose program counts what it
    /// takes in ([`FABRIC_RX`]; the shipped program does, a `--p4` one
    /// without it is not paced).
    pub fn pace_from(&self, net: &Net) -> Vec<PaceFrom> {
        self.tors
            .iter()
            .filter(|t| {
                let mut c = t.client.lock().unwrap_or_else(|e| e.into_inner());
                c.counter_read(FABRIC_RX, 0).is_ok()
            })
            .map(|t| PaceFrom {
                tor: t.tor,
                netns: net.tor_ns(t.tor),
                thrift_port: THRIFT_PORT,
            })
            .collect()
    }
}

/// The program's count of frames it took in from swtor (uplinks and CPU
/// port), which swtor paces itself to (`swtor::pacer`; docs/p4.md,
/// "Pacing").
pub const FABRIC_RX: &str = "fabric_rx";
/// How often that count is read (`LH_PACE_POLL_US` sets another, for
/// benchmarks): in single runs a paced ToR carried 0.75-0.87 of an unpaced
/// one's TCP at 1 ms, 0.90-1.05 at 200 us (docs/benchmarks.md, "Pacing").
pub const PACE_POLL: Duration = Duration::from_micros(200);

/// Where to read a BMv2 ToR's [`FABRIC_RX`]: its Thrift server.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PaceFrom {
    pub tor: usize,
    pub netns: PathBuf,
    pub thrift_port: u16,
}

impl PaceFrom {
    /// A count that a thread of its own keeps equal to the ToR's
    /// [`FABRIC_RX`], every [`PACE_POLL`], until no engine holds it. A
    /// switch that cannot be reached is tried again every 10 ms (the count
    /// then stalls and swtor writes its frames in flight off).
    pub fn start_reader(&self) -> swtor::TakenIn {
        let taken = swtor::TakenIn::new();
        // The first reading before the engine starts: it is the base the
        // engine counts from, not credit.
        let mut first = Bmv2Client::connect_in_netns(Some(&self.netns), self.thrift_port).ok();
        match first.as_mut().map(|c| c.counter_read(FABRIC_RX, 0)) {
            Some(Ok((n, _))) => taken.set(n),
            _ => {
                tracing::warn!(
                    "pacing {}: cannot read {FABRIC_RX} yet",
                    crate::plan::tor_name(self.tor)
                );
                first = None;
            }
        }
        let (t, me) = (taken.clone(), self.clone());
        let name = format!("pace-{}", crate::plan::tor_name(self.tor));
        // `LH_PACE_POLL_US` (for benchmarks).
        let poll = std::env::var("LH_PACE_POLL_US")
            .ok()
            .and_then(|u| u.parse().ok())
            .map_or(PACE_POLL, Duration::from_micros);
        let spawned = std::thread::Builder::new().name(name).spawn(move || {
            let mut client = first;
            while !t.orphaned() {
                if client.is_none() {
                    client = Bmv2Client::connect_in_netns(Some(&me.netns), me.thrift_port).ok();
                }
                match client.as_mut().map(|c| c.counter_read(FABRIC_RX, 0)) {
                    Some(Ok((n, _))) => {
                        t.set(n);
                        std::thread::sleep(poll);
                    }
                    _ => {
                        client = None;
                        std::thread::sleep(Duration::from_millis(10));
                    }
                }
            }
        });
        if let Err(e) = spawned {
            tracing::warn!("pacing reader for {}: {e}", crate::plan::tor_name(self.tor));
        }
        taken
    }
}

impl Drop for P4Tors {
    fn drop(&mut self) {
        self.stop();
    }
}
