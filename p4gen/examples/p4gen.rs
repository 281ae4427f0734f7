//! Render a fixture (p4/tests/fixture.json format) for one target:
//! `cargo run -p lighthouse-p4gen --example p4gen -- p4/tests/fixture.json [cli|bfrt|json]`

use lh_p4gen::Target;
use lh_p4gen::fixture::Fixture;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .ok_or("usage: p4gen FIXTURE.json [cli|bfrt|json]")?;
    let fx = Fixture::from_json(&std::fs::read_to_string(path)?)?;
    match args.get(2).map(String::as_str).unwrap_or("cli") {
        "cli" => print!("{}", fx.program(Target::Bmv2)?.to_cli()),
        "bfrt" => println!(
            "{}",
            serde_json::to_string_pretty(&lh_p4gen::bfrt::to_bfrt_json(
                &fx.program(Target::Tofino2)?
            ))?
        ),
        "json" => println!(
            "{}",
            serde_json::to_string_pretty(&fx.program(Target::Bmv2)?)?
        ),
        other => return Err(format!("unknown format {other}").into()),
    }
    Ok(())
}
