//! The config parser and validator: any text gives a Config or an error,
//! never a panic, a hang or an allocation bomb.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Relative file names (schedule files) resolve against a directory that
    // does not exist: validation may look, never read anything real.
    let base = std::path::Path::new("/nonexistent-lighthouse-fuzz");
    if let Ok(cfg) = lh_ctrl::config::Config::from_json_in(text, "fuzz.json", base) {
        // A valid config's plan must be buildable too.
        let _ = cfg.validate_all("fuzz.json");
    }
});
