//! Why an operation of [`Network`](crate::net::Network) did not give its value.
//! The messages carry no CLI decoration: [`crate::text::view::error`]
//! renders each as the CLI prints it (`*** Error: ...`).

use crate::run::bringup::OrchError;

#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    #[error(transparent)]
    Orch(#[from] OrchError),
    #[error("starting the P4 ToRs: {0}")]
    P4(String),
    #[error("starting the data plane: {0}")]
    Fabric(String),
    /// Ctrl-C (SIGINT) or a terminating signal during the operation.
    #[error("interrupted")]
    Interrupted,
    #[error("no such node: {0}")]
    NoSuchNode(String),
    #[error("no link between {0} and {1}")]
    NoLink(String, String),
    /// A node exists but has no such port.
    #[error("{0}")]
    NoSuchPort(String),
    /// The operation needs the kernel side (host namespaces): an offline
    /// network has none.
    #[error("{0}: no host namespaces in this run")]
    NeedsKernel(&'static str),
    #[error("no data plane in this run")]
    NoDataPlane,
    #[error("no compiled schedule in this run")]
    NoSchedule,
    #[error("no compiled network (--no-fabric)")]
    NotCompiled,
    #[error("bad slice {given}: expected 0..{last}")]
    BadSlice { given: String, last: usize },
    #[error("{0} has no table")]
    NoTable(String),
    #[error("OTCP is off (config hosts.tcp.otcp)")]
    OtcpOff,
    /// Reading the data plane's telemetry failed.
    #[error("{verb}: {msg}")]
    Telemetry { verb: &'static str, msg: String },
    /// A BMv2 ToR's `simple_switch` is gone.
    #[error("BMv2 ToR {name} (simple_switch pid {pid}) died; its log ends:\n{log}")]
    P4SwitchDied { name: String, pid: u32, log: String },
    /// An operation (`iperf`, `flows`, `pcap`, ...) failed; `msg` says why.
    #[error("{verb}: {msg}")]
    Op { verb: &'static str, msg: String },
    /// A kernel or data-plane call failed.
    #[error("{0}")]
    Failed(String),
}

impl NetworkError {
    pub fn op(verb: &'static str, msg: impl std::fmt::Display) -> NetworkError {
        NetworkError::Op {
            verb,
            msg: msg.to_string(),
        }
    }
}

impl serde::Serialize for NetworkError {
    /// `{"kind": "NoSuchNode", "message": "no such node: h9"}`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let kind = match self {
            NetworkError::Orch(_) => "Orch",
            NetworkError::P4(_) => "P4",
            NetworkError::Fabric(_) => "Fabric",
            NetworkError::Interrupted => "Interrupted",
            NetworkError::NoSuchNode(_) => "NoSuchNode",
            NetworkError::NoLink(..) => "NoLink",
            NetworkError::NoSuchPort(_) => "NoSuchPort",
            NetworkError::NeedsKernel(_) => "NeedsKernel",
            NetworkError::NoDataPlane => "NoDataPlane",
            NetworkError::NoSchedule => "NoSchedule",
            NetworkError::NotCompiled => "NotCompiled",
            NetworkError::BadSlice { .. } => "BadSlice",
            NetworkError::NoTable(_) => "NoTable",
            NetworkError::OtcpOff => "OtcpOff",
            NetworkError::Telemetry { .. } => "Telemetry",
            NetworkError::P4SwitchDied { .. } => "P4SwitchDied",
            NetworkError::Op { .. } => "Op",
            NetworkError::Failed(_) => "Failed",
        };
        let mut st = s.serialize_struct("NetworkError", 2)?;
        st.serialize_field("kind", kind)?;
        st.serialize_field("message", &self.to_string())?;
        st.end()
    }
}
