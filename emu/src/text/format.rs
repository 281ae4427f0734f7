//! Mininet 2.3's exact output strings, as pure functions so they can be
//! tested against the reference text.

/// `h1 -> h2 X h4 ` (every entry followed by a space; no newline).
pub fn ping_row(src: &str, results: &[(&str, bool)]) -> String {
    let mut s = format!("{src} -> ");
    for (dst, ok) in results {
        if *ok {
            s.push_str(dst);
            s.push(' ');
        } else {
            s.push_str("X ");
        }
    }
    s
}

/// `*** Results: 66% dropped (4/12 received)`; the percentage is truncated
/// like Python's `%i` of a float. `None` when nothing was sent.
pub fn ping_results(sent: u64, received: u64) -> String {
    if sent == 0 {
        return "*** Warning: No packets sent".to_string();
    }
    let lost = sent - received.min(sent);
    let ploss = 100.0 * lost as f64 / sent as f64;
    format!(
        "*** Results: {}% dropped ({received}/{sent} received)",
        ploss as i64
    )
}

/// ` h1->h2: 1/1, rtt min/avg/max/mdev 0.025/0.025/0.025/0.000 ms`
pub fn ping_full_line(src: &str, dst: &str, sent: u64, received: u64, rtt_ms: [f64; 4]) -> String {
    format!(
        " {src}->{dst}: {sent}/{received}, rtt min/avg/max/mdev {:.3}/{:.3}/{:.3}/{:.3} ms",
        rtt_ms[0], rtt_ms[1], rtt_ms[2], rtt_ms[3]
    )
}

/// A rate the way iperf prints it (`941 Mbits/sec`, `9.41 Gbits/sec`).
pub fn rate(bps: f64) -> String {
    let units = [
        "bits/sec",
        "Kbits/sec",
        "Mbits/sec",
        "Gbits/sec",
        "Tbits/sec",
    ];
    let mut v = bps.max(0.0);
    let mut u = 0;
    while v >= 1000.0 && u + 1 < units.len() {
        v /= 1000.0;
        u += 1;
    }
    let num = if v < 9.995 {
        format!("{v:.2}")
    } else if v < 99.95 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    };
    format!("{num} {}", units[u])
}

/// `*** Results: ['8.20 Gbits/sec', '8.21 Gbits/sec']` (a Python list repr).
pub fn iperf_results(items: &[String]) -> String {
    let l: Vec<String> = items.iter().map(|s| format!("'{s}'")).collect();
    format!("*** Results: [{}]", l.join(", "))
}

/// `*** Iperf: testing TCP bandwidth between h1 and h2 `
pub fn iperf_header(l4: &str, client: &str, server: &str) -> String {
    format!("*** Iperf: testing {l4} bandwidth between {client} and {server} ")
}

/// `available nodes are: \nh1 h2 s1` (sorted as text, like Mininet).
pub fn nodes(names: &[String]) -> String {
    let mut v = names.to_vec();
    v.sort();
    format!("available nodes are: \n{}", v.join(" "))
}

/// `*** Elapsed time: 0.009484 secs`
pub fn elapsed(secs: f64) -> String {
    format!("*** Elapsed time: {secs:.6} secs")
}

/// A node's `net` line: `h1 h1-eth0:s1-eth1` / `s1 lo:  s1-eth1:h1-eth0`.
/// `peers[i]` is the far end of interface `i`, `None` when unconnected.
pub fn net_line(node: &str, intfs: &[(&str, Option<&str>)]) -> String {
    let mut s = node.to_string();
    for (i, peer) in intfs {
        s.push_str(&format!(" {i}:"));
        match peer {
            Some(p) => s.push_str(p),
            None => s.push(' '),
        }
    }
    s
}

/// `h1-eth0<->s1-eth1 (OK OK) `
pub fn link_line(a: &str, b: &str, a_ok: bool, b_ok: bool) -> String {
    let st = |ok: bool| if ok { "OK" } else { "MISSING" };
    format!("{a}<->{b} ({} {}) ", st(a_ok), st(b_ok))
}

/// `<Host h1: h1-eth0:10.0.0.1 pid=1234> `
pub fn dump_line(class: &str, node: &str, intfs: &[(&str, Option<String>)], pid: u32) -> String {
    let l: Vec<String> = intfs
        .iter()
        .map(|(n, ip)| format!("{n}:{}", ip.as_deref().unwrap_or("None")))
        .collect();
    format!("<{class} {node}: {} pid={pid}> ", l.join(","))
}

/// `s1 lo:0 s1-eth1:1 s1-eth2:2 `
pub fn ports_line(node: &str, ports: &[(&str, usize)]) -> String {
    let mut s = format!("{node} ");
    for (i, p) in ports {
        s.push_str(&format!("{i}:{p} "));
    }
    s
}

/// Python `cmd.Cmd.columnize` with its default width, for `help`.
pub fn columnize(list: &[&str], displaywidth: usize) -> Vec<String> {
    let size = list.len();
    if size == 0 {
        return vec!["<empty>".into()];
    }
    if size == 1 {
        return vec![list[0].to_string()];
    }
    let mut chosen = None;
    for nrows in 1..size {
        let ncols = size.div_ceil(nrows);
        let mut colwidths = Vec::new();
        let mut tot: isize = -2;
        for col in 0..ncols {
            let mut w = 0;
            for row in 0..nrows {
                let i = row + nrows * col;
                if i >= size {
                    break;
                }
                w = w.max(list[i].len());
            }
            colwidths.push(w);
            tot += w as isize + 2;
            if tot > displaywidth as isize {
                break;
            }
        }
        if tot <= displaywidth as isize {
            chosen = Some((nrows, ncols, colwidths));
            break;
        }
    }
    let (nrows, ncols, colwidths) = chosen.unwrap_or((size, 1, vec![0]));
    (0..nrows)
        .map(|row| {
            let mut texts: Vec<&str> = (0..ncols)
                .map(|col| list.get(row + nrows * col).copied().unwrap_or(""))
                .collect();
            while texts.last().is_some_and(|t| t.is_empty()) {
                texts.pop();
            }
            let cells: Vec<String> = texts
                .iter()
                .enumerate()
                .map(|(c, t)| format!("{t:<w$}", w = colwidths[c]))
                .collect();
            cells.join("  ")
        })
        .collect()
}

/// Parse `ping` output the way Mininet's `_parsePingFull` does:
/// (sent, received, [min, avg, max, mdev] ms).
pub fn parse_ping(out: &str) -> (u64, u64, [f64; 4]) {
    const ERR: (u64, u64, [f64; 4]) = (1, 0, [0.0; 4]);
    if out.contains("nreachable") {
        return ERR;
    }
    let Some(pos) = out.find(" packets transmitted, ") else {
        return ERR;
    };
    let sent: u64 = out[..pos]
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let rest = &out[pos + " packets transmitted, ".len()..];
    let received: u64 = rest
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut rtt = [0.0; 4];
    if let Some(p) = out.find("rtt min/avg/max/mdev = ") {
        let nums = out[p + 23..].split(' ').next().unwrap_or("");
        for (i, v) in nums.split('/').take(4).enumerate() {
            rtt[i] = v.parse().unwrap_or(0.0);
        }
    }
    (sent, received, rtt)
}

/// Longest duration a command accepts (flow, pingall timeout), seconds.
pub const MAX_SECONDS: f64 = 86_400.0;
/// Largest byte count `flow` accepts (1 TB).
pub const MAX_BYTES: f64 = 1e12;
/// Largest number `parse_bw` accepts (1e15: 1 Pbit/s); iperfudp is further
/// capped at the host link rate.
pub const MAX_BPS: f64 = 1e15;

/// `10M` (bytes, decimal suffixes) or `2s` / `0.5s` (seconds).
pub fn parse_amount(s: &str) -> Option<crate::traffic::probe::Amount> {
    if let Some(secs) = s.strip_suffix('s') {
        return parse_seconds(secs).map(crate::traffic::probe::Amount::Seconds);
    }
    let b = parse_bw(s)?;
    (1.0..=MAX_BYTES)
        .contains(&b)
        .then_some(crate::traffic::probe::Amount::Bytes(b as u64))
}

/// Seconds: a finite number > 0 and at most [`MAX_SECONDS`] (so `inf`,
/// `nan`, `1e30` or `-1` are errors, never a panic or a run forever).
pub fn parse_seconds(s: &str) -> Option<f64> {
    let v: f64 = s.parse().ok()?;
    (v.is_finite() && v > 0.0 && v <= MAX_SECONDS).then_some(v)
}

/// `10M` / `1G` / `500K` / `1000000` -> bits/s.
pub fn parse_bw(s: &str) -> Option<f64> {
    let (num, mult) = match s.chars().last()? {
        'K' | 'k' => (&s[..s.len() - 1], 1e3),
        'M' | 'm' => (&s[..s.len() - 1], 1e6),
        'G' | 'g' => (&s[..s.len() - 1], 1e9),
        _ => (s, 1.0),
    };
    let v: f64 = num.parse().ok()?;
    let v = v * mult;
    (v.is_finite() && v > 0.0 && v <= MAX_BPS).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ping_strings_match_mininet() {
        assert_eq!(
            ping_row("h1", &[("h2", true), ("h3", true), ("h4", false)]),
            "h1 -> h2 h3 X "
        );
        assert_eq!(
            ping_results(56, 56),
            "*** Results: 0% dropped (56/56 received)"
        );
        assert_eq!(
            ping_results(12, 4),
            "*** Results: 66% dropped (4/12 received)"
        );
        assert_eq!(
            ping_results(3, 1),
            "*** Results: 66% dropped (1/3 received)"
        );
        assert_eq!(
            ping_results(56, 55),
            "*** Results: 1% dropped (55/56 received)"
        );
        assert_eq!(
            ping_results(2, 0),
            "*** Results: 100% dropped (0/2 received)"
        );
        assert_eq!(ping_results(0, 0), "*** Warning: No packets sent");
        assert_eq!(
            ping_full_line("h1", "h2", 1, 1, [0.025, 0.025, 0.025, 0.0]),
            " h1->h2: 1/1, rtt min/avg/max/mdev 0.025/0.025/0.025/0.000 ms"
        );
    }

    #[test]
    fn iperf_strings_match_mininet() {
        assert_eq!(rate(8.2e9), "8.20 Gbits/sec");
        assert_eq!(rate(941e6), "941 Mbits/sec");
        assert_eq!(rate(94.1e6), "94.1 Mbits/sec");
        // iperf picks the unit before rounding, so this stays in Mbits.
        assert_eq!(rate(999.99e6), "1000 Mbits/sec");
        assert_eq!(rate(512.0), "512 bits/sec");
        assert_eq!(
            iperf_results(&["8.20 Gbits/sec".into(), "8.21 Gbits/sec".into()]),
            "*** Results: ['8.20 Gbits/sec', '8.21 Gbits/sec']"
        );
        assert_eq!(
            iperf_results(&[
                "10M".into(),
                "9.98 Mbits/sec".into(),
                "10.0 Mbits/sec".into()
            ]),
            "*** Results: ['10M', '9.98 Mbits/sec', '10.0 Mbits/sec']"
        );
        assert_eq!(
            iperf_header("TCP", "h1", "h2"),
            "*** Iperf: testing TCP bandwidth between h1 and h2 "
        );
    }

    #[test]
    fn topology_strings_match_mininet() {
        let names: Vec<String> = ["s1", "h10", "h2", "h1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(nodes(&names), "available nodes are: \nh1 h10 h2 s1");
        assert_eq!(
            net_line("h1", &[("h1-eth0", Some("s1-eth1"))]),
            "h1 h1-eth0:s1-eth1"
        );
        assert_eq!(
            net_line("s1", &[("lo", None), ("s1-eth1", Some("h1-eth0"))]),
            "s1 lo:  s1-eth1:h1-eth0"
        );
        assert_eq!(
            link_line("h1-eth0", "s1-eth1", true, true),
            "h1-eth0<->s1-eth1 (OK OK) "
        );
        assert_eq!(
            dump_line("Host", "h1", &[("h1-eth0", Some("10.0.0.1".into()))], 42),
            "<Host h1: h1-eth0:10.0.0.1 pid=42> "
        );
        assert_eq!(
            dump_line(
                "OpticalToR",
                "s1",
                &[("lo", Some("127.0.0.1".into())), ("s1-eth1", None)],
                7
            ),
            "<OpticalToR s1: lo:127.0.0.1,s1-eth1:None pid=7> "
        );
        assert_eq!(
            ports_line("s1", &[("lo", 0), ("s1-eth1", 1)]),
            "s1 lo:0 s1-eth1:1 "
        );
        assert_eq!(elapsed(0.009484), "*** Elapsed time: 0.009484 secs");
    }

    #[test]
    fn columnize_matches_python_cmd() {
        // Python: cmd.Cmd().columnize(['EOF','dump','exit','help'], 79)
        // prints one row: "EOF  dump  exit  help".
        assert_eq!(
            columnize(&["EOF", "dump", "exit", "help"], 79),
            vec!["EOF  dump  exit  help"]
        );
        let many: Vec<String> = (0..30).map(|i| format!("command{i:02}")).collect();
        let refs: Vec<&str> = many.iter().map(|s| s.as_str()).collect();
        let rows = columnize(&refs, 79);
        assert!(rows.iter().all(|r| r.len() <= 79));
        assert_eq!(rows.len(), 5); // 7 columns of 9 + 2 spaces
        assert!(rows[0].starts_with("command00  command05"));
    }

    #[test]
    fn ping_output_parses_like_mininet() {
        let ok = "PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.045 ms\n\n--- 10.0.0.2 ping statistics ---\n1 packets transmitted, 1 received, 0% packet loss, time 0ms\nrtt min/avg/max/mdev = 0.045/0.045/0.045/0.000 ms\n";
        assert_eq!(parse_ping(ok), (1, 1, [0.045, 0.045, 0.045, 0.0]));
        let lost = "--- 10.0.0.9 ping statistics ---\n1 packets transmitted, 0 received, 100% packet loss, time 0ms\n";
        assert_eq!(parse_ping(lost), (1, 0, [0.0; 4]));
        assert_eq!(
            parse_ping("connect: Network is unreachable"),
            (1, 0, [0.0; 4])
        );
    }
}
