//! Semantic validation of a parsed config (docs/config.md#validation).
//! Every error names the JSON path of the field to fix and what was expected.
//!
//! Checks only what is cheap and certain here; whether a topology generator
//! can really build its schedule is checked when it builds it.

use super::{
    Algorithm, BulkTransport, Cabling, Config, ConfigError, FabricKind, Mode, StaticGraph,
    Topology, TopologyKind, TrafficMatrixSrc,
};
use crate::units::Nanos;
use std::collections::HashMap;

/// The first semantic error, if any.
pub fn validate(cfg: &Config, file: &str) -> Result<(), ConfigError> {
    match validate_all(cfg, file).into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Every semantic error. Later checks that depend on a failed earlier one
/// are skipped rather than reported twice.
pub fn validate_all(cfg: &Config, file: &str) -> Vec<ConfigError> {
    let mut c = Checker {
        file,
        errors: Vec::new(),
    };
    let tors_ok = check_tors(&mut c, cfg);
    check_fabric(&mut c, cfg);
    check_timing(&mut c, cfg);
    check_mode(&mut c, cfg);
    if tors_ok {
        check_topology(&mut c, cfg);
        check_cabling(&mut c, cfg);
        check_monitoring(&mut c, cfg);
        check_traffic_matrix(&mut c, cfg);
    }
    check_routing(&mut c, cfg);
    check_tor_system(&mut c, cfg);
    check_hosts(&mut c, cfg);
    c.errors
}

/// `$.hosts.tcp`: what the kernel would refuse or silently round. Whether
/// a congestion control module is available is known only on the machine
/// that runs the network (checked at bring-up, naming the same path).
fn check_hosts(c: &mut Checker, cfg: &Config) {
    use crate::config::{
        MAX_RTO_MIN_MS, MAX_TCP_RECEIVE_BUFFER, MAX_TCP_REORDERING, MAX_TCP_WINDOW,
        MIN_TCP_RECEIVE_BUFFER,
    };
    if cfg.hosts.as_ref().and_then(|h| h.link?.max_queue_size) == Some(0) {
        c.err(
            "$.hosts.link.max_queue_size",
            "expected at least 1 frame, got 0".to_string(),
        );
    }
    let Some(t) = cfg.hosts.as_ref().and_then(|h| h.tcp.as_ref()) else {
        return;
    };
    for (path, v) in [
        ("$.hosts.tcp.reordering", t.reordering),
        ("$.hosts.tcp.max_reordering", t.max_reordering),
    ] {
        if let Some(r) = v.filter(|r| !(1..=MAX_TCP_REORDERING).contains(r)) {
            c.err(
                path,
                format!("expected an integer 1..={MAX_TCP_REORDERING}, got {r}"),
            );
        }
    }
    if let Some(b) = t
        .receive_buffer
        .filter(|b| !(MIN_TCP_RECEIVE_BUFFER..=MAX_TCP_RECEIVE_BUFFER).contains(b))
    {
        c.err(
            "$.hosts.tcp.receive_buffer",
            format!(
                "expected bytes {MIN_TCP_RECEIVE_BUFFER}..={MAX_TCP_RECEIVE_BUFFER} (one page to 64 MiB), got {b}"
            ),
        );
    }
    if let Some(cc) = &t.congestion_control {
        let ok = !cc.is_empty()
            && cc.len() < 16
            && cc
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !ok {
            c.err(
                "$.hosts.tcp.congestion_control",
                format!(
                    "expected a congestion control module name (1 to 15 of a-z, 0-9, _), got {cc:?}"
                ),
            );
        }
    }
    if let Some(r) = t.rto_min {
        let ms = r.0 / 1_000_000;
        if r.0 % 1_000_000 != 0 || ms == 0 || ms > MAX_RTO_MIN_MS {
            c.err(
                "$.hosts.tcp.rto_min",
                format!(
                    "expected whole milliseconds from 1ms to {MAX_RTO_MIN_MS}ms (the route metric's unit), got {r}"
                ),
            );
        }
    }
    for (path, v) in [
        ("$.hosts.tcp.rto_max", t.rto_max),
        ("$.hosts.tcp.rto_initial", t.rto_initial),
    ] {
        if let Some(r) = v {
            let ms = r.0 / 1_000_000;
            if r.0 % 1_000_000 != 0 || ms == 0 || ms > MAX_RTO_MIN_MS {
                c.err(
                    path,
                    format!("expected whole milliseconds from 1ms to {MAX_RTO_MIN_MS}ms, got {r}"),
                );
            } else if let Some(lo) = t.rto_min.filter(|lo| lo.0 > r.0)
                && path.ends_with("rto_max")
            {
                c.err(path, format!("expected at least rto_min ({lo}), got {r}"));
            }
        }
    }
    for (path, v) in [
        ("$.hosts.tcp.initial_window", t.initial_window),
        ("$.hosts.tcp.max_window", t.max_window),
    ] {
        if let Some(w) = v.filter(|w| !(1..=MAX_TCP_WINDOW).contains(w)) {
            c.err(
                path,
                format!("expected segments 1..={MAX_TCP_WINDOW}, got {w}"),
            );
        }
    }
    if let (Some(iw), Some(max)) = (t.initial_window, t.max_window)
        && iw > max
    {
        c.err(
            "$.hosts.tcp.initial_window",
            format!("expected at most max_window ({max}), got {iw}"),
        );
    }
    if let Some(o) = &t.otcp {
        for (path, set) in [
            ("$.hosts.tcp.rto_min", t.rto_min.is_some()),
            ("$.hosts.tcp.rto_max", t.rto_max.is_some()),
            ("$.hosts.tcp.initial_window", t.initial_window.is_some()),
            ("$.hosts.tcp.max_window", t.max_window.is_some()),
        ] {
            if set {
                let field = path.rsplit('.').next().unwrap_or(path);
                c.err(
                    path,
                    format!("expected no global {field} with hosts.tcp.otcp: OTCP sets {field} per destination route"),
                );
            }
        }
        check_otcp(c, o);
    }
}

/// `$.hosts.tcp.otcp`: the OTCP inputs (docs/otcp.md).
fn check_otcp(c: &mut Checker, o: &crate::config::OtcpCfg) {
    use crate::config::{KERNEL_RTO_MAX_MS, MAX_OTCP_FAN_IN, MAX_OTCP_HOST_OVERHEAD};
    if !(1..=MAX_OTCP_FAN_IN).contains(&o.fan_in) {
        c.err(
            "$.hosts.tcp.otcp.fan_in",
            format!(
                "expected an integer 1..={MAX_OTCP_FAN_IN} (senders per receiver), got {}",
                o.fan_in
            ),
        );
    }
    if let Some(h) = o.host_overhead.filter(|h| *h > MAX_OTCP_HOST_OVERHEAD) {
        c.err(
            "$.hosts.tcp.otcp.host_overhead",
            format!("expected at most {MAX_OTCP_HOST_OVERHEAD}, got {h}"),
        );
    }
    if let Some(r) = o.socket_rto_max {
        let ms = r.0 / 1_000_000;
        let (lo, hi) = (*KERNEL_RTO_MAX_MS.start(), *KERNEL_RTO_MAX_MS.end());
        if r.0 % 1_000_000 != 0 {
            c.err(
                "$.hosts.tcp.otcp.socket_rto_max",
                format!("expected whole milliseconds (the unit of TCP_RTO_MAX_MS), got {r}"),
            );
        } else if ms < lo {
            c.err(
                "$.hosts.tcp.otcp.socket_rto_max",
                format!(
                    "{r} is below the kernel's minimum {lo}ms for TCP_RTO_MAX_MS / net.ipv4.tcp_rto_max_ms"
                ),
            );
        } else if ms > hi {
            c.err(
                "$.hosts.tcp.otcp.socket_rto_max",
                format!(
                    "{r} is above the kernel's maximum {hi}ms for TCP_RTO_MAX_MS / net.ipv4.tcp_rto_max_ms"
                ),
            );
        }
    }
}

/// `$.tor`: the ToR and host systems of paper §6–§7.
fn check_tor_system(c: &mut Checker, cfg: &Config) {
    use crate::config::{OccupancyMode, PushbackWhen};
    let Some(t) = &cfg.tor else { return };
    if let OccupancyMode::Estimated { update_interval } = t.occupancy {
        if update_interval == Nanos(0) {
            c.err(
                "$.tor.occupancy.estimated.update_interval",
                "expected a positive duration, got 0ns",
            );
        } else if update_interval > cfg.slice.duration {
            c.err(
                "$.tor.occupancy.estimated.update_interval",
                format!(
                    "expected at most one slice ({}), got {update_interval}",
                    cfg.slice.duration
                ),
            );
        }
    }
    if let Some(f) = &t.flow_pausing {
        if f.elephant_bytes == 0 {
            c.err(
                "$.tor.flow_pausing.elephant_bytes",
                "expected a positive byte count, got 0",
            );
        }
        if f.aging == Nanos(0) {
            c.err(
                "$.tor.flow_pausing.aging",
                "expected a positive duration, got 0ns",
            );
        }
    }
    if t.offload.is_some_and(|o| o.queues == 0) {
        c.err("$.tor.offload.queues", "expected at least 1, got 0");
    }
    if t.pushback == Some(PushbackWhen::AfterReroutes(0)) {
        c.err(
            "$.tor.pushback.after_reroutes",
            "expected at least 1 (use \"first_rejection\" to push back at once)",
        );
    }
}

struct Checker<'a> {
    file: &'a str,
    errors: Vec<ConfigError>,
}

impl Checker<'_> {
    fn err(&mut self, path: impl Into<String>, msg: impl Into<String>) {
        self.errors.push(ConfigError::Invalid {
            file: self.file.to_string(),
            path: path.into(),
            msg: msg.into(),
        });
    }
}

/// Algorithms that route over a cyclic multi-slice TO schedule.
const CYCLIC_ALGOS: &[Algorithm] = &[
    Algorithm::Direct,
    Algorithm::Vlb,
    Algorithm::Opera,
    Algorithm::Ucmp,
    Algorithm::Hoho,
];
/// Algorithms for a topology that holds still (static, electrical, TA).
const STATIC_ALGOS: &[Algorithm] = &[
    Algorithm::Direct,
    Algorithm::ShortestPath,
    Algorithm::Ecmp,
    Algorithm::Ksp,
];

/// Algorithms of a fat tree's switches (SOPA and its baselines).
const FATTREE_ALGOS: &[Algorithm] = &[
    Algorithm::Ecmp,
    Algorithm::Rps,
    Algorithm::Sopa,
    Algorithm::Hedera,
];

fn algo_name(a: Algorithm) -> &'static str {
    match a {
        Algorithm::Direct => "direct",
        Algorithm::Vlb => "vlb",
        Algorithm::Opera => "opera",
        Algorithm::Ucmp => "ucmp",
        Algorithm::Hoho => "hoho",
        Algorithm::ShortestPath => "shortest_path",
        Algorithm::Ecmp => "ecmp",
        Algorithm::Ksp => "ksp",
        Algorithm::Rps => "rps",
        Algorithm::Sopa => "sopa",
        Algorithm::Hedera => "hedera",
    }
}

fn check_tors(c: &mut Checker, cfg: &Config) -> bool {
    let t = &cfg.tors;
    let mut ok = true;
    if t.count < 2 {
        c.err(
            "$.tors.count",
            format!("expected at least 2 ToRs, got {}", t.count),
        );
        ok = false;
    }
    if t.uplinks == 0 {
        c.err(
            "$.tors.uplinks",
            "expected at least 1 uplink per ToR, got 0",
        );
        ok = false;
    }
    if t.hosts_per_tor == 0 {
        c.err(
            "$.tors.hosts_per_tor",
            "expected at least 1 host per ToR, got 0",
        );
    }
    if let Some(f) = t.max_frame.filter(|f| !(64..=65535).contains(f)) {
        c.err(
            "$.tors.max_frame",
            format!("expected the largest frame in bytes, 64..=65535, got {f}"),
        );
    }
    if t.queue_capacity == Some(0) {
        c.err(
            "$.tors.queue_capacity",
            "expected a positive number of bytes (or leave it out for one slice's worth), got 0",
        );
    } else if let Some(q) = t.queue_capacity.filter(|q| *q < 1500) {
        tracing::warn!(
            "$.tors.queue_capacity: {q} bytes cannot hold one 1500-byte frame; large packets will always miss their slice"
        );
    }
    if let Some(b) = t.buffer_capacity.filter(|b| *b < 1500) {
        c.err(
            "$.tors.buffer_capacity",
            format!(
                "expected the bytes a ToR's calendar queues share, at least one 1500-byte frame (or leave it out for no shared limit), got {b}"
            ),
        );
    }
    // (A zero rate is refused by the parser.)
    if t.electrical_rate.is_some() {
        if cfg.fabric == FabricKind::Electrical {
            c.err(
                "$.tors.electrical_rate",
                "expected no electrical_rate: fabric is electrical (every uplink already is); it adds an electrical uplink to an optical fabric",
            );
        } else if cfg.mode == Mode::TA {
            c.err(
                "$.tors.electrical_rate",
                "expected no electrical_rate with mode TA: a traffic-aware hybrid (c-Through) sets ta.electrical_rate",
            );
        }
    }
    ok
}

fn check_fabric(c: &mut Checker, cfg: &Config) {
    match cfg.fabric {
        FabricKind::Optical => match &cfg.ocs {
            None => c.err(
                "$.ocs",
                "expected an `ocs` object {count, ports, reconfiguration_delay, cabling}: fabric is optical",
            ),
            Some(o) => {
                if o.count == 0 {
                    c.err("$.ocs.count", "expected at least 1 OCS, got 0");
                }
                if o.ports < 2 {
                    c.err(
                        "$.ocs.ports",
                        format!("expected at least 2 ports per OCS, got {}", o.ports),
                    );
                }
            }
        },
        FabricKind::Electrical => {
            if cfg.ocs.is_some() {
                c.err(
                    "$.ocs",
                    "expected no `ocs` object: fabric is electrical (uplink p of every ToR goes to spine p)",
                );
            }
            match cfg.topology {
                Topology::Static {
                    graph: StaticGraph::Full,
                } => {}
                Topology::Static { .. } => c.err(
                    "$.topology.graph",
                    "expected \"full\": an electrical fabric reaches every ToR through each spine",
                ),
                // Reported at $.fabric (check_topology).
                Topology::FatTree { .. } => {}
                _ => c.err(
                    "$.topology.kind",
                    format!(
                        "expected \"static\" (with graph \"full\") for an electrical fabric, got {:?}",
                        cfg.topology.kind().name()
                    ),
                ),
            }
        }
        FabricKind::FatTree => check_fattree(c, cfg),
    }
}

/// `fabric: "fattree"`: a k-ary fat tree whose edge switches are the ToRs.
fn check_fattree(c: &mut Checker, cfg: &Config) {
    if cfg.ocs.is_some() {
        c.err(
            "$.ocs",
            "expected no `ocs` object: fabric is a fat tree of electrical switches",
        );
    }
    let Topology::FatTree { k } = cfg.topology else {
        c.err(
            "$.topology.kind",
            format!(
                "expected \"fat_tree\" (with an even k) for fabric \"fattree\", got {:?}",
                cfg.topology.kind().name()
            ),
        );
        return;
    };
    if cfg.tor.is_some() {
        c.err(
            "$.tor",
            "expected no `tor` section: a fat tree's switches have no calendar queues, push-back or offloading",
        );
    }
    if cfg.tors.buffer_capacity.is_some() {
        c.err(
            "$.tors.buffer_capacity",
            "expected none: a fat tree's switches have no calendar queues to share a buffer (each port has `queue_capacity`)",
        );
    }
    if let Err(e) = crate::fattree::FatTree::new(k) {
        return c.err("$.topology.k", format!("expected an even k: {e}"));
    }
    let t = &cfg.tors;
    let h = k / 2;
    for (path, got, want, what) in [
        ("$.tors.count", t.count as u32, k * h, "k²/2 edge switches"),
        (
            "$.tors.uplinks",
            t.uplinks as u32,
            h,
            "k/2 aggregation switches per pod",
        ),
        (
            "$.tors.hosts_per_tor",
            t.hosts_per_tor as u32,
            h,
            "k/2 hosts per edge switch",
        ),
    ] {
        if got != want {
            c.err(
                path,
                format!("expected {want} ({what} of a fat tree with topology.k = {k}), got {got}"),
            );
        }
    }
}

fn check_timing(c: &mut Checker, cfg: &Config) {
    let s = &cfg.slice;
    if s.duration == Nanos(0) {
        c.err("$.slice.duration", "expected a positive duration, got 0ns");
        return;
    }
    if s.guardband >= s.duration {
        c.err(
            "$.slice.guardband",
            format!(
                "expected less than slice.duration ({}), got {}",
                s.duration, s.guardband
            ),
        );
    }
    // In TA mode circuits change only every update interval; its checks
    // are in check_mode.
    let reconf = cfg.reconfiguration_delay();
    if cfg.mode == Mode::TO {
        if cfg.ocs.is_some() && reconf >= s.duration {
            c.err(
                "$.ocs.reconfiguration_delay",
                format!(
                    "expected less than slice.duration ({}), got {reconf}",
                    s.duration
                ),
            );
        }
        let dark = cfg.dark_time();
        if dark < s.duration && s.duration.0 < dark.0.saturating_mul(10) {
            tracing::warn!(
                "$.slice.duration: {} is under 10 x max(guardband, reconfiguration_delay) = {}: the duty cycle is below 90%",
                s.duration,
                Nanos(dark.0 * 10)
            );
        }
    }
    // A cyclic schedule's warning waits for the schedule
    // (`schedule::from_config_with_ocs`): one whose circuits never change
    // (a single slice, as a Mininet topology's) has no next circuit.
    if cfg.fabric == FabricKind::Optical && cfg.mode != Mode::TO && s.propagation > cfg.dark_time()
    {
        tracing::warn!(
            "$.slice.propagation: {} exceeds the dark time {} at a slice start: frames sent at the end of a slice may reach the next circuit",
            s.propagation,
            cfg.dark_time()
        );
    }
}

fn check_mode(c: &mut Checker, cfg: &Config) {
    let kind = cfg.topology.kind();
    match cfg.mode {
        Mode::TA if cfg.fabric != FabricKind::Optical => {
            c.err(
                "$.mode",
                "expected \"TO\": an electrical fabric has no circuits to schedule from traffic",
            );
        }
        Mode::TA => {
            if kind != TopologyKind::TrafficAware {
                c.err(
                    "$.topology.kind",
                    format!(
                        "expected \"traffic_aware\" because mode is TA, got {:?}",
                        kind.name()
                    ),
                );
            }
            let Some(ta) = &cfg.ta else {
                c.err(
                    "$.ta",
                    "expected a `ta` object {update_interval, scheduler, traffic_matrix}: mode is TA",
                );
                return;
            };
            if ta.update_interval == Nanos(0) {
                c.err(
                    "$.ta.update_interval",
                    "expected a positive duration, got 0ns",
                );
                return;
            }
            if ta.update_interval < cfg.slice.duration {
                c.err(
                    "$.ta.update_interval",
                    format!(
                        "expected at least slice.duration ({}), got {}",
                        cfg.slice.duration, ta.update_interval
                    ),
                );
            }
            if cfg.slice.guardband >= ta.update_interval {
                c.err(
                    "$.slice.guardband",
                    format!(
                        "expected less than ta.update_interval ({}), got {}",
                        ta.update_interval, cfg.slice.guardband
                    ),
                );
            }
            let reconf = cfg.reconfiguration_delay();
            if cfg.ocs.is_some() && reconf >= ta.update_interval {
                c.err(
                    "$.ocs.reconfiguration_delay",
                    format!(
                        "expected less than ta.update_interval ({}), got {reconf}",
                        ta.update_interval
                    ),
                );
            }
            let dark = cfg.dark_time();
            if dark < ta.update_interval && ta.update_interval.0 < dark.0.saturating_mul(10) {
                tracing::warn!(
                    "$.ta.update_interval: {} is under 10 x max(guardband, reconfiguration_delay) = {}: circuits are dark over 10% of the time",
                    ta.update_interval,
                    Nanos(dark.0 * 10)
                );
            }
        }
        Mode::TO => {
            if kind == TopologyKind::TrafficAware {
                c.err(
                    "$.topology.kind",
                    "expected a traffic-oblivious topology (round_robin, opera, shale, static or file): \"traffic_aware\" needs mode TA",
                );
            }
            if cfg.ta.is_some() {
                c.err(
                    "$.ta",
                    "expected no `ta` object: it is only used when mode is TA",
                );
            }
        }
    }
}

fn check_topology(c: &mut Checker, cfg: &Config) {
    let n = cfg.tors.count as u64;
    let u = cfg.tors.uplinks;
    match &cfg.topology {
        Topology::RoundRobin => {
            // count >= 2 is checked with the ToRs.
        }
        Topology::Opera { .. } => {
            if u < 2 {
                c.err(
                    "$.tors.uplinks",
                    format!("expected at least 2 uplinks (rotors) for topology opera, got {u}"),
                );
            } else if !n.is_multiple_of(u as u64) {
                c.err(
                    "$.tors.count",
                    format!(
                        "expected a multiple of tors.uplinks ({u}) for topology opera (each rotor takes N/u matchings), got {n}"
                    ),
                );
            }
        }
        Topology::Shale { h } => {
            if *h == 0 {
                c.err("$.topology.h", "expected at least 1 digit, got 0");
            } else if integer_root(n, *h).is_none() {
                c.err(
                    "$.tors.count",
                    format!(
                        "expected n^{h} ToRs for an integer n >= 2 (topology shale with h = {h}), got {n}"
                    ),
                );
            }
            if u != 1 {
                c.err(
                    "$.tors.uplinks",
                    format!("expected 1 uplink for topology shale, got {u}"),
                );
            }
        }
        Topology::Static { graph } => {
            if *graph == StaticGraph::Full && cfg.fabric == FabricKind::Optical {
                c.err(
                    "$.topology.graph",
                    "expected \"ring\": graph \"full\" needs fabric electrical (a circuit reaches one ToR)",
                );
            }
        }
        Topology::TrafficAware => {}
        Topology::FatTree { .. } => {
            if cfg.fabric != FabricKind::FatTree {
                c.err(
                    "$.fabric",
                    "expected \"fattree\": topology fat_tree is a fat tree of electrical packet switches",
                );
            }
        }
        Topology::File { path } => {
            let full = cfg.resolve(path);
            if let Err(e) = crate::textfile::check_file(&full) {
                c.err(
                    "$.topology.path",
                    format!(
                        "expected a schedule file, but {e} (relative names resolve against the config's directory)"
                    ),
                );
            }
        }
    }
}

/// `n` with `n^h == x` and `n >= 2`.
fn integer_root(x: u64, h: u32) -> Option<u64> {
    let guess = (x as f64).powf(1.0 / h as f64).round() as u64;
    [guess.saturating_sub(1), guess, guess + 1]
        .into_iter()
        .find(|&n| n >= 2 && n.checked_pow(h) == Some(x))
}

fn check_routing(c: &mut Checker, cfg: &Config) {
    let r = &cfg.routing;
    let (allowed, why) = if cfg.is_cyclic() {
        (
            CYCLIC_ALGOS,
            format!(
                "a traffic-oblivious cyclic schedule (topology {})",
                cfg.topology.kind().name()
            ),
        )
    } else if cfg.fabric == FabricKind::FatTree {
        (FATTREE_ALGOS, "a fat tree (fabric \"fattree\")".into())
    } else if cfg.mode == Mode::TA {
        (STATIC_ALGOS, "mode TA (each topology holds still)".into())
    } else if cfg.fabric == FabricKind::Electrical {
        (STATIC_ALGOS, "an electrical fabric".into())
    } else {
        (STATIC_ALGOS, "a static topology".into())
    };
    if !allowed.contains(&r.algorithm) {
        let list: Vec<&str> = allowed.iter().map(|a| algo_name(*a)).collect();
        c.err(
            "$.routing.algorithm",
            format!(
                "expected one of {} for {why}, got {:?}{}",
                list.join(", "),
                algo_name(r.algorithm),
                if FATTREE_ALGOS.contains(&r.algorithm) && !allowed.contains(&r.algorithm) {
                    " (rps, sopa and hedera route a fat tree: fabric \"fattree\")"
                } else {
                    ""
                }
            ),
        );
    }
    match r.hedera_interval {
        Some(_) if r.algorithm != Algorithm::Hedera => c.err(
            "$.routing.hedera_interval",
            "expected no hedera_interval: only routing.algorithm \"hedera\" schedules flows",
        ),
        Some(Nanos(0)) => c.err(
            "$.routing.hedera_interval",
            "expected a positive duration, got 0ns",
        ),
        _ => {}
    }
    if r.failure_detection.is_some() && cfg.fabric != FabricKind::FatTree {
        c.err(
            "$.routing.failure_detection",
            "expected no failure_detection: only a fat tree (fabric \"fattree\") withdraws paths over failed links",
        );
    }
    match r.bulk_threshold {
        Some(_) if r.algorithm != Algorithm::Opera => c.err(
            "$.routing.bulk_threshold",
            "expected no bulk_threshold: only routing.algorithm \"opera\" has a bulk class (UCMP computes its own thresholds)",
        ),
        Some(0) => c.err(
            "$.routing.bulk_threshold",
            "expected at least 1 byte, got 0",
        ),
        _ => {}
    }
    if r.bulk != BulkTransport::Direct && r.algorithm != Algorithm::Opera {
        c.err(
            "$.routing.bulk",
            "expected no bulk: only routing.algorithm \"opera\" has a bulk class",
        );
    }
    if r.k == Some(0) {
        c.err("$.routing.k", "expected at least 1, got 0");
    }
    match r.max_hop {
        Some(0) => c.err("$.routing.max_hop", "expected at least 1 hop, got 0"),
        Some(h) if h != 1 && r.algorithm == Algorithm::Direct => c.err(
            "$.routing.max_hop",
            format!("expected 1 (or leave it out): direct routing takes one hop, got {h}"),
        ),
        _ => {}
    }
}

fn check_cabling(c: &mut Checker, cfg: &Config) {
    let Some(ocs) = &cfg.ocs else { return };
    if cfg.fabric != FabricKind::Optical || ocs.count == 0 {
        return;
    }
    let n = cfg.tors.count as usize;
    let u = cfg.tors.uplinks as usize;
    match &ocs.cabling {
        Cabling::Auto(_) => {
            // Uplink p of ToR t -> OCS p % count, port t + (p / count) * n.
            let per_ocs = u.div_ceil(ocs.count as usize);
            let needed = n * per_ocs;
            if needed > ocs.ports as usize {
                c.err(
                    "$.ocs.ports",
                    format!(
                        "expected at least {needed} ports per OCS for auto cabling ({n} ToRs x {per_ocs} uplink(s) per OCS), got {}",
                        ocs.ports
                    ),
                );
            }
            if ocs.count as usize > u {
                tracing::warn!(
                    "$.ocs.count: {} OCSes but only {u} uplink(s) per ToR: auto cabling leaves OCS {u}.. unused",
                    ocs.count
                );
            }
        }
        Cabling::Explicit(list) => {
            let mut by_uplink: HashMap<(u16, u8), usize> = HashMap::new();
            let mut by_ocs_port: HashMap<(u16, u16), usize> = HashMap::new();
            for (i, cable) in list.iter().enumerate() {
                let at = format!("$.ocs.cabling[{i}]");
                let mut ok = true;
                if cable.tor as usize >= n {
                    c.err(
                        format!("{at}.tor"),
                        format!(
                            "expected a ToR index below tors.count ({n}), got {}",
                            cable.tor
                        ),
                    );
                    ok = false;
                }
                if cable.port as usize >= u {
                    c.err(
                        format!("{at}.port"),
                        format!(
                            "expected an uplink index below tors.uplinks ({u}), got {}",
                            cable.port
                        ),
                    );
                    ok = false;
                }
                if cable.ocs >= ocs.count {
                    c.err(
                        format!("{at}.ocs"),
                        format!(
                            "expected an OCS index below ocs.count ({}), got {}",
                            ocs.count, cable.ocs
                        ),
                    );
                    ok = false;
                }
                if cable.ocs_port >= ocs.ports {
                    c.err(
                        format!("{at}.ocs_port"),
                        format!(
                            "expected an OCS port below ocs.ports ({}), got {}",
                            ocs.ports, cable.ocs_port
                        ),
                    );
                    ok = false;
                }
                if !ok {
                    continue;
                }
                if let Some(j) = by_uplink.insert((cable.tor, cable.port), i) {
                    c.err(
                        format!("{at}.port"),
                        format!(
                            "expected each (tor, port) cabled once, but ToR {} uplink {} is already cabled at $.ocs.cabling[{j}]",
                            cable.tor, cable.port
                        ),
                    );
                }
                if let Some(j) = by_ocs_port.insert((cable.ocs, cable.ocs_port), i) {
                    c.err(
                        format!("{at}.ocs_port"),
                        format!(
                            "expected each OCS port used once, but OCS {} port {} is already used at $.ocs.cabling[{j}]",
                            cable.ocs, cable.ocs_port
                        ),
                    );
                }
            }
            let missing: Vec<String> = (0..n)
                .flat_map(|t| (0..u).map(move |p| (t as u16, p as u8)))
                .filter(|k| !by_uplink.contains_key(k))
                .map(|(t, p)| format!("(tor {t}, port {p})"))
                .collect();
            if !missing.is_empty() {
                let shown: Vec<&str> = missing.iter().take(8).map(String::as_str).collect();
                let more = if missing.len() > 8 {
                    format!(" and {} more", missing.len() - 8)
                } else {
                    String::new()
                };
                c.err(
                    "$.ocs.cabling",
                    format!(
                        "expected a cable for every ToR uplink ({n} ToRs x {u} uplinks), but {}{more} has none",
                        shown.join(", ")
                    ),
                );
            }
        }
    }
}

fn check_monitoring(c: &mut Checker, cfg: &Config) {
    let n = cfg.tors.count;
    let u = cfg.tors.uplinks;
    for (i, m) in cfg.monitoring.iter().enumerate() {
        let at = format!("$.monitoring[{i}]");
        if let Some(t) = m.tor.filter(|t| *t >= n) {
            c.err(
                format!("{at}.tor"),
                format!("expected a ToR index below tors.count ({n}), got {t}"),
            );
        }
        if let Some(p) = m.port.filter(|p| *p >= u) {
            c.err(
                format!("{at}.port"),
                format!("expected an uplink index below tors.uplinks ({u}), got {p}"),
            );
        }
        if m.interval == Nanos(0) {
            c.err(
                format!("{at}.interval"),
                "expected a positive duration, got 0ns",
            );
        }
    }
}

fn check_traffic_matrix(c: &mut Checker, cfg: &Config) {
    let Some(ta) = &cfg.ta else { return };
    if cfg.mode != Mode::TA {
        return;
    }
    let n = cfg.tors.count as usize;
    let (rows, from) = match &ta.traffic_matrix {
        TrafficMatrixSrc::Inline(rows) => (rows.clone(), None),
        TrafficMatrixSrc::File(p) => {
            let full = cfg.resolve(p);
            if let Err(e) = crate::textfile::check_file(&full) {
                c.err(
                    "$.ta.traffic_matrix",
                    format!(
                        "expected a traffic-matrix file, but {e} (relative names resolve against the config's directory)"
                    ),
                );
                return;
            }
            match super::read_traffic_matrix(&full) {
                Ok(rows) => (rows, Some(full.display().to_string())),
                Err(e) => {
                    c.errors.push(e);
                    return;
                }
            }
        }
    };
    // For a file, errors name the field and say which row of the file.
    let at = |i: Option<usize>, j: Option<usize>| -> String {
        match (&from, i, j) {
            (Some(_), _, _) | (None, None, _) => "$.ta.traffic_matrix".to_string(),
            (None, Some(i), None) => format!("$.ta.traffic_matrix[{i}]"),
            (None, Some(i), Some(j)) => format!("$.ta.traffic_matrix[{i}][{j}]"),
        }
    };
    let in_file = |s: String| match &from {
        Some(f) => format!("{f}: {s}"),
        None => s,
    };
    if rows.len() != n {
        c.err(
            at(None, None),
            in_file(format!(
                "expected {n} rows (one per ToR, tors.count = {n}), got {}",
                rows.len()
            )),
        );
        return;
    }
    let mut total: u128 = 0;
    for (i, row) in rows.iter().enumerate() {
        if row.len() != n {
            c.err(
                at(Some(i), None),
                in_file(format!(
                    "expected row {i} to have {n} entries (one per ToR), got {}",
                    row.len()
                )),
            );
            continue;
        }
        if row[i] != 0 {
            c.err(
                at(Some(i), Some(i)),
                in_file(format!(
                    "expected 0 on the diagonal (ToR {i} does not send to itself), got {}",
                    row[i]
                )),
            );
        }
        total += row.iter().map(|&x| x as u128).sum::<u128>();
    }
    if total == 0 {
        tracing::warn!("$.ta.traffic_matrix: all zero; the scheduler has no demand to serve");
    }
}

#[cfg(test)]
mod tests {
    use super::integer_root;

    #[test]
    fn integer_roots() {
        assert_eq!(integer_root(16, 2), Some(4));
        assert_eq!(integer_root(27, 3), Some(3));
        assert_eq!(integer_root(8, 3), Some(2));
        assert_eq!(integer_root(8, 1), Some(8));
        assert_eq!(integer_root(15, 2), None);
        assert_eq!(integer_root(1, 2), None);
        assert_eq!(integer_root(1 << 40, 40), Some(2));
    }
}
