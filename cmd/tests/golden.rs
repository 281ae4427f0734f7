//! Golden test of the CLI's output (issue 20, "behaviour unchanged"):
//! `scripts/demo.lh` and `tests/golden/every-verb.lh` (every CLI verb, with
//! some of their errors) run on `topologies/rotornet-8.json`; their output,
//! stdout and stderr merged in the order written, with what varies from run
//! to run masked ([`mask`]), must equal `tests/golden/demo.out` and
//! `tests/golden/every-verb.out` byte for byte.
//!
//! Needs root (live namespaces), `iperf3` and `memcached` (scripts/setup.sh);
//! otherwise it prints `SKIPPED golden: needs root` (or names the missing
//! tool) and passes. Environment (see tests/golden/README.md):
//!
//! * `LH_BLESS=1` rewrites the golden files from this run instead of
//!   comparing (after checking that all `LH_GOLDEN_RUNS` runs agree).
//! * `LH_GOLDEN_BIN=PATH` runs that `lighthouse` binary instead of this
//!   build's (the golden files were blessed from the binary as it was before
//!   the emu/ restructure).
//! * `LH_GOLDEN_RUNS=N` runs each script N times (default 1); every run must
//!   match.
//!
//! On a mismatch it prints a diff of the first differing lines and leaves the
//! raw and masked output in `target/tmp/golden/`.
//!
//! Self-contained (std, tempfile, libc): the test moves with the binary's
//! crate.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One live run at a time: two at once on a small machine change timing
/// (pings past the timeout) more than the masks allow for.
static LIVE: Mutex<()> = Mutex::new(());

/// A run that takes longer is stuck: it is stopped (SIGTERM, so it tears
/// down) and the test fails.
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("emu/ is in the workspace")
        .to_path_buf()
}

fn binary() -> PathBuf {
    match std::env::var_os("LH_GOLDEN_BIN") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(env!("CARGO_BIN_EXE_lighthouse")),
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

fn bless() -> bool {
    std::env::var("LH_BLESS").is_ok_and(|v| v == "1")
}

fn runs() -> usize {
    std::env::var("LH_GOLDEN_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n >= 1)
        .unwrap_or(1)
}

fn scratch_root() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("golden");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `lighthouse run topologies/rotornet-8.json --script SCRIPT` in a fresh
/// scratch directory (the files every-verb.lh writes are relative names),
/// without `$DISPLAY` (xterm's answer depends on it) or log settings. Both
/// streams go to one file, so the text is in the order it was written; the
/// exit status is the last line.
fn run_script(script: &Path) -> String {
    let dir = tempfile::Builder::new()
        .prefix("run-")
        .tempdir_in(scratch_root())
        .unwrap();
    let out_path = dir.path().join("output");
    let out = File::create(&out_path).unwrap();
    let mut child = Command::new(binary())
        .arg("run")
        .arg(workspace().join("topologies/rotornet-8.json"))
        .arg("--script")
        .arg(script)
        .current_dir(dir.path())
        .env_remove("DISPLAY")
        .env_remove("LIGHTHOUSE_LOG")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", binary().display()));
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > RUN_TIMEOUT {
            // SAFETY: kill on the pid of our own child, not yet reaped.
            unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
            let _ = child.wait();
            panic!(
                "{} did not end within {RUN_TIMEOUT:?}; output so far:\n{}",
                script.display(),
                std::fs::read_to_string(&out_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut text = String::from_utf8_lossy(&std::fs::read(&out_path).unwrap()).into_owned();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    match status.code() {
        Some(c) => text.push_str(&format!("[exit status {c}]\n")),
        None => text.push_str(&format!("[ended by {status}]\n")),
    }
    text
}

// ---------------------------------------------------------------- masking

/// Replaces what differs between runs of the same script with placeholders
/// (`<N>` a number, `<N>.###` one printed with 3 decimals, `<RATE>` an
/// iperf-style rate with its unit, `<PID>`, `<PREFIX>`), and keeps everything else: which lines appear, words, node
/// names, and every count that is the same in every run (pingall's
/// `*** Results: 0% dropped (240/240 received)`, the packet counters
/// before any TCP traffic, flow counts, table entries). Each rule says why
/// it exists.
pub fn mask(text: &str) -> String {
    let mut m = Masker::default();
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        out.push_str(&m.line(body));
        out.push_str(nl);
    }
    out
}

#[derive(Default)]
struct Masker {
    /// TCP (or UDP) traffic has run: from then on the data plane's counters
    /// depend on timing (retransmissions, `queue_full` drops, frames in
    /// flight), so they are masked. Before it they are exact: pings and
    /// ARP only, the same in every run.
    traffic: bool,
    /// The previous line was `help schedule`'s usage line: every-verb.lh
    /// puts it right before a bare `schedule`, whose slice is the one
    /// current when it runs.
    after_schedule_help: bool,
    /// Inside that current slice's circuit list.
    in_current_slice: bool,
}

impl Masker {
    fn line(&mut self, l: &str) -> String {
        // The run prefix (`lh` + 4 random hex digits, docs/cli.md) names the
        // namespaces: random per run.
        let l = mask_prefix(l);
        // Pids (`dump`'s `pid=N`: a host's process, the data-plane thread)
        // differ per run.
        let l = replace_number_after(&l, "pid=", "<PID>");

        let after_help = std::mem::take(&mut self.after_schedule_help);
        if l == "       Usage: schedule [ts]" {
            self.after_schedule_help = true;
        }
        // `schedule` without a slice: the current slice (its number and so
        // its circuits' far ends) depends on when the command ran.
        if after_help && l.starts_with("*** Slice ") && l.contains(" (") {
            self.in_current_slice = true;
            return mask_nums(&l, |i, _| i != 0, false);
        }
        if self.in_current_slice {
            if l.contains(" -> s") && l.ends_with(')') {
                return mask_circuit_target(&l);
            }
            self.in_current_slice = false;
        }

        if l.starts_with("*** Flow ")
            || l.starts_with("*** Iperf:")
            || l.starts_with("*** Flows:")
            || l.starts_with("*** memcached on ")
            || l.starts_with("*** Allreduce ")
        {
            self.traffic = true;
        }

        // Wall-clock times: `time`'s line and the run's total.
        if l.starts_with("*** Elapsed time: ") || l.starts_with("completed in ") {
            return mask_nums(&l, |_, _| false, false);
        }
        // `slice`: which slice and cycle is current depends on when it ran
        // (the slice count, "of 7", is fixed).
        if l.starts_with("*** Slice ") && l.contains(", cycle ") {
            return mask_nums(&l, |i, _| i == 1, false);
        }
        // ping's RTTs (`time=0.108 ms`), its total time (`time 257ms`) and
        // summaries (`rtt min/avg/max/mdev = a/b/c/d ms`, and pingallfull's
        // `h1->h2: 1/1, rtt min/avg/max/mdev a/b/c/d ms`, whose 1/1 stays):
        // the RTT depends on where in the slice cycle a ping lands.
        // (ping prints `time=` to 3 significant digits, 0.108 or 3.08, so
        // that one is masked whole.)
        if l.contains(": icmp_seq=") {
            return replace_number_after(&l, "time=", "<N>");
        }
        if l.contains(" packets transmitted, ")
            && let Some(i) = l.rfind(", time ")
        {
            let (a, b) = l.split_at(i + ", time ".len());
            return format!("{a}{}", mask_nums(b, |_, _| false, false));
        }
        if let Some(i) = l.find("rtt min/avg/max/mdev") {
            let (a, b) = l.split_at(i);
            return format!("{a}{}", mask_nums(b, |_, _| false, false));
        }
        // `flow` and `iperf`/`iperfudp` results: completion times and rates
        // depend on timing (a rate's unit too: Mbits or Gbits). A flow of a
        // size keeps its byte count (the size asked for); a flow of a time
        // (`flow h1 h2 0.3s`) writes whole 128 KiB buffers until the time
        // is up, so its byte count is a multiple of 131072 that depends on
        // the rate, and is masked. (Sizes in the scripts are powers of ten
        // times a small number, never such a multiple.)
        if l.starts_with("*** Flow ") {
            let l = mask_rates(&l);
            return mask_nums(
                &l,
                |i, n| i == 0 && n.parse::<u64>().is_ok_and(|b| b % 131072 != 0),
                false,
            );
        }
        if l.starts_with("*** Results: ['") {
            return mask_rates(&l);
        }
        // `flows`/`memcached` FCT table rows: flows and completed counts are
        // fixed (seeded arrivals, a fixed SET count), the percentiles are
        // times. Columns are right-aligned, so a masked number's padding
        // (which depends on its width) is folded into one space.
        if ["mice ", "medium ", "elephants ", "all "]
            .iter()
            .any(|p| l.starts_with(p))
        {
            return mask_nums(&l, |i, _| i < 2, true);
        }
        // Goodput, retransmissions, timeouts, reordering and out-of-order
        // packets come from TCP_INFO and vary; "A of B flows completed"
        // is fixed.
        if l.starts_with("goodput ") {
            return mask_nums(&l, |i, _| i == 1 || i == 2, false);
        }
        if l.starts_with("*** Flows done in ") || l.starts_with("bus bandwidth at ") {
            return mask_nums(&l, |_, _| false, false);
        }
        // memcached's and allreduce's percentiles are times; `n N` (how
        // many SETs or iterations) and the SET count are fixed.
        if l.starts_with("SET latency: n ")
            || l.starts_with("completion: n ")
            || (l.starts_with("*** memcached: ") && l.contains(" SETs stored in "))
        {
            return mask_nums(&l, |i, _| i == 0, false);
        }
        // `pcap stop`: the captures in every-verb.lh span a TCP flow, whose
        // segment and ACK counts vary.
        if l.starts_with("*** ") && l.contains(".pcap: ") && l.ends_with(" frames") {
            return mask_nums(&l, |_, _| false, false);
        }
        // `drops` and the final `*** Fabric:` line once TCP has run (see
        // `traffic`); the words, the reasons' order and "OK" stay.
        if self.traffic && is_counter_line(&l) {
            return mask_nums(&l, |_, _| false, false);
        }
        l
    }
}

/// A line of the data plane's counters (`drops`, the teardown's summary).
fn is_counter_line(l: &str) -> bool {
    if l.starts_with("*** sent ")
        || l.starts_with("*** conservation: ")
        || l.starts_with("*** Fabric: sent ")
        || l.starts_with("  ToR-side veths: ")
        || l.starts_with("  host-side veths: ")
    {
        return true;
    }
    // `  queue_full       3522`, `  port_drops       0   (...)`
    let Some(r) = l.strip_prefix("  ") else {
        return false;
    };
    let name_len = r
        .bytes()
        .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
        .count();
    let rest = &r[name_len..];
    name_len > 0
        && rest.starts_with(' ')
        && rest.trim_start().starts_with(|c: char| c.is_ascii_digit())
}

/// Spans `(start, end)` of the numbers in `l`: digit runs with optional
/// `.digits` parts, not glued to a preceding letter, digit, `_` or `.` (so
/// `h1`, `up0`, `eth1`, `p50` are names, not numbers).
fn numbers(l: &str) -> Vec<(usize, usize)> {
    let b = l.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let glued =
            i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'.');
        if !b[i].is_ascii_digit() || glued {
            i += 1;
            continue;
        }
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        while i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        v.push((s, i));
    }
    v
}

/// `l` with each number replaced by its [`placeholder`] unless
/// `keep(index, text)`; with `fold`, the spaces before a masked number
/// become one.
fn mask_nums(l: &str, keep: impl Fn(usize, &str) -> bool, fold: bool) -> String {
    let mut out = String::with_capacity(l.len());
    let mut last = 0;
    for (k, (s, e)) in numbers(l).into_iter().enumerate() {
        if keep(k, &l[s..e]) {
            continue;
        }
        let mut before = &l[last..s];
        if fold && before.ends_with("  ") {
            before = before.trim_end_matches(' ');
            out.push_str(before);
            out.push(' ');
        } else {
            out.push_str(before);
        }
        out.push_str(&placeholder(&l[s..e]));
        last = e;
    }
    out.push_str(&l[last..]);
    out
}

/// `<N>` for an integer; for a decimal, `<N>.` and a `#` per decimal
/// place: the value varies, its format (`{:.3}` ms, `{:.6}` secs) does not,
/// and a change of format is a change of behaviour.
fn placeholder(n: &str) -> String {
    match n.split_once('.') {
        Some((_, f)) => format!("<N>.{}", "#".repeat(f.len())),
        None => "<N>".to_string(),
    }
}

/// The number right after each `marker` becomes `placeholder`.
fn replace_number_after(l: &str, marker: &str, placeholder: &str) -> String {
    let mut out = String::with_capacity(l.len());
    let mut rest = l;
    while let Some(i) = rest.find(marker) {
        let after = &rest[i + marker.len()..];
        let n = after
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        out.push_str(&rest[..i + marker.len()]);
        if n > 0 {
            out.push_str(placeholder);
        }
        rest = &after[n..];
    }
    out.push_str(rest);
    out
}

/// `lh3f2a` (a whole word, or before `-`/`:`) becomes `<PREFIX>`.
fn mask_prefix(l: &str) -> String {
    let b = l.as_bytes();
    let mut out = String::with_capacity(l.len());
    let mut i = 0;
    let mut last = 0;
    while i + 6 <= b.len() {
        let start_ok = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let end_ok = i + 6 == b.len() || !(b[i + 6].is_ascii_alphanumeric() || b[i + 6] == b'_');
        let hex = b[i + 2..i + 6]
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c));
        if start_ok && end_ok && &b[i..i + 2] == b"lh" && hex {
            out.push_str(&l[last..i]);
            out.push_str("<PREFIX>");
            i += 6;
            last = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&l[last..]);
    out
}

/// `9.41 Gbits/sec`, `941 Mbits/sec`, `512 Kbits/sec`, `12 bits/sec`
/// (format::rate) become `<RATE>`: the unit moves with the value.
fn mask_rates(l: &str) -> String {
    let mut out = String::with_capacity(l.len());
    let mut last = 0;
    for (s, e) in numbers(l) {
        let tail = &l[e..];
        let unit = ["Gbits/sec", "Mbits/sec", "Kbits/sec", "bits/sec"]
            .iter()
            .find_map(|u| tail.strip_prefix(' ')?.strip_prefix(u).map(|_| u.len() + 1));
        if let Some(ul) = unit {
            out.push_str(&l[last..s]);
            out.push_str("<RATE>");
            last = e + ul;
        }
    }
    out.push_str(&l[last..]);
    out
}

/// `s1 up0 -> s7 up0 (reconfigured)` becomes `s1 up0 -> s<N> up0 (...)`.
fn mask_circuit_target(l: &str) -> String {
    let Some(i) = l.find(" -> s") else {
        return l.to_string();
    };
    let (a, b) = l.split_at(i + " -> s".len());
    let n = b.bytes().take_while(|c| c.is_ascii_digit()).count();
    format!("{a}<N>{}", &b[n..])
}

// ----------------------------------------------------------------- diffing

/// A unified-style diff of the first differing lines (LCS over lines; the
/// outputs are a few hundred lines).
fn diff(expected: &str, actual: &str, max_lines: usize) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: LCS length of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // Edit script: (' ' | '-' | '+', line number in expected, text).
    let mut ops: Vec<(char, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push((' ', i, a[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', i, a[i]));
            i += 1;
        } else {
            ops.push(('+', i, b[j]));
            j += 1;
        }
    }
    let mut out = String::from("--- expected (golden)\n+++ actual (masked)\n");
    let mut shown = 0;
    let mut k = 0;
    while k < ops.len() && shown < max_lines {
        if ops[k].0 == ' ' {
            k += 1;
            continue;
        }
        // One hunk: this change and those within 6 unchanged lines of it,
        // with 3 lines of context on each side.
        let from = k.saturating_sub(3);
        let mut end = k;
        let mut t = k + 1;
        while t < ops.len() && t - end <= 6 {
            if ops[t].0 != ' ' {
                end = t;
            }
            t += 1;
        }
        let to = ops.len().min(end + 4);
        out.push_str(&format!("@@ expected line {} @@\n", ops[from].1 + 1));
        for o in &ops[from..to] {
            out.push_str(&format!("{}{}\n", o.0, o.2));
            shown += 1;
            if shown >= max_lines {
                out.push_str("... (more differences)\n");
                break;
            }
        }
        k = to;
    }
    out
}

// ------------------------------------------------------------------- tests

/// Runs `script` (workspace-relative) `runs()` times and compares each
/// masked output with `golden` (workspace-relative), or blesses it.
fn check(name: &str, script: &str, golden: &str) {
    if !is_root() {
        eprintln!("SKIPPED golden: needs root ({name}: live network namespaces)");
        return;
    }
    // every-verb's iperf and memcached print other text without these
    // (scripts/setup.sh installs both).
    if let Some(t) = ["iperf3", "memcached"].iter().find(|t| !on_path(t)) {
        eprintln!("SKIPPED golden: {t} is not installed ({name}; scripts/setup.sh)");
        return;
    }
    let _live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let script = workspace().join(script);
    let golden = workspace().join(golden);
    let mut first: Option<String> = None;
    for r in 1..=runs() {
        let raw = run_script(&script);
        let masked = mask(&raw);
        let keep = scratch_root();
        std::fs::write(keep.join(format!("{name}.{r}.raw")), &raw).unwrap();
        std::fs::write(keep.join(format!("{name}.{r}.masked")), &masked).unwrap();
        let expected = if bless() {
            match &first {
                None => {
                    first = Some(masked.clone());
                    continue;
                }
                Some(f) => f.clone(),
            }
        } else {
            std::fs::read_to_string(&golden)
                .unwrap_or_else(|e| panic!("{}: {e} (LH_BLESS=1 writes it)", golden.display()))
        };
        if masked != expected {
            panic!(
                "{name}: run {r} of {} ({}) differs from {}:\n{}\nraw and masked output: {}/{name}.{r}.raw, .masked\n\
                 if the change is intended: LH_BLESS=1 cargo test --release -p lighthouse-cmd --test golden",
                runs(),
                binary().display(),
                if bless() {
                    "run 1 (blessing)"
                } else {
                    golden.to_str().unwrap()
                },
                diff(&expected, &masked, 60),
                keep.display(),
            );
        }
        eprintln!("golden {name}: run {r} of {} matches", runs());
    }
    if let Some(f) = first {
        std::fs::write(&golden, f).unwrap();
        eprintln!(
            "golden {name}: blessed {} from {}",
            golden.display(),
            binary().display()
        );
    }
}

#[test]
fn demo_output_is_unchanged() {
    check("demo", "scripts/demo.lh", "tests/golden/demo.out");
}

#[test]
fn every_verb_output_is_unchanged() {
    check(
        "every-verb",
        "tests/golden/every-verb.lh",
        "tests/golden/every-verb.out",
    );
}

/// The masks on lines of the kinds the scripts print (no root needed).
#[test]
fn masks_what_varies_and_keeps_the_rest() {
    let cases = [
        (
            "*** Run lh6021: namespaces lh6021-h1..h16 and lh6021-fab",
            "*** Run <PREFIX>: namespaces <PREFIX>-h1..h16 and <PREFIX>-fab",
        ),
        (
            "<Host h1: h1-eth0:10.0.0.1 pid=7441> ",
            "<Host h1: h1-eth0:10.0.0.1 pid=<PID>> ",
        ),
        (
            "*** Slice 4 of 7, cycle 127",
            "*** Slice <N> of 7, cycle <N>",
        ),
        (
            "*** Slice 3 of 7 (100us, guardband 10us)",
            "*** Slice 3 of 7 (100us, guardband 10us)",
        ),
        (
            "64 bytes from 10.0.0.3: icmp_seq=1 ttl=64 time=0.108 ms",
            "64 bytes from 10.0.0.3: icmp_seq=1 ttl=64 time=<N> ms",
        ),
        (
            "14 packets transmitted, 14 received, 0% packet loss, time 257ms",
            "14 packets transmitted, 14 received, 0% packet loss, time <N>ms",
        ),
        (
            " h8->h6: 1/1, rtt min/avg/max/mdev 0.336/0.336/0.336/0.000 ms",
            " h8->h6: 1/1, rtt min/avg/max/mdev <N>.###/<N>.###/<N>.###/<N>.### ms",
        ),
        (
            "*** Results: 0% dropped (240/240 received)",
            "*** Results: 0% dropped (240/240 received)",
        ),
        (
            "*** Flow h1 -> h3: 100000 bytes in 8.997 ms, 99.0 Mbits/sec (receiver), 1.36 Gbits/sec (sender)",
            "*** Flow h1 -> h3: 100000 bytes in <N>.### ms, <RATE> (receiver), <RATE> (sender)",
        ),
        (
            "*** Flow h2 -> h5: 4587520 bytes in 350.733 ms, 105 Mbits/sec (receiver), 121 Mbits/sec (sender)",
            "*** Flow h2 -> h5: <N> bytes in <N>.### ms, <RATE> (receiver), <RATE> (sender)",
        ),
        (
            "*** Results: ['10M', '9.96 Mbits/sec', '9.96 Mbits/sec']",
            "*** Results: ['10M', '<RATE>', '<RATE>']",
        ),
        (
            "mice          503    503    653.159   1194.453   1821.350   2019.169",
            "mice          503    503 <N>.### <N>.### <N>.### <N>.###",
        ),
        (
            "elephants       0      0          -          -          -          -",
            "elephants       0      0          -          -          -          -",
        ),
        (
            "goodput 213.1 Mb/s, 914 of 915 flows completed, 16946 retransmitted segments, 781 timeouts, 7 reordering events, 14330 out-of-order packets",
            "goodput <N>.# Mb/s, 914 of 915 flows completed, <N> retransmitted segments, <N> timeouts, <N> reordering events, <N> out-of-order packets",
        ),
        (
            "SET latency: n 40 p50 0.101 ms, p95 0.717 ms, p99 5.392 ms, max 5.392 ms",
            "SET latency: n 40 p50 <N>.### ms, p95 <N>.### ms, p99 <N>.### ms, max <N>.### ms",
        ),
        (
            "*** h1-eth0 -> h1.pcap: 117 frames",
            "*** h1-eth0 -> h1.pcap: <N> frames",
        ),
        (
            "*** Elapsed time: 0.000036 secs",
            "*** Elapsed time: <N>.###### secs",
        ),
        (
            "completed in 14.596 seconds",
            "completed in <N>.### seconds",
        ),
        // Counters before any TCP traffic stay.
        ("  queue_full       0", "  queue_full       0"),
        ("  not_ipv4         0", "  not_ipv4         0"),
        (
            "*** sent 508 delivered 508 queued 0 dropped 0",
            "*** sent 508 delivered 508 queued 0 dropped 0",
        ),
    ];
    for (raw, want) in cases {
        assert_eq!(mask(&format!("{raw}\n")), format!("{want}\n"), "{raw}");
    }
    // After a TCP flow, the counters are masked.
    let t = "*** Flow h1 -> h3: 100000 bytes in 8.997 ms, 99.0 Mbits/sec (receiver), 436 Mbits/sec (sender)\n\
             *** sent 169068 delivered 151551 queued 0 dropped 17517\n  queue_full       17516\n\
             *** conservation: sent 169068 = delivered 151551 + dropped 17517 + queued 0: OK\n";
    let m = mask(t);
    assert!(
        m.contains("*** sent <N> delivered <N> queued <N> dropped <N>\n"),
        "{m}"
    );
    assert!(m.contains("  queue_full       <N>\n"), "{m}");
    let m6 = mask(&format!("{t}  ipv6             3\n"));
    assert!(m6.ends_with("  ipv6             <N>\n"), "{m6}");
    assert!(m.ends_with("+ queued <N>: OK\n"), "{m}");
    // `schedule` after `help schedule`: the current slice.
    let s = "       Usage: schedule [ts]\n*** Slice 5 of 7 (100us, guardband 10us)\ns1 up0 -> s4 up0 (reconfigured)\n*** Bad slice 99: expected 0..6\n";
    assert_eq!(
        mask(s),
        "       Usage: schedule [ts]\n*** Slice <N> of 7 (100us, guardband 10us)\ns1 up0 -> s<N> up0 (reconfigured)\n*** Bad slice 99: expected 0..6\n"
    );
    // The diff names the first difference.
    let d = diff("a\nb\nc\n", "a\nB\nc\n", 10);
    assert!(d.contains("-b\n+B\n"), "{d}");
}

/// Masks the raw output the last runs kept in target/tmp/golden/ again and
/// compares it with the golden files: for working on the masks without new
/// live runs (`cargo test --release -p lighthouse-cmd --test golden --
/// --ignored remask`). No root needed.
#[test]
#[ignore]
fn remask_kept_runs() {
    let keep = scratch_root();
    let mut checked = 0;
    let mut failed = Vec::new();
    for (name, golden) in [
        ("demo", "tests/golden/demo.out"),
        ("every-verb", "tests/golden/every-verb.out"),
    ] {
        let expected = std::fs::read_to_string(workspace().join(golden)).unwrap();
        for r in 1.. {
            let Ok(raw) = std::fs::read_to_string(keep.join(format!("{name}.{r}.raw"))) else {
                break;
            };
            checked += 1;
            let masked = mask(&raw);
            if masked != expected {
                eprintln!("{name}.{r}.raw:\n{}", diff(&expected, &masked, 40));
                failed.push(format!("{name}.{r}"));
            }
        }
    }
    eprintln!("remasked {checked} kept runs");
    assert!(
        failed.is_empty(),
        "differ from the golden files: {failed:?}"
    );
}
