//! Checks of `hosts`: the host links and the TCP knobs, what the kernel
//! would refuse or silently round, and OTCP's inputs.

use super::Checker;
use crate::config::Config;

/// `$.hosts.tcp`: what the kernel would refuse or silently round. Whether
/// a congestion control module is available is known only on the machine
/// that runs the network (checked at bring-up, naming the same path).
pub(super) fn check_hosts(c: &mut Checker, cfg: &Config) {
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
