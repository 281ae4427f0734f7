//! Prints what the native ToR does with every frame of a case file, as the
//! `expect` list of each case: the reference a new case's expectations are
//! taken from (review them against `lighthouse show CONFIG --tor N` before
//! pasting them into cases.json).
//!
//!     cargo run --release -p lighthouse-conformance --example native_outcomes -- CASES.json [NAME]

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: native_outcomes CASES.json [NAME]");
        std::process::exit(2);
    };
    let only = args.next();
    let cases = lh_conformance::load_cases(std::path::Path::new(&path)).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    for c in cases {
        if only.as_ref().is_some_and(|o| !c.name.contains(o.as_str())) {
            continue;
        }
        let got = lh_conformance::native::run(&c).unwrap_or_else(|e| {
            eprintln!("{}: {e}", c.name);
            std::process::exit(1)
        });
        let expect: Vec<_> = got
            .into_iter()
            .map(|(id, o)| lh_conformance::Expect { id, ..o })
            .collect();
        println!("{}", c.name);
        println!("{}", serde_json::to_string_pretty(&expect).unwrap());
    }
}
