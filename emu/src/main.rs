//! `lighthouse`: compile, show, run, clean.
fn main() {}
