//! A read-only view of a running network for another thread (the
//! dashboard's sampler), and the tap through which the network publishes
//! its operations' values. Both give the values of the typed API
//! ([`super::values`]): an [`Observer`]'s reads are the `slice`,
//! `buffer_usage`/`bw_usage` and `drops` verbs' own computations, without
//! holding the network.

use super::values::{Conservation, SliceNow};
use super::*;
use crate::tor::bmv2::P4CounterReader;
use serde::Serialize;
use swtor::{ControlHandle, PortUsage, SliceClock, UsageProbe};

/// Receives each value an operation returns: `(verb, value)`, the value
/// as its `--json` record's `ok` holds it (`links` after a link change).
pub type Tap = Arc<dyn Fn(&str, serde_json::Value) + Send + Sync>;

/// Cloneable and `Send`; every read fails with [`NetworkError::NoDataPlane`]
/// once the network has stopped.
#[derive(Clone)]
pub struct Observer {
    probe: UsageProbe,
    control: ControlHandle,
    clock: SliceClock,
    slices: usize,
    p4: Option<P4CounterReader>,
}

impl Observer {
    /// The `slice` verb's value now.
    pub fn slice(&self) -> SliceNow {
        SliceNow::at(&self.clock, self.slices)
    }

    /// `[tor][uplink]` telemetry, for [`crate::control::telemetry::records`].
    pub fn usage(&self) -> Result<Vec<Vec<PortUsage>>, NetworkError> {
        self.probe.usage().map_err(|_| NetworkError::NoDataPlane)
    }

    /// The data plane's counters (drops by reason) and the conservation
    /// terms, as `drops` gives them (BMv2 ToRs' counters included).
    pub fn counters(&self) -> Result<(swtor::Counters, Conservation), NetworkError> {
        let c = self
            .control
            .counters()
            .map_err(|_| NetworkError::NoDataPlane)?;
        let p4 = match &self.p4 {
            Some(r) => Some(r.counters().map_err(|e| NetworkError::P4(e.to_string()))?),
            None => None,
        };
        let cons = Conservation::of(&c, p4.as_ref());
        Ok((c, cons))
    }
}

impl Network {
    /// An [`Observer`] of the running data plane (`None` before
    /// [`Network::start`] or without one).
    pub fn observer(&self) -> Option<Observer> {
        let f = self.fabric.as_deref()?;
        Some(Observer {
            probe: f.usage_probe(),
            control: f.control(),
            clock: f.clock(),
            slices: self.compiled.as_ref().map_or(0, |c| c.schedule.slices()),
            p4: self.p4.as_ref().map(|p| p.counter_reader()),
        })
    }

    /// Every operation's value from now on also goes to `tap` (`None`: off).
    pub fn set_tap(&mut self, tap: Option<Tap>) {
        self.tap = tap;
    }

    /// Give an operation's value to the tap, if any.
    pub(super) fn publish<T: Serialize>(&self, verb: &str, v: &T) {
        if let Some(t) = &self.tap
            && let Ok(j) = serde_json::to_value(v)
        {
            t(verb, j);
        }
    }
}
