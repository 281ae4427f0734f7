//! The page, embedded in the binary: nothing is fetched from elsewhere,
//! by the page or at build time.

pub const INDEX: &str = include_str!("../assets/index.html");
pub const JS: &str = include_str!("../assets/app.js");
pub const CSS: &str = include_str!("../assets/app.css");
