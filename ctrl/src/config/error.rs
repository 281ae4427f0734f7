//! What a config error says: the file, the JSON path of the field to fix
//! (`$.tors.uplinks`) and what was expected. Parsing's errors come from
//! serde with a bare path; this module turns them into that form, with a
//! hint of what each field holds.

use super::de;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file cannot be read as text (`err` names the file).
    #[error("{err}")]
    Io {
        file: String,
        err: crate::textfile::TextError,
    },
    /// A syntax or type error, or an unknown field.
    #[error("{file}: at {path}: {msg}")]
    Parse {
        file: String,
        path: String,
        msg: String,
    },
    /// A semantic error found after parsing.
    #[error("{file}: at {path}: {msg}")]
    Invalid {
        file: String,
        path: String,
        msg: String,
    },
}

impl ConfigError {
    /// The JSON path the error is about (`$` for the whole document).
    pub fn json_path(&self) -> &str {
        match self {
            ConfigError::Io { .. } => "$",
            ConfigError::Parse { path, .. } | ConfigError::Invalid { path, .. } => path,
        }
    }
}

/// Turn a serde_path_to_error report into a `Parse` error whose path points
/// at the field itself (serde reports a missing field at its parent) and
/// whose message says what was expected.
pub(super) fn parse_error(file: &str, raw_path: &str, msg: &str) -> ConfigError {
    let mut path = json_path(raw_path);
    // serde_json ends messages with " at line L column C"; hints go before it.
    let (body, at) = match msg.rfind(" at line ") {
        Some(i) => msg.split_at(i),
        None => (msg, ""),
    };
    let mut msg = body.to_string();
    if let Some(rest) = msg.strip_prefix(de::FIELD_MARK) {
        if let Some((field, m)) = rest.split_once(de::FIELD_MARK) {
            path = format!("{path}.{field}");
            msg = m.to_string();
        }
    } else if let Some(rest) = msg.strip_prefix("missing field `") {
        if let Some((field, tail)) = rest.split_once('`') {
            path = format!("{path}.{field}");
            msg = match field_hint(&path) {
                Some(h) => format!("missing required field `{field}`: expected {h}{tail}"),
                None => format!("missing required field `{field}`{tail}"),
            };
        }
    } else if (msg.starts_with("invalid type") || msg.starts_with("invalid value"))
        && let Some(h) = field_hint(&path)
    {
        msg = format!("{msg} ({h})");
    }
    ConfigError::Parse {
        file: file.to_string(),
        path,
        msg: format!("{msg}{at}"),
    }
}

/// What a field holds, for error messages. Indices are ignored.
pub fn field_hint(path: &str) -> Option<&'static str> {
    // `$.ocs.cabling[3].tor` -> `$.ocs.cabling[].tor`
    let mut p = String::with_capacity(path.len());
    let mut skip = false;
    for c in path.chars() {
        match c {
            '[' => {
                skip = true;
                p.push('[');
            }
            ']' => {
                skip = false;
                p.push(']');
            }
            _ if !skip => p.push(c),
            _ => {}
        }
    }
    Some(match p.as_str() {
        "$.name" => "a string naming the setup",
        "$.mode" => "\"TO\" (traffic-oblivious) or \"TA\" (traffic-aware)",
        "$.fabric" => "\"optical\" or \"electrical\"",
        "$.tors" => "an object {count, uplinks, link_rate, hosts_per_tor, host_link_rate}",
        "$.tors.count" => "the number of ToRs, an integer >= 2",
        "$.tors.uplinks" => "optical (or spine) uplinks per ToR, an integer 1..=255",
        "$.tors.link_rate" => "a rate with a unit, like \"10Gbps\"",
        "$.tors.hosts_per_tor" => "hosts under each ToR, an integer >= 1",
        "$.tors.host_link_rate" => "a rate with a unit, like \"10Gbps\"",
        "$.tors.queue_capacity" => "bytes per calendar queue, a positive integer",
        "$.tors.buffer_capacity" => {
            "bytes of buffer a ToR shares among its calendar queues, an integer >= 1500"
        }
        "$.tors.max_frame" => "the largest frame in bytes, an integer 64..=65535",
        "$.tors.electrical_rate" => "a rate with a unit, like \"100Mbps\"",
        "$.tors.link_loss" => "a percentage of frames lost on a circuit, 0 to 100",
        "$.tors.link_jitter" => "a time with a unit, like \"2ms\"",
        "$.ocs" => "an object {count, ports, reconfiguration_delay, cabling}",
        "$.ocs.count" => "the number of OCSes, an integer >= 1",
        "$.ocs.ports" => "ports per OCS, an integer >= 2",
        "$.ocs.reconfiguration_delay" => "a duration with a unit, like \"10us\"",
        "$.ocs.cabling" => "\"auto\" or a list of cables {tor, port, ocs, ocs_port}",
        "$.ocs.cabling[]" => "a cable {tor, port, ocs, ocs_port}",
        "$.ocs.cabling[].tor" => "a ToR index, an integer",
        "$.ocs.cabling[].port" => "a ToR uplink index, an integer 0..=255",
        "$.ocs.cabling[].ocs" => "an OCS index, an integer",
        "$.ocs.cabling[].ocs_port" => "an OCS port index, an integer",
        "$.slice" => "an object {duration, guardband, propagation}",
        "$.slice.duration" => "a duration with a unit, like \"50us\"",
        "$.slice.guardband" => "a duration with a unit, like \"200ns\"",
        "$.slice.propagation" => "a duration with a unit, like \"1us\"",
        "$.topology" => "an object with a `kind`",
        "$.topology.kind" => {
            "one of \"round_robin\", \"opera\", \"shale\", \"static\", \"traffic_aware\", \"file\""
        }
        "$.topology.seed" => "a non-negative integer",
        "$.topology.h" => "the number of Shale digits, an integer >= 1",
        "$.topology.graph" => "\"ring\" or \"full\"",
        "$.topology.path" => "a schedule file name",
        "$.routing" => "an object with an `algorithm`",
        "$.routing.algorithm" => {
            "one of \"direct\", \"vlb\", \"opera\", \"ucmp\", \"hoho\", \"shortest_path\", \"ecmp\", \"ksp\""
        }
        "$.routing.lookup" => "\"hop\" or \"source\"",
        "$.routing.multipath" => "\"none\", \"packet\" or \"flow\"",
        "$.routing.max_hop" => "a hop budget, an integer 1..=255",
        "$.routing.same_slice_hops" => "true or false",
        "$.routing.k" => "an integer 1..=255",
        "$.routing.seed" => "a non-negative integer",
        "$.monitoring" => "a list of monitors {metric, tor, port, interval}",
        "$.monitoring[]" => "a monitor {metric, tor, port, interval}",
        "$.monitoring[].metric" => "\"buffer_usage\" or \"bw_usage\"",
        "$.monitoring[].tor" => "a ToR index, an integer",
        "$.monitoring[].port" => "an uplink index, an integer 0..=255",
        "$.monitoring[].interval" => "a duration with a unit, like \"1ms\"",
        "$.ta" => "an object {update_interval, scheduler, traffic_matrix}",
        "$.ta.update_interval" => "a duration with a unit, like \"10ms\"",
        "$.ta.scheduler" => "\"bvn\", \"hotspot\" or \"mip\"",
        "$.ta.traffic_matrix" => "a file name or a list of rows of byte counts",
        "$.ta.traffic_matrix[]" => "a row of byte counts",
        "$.ta.traffic_matrix[][]" => "a byte count, a non-negative integer",
        "$.ta.electrical_rate" => "a rate with a unit, like \"10Gbps\"",
        "$.hosts" => "an object {tcp}",
        "$.hosts.tcp" => {
            "an object {reordering, max_reordering, sack, receive_buffer, congestion_control, rto_min, otcp}"
        }
        "$.hosts.tcp.reordering" => "net.ipv4.tcp_reordering, an integer 1..=300",
        "$.hosts.tcp.max_reordering" => "net.ipv4.tcp_max_reordering, an integer 1..=300",
        "$.hosts.tcp.sack" => "net.ipv4.tcp_sack, a boolean",
        "$.hosts.tcp.receive_buffer" => "bytes, an integer 4096..=67108864",
        "$.hosts.tcp.congestion_control" => {
            "a congestion control module name, like \"cubic\" or \"reno\""
        }
        "$.hosts.tcp.rto_min" => "a duration in whole milliseconds, like \"5ms\"",
        "$.hosts.tcp.otcp" => "an object {fan_in, host_overhead, socket_rto_max}",
        "$.hosts.tcp.otcp.fan_in" => "the expected flow fan-in, an integer 1..=65535",
        "$.hosts.tcp.otcp.host_overhead" => "a duration with a unit, like \"30us\"",
        "$.hosts.tcp.otcp.socket_rto_max" => {
            "a duration in whole milliseconds from 1s to 120s, like \"1s\""
        }
        _ => return None,
    })
}

/// serde_path_to_error prints `tors.uplinks` or `.`; we print `$.tors.uplinks`.
fn json_path(p: &str) -> String {
    if p.is_empty() || p == "." {
        "$".to_string()
    } else if p.starts_with('[') {
        format!("${p}")
    } else {
        format!("$.{p}")
    }
}
