//! Control loops beside the data plane: the telemetry stream and live
//! traffic-aware scheduling (TA).

pub mod ta_live;
pub mod telemetry;
