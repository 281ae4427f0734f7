//! The crate layout's rule (docs/architecture.md): the emu library carries
//! no front-end dependency (argument parsing, plotting, progress bars) and
//! not the P4 conformance test crate; those belong to the binary, the
//! experiments and the labs. And no module of a crate is in an import
//! circle with its siblings, but for the circles still to be cut (issue
//! 43), listed so that a new one fails and a cut one is taken off. Each
//! crate imports exactly the workspace crates its paragraph of
//! docs/architecture.md names.

use std::process::Command;

/// What `cargo ARGS` prints, run offline at the workspace's root.
fn cargo(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .arg(args[0])
        .arg("--offline")
        .args(&args[1..])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("cargo");
    assert!(
        out.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `cargo tree -e normal` of `package`, one crate per line.
fn tree(package: &str) -> String {
    cargo(&["tree", "-e", "normal", "--prefix", "none", "-p", package])
}

#[test]
fn the_emu_library_has_no_front_end_dependencies() {
    let emu = tree("lighthouse-emu");
    assert!(emu.starts_with("lighthouse-emu "), "{emu}");
    for front_end in [
        "clap ",
        "plotters ",
        "indicatif ",
        "resvg ",
        "lighthouse-conformance ",
        "lighthouse-experiments ",
        "lighthouse-labs ",
    ] {
        assert!(
            !emu.lines().any(|l| l.starts_with(front_end)),
            "lh_emu depends on {front_end}:\n{emu}"
        );
    }
    // The binary does carry them (the check can see a dependency at all).
    let bin = tree("lighthouse-cmd");
    assert!(bin.lines().any(|l| l.starts_with("clap ")), "{bin}");
}

/// Each crate's workspace dependencies, as `cargo metadata` sees them
/// (normal dependencies only: tests and builds may use more).
fn workspace_imports() -> std::collections::BTreeMap<String, Vec<String>> {
    let text = cargo(&["metadata", "--no-deps", "--format-version", "1"]);
    let meta: serde_json::Value = serde_json::from_str(&text).expect("metadata JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let names: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    packages
        .iter()
        .map(|p| {
            let mut deps: Vec<String> = p["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|d| d["kind"].is_null())
                .filter_map(|d| d["name"].as_str())
                .filter(|d| names.contains(d))
                .map(str::to_string)
                .collect();
            deps.sort();
            (p["name"].as_str().expect("name").to_string(), deps)
        })
        .collect()
}

/// docs/architecture.md's paragraph per crate: `**`package`**` opens it,
/// and its `Imports:` names the workspace crates it uses, in backticks,
/// up to the `;` (or `none`).
fn documented_imports(doc: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut found = std::collections::BTreeMap::new();
    for para in doc.split("\n\n") {
        let Some(rest) = para.strip_prefix("**`") else {
            continue;
        };
        let name = rest.split('`').next().unwrap_or_default().to_string();
        let flat = para.replace('\n', " ");
        let Some((_, after)) = flat.split_once("Imports: ") else {
            panic!("docs/architecture.md: the paragraph of {name} has no \"Imports:\"");
        };
        let list = after.split(';').next().unwrap_or_default();
        let mut deps: Vec<String> = list
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        deps.sort();
        found.insert(name, deps);
    }
    found
}

#[test]
fn every_crate_imports_what_the_architecture_says() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/architecture.md"
    ))
    .expect("docs/architecture.md");
    let documented = documented_imports(&doc);
    let actual = workspace_imports();
    // One paragraph per workspace crate (the fuzz workspace is its own).
    assert_eq!(
        documented.keys().collect::<Vec<_>>(),
        actual.keys().collect::<Vec<_>>(),
        "docs/architecture.md's crate paragraphs against the workspace's crates"
    );
    for (name, deps) in &actual {
        assert_eq!(
            &documented[name], deps,
            "{name}: docs/architecture.md says it imports {:?}, its Cargo.toml {deps:?}; \
             change the page first, with why the new dependency is allowed",
            documented[name]
        );
    }
}

#[test]
fn the_import_check_reads_a_paragraph() {
    let doc = "intro\n\n**`a`** (`a/`): owns x.\nImports: `b`,\n`c`; it may not import `d`.\n\n**`b`**: y.\nImports: none; nothing.\n";
    let got = documented_imports(doc);
    assert_eq!(got["a"], ["b", "c"]);
    assert!(got["b"].is_empty());
}

/// The workspace's crates whose modules are checked for import circles.
const CRATES: &[&str] = &[
    "ctrl",
    "swtor",
    "emu",
    "cmd",
    "experiments",
    "labs",
    "p4gen",
    "netns",
    "python",
    "dash",
    "sim",
    "tests/conformance",
];

/// Import circles between sibling modules that are still to be cut (issue
/// 43): each is the sorted set of `crate/path` modules of one circle.
/// The test fails on a circle not listed, and on a listed one that is gone
/// (take it off). None is left: issue 43 cut the last (emu's link, net and
/// text).
const KNOWN_CIRCLES: &[&str] = &[];

#[test]
fn no_new_import_circles_between_sibling_modules() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut found = Vec::new();
    for c in CRATES {
        for circle in modules::circles(&root.join(c).join("src")) {
            found.push(format!("{c}: {}", circle.join(" ")));
        }
    }
    found.sort();
    let known: Vec<String> = KNOWN_CIRCLES.iter().map(|s| s.to_string()).collect();
    let new: Vec<&String> = found.iter().filter(|f| !known.contains(f)).collect();
    let gone: Vec<&String> = known.iter().filter(|k| !found.contains(k)).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "import circles between sibling modules (cut each by the concept both sides share, \
         moved into its own module):\nnew:\n  {}\ngone from KNOWN_CIRCLES (take them off):\n  {}",
        new.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  "),
        gone.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

#[test]
fn the_circle_check_sees_a_circle() {
    // a and b use each other (b through its child, a through a `{...}`
    // group); a parent and its child use each other (not a circle: a
    // child uses its parent's items); both use c, which names a only in a
    // comment.
    let d = tempfile::tempdir().unwrap();
    let src = d.path();
    let write = |f: &str, text: &str| std::fs::write(src.join(f), text).unwrap();
    std::fs::create_dir(src.join("b")).unwrap();
    write("lib.rs", "mod a;\nmod b;\nmod c;\n");
    write("a.rs", "use super::b::{X};\nuse crate::c;\n");
    write("b/mod.rs", "mod inner;\npub struct X;\n");
    write(
        "b/inner.rs",
        "use super::X;\nfn f() { crate::a::g(); crate::c::h(); }\n",
    );
    write(
        "c.rs",
        "// crate::a::g is only named in a comment\npub fn h() {}\n",
    );
    assert_eq!(modules::circles(src), vec![vec!["a", "b"]]);
    // Without b's use of a, no circle.
    write("b/inner.rs", "use super::X;\nfn f() { crate::c::h(); }\n");
    assert!(modules::circles(src).is_empty());
    // A test-only `mod tests;` line hides nothing after it...
    write(
        "b/inner.rs",
        "#[cfg(test)]\nmod tests;\nfn f() { crate::a::g(); }\n",
    );
    assert_eq!(modules::circles(src), vec![vec!["a", "b"]]);
    // ... and a test block's uses are not the module's.
    write(
        "b/inner.rs",
        "fn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::a::g;\n}\n",
    );
    assert!(modules::circles(src).is_empty());
}

/// Module-level `use` edges of one crate, from its source text.
mod modules {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::Path;

    /// The module path of each file under `src` (`a/b.rs` and `a/b/mod.rs`
    /// are `a::b`; `lib.rs` and `main.rs` the root), without `tests`
    /// modules (test code may use anything).
    fn files(src: &Path) -> BTreeMap<Vec<String>, String> {
        let mut out = BTreeMap::new();
        let mut stack = vec![src.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                if p.extension().is_none_or(|x| x != "rs") {
                    continue;
                }
                let rel = p.strip_prefix(src).unwrap().with_extension("");
                let mut m: Vec<String> = rel
                    .iter()
                    .map(|s| s.to_string_lossy().into_owned())
                    .collect();
                if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                    m.pop();
                }
                if m.iter().any(|s| s == "tests" || s == "generated") {
                    continue;
                }
                out.insert(m, std::fs::read_to_string(&p).unwrap());
            }
        }
        out
    }

    /// The text without comments and without test-only items: a
    /// `#[cfg(test)]` line with a one-line item after it (`mod tests;`,
    /// a `use`) loses those two lines; one before a block (`mod tests {`)
    /// cuts the rest of the file, where the project keeps such blocks.
    fn code(text: &str) -> String {
        let mut kept = Vec::new();
        let mut lines = text.lines();
        while let Some(l) = lines.next() {
            if l.trim() == "#[cfg(test)]" {
                match lines.next() {
                    Some(item) if item.trim_end().ends_with(';') => continue,
                    _ => break,
                }
            }
            kept.push(match l.find("//") {
                Some(i) => &l[..i],
                None => l,
            });
        }
        kept.join("\n")
    }

    fn ident(s: &str) -> (&str, &str) {
        let n = s
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(s.len());
        (&s[..n], &s[n..])
    }

    /// The paths `crate::...`, `super::...` and `self::...` in `text`, as
    /// absolute module paths (each branch of a `{...}` group on its own),
    /// from module `here`.
    fn paths(here: &[String], text: &str) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        let bytes = text.as_bytes();
        for start in ["crate::", "super::", "self::"] {
            let mut from = 0;
            while let Some(i) = text[from..].find(start) {
                let at = from + i;
                from = at + start.len();
                if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                    continue;
                }
                let mut base: Vec<String> = match start {
                    "crate::" => Vec::new(),
                    "self::" => here.to_vec(),
                    _ => here[..here.len().saturating_sub(1)].to_vec(),
                };
                let mut rest = &text[from..];
                while let Some(r) = rest.strip_prefix("super::") {
                    base.pop();
                    rest = r;
                }
                walk(base, rest, &mut out);
            }
        }
        out
    }

    /// `a::b::{c, d::e}` from `base`: each full path.
    fn walk(mut base: Vec<String>, rest: &str, out: &mut Vec<Vec<String>>) {
        let mut rest = rest.trim_start();
        loop {
            if let Some(group) = rest.strip_prefix('{') {
                let mut depth = 1;
                let mut item = String::new();
                for ch in group.chars() {
                    match ch {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 || (depth == 1 && ch == ',') {
                        walk(base.clone(), item.trim(), out);
                        item.clear();
                        if depth == 0 {
                            break;
                        }
                        continue;
                    }
                    item.push(ch);
                }
                return;
            }
            let (id, r) = ident(rest);
            if id.is_empty() {
                break;
            }
            base.push(id.to_string());
            match r.strip_prefix("::") {
                Some(r) => rest = r.trim_start(),
                None => break,
            }
        }
        out.push(base);
    }

    /// Circles among sibling modules: an edge from module `x` to `y`
    /// counts between their ancestors just below where their paths part
    /// (a child using its parent, or a parent its child, is no edge).
    pub fn circles(src: &Path) -> Vec<Vec<String>> {
        let files = files(src);
        let mods: BTreeSet<&Vec<String>> = files.keys().collect();
        let mut edges: BTreeSet<(Vec<String>, Vec<String>)> = BTreeSet::new();
        for (m, text) in &files {
            for p in paths(m, &code(text)) {
                // The longest prefix that is a module of the crate.
                let Some(target) = (0..=p.len())
                    .rev()
                    .map(|n| p[..n].to_vec())
                    .find(|t| mods.contains(t))
                else {
                    continue;
                };
                let common = m.iter().zip(&target).take_while(|(a, b)| a == b).count();
                if common == m.len() || common == target.len() {
                    continue;
                }
                edges.insert((m[..=common].to_vec(), target[..=common].to_vec()));
            }
        }
        // Strongly connected components (Tarjan's), of more than one node.
        let nodes: BTreeSet<Vec<String>> = edges
            .iter()
            .flat_map(|(a, b)| [a.clone(), b.clone()])
            .collect();
        let nodes: Vec<Vec<String>> = nodes.into_iter().collect();
        let idx = |n: &Vec<String>| nodes.iter().position(|x| x == n).unwrap();
        let mut adj = vec![Vec::new(); nodes.len()];
        for (a, b) in &edges {
            adj[idx(a)].push(idx(b));
        }
        let mut t = Tarjan {
            adj,
            index: vec![None; nodes.len()],
            low: vec![0; nodes.len()],
            on: vec![false; nodes.len()],
            stack: Vec::new(),
            next: 0,
            sccs: Vec::new(),
        };
        for v in 0..nodes.len() {
            if t.index[v].is_none() {
                t.visit(v);
            }
        }
        let mut out: Vec<Vec<String>> = t
            .sccs
            .into_iter()
            .filter(|s| s.len() > 1)
            .map(|s| {
                let mut names: Vec<String> = s.iter().map(|&v| nodes[v].join("::")).collect();
                names.sort();
                names
            })
            .collect();
        out.sort();
        out
    }

    struct Tarjan {
        adj: Vec<Vec<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        sccs: Vec<Vec<usize>>,
    }

    impl Tarjan {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on[v] = true;
            for w in self.adj[v].clone() {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on[w] => self.low[v] = self.low[v].min(iw),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on[w] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                self.sccs.push(scc);
            }
        }
    }
}
