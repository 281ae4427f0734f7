//! The P4 program's control-plane surface: every table, action, register
//! and counter of `p4/lighthouse.p4` with the names and widths that
//! `p4c-bm2-ss` writes into `lighthouse.json`. The translator only emits
//! names from here, and a test checks this list against the compiled JSON.

/// How a key field matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    Exact,
    Ternary,
    Range,
}

impl MatchKind {
    /// The BMv2 JSON spelling (`match_type`).
    pub fn bmv2_name(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Ternary => "ternary",
            MatchKind::Range => "range",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeySchema {
    pub name: &'static str,
    pub kind: MatchKind,
    pub width: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableSchema {
    /// Fully qualified name (`LhIngress.time_flow`).
    pub name: &'static str,
    pub keys: &'static [KeySchema],
    /// Actions an entry may use (the `@defaultonly NoAction` is left out).
    pub actions: &'static [&'static str],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionSchema {
    pub name: &'static str,
    pub params: &'static [(&'static str, u32)],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterSchema {
    pub name: &'static str,
    pub width: u32,
    pub size: u32,
}

/// Counter arrays (packets): name and size.
pub const COUNTERS: &[(&str, u32)] = &[
    ("LhIngress.drops", 13),
    ("LhIngress.host_rx", 32),
    ("LhIngress.host_tx", 32),
    ("LhIngress.uplink_tx", 32),
    ("LhIngress.fabric_rx", 1),
    ("LhIngress.events", 8),
];

/// Indices of the `events` counter.
pub mod events {
    pub const ARP_REPLY: u32 = 0;
    pub const ARP_IGNORED: u32 = 1;
    pub const REROUTED: u32 = 2;
    pub const DEFERRED: u32 = 3;
    pub const LATE_SLICE: u32 = 4;
    pub const ROTATION: u32 = 5;
    /// A rotation frame behind the program's clock: the clock kept its start.
    pub const LATE_ROTATION: u32 = 6;
}

const fn k(name: &'static str, kind: MatchKind, width: u32) -> KeySchema {
    KeySchema { name, kind, width }
}

pub const T_HOSTS: &str = "LhIngress.hosts";
pub const T_ARP: &str = "LhIngress.arp_proxy";
pub const T_CLASS: &str = "LhIngress.ucmp_class";
pub const T_TIME_FLOW: &str = "LhIngress.time_flow";
pub const T_ROUTES: &str = "LhIngress.source_routes";

pub const A_TO_HOST: &str = "LhIngress.to_host";
pub const A_TO_TOR: &str = "LhIngress.to_tor";
pub const A_ARP: &str = "LhIngress.arp_answer";
pub const A_CLASS: &str = "LhIngress.set_class";
pub const A_CHOICES: &str = "LhIngress.set_choices";
pub const A_ROUTE: &str = "LhIngress.set_route";

pub const TABLES: &[TableSchema] = &[
    TableSchema {
        name: T_HOSTS,
        keys: &[k("hdr.ipv4.dst_addr", MatchKind::Exact, 32)],
        actions: &[A_TO_HOST, A_TO_TOR],
    },
    TableSchema {
        name: T_ARP,
        keys: &[k("hdr.arp.tpa", MatchKind::Exact, 32)],
        actions: &[A_ARP],
    },
    TableSchema {
        name: T_CLASS,
        keys: &[k("meta.flow_seen", MatchKind::Range, 32)],
        actions: &[A_CLASS],
    },
    TableSchema {
        name: T_TIME_FLOW,
        keys: &[
            k("dst", MatchKind::Exact, 16),
            k("arrival", MatchKind::Ternary, 16),
            k("ingress", MatchKind::Ternary, 2),
            k("class", MatchKind::Ternary, 8),
            k("bucket", MatchKind::Ternary, 8),
        ],
        actions: &[A_CHOICES],
    },
    TableSchema {
        name: T_ROUTES,
        keys: &[k("route", MatchKind::Exact, 16)],
        actions: &[A_ROUTE],
    },
];

pub const ACTIONS: &[ActionSchema] = &[
    ActionSchema {
        name: A_TO_HOST,
        params: &[("port", 9)],
    },
    ActionSchema {
        name: A_TO_TOR,
        params: &[("tor", 16)],
    },
    ActionSchema {
        name: A_ARP,
        params: &[("mac", 48)],
    },
    ActionSchema {
        name: A_CLASS,
        params: &[("class", 8)],
    },
    ActionSchema {
        name: A_CHOICES,
        params: &[
            ("n", 2),
            ("port0", 8),
            ("depart0", 16),
            ("route0", 16),
            ("push0", 8),
            ("port1", 8),
            ("depart1", 16),
            ("route1", 16),
            ("push1", 8),
            ("port2", 8),
            ("depart2", 16),
            ("route2", 16),
            ("push2", 8),
        ],
    },
    ActionSchema {
        name: A_ROUTE,
        params: &[
            ("n", 8),
            ("port0", 8),
            ("depart0", 16),
            ("port1", 8),
            ("depart1", 16),
            ("port2", 8),
            ("depart2", 16),
            ("port3", 8),
            ("depart3", 16),
            ("port4", 8),
            ("depart4", 16),
            ("port5", 8),
            ("depart5", 16),
            ("port6", 8),
            ("depart6", 16),
        ],
    },
];

pub const R_N_SLICES: &str = "LhIngress.n_slices";
pub const R_SLICE_LEN: &str = "LhIngress.slice_len";
pub const R_N_UPLINKS: &str = "LhIngress.n_uplinks";
pub const R_MULTIPATH: &str = "LhIngress.multipath_mode";
pub const R_BUCKETS: &str = "LhIngress.n_buckets";
pub const R_CLASSES: &str = "LhIngress.use_classes";
pub const R_SLICE_CHECK: &str = "LhIngress.slice_check";
pub const R_QUEUE_CAP: &str = "LhIngress.queue_capacity";
pub const R_RATE: &str = "LhIngress.uplink_rate";
pub const R_DARK: &str = "LhIngress.dark";

/// Registers: the control-plane ones first, then the data plane's state.
pub const REGISTERS: &[RegisterSchema] = &[
    RegisterSchema {
        name: R_N_SLICES,
        width: 16,
        size: 1,
    },
    RegisterSchema {
        name: R_SLICE_LEN,
        width: 32,
        size: 1,
    },
    RegisterSchema {
        name: R_N_UPLINKS,
        width: 8,
        size: 1,
    },
    RegisterSchema {
        name: R_MULTIPATH,
        width: 8,
        size: 1,
    },
    RegisterSchema {
        name: R_BUCKETS,
        width: 8,
        size: 1,
    },
    RegisterSchema {
        name: R_CLASSES,
        width: 8,
        size: 1,
    },
    RegisterSchema {
        name: R_SLICE_CHECK,
        width: 8,
        size: 1,
    },
    RegisterSchema {
        name: R_QUEUE_CAP,
        width: 32,
        size: 1,
    },
    RegisterSchema {
        name: R_RATE,
        width: 32,
        size: 32,
    },
    RegisterSchema {
        name: R_DARK,
        width: 32,
        size: 8192,
    },
    RegisterSchema {
        name: "LhIngress.cur_slice",
        width: 16,
        size: 1,
    },
    RegisterSchema {
        name: "LhIngress.cur_slot",
        width: 32,
        size: 1,
    },
    RegisterSchema {
        name: "LhIngress.slice_start",
        width: 48,
        size: 1,
    },
    RegisterSchema {
        name: "LhIngress.occ_bytes",
        width: 32,
        size: 8192,
    },
    RegisterSchema {
        name: "LhIngress.occ_slot",
        width: 32,
        size: 8192,
    },
    RegisterSchema {
        name: "LhIngress.occ_time",
        width: 48,
        size: 8192,
    },
    RegisterSchema {
        name: "LhIngress.pkt_seq",
        width: 8,
        size: 1,
    },
    RegisterSchema {
        name: "LhIngress.flow_bytes",
        width: 32,
        size: 65536,
    },
    RegisterSchema {
        name: "LhIngress.last_flow_hash",
        width: 32,
        size: 1,
    },
];

pub fn table(name: &str) -> Option<&'static TableSchema> {
    TABLES.iter().find(|t| t.name == name)
}

pub fn action(name: &str) -> Option<&'static ActionSchema> {
    ACTIONS.iter().find(|a| a.name == name)
}

pub fn register(name: &str) -> Option<&'static RegisterSchema> {
    REGISTERS.iter().find(|r| r.name == name)
}
