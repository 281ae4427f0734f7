//! Which target runs each ToR: the native Rust ToR (swtor, in-process) or
//! the Lighthouse P4 program on a stock BMv2 `simple_switch` (docs/p4.md).
//! Parsed from `lighthouse run --tor native | bmv2 | bmv2:s3,s5`.

use super::tor_name;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TorTarget {
    #[default]
    Native,
    Bmv2,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TargetError {
    #[error("--tor {spec:?}: expected `native`, `bmv2` or `bmv2:s1,s3` (ToR names)")]
    Syntax { spec: String },
    #[error("--tor {spec:?}: no ToR {name:?} (this fabric has s1..s{tors})")]
    NoSuchTor {
        spec: String,
        name: String,
        tors: usize,
    },
    #[error("--tor {spec:?}: {name} is listed twice")]
    Duplicate { spec: String, name: String },
    #[error(
        "--tor {spec:?}: $.tors.buffer_capacity (a buffer a ToR's calendar queues share) is modelled by native ToRs only: the P4 program limits each queue (tors.queue_capacity); leave it out or run the ToRs native"
    )]
    SharedBuffer { spec: String },
    #[error(
        "--tor {spec:?}: $.tor.on_slice_miss \"drop\" is modelled by native ToRs only: the P4 program keeps a frame that fits no slice for the next cycle (\"defer\"); leave it out or run the ToRs native"
    )]
    DropOnMiss { spec: String },
    #[error(
        "--tor {spec:?}: $.routing.bulk \"rotorlb\" is modelled by native ToRs only: the P4 program sends bulk on its direct circuit; leave it out or run the ToRs native"
    )]
    RotorLb { spec: String },
}

/// One target per ToR of `tors`, from a `--tor` value; a setting of `cfg`
/// the chosen targets cannot model is refused.
pub fn parse_for(
    spec: &str,
    tors: usize,
    cfg: &lh_ctrl::config::Config,
) -> Result<Vec<TorTarget>, TargetError> {
    let v = parse(spec, tors)?;
    if cfg.tors.buffer_capacity.is_some() && v.contains(&TorTarget::Bmv2) {
        return Err(TargetError::SharedBuffer { spec: spec.into() });
    }
    let drop = lh_ctrl::config::SliceMissAction::Drop;
    if cfg.tor.as_ref().is_some_and(|t| t.on_slice_miss == drop) && v.contains(&TorTarget::Bmv2) {
        return Err(TargetError::DropOnMiss { spec: spec.into() });
    }
    let rlb = lh_ctrl::config::BulkTransport::Rotorlb;
    if cfg.routing.bulk == rlb && v.contains(&TorTarget::Bmv2) {
        return Err(TargetError::RotorLb { spec: spec.into() });
    }
    Ok(v)
}

/// One target per ToR, from a `--tor` value.
pub fn parse(spec: &str, tors: usize) -> Result<Vec<TorTarget>, TargetError> {
    let syntax = || TargetError::Syntax { spec: spec.into() };
    match spec {
        "native" => return Ok(vec![TorTarget::Native; tors]),
        "bmv2" => return Ok(vec![TorTarget::Bmv2; tors]),
        _ => {}
    }
    let list = spec.strip_prefix("bmv2:").ok_or_else(syntax)?;
    let mut v = vec![TorTarget::Native; tors];
    for name in list.split(',') {
        let t = name
            .strip_prefix('s')
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n >= 1 && tor_name(n - 1) == name)
            .ok_or_else(syntax)?;
        if t > tors {
            return Err(TargetError::NoSuchTor {
                spec: spec.into(),
                name: name.into(),
                tors,
            });
        }
        if v[t - 1] == TorTarget::Bmv2 {
            return Err(TargetError::Duplicate {
                spec: spec.into(),
                name: name.into(),
            });
        }
        v[t - 1] = TorTarget::Bmv2;
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use TorTarget::*;

    #[test]
    fn whole_fabric_and_mixed_lists() {
        assert_eq!(parse("native", 3).unwrap(), vec![Native; 3]);
        assert_eq!(parse("bmv2", 2).unwrap(), vec![Bmv2; 2]);
        assert_eq!(
            parse("bmv2:s3,s1", 4).unwrap(),
            vec![Bmv2, Native, Bmv2, Native]
        );
    }

    #[test]
    fn bmv2_tors_refuse_a_shared_buffer() {
        let mut cfg = lh_ctrl::config::Config::from_json(
            include_str!("../../../topologies/rotornet-8.json"),
            "rotornet-8",
        )
        .unwrap();
        assert_eq!(parse_for("bmv2:s2", 8, &cfg).unwrap()[1], Bmv2);
        cfg.tors.buffer_capacity = Some(64_000_000);
        assert_eq!(parse_for("native", 8, &cfg).unwrap(), vec![Native; 8]);
        let e = parse_for("bmv2:s2", 8, &cfg).unwrap_err();
        assert_eq!(
            e,
            TargetError::SharedBuffer {
                spec: "bmv2:s2".into()
            }
        );
        assert!(e.to_string().contains("$.tors.buffer_capacity"), "{e}");
        cfg.tors.buffer_capacity = None;
        cfg.tor = Some(serde_json::from_str(r#"{"on_slice_miss": "drop"}"#).unwrap());
        assert_eq!(parse_for("native", 8, &cfg).unwrap(), vec![Native; 8]);
        let e = parse_for("bmv2", 8, &cfg).unwrap_err();
        assert_eq!(
            e,
            TargetError::DropOnMiss {
                spec: "bmv2".into()
            }
        );
        assert!(e.to_string().contains("$.tor.on_slice_miss"), "{e}");
        cfg.tor = None;
        cfg.routing.bulk = lh_ctrl::config::BulkTransport::Rotorlb;
        assert_eq!(parse_for("native", 8, &cfg).unwrap(), vec![Native; 8]);
        let e = parse_for("bmv2:s1", 8, &cfg).unwrap_err();
        assert_eq!(
            e,
            TargetError::RotorLb {
                spec: "bmv2:s1".into()
            }
        );
        assert!(e.to_string().contains("$.routing.bulk"), "{e}");
    }

    #[test]
    fn errors_name_the_problem() {
        assert!(matches!(parse("p4", 2), Err(TargetError::Syntax { .. })));
        assert!(matches!(parse("bmv2:", 2), Err(TargetError::Syntax { .. })));
        assert!(matches!(
            parse("bmv2:s0", 2),
            Err(TargetError::Syntax { .. })
        ));
        assert!(matches!(
            parse("bmv2:s01", 2),
            Err(TargetError::Syntax { .. })
        ));
        assert_eq!(
            parse("bmv2:s3", 2).unwrap_err().to_string(),
            "--tor \"bmv2:s3\": no ToR \"s3\" (this fabric has s1..s2)"
        );
        assert!(matches!(
            parse("bmv2:s1,s1", 2),
            Err(TargetError::Duplicate { .. })
        ));
    }
}
