//! A small self-contained description of one ToR's world (tables, hosts,
//! uniform timing) for tests, golden files and P4 developers:
//! `p4/tests/fixture.json`.

use crate::{FabricTiming, HostPlan, P4GenError, P4Inputs, Target, TorProgram, translate};
use lh_ctrl::TorId;
use lh_ctrl::tables::Tables;
use lh_ctrl::units::{BitsPerSec, Nanos};
use serde::Deserialize;
use std::net::Ipv4Addr;

#[derive(Clone, Debug, Deserialize)]
pub struct FixtureHost {
    pub ip: Ipv4Addr,
    /// `aa:bb:cc:dd:ee:ff`
    pub mac: String,
    pub tor: TorId,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Fixture {
    pub tor: TorId,
    pub slice_ns: u64,
    pub rate_bps: u64,
    pub queue_capacity: u64,
    pub uplinks: usize,
    pub hosts: Vec<FixtureHost>,
    pub tables: Tables,
}

#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    #[error("fixture JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("fixture: bad MAC {0:?}")]
    Mac(String),
    #[error(transparent)]
    Gen(#[from] P4GenError),
}

fn parse_mac(s: &str) -> Option<[u8; 6]> {
    let v: Vec<u8> = s
        .split(':')
        .map(|x| u8::from_str_radix(x, 16).ok())
        .collect::<Option<_>>()?;
    v.try_into().ok()
}

impl Fixture {
    pub fn from_json(s: &str) -> Result<Fixture, FixtureError> {
        Ok(serde_json::from_str(s)?)
    }

    pub fn hosts(&self) -> Result<Vec<HostPlan>, FixtureError> {
        self.hosts
            .iter()
            .map(|h| {
                Ok(HostPlan {
                    ip: h.ip,
                    mac: parse_mac(&h.mac).ok_or_else(|| FixtureError::Mac(h.mac.clone()))?,
                    tor: h.tor,
                })
            })
            .collect()
    }

    pub fn timing(&self) -> FabricTiming {
        FabricTiming::uniform(
            self.tables.tors.len(),
            self.uplinks,
            self.tables.slices.max(1),
            Nanos(self.slice_ns),
            BitsPerSec(self.rate_bps),
            self.queue_capacity,
        )
    }

    /// The program of the fixture's ToR.
    pub fn program(&self, target: Target) -> Result<TorProgram, FixtureError> {
        let hosts = self.hosts()?;
        let timing = self.timing();
        let inp = P4Inputs {
            tables: &self.tables,
            hosts: &hosts,
            timing: &timing,
            target,
        };
        Ok(translate(&inp, self.tor)?)
    }
}
