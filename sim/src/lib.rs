//! Virtual time (docs/virtual-time.md): the native ToR and OCS engine of a
//! live run (`swtor::Engine`), polled by a deterministic discrete-event
//! loop instead of a busy-polling thread, with hosts as userspace stacks
//! in virtual time: ICMP echo (pings) and TCP ([`tcp`]), with the
//! experiments' applications on it ([`apps`]).
//!
//! ```
//! let cfg = lh_ctrl::config::Config::load("../topologies/rotornet-8.json".as_ref()).unwrap();
//! let c = lh_ctrl::compile::compile(&cfg).unwrap();
//! let mut sim = lh_sim::Sim::new(&c, Default::default()).unwrap();
//! let p = sim.pingall(1_000_000_000).unwrap();
//! assert_eq!((p.sent, p.received), (240, 240));
//! ```

pub mod apps;
mod driver;
pub mod host;
mod queue;
pub mod sweep;
pub mod tcp;

pub use driver::{App, Event, PROGRESS_POLLS, Sim, SimError, SimOptions, Stats};
pub use tcp::{ConnId, TcpConfig, TcpStats};

/// What a run asks for that the simulation does not model: the first such
/// field (a config's JSON path, or a flag), with why. `tor` is
/// `lighthouse run`'s `--tor`: the simulation runs the native ToRs only.
/// (Every config field the native engine reads is modelled: the engine is
/// the live one.)
pub fn check(_cfg: &lh_ctrl::config::Config, tor: &str) -> Result<(), SimError> {
    if tor != "native" {
        return Err(SimError::Unsupported {
            field: "--tor".into(),
            why: format!(
                "{tor:?}: the simulation runs the native ToRs only (BMv2 runs in real time: use `lighthouse run --tor {tor}`)"
            ),
        });
    }
    Ok(())
}
