//! The CLI's command list and `help` text (Python cmd's layout).

use crate::text::format;

pub(super) const COMMANDS: &[(&str, &str)] = &[
    ("EOF", "Exit"),
    (
        "allreduce",
        "Ring allreduce (reduce-scatter + all-gather) over TCP between hosts; checks the sum, prints completion-time percentiles.\n       Usage: allreduce SIZE [HOST...] [iters=N]   e.g. allreduce 800K, allreduce 20M h1 h2 h3 h4",
    ),
    (
        "drops",
        "Data-plane counters by drop reason, and the conservation check.",
    ),
    (
        "dpctl",
        "Not available: ToRs are not OpenFlow switches. Use table, queues or drops.",
    ),
    ("dump", "Dump node info."),
    ("exit", "Exit"),
    (
        "flow",
        "One TCP flow with the built-in flow tool: throughput and completion time.\n       Usage: flow src dst SIZE|SECONDSs   (SIZE in bytes, K/M/G suffixes; 2s = for 2 seconds)",
    ),
    (
        "flows",
        "Trace-driven TCP flows with FCT statistics per size bucket.\n       Usage: flows WORKLOAD PATTERN LOAD SECONDS [max_size=B] [flows=N] [seed=N] [grace=S] [csv=FILE] [cc=NAME]\n       cc: each sender's congestion control (cubic, reno, ...)\n       e.g. flows websearch all-to-all 0.3 2 max_size=1M",
    ),
    ("help", "Describe available CLI commands."),
    ("intfs", "List interfaces."),
    (
        "iperf",
        "Simple iperf TCP test between two (optionally specified) hosts.\n       Usage: iperf node1 node2",
    ),
    (
        "iperfudp",
        "Simple iperf UDP test between two (optionally specified) hosts.\n       Usage: iperfudp bw node1 node2",
    ),
    (
        "link",
        "Bring a link up or down: a host's (both ends, like Mininet), or the optical\n       circuits between two ToRs in the OCS.\n       Usage: link <host> <tor> up|down | link <tor> <tor> up|down",
    ),
    ("links", "Report on links"),
    (
        "memcached",
        "memcached server on SERVER, SET load generators on the clients; prints per-SET latency percentiles.\n       Usage: memcached SERVER [CLIENT...] [count=N] [size=B] [interval=S]   e.g. memcached h1 h2 h3 h4 h5 h6 h7 h8",
    ),
    ("net", "List network connections."),
    ("nodes", "List all nodes."),
    (
        "otcp",
        "OTCP's per-route facts and TCP parameters per ToR pair (hosts.tcp.otcp, docs/otcp.md).",
    ),
    (
        "noecho",
        "Run an interactive command with echoing turned off.\n       Usage: noecho [cmd args]",
    ),
    (
        "pcap",
        "Capture a port to a pcap file in the background.\n       Usage: pcap [--readable] <tor|host> <port> FILE | pcap stop\n       FILE is created mode 0600 (0644 with --readable), never through a symlink\n       ToR ports: an uplink number (as the OCS sees it) or sN-ethJ (host port)",
    ),
    (
        "pingall",
        "Ping between all hosts.\n       Usage: pingall [timeout]",
    ),
    (
        "pingallfull",
        "Ping between all hosts, returns all ping results.",
    ),
    (
        "pingpair",
        "Ping between first two hosts, useful for testing.",
    ),
    (
        "pingpairfull",
        "Ping between first two hosts, returns all ping results.",
    ),
    ("ports", "display ports and interfaces for each switch"),
    (
        "buffer_usage",
        "Bytes in the calendar queues of ToR uplinks now (paper Table 1).\n       Usage: buffer_usage [tor] [port]",
    ),
    (
        "bw_usage",
        "Uplink bandwidth used over an interval, as a fraction of the link rate.\n       Usage: bw_usage [tor] [port] [interval, default 1ms]",
    ),
    (
        "queues",
        "Bytes in each calendar queue of a ToR, per uplink.\n       Usage: queues <tor>",
    ),
    (
        "px",
        "Execute a Python statement (when the CLI is opened from a Python script: CLI(net)).\n       Usage: px <python statement>",
    ),
    (
        "py",
        "Evaluate a Python expression: <node>.IP(), .MAC(), .cmd('...'), .intfList(), net.hosts, ...\n       (any Python when the CLI is opened from a script: CLI(net)).\n       Usage: py <python expression>",
    ),
    ("quit", "Exit"),
    (
        "schedule",
        "Circuits of a slice (default: the current one).\n       Usage: schedule [ts]",
    ),
    (
        "sh",
        "Run an external shell command\n       Usage: sh [cmd args]",
    ),
    (
        "slice",
        "The current slice and cycle of the optical schedule.",
    ),
    (
        "source",
        "Read commands from an input file.\n       Usage: source <file>",
    ),
    (
        "switch",
        "Starts or stops a switch: not available for ToRs; use link <host> <tor> down|up.\n       Usage: switch <switch name> {start, stop}",
    ),
    (
        "table",
        "A ToR's time-flow table.\n       Usage: table <tor>",
    ),
    ("time", "Measure time taken for any command in Mininet."),
    (
        "wait",
        "Wait until all switches have connected to a controller (ToRs need none).",
    ),
    (
        "xterm",
        "Spawn xterm(s) for the given node(s).\n       Usage: xterm node1 node2 ...",
    ),
];

pub(super) const HELP_TAIL: &str = "You may also send a command to a node using:\n  <node> command {args}\nFor example:\n  lighthouse> h1 ifconfig\n\nThe interpreter automatically substitutes IP addresses\nfor node names when a node is the first arg, so commands\nlike\n  lighthouse> h2 ping h3\nshould work.\n\nSome character-oriented interactive commands require\nnoecho:\n  lighthouse> noecho h2 vi foo.py\n";

/// `help` (all commands in columns) or `help TOPIC`.
pub(super) fn help_text(topic: &str) -> String {
    if !topic.is_empty() {
        return match COMMANDS.iter().find(|(n, _)| *n == topic) {
            Some((_, d)) => d.to_string(),
            None => format!("*** No help on {topic}"),
        };
    }
    let names: Vec<&str> = COMMANDS.iter().map(|(n, _)| *n).collect();
    let header = "Documented commands (type help <topic>):";
    let mut s = format!("\n{header}\n{}\n", "=".repeat(header.len()));
    for r in format::columnize(&names, 79) {
        s.push_str(&r);
        s.push('\n');
    }
    s.push('\n');
    s.push_str(HELP_TAIL);
    s
}
