//! Durations and rates written with units in config files ("50us", "10Gbps").
//!
//! Bare numbers are refused on purpose: a slice of `50` is ambiguous, and the
//! error names the field through serde_path_to_error.

use serde::{Deserialize, Deserializer, Serialize, Serializer, de};
use std::fmt;
use std::str::FromStr;

/// A duration in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Nanos(pub u64);

/// A link rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct BitsPerSec(pub u64);

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct UnitError(String);

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    let n: f64 = s[..end].parse().ok()?;
    Some((n, s[end..].trim()))
}

impl FromStr for Nanos {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let bad = || {
            UnitError(format!(
                "expected a duration with a unit, like \"50us\", \"1.5ms\", \"200ns\" or \"1s\", got {s:?}"
            ))
        };
        let (n, unit) = split_number(s).ok_or_else(bad)?;
        let scale = match unit {
            "ns" => 1.0,
            "us" | "µs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            _ => return Err(bad()),
        };
        let v = n * scale;
        if !v.is_finite() || v > u64::MAX as f64 || v.fract() > 1e-6 {
            return Err(UnitError(format!(
                "{s:?} is not a whole number of nanoseconds"
            )));
        }
        Ok(Nanos(v.round() as u64))
    }
}

impl FromStr for BitsPerSec {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let bad = || {
            UnitError(format!(
                "expected a rate with a unit, like \"10Gbps\", \"400Mbps\" or \"100Kbps\", got {s:?}"
            ))
        };
        let (n, unit) = split_number(s).ok_or_else(bad)?;
        let scale = match unit {
            "bps" => 1.0,
            "Kbps" | "kbps" => 1e3,
            "Mbps" => 1e6,
            "Gbps" => 1e9,
            "Tbps" => 1e12,
            _ => return Err(bad()),
        };
        let v = (n * scale).round();
        if v <= 0.0 || v > u64::MAX as f64 {
            return Err(UnitError(format!("{s:?} must be a positive rate")));
        }
        Ok(BitsPerSec(v as u64))
    }
}

impl fmt::Display for Nanos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        if n != 0 && n.is_multiple_of(1_000_000_000) {
            write!(f, "{}s", n / 1_000_000_000)
        } else if n != 0 && n.is_multiple_of(1_000_000) {
            write!(f, "{}ms", n / 1_000_000)
        } else if n != 0 && n.is_multiple_of(1_000) {
            write!(f, "{}us", n / 1_000)
        } else {
            write!(f, "{n}ns")
        }
    }
}

impl fmt::Display for BitsPerSec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        for (scale, unit) in [
            (1e12 as u64, "Tbps"),
            (1e9 as u64, "Gbps"),
            (1e6 as u64, "Mbps"),
            (1e3 as u64, "Kbps"),
        ] {
            if b >= scale && b.is_multiple_of(scale) {
                return write!(f, "{}{unit}", b / scale);
            }
        }
        write!(f, "{b}bps")
    }
}

macro_rules! serde_via_str {
    ($t:ty, $what:literal) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl de::Visitor<'_> for V {
                    type Value = $t;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$t, E> {
                        v.parse().map_err(E::custom)
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}
serde_via_str!(Nanos, "a duration string with a unit, like \"50us\"");
serde_via_str!(BitsPerSec, "a rate string with a unit, like \"10Gbps\"");

impl BitsPerSec {
    /// Bytes this rate moves in `d` (rounded down).
    pub fn bytes_in(self, d: Nanos) -> u64 {
        ((self.0 as u128 * d.0 as u128) / 8_000_000_000) as u64
    }
    /// Time to serialise `bytes` at this rate.
    pub fn time_for(self, bytes: u64) -> Nanos {
        Nanos(((bytes as u128 * 8_000_000_000) / self.0 as u128) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_durations() {
        assert_eq!("50us".parse(), Ok(Nanos(50_000)));
        assert_eq!("1.5ms".parse(), Ok(Nanos(1_500_000)));
        assert_eq!("200ns".parse(), Ok(Nanos(200)));
        assert!("50".parse::<Nanos>().is_err());
        assert!("50 parsecs".parse::<Nanos>().is_err());
        assert!("0.5ns".parse::<Nanos>().is_err());
    }

    #[test]
    fn parses_rates_and_roundtrips() {
        assert_eq!("10Gbps".parse(), Ok(BitsPerSec(10_000_000_000)));
        assert_eq!(BitsPerSec(10_000_000_000).to_string(), "10Gbps");
        assert_eq!(Nanos(50_000).to_string(), "50us");
        assert!("0Gbps".parse::<BitsPerSec>().is_err());
        assert_eq!(BitsPerSec(8_000_000_000).bytes_in(Nanos(1_000)), 1_000);
        assert_eq!(BitsPerSec(8_000_000_000).time_for(1_000), Nanos(1_000));
    }
}
