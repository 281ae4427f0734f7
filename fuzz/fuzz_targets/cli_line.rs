//! The CLI line parser: any line (nested `time`, `noecho`, arguments of
//! every verb) gives output or an error, never a panic or a stack overflow.
//! The CLI runs sandboxed (no shell, no files) on a plan with no namespaces:
//! commands that would touch a host fail to enter its namespace.
#![no_main]

use lh_emu::cli::{Cli, Tools};
use lh_emu::net::Network;
use lh_emu::plan::Plan;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A prefix no run uses: lh + 4 hex digits is reserved for runs, so
    // "lhfuzz" can never name a real namespace.
    let mut net = Network::offline(Plan::new(2, 2), "lhfuzz");
    net.set_output(Box::new(std::io::sink()));
    net.tools = Tools::none();
    let mut cli = Cli::new(&mut net);
    cli.stdout = Box::new(std::io::sink());
    cli.sandbox = true;
    for line in text.lines().take(8) {
        let _ = cli.onecmd(line);
    }
    let _ = lh_emu::cli::parse_amount(text);
    let _ = lh_emu::cli::parse_bw(text);
    let _ = lh_emu::cli::parse_seconds(text);
});
