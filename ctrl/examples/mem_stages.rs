//! Peak and current RSS before each compile stage and at the end:
//! `cargo run --release -p lighthouse-ctrl --example mem_stages -- CONFIG`.

fn status(tag: &str) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let get = |k: &str| {
        s.lines()
            .find(|l| l.starts_with(k))
            .map(|l| l[k.len()..].trim().to_string())
            .unwrap_or_default()
    };
    println!(
        "{tag:<10} rss {:>12} peak {:>12}",
        get("VmRSS:"),
        get("VmHWM:")
    );
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: mem_stages CONFIG");
    let cfg = lh_ctrl::config::Config::load(std::path::Path::new(&path)).expect("valid config");
    let c = lh_ctrl::compile::compile_with_progress(&cfg, status).expect("compiles");
    status("done");
    println!(
        "paths {} ({} MiB), tables {} entries ({} MiB)",
        c.routes.paths.len(),
        c.routes.paths.heap_bytes() >> 20,
        c.tables.total_entries(),
        c.tables.heap_bytes() >> 20
    );
}
