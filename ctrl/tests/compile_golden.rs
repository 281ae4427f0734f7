//! Compiling is deterministic and its output is pinned: a digest of the
//! routes and of the binary tables file (`tables.lht`, what `lighthouse
//! compile --out` writes) for the shipped small configs and for every
//! time-flow routing algorithm on rotornet-8, opera-8 and opera-108. The digests were
//! computed by the pipeline before its speed-ups (commit 58e5b1e), so any
//! optimisation that changes a path, an entry, an alternate or the file's
//! byte order fails here. A third digest pins the tables' meaning (every
//! entry's match and the steps of its action and alternates), taken at
//! 3fd32be: a change of representation (shared actions, say) re-pins the
//! file digest but must keep this one (the file digests of source-routed
//! configs were re-pinned so when their entries began to share actions).
//!
//! To re-pin after an intended change of output, run with
//! `LH_GOLDEN_PRINT=1 -- --nocapture` and paste the printed table.

use lh_ctrl::compile::compile;
use lh_ctrl::config::Config;
use std::path::PathBuf;

/// FNV-1a, 64 bits: stable across Rust versions (unlike `DefaultHasher`).
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
}

fn opt(v: Option<u64>) -> u64 {
    v.map_or(u64::MAX, |x| x)
}

/// (config file, routing.algorithm override, routes digest, tables file
/// digest, tables meaning digest).
#[rustfmt::skip]
const GOLDEN: &[(&str, &str, u64, u64, u64)] = &[
    ("c-through-8.json", "", 0x2e78c3340cb354fd, 0x4fa6b785e549d2fd, 0x64f782c4a2358b78),
    ("clos-8.json", "", 0x885b400906bbc365, 0x7a6c918017c25a56, 0xd3fa93ab186ad98c),
    ("jupiter-8.json", "", 0xda1767d651a89c4d, 0x99adefa97400c816, 0x698e5f8009624b84),
    ("mordia-8.json", "", 0x6db6c46b1c95500c, 0xcee2d15168729ceb, 0x36fdef56bec0724f),
    ("opera-8.json", "", 0x8ecdce87885ec6d7, 0xd746f4c45ae96f96, 0x8f0e1b5b531fc1ad),
    ("rotornet-8-1ms.json", "", 0x08e71545c9075392, 0x297081c9f9d0d993, 0x9e792ee4fa791ac2),
    ("rotornet-8-direct.json", "", 0x08e71545c9075392, 0x297081c9f9d0d993, 0x9e792ee4fa791ac2),
    ("rotornet-8-hoho.json", "", 0x3e36861ae3ab0c96, 0x9d57f4da07f54ef3, 0x4e16b19e45839597),
    ("rotornet-8-ucmp.json", "", 0x4629437ce8370edb, 0xbdff00a3ee408b14, 0x8b327f0c7b53f7bc),
    ("rotornet-8-vlb.json", "", 0x6861a6c861f9a442, 0xfd04ed4e9141d84b, 0x8b4f4541b2ec3f96),
    ("rotornet-8.json", "", 0x08e71545c9075392, 0x297081c9f9d0d993, 0x9e792ee4fa791ac2),
    ("shale-16.json", "", 0xdd76e927fdb267be, 0x54f614f3de1715ba, 0xc4ce287ba726489b),
    ("static-2.json", "", 0xf1b7050401f86556, 0xd9f8f4b40fce28e3, 0x930c6b7ac726cd2e),
    ("opera-8.json", "direct", 0xde8ceb1ff7d37bca, 0x7e658850dc498115, 0xfe4acf4d9888e67d),
    ("opera-8.json", "vlb", 0xfb9d1aa1317dd108, 0x092799c3b5d33deb, 0xc9540bd1342f3707),
    ("opera-8.json", "hoho", 0x9ee886c42860750e, 0x39453c22d5b7e27f, 0xb4270dc633ebdab3),
    ("opera-8.json", "opera", 0x8ecdce87885ec6d7, 0xd746f4c45ae96f96, 0x8f0e1b5b531fc1ad),
    ("opera-8.json", "ucmp", 0x23a9f75fc90e332f, 0xd11e240b1a763112, 0x48de349047a76cce),
    ("rotornet-8.json", "direct", 0x08e71545c9075392, 0x297081c9f9d0d993, 0x9e792ee4fa791ac2),
    ("rotornet-8.json", "vlb", 0x6861a6c861f9a442, 0xfd04ed4e9141d84b, 0x8b4f4541b2ec3f96),
    ("rotornet-8.json", "hoho", 0x3e36861ae3ab0c96, 0x9d57f4da07f54ef3, 0x4e16b19e45839597),
    ("rotornet-8.json", "opera", 0x4ecbf2a8efa093ba, 0xd97b0a33e9b4b39f, 0x41cf614f37a16d31),
    ("rotornet-8.json", "ucmp", 0x4629437ce8370edb, 0x414f7bcb7de00381, 0xeba1f532ff2811b6),
    ("opera-108.json", "direct", 0xc3dbb307feccfdc7, 0x96e5398050af45cb, 0xecb6a5f27ca2a179),
    ("opera-108.json", "vlb", 0xc8c44a2ff96a7721, 0x9e4246d6a7a78150, 0x9f5dff5a095853ea),
    ("opera-108.json", "hoho", 0x1f77a0d316956537, 0xed190c7c72a40283, 0xb1c9788c5c80000c),
    ("opera-108.json", "opera", 0x0773be38587f2838, 0xa1c506ecb70c9ad0, 0x7db3b13fea341010),
    ("opera-108.json", "ucmp", 0xd5a266037c5e7751, 0x9b268cf212e98cb3, 0x9623ad7fa0d3ded7),
];

fn config(file: &str, alg: &str) -> Config {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../topologies")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    if alg.is_empty() {
        return Config::from_json(&text, file).unwrap();
    }
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["routing"]["algorithm"] = serde_json::Value::String(alg.into());
    Config::from_json(&v.to_string(), file).unwrap()
}

/// The tables' meaning, independent of how actions and steps are shared:
/// every entry of every ToR in order, its match, and the steps of its
/// action and of each alternate.
fn meaning(t: &lh_ctrl::tables::FlatTables) -> u64 {
    let mut h = Fnv::new();
    let action = |h: &mut Fnv, a: lh_ctrl::tables::ActionRef<'_>| {
        h.u64(a.source as u64);
        h.u64(a.steps.len() as u64);
        for s in a.steps {
            h.u64(s.port as u64);
            h.u64(opt(s.depart.map(u64::from)));
        }
    };
    h.u64(t.slices as u64);
    for tt in &t.tors {
        h.u64(tt.tor as u64);
        h.u64(tt.len() as u64);
        for e in tt.iter() {
            h.u64(e.m.dst as u64);
            h.u64(opt(e.m.arrival.map(u64::from)));
            h.bytes(format!("{:?}", e.m.ingress).as_bytes());
            h.u64(opt(e.m.class.map(u64::from)));
            h.u64(opt(e.m.bucket.map(u64::from)));
            action(&mut h, e.action);
            h.u64(e.alternate_count() as u64);
            for a in e.alternates() {
                action(&mut h, a);
            }
        }
    }
    h.0
}

fn digests(cfg: &Config) -> (u64, u64, u64) {
    let c = compile(cfg).unwrap();
    let mut r = Fnv::new();
    r.u64(c.routes.paths.len() as u64);
    for p in &c.routes.paths {
        r.u64(p.src as u64);
        r.u64(p.dst as u64);
        r.u64(opt(p.arrival.map(u64::from)));
        r.u64(opt(p.class.map(u64::from)));
        r.u64(p.hops.len() as u64);
        for h in p.hops {
            r.u64(h.tor as u64);
            r.u64(h.port as u64);
            r.u64(opt(h.depart.map(u64::from)));
        }
    }
    for t in c.routes.classes.iter().flat_map(|c| &c.thresholds) {
        r.u64(*t);
    }
    let mut file = Vec::new();
    lh_ctrl::tables::file::write(&c.tables, &mut file).unwrap();
    // `compile --out` writes through write_file: the same bytes.
    let tmp = tempfile::tempfile().unwrap();
    lh_ctrl::tables::file::write_file(&c.tables, &tmp).unwrap();
    let mut written = Vec::new();
    std::io::Read::read_to_end(&mut &tmp, &mut written).unwrap();
    assert!(written == file, "write_file and write differ");
    let mut t = Fnv::new();
    t.bytes(&file);
    (r.0, t.0, meaning(&c.tables))
}

fn cases() -> Vec<(&'static str, &'static str)> {
    let mut v: Vec<(&str, &str)> = [
        "c-through-8.json",
        "clos-8.json",
        "jupiter-8.json",
        "mordia-8.json",
        "opera-8.json",
        "rotornet-8-1ms.json",
        "rotornet-8-direct.json",
        "rotornet-8-hoho.json",
        "rotornet-8-ucmp.json",
        "rotornet-8-vlb.json",
        "rotornet-8.json",
        "shale-16.json",
        "static-2.json",
    ]
    .iter()
    .map(|f| (*f, ""))
    .collect();
    // opera-108: the size `lighthouse compile` is benchmarked at, and big
    // enough for the parallel table build.
    for f in ["opera-8.json", "rotornet-8.json", "opera-108.json"] {
        for alg in ["direct", "vlb", "hoho", "opera", "ucmp"] {
            v.push((f, alg));
        }
    }
    v
}

#[test]
fn compiled_routes_and_tables_file_match_the_pinned_digests() {
    let print = std::env::var_os("LH_GOLDEN_PRINT").is_some();
    let mut wrong = Vec::new();
    for (file, alg) in cases() {
        let (r, t, m) = digests(&config(file, alg));
        if print {
            println!("    ({file:?}, {alg:?}, {r:#018x}, {t:#018x}, {m:#018x}),");
            continue;
        }
        match GOLDEN.iter().find(|g| g.0 == file && g.1 == alg) {
            Some(&(_, _, gr, gt, gm)) if (gr, gt, gm) == (r, t, m) => {}
            Some(&(_, _, gr, gt, gm)) => wrong.push(format!(
                "{file} {alg:?}: routes {r:#x} (pinned {gr:#x}), tables {t:#x} (pinned {gt:#x}), meaning {m:#x} (pinned {gm:#x})"
            )),
            None => wrong.push(format!("{file} {alg:?}: no pinned digest")),
        }
    }
    assert!(wrong.is_empty(), "output changed:\n{}", wrong.join("\n"));
}
