//! The page, embedded in the binary: nothing is fetched from elsewhere,
//! by the page or at build time. Its code is ES modules (`assets/js/`,
//! served at `/js/NAME`), loaded by the browser without a bundler.

use std::sync::LazyLock;

/// `index.html` as written: [`page`] is what the server sends.
pub const INDEX: &str = include_str!("../assets/index.html");
pub const CSS: &str = include_str!("../assets/app.css");

/// The page's modules, by file name in `assets/js/`; the page imports
/// [`ENTRY`], which imports the others. A module missing here is a 404
/// for the browser: the tests below compare this list with the folder
/// and with every module's imports.
pub const MODULES: &[(&str, &str)] = &[
    ("api.js", include_str!("../assets/js/api.js")),
    ("charts.js", include_str!("../assets/js/charts.js")),
    ("dom.js", include_str!("../assets/js/dom.js")),
    ("drops.js", include_str!("../assets/js/drops.js")),
    ("fabric.js", include_str!("../assets/js/fabric.js")),
    ("fct.js", include_str!("../assets/js/fct.js")),
    ("format.js", include_str!("../assets/js/format.js")),
    ("header.js", include_str!("../assets/js/header.js")),
    ("main.js", include_str!("../assets/js/main.js")),
    ("monitors.js", include_str!("../assets/js/monitors.js")),
    ("queues.js", include_str!("../assets/js/queues.js")),
    ("results.js", include_str!("../assets/js/results.js")),
    ("slices.js", include_str!("../assets/js/slices.js")),
    ("snapshot.js", include_str!("../assets/js/snapshot.js")),
    ("state.js", include_str!("../assets/js/state.js")),
    ("stream.js", include_str!("../assets/js/stream.js")),
];

/// The module the page loads.
pub const ENTRY: &str = "main.js";

/// Where `index.html` takes the list of modules (for its import map).
const MODULE_LIST: &str = "var modules = LH_MODULES;";

/// The module `name` (`main.js`), if the page has it.
pub fn module(name: &str) -> Option<&'static str> {
    MODULES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// The page as served: [`INDEX`] with the names of [`MODULES`].
pub fn page() -> &'static str {
    static PAGE: LazyLock<String> = LazyLock::new(|| {
        let names: Vec<&str> = MODULES.iter().map(|(n, _)| *n).collect();
        let list = serde_json::to_string(&names).unwrap_or_default();
        INDEX.replacen(MODULE_LIST, &format!("var modules = {list};"), 1)
    });
    &PAGE
}

/// The modules `text` imports (`import ... from "./x.js"`,
/// `import "./x.js"`), as file names.
pub fn imports(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("import "))
        .filter_map(|l| l.rsplit_once("\"./")?.1.split_once('"'))
        .map(|(name, _)| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_page_refers_to_nothing_outside_the_server() {
        let files = [("index.html", INDEX), ("app.css", CSS)];
        for (name, text) in files.into_iter().chain(MODULES.iter().copied()) {
            for bad in ["http://", "https://", "//cdn", "@import", "fonts.g"] {
                let hits: Vec<&str> = text
                    .lines()
                    .filter(|l| l.contains(bad) && !l.contains("http://www.w3.org/2000/svg"))
                    .collect();
                assert!(hits.is_empty(), "{name} refers to {bad}: {hits:?}");
            }
        }
        // The page loads its own style and entry module, and reads the events.
        assert!(INDEX.contains("\"app.css") && INDEX.contains(r#"import "./js/main.js""#));
        let all: String = MODULES.iter().map(|(_, t)| *t).collect();
        assert!(all.contains("api/events") && all.contains("api/snapshot"));
    }

    #[test]
    fn every_module_in_the_folder_is_served_and_every_import_is_a_module() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/js");
        let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        let served: BTreeSet<String> = MODULES.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(served, on_disk, "MODULES against {}", dir.display());
        // Every module is reached from the entry, and reaches only modules.
        let mut reached = BTreeSet::from([ENTRY]);
        let mut todo = vec![ENTRY];
        while let Some(m) = todo.pop() {
            let text = module(m).unwrap_or_else(|| panic!("{m} is imported but not served"));
            for i in imports(text) {
                if reached.insert(i) {
                    todo.push(i);
                }
            }
        }
        let names: BTreeSet<&str> = MODULES.iter().map(|(n, _)| *n).collect();
        assert_eq!(reached, names, "modules the entry does not reach");
        for (name, text) in MODULES {
            let lines = text.lines().count();
            assert!(lines <= 800, "{name} has {lines} lines");
        }
    }

    #[test]
    fn the_served_page_lists_the_modules_for_its_import_map() {
        assert_eq!(INDEX.matches(MODULE_LIST).count(), 1);
        assert!(!page().contains("LH_MODULES;"));
        let names: Vec<&str> = MODULES.iter().map(|(n, _)| *n).collect();
        let list = format!("var modules = {};", serde_json::to_string(&names).unwrap());
        assert!(page().contains(&list), "{list}");
    }

    #[test]
    fn imports_are_read_from_both_forms() {
        let text = "/* x */\nimport { a, b } from \"./a.js\";\nimport \"./b.js\";\nconst c = 1;\n";
        assert_eq!(imports(text), ["a.js", "b.js"]);
    }
}
