//! The page, embedded in the binary: nothing is fetched from elsewhere,
//! by the page or at build time.

pub const INDEX: &str = include_str!("../assets/index.html");
pub const JS: &str = include_str!("../assets/app.js");
pub const CSS: &str = include_str!("../assets/app.css");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_refers_to_nothing_outside_the_server() {
        for (name, text) in [("index.html", INDEX), ("app.js", JS), ("app.css", CSS)] {
            for bad in ["http://", "https://", "//cdn", "@import", "fonts.g"] {
                let hits: Vec<&str> = text
                    .lines()
                    .filter(|l| l.contains(bad) && !l.contains("http://www.w3.org/2000/svg"))
                    .collect();
                assert!(hits.is_empty(), "{name} refers to {bad}: {hits:?}");
            }
        }
        // The page loads its own script and style, and reads the events.
        assert!(INDEX.contains("\"app.js\"") && INDEX.contains("\"app.css\""));
        assert!(JS.contains("api/events") && JS.contains("api/snapshot"));
    }
}
