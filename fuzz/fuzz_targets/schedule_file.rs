//! The schedule-file parser (docs/schedule-file.md) for a few fabric sizes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&shape, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let tors = 1 + (shape & 0x0f) as usize;
    let uplinks = 1 + (shape >> 4 & 0x03) as usize;
    if let Ok(s) = lh_ctrl::schedule::schedule_from_json(text, "fuzz.schedule.json", tors, uplinks)
    {
        // What parsed must serialise again.
        let _ = lh_ctrl::schedule::schedule_to_json(&s);
    }
});
