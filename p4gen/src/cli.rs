//! `simple_switch_CLI` text.

use crate::{KeyValue, TorProgram};
use std::fmt::Write;
use std::net::Ipv4Addr;

fn is_ip_key(name: &str) -> bool {
    name == "hdr.ipv4.dst_addr" || name == "hdr.arp.tpa"
}

fn value(v: u64, width: u32, ip: bool) -> String {
    if ip && width == 32 {
        Ipv4Addr::from(v as u32).to_string()
    } else if width == 48 {
        let b = v.to_be_bytes();
        b[2..]
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<Vec<_>>()
            .join(":")
    } else {
        v.to_string()
    }
}

pub(crate) fn render(p: &TorProgram) -> String {
    let mut s = String::new();
    for e in &p.entries {
        let _ = write!(s, "table_add {} {}", e.table, e.action);
        for k in &e.keys {
            let ip = is_ip_key(k.name);
            let _ = match k.value {
                KeyValue::Exact(v) => write!(s, " {}", value(v, k.width, ip)),
                KeyValue::Ternary { value: v, mask } => write!(s, " {v}&&&{mask}"),
                KeyValue::Range { lo, hi } => write!(s, " {lo}->{hi}"),
            };
        }
        s.push_str(" =>");
        for p in &e.params {
            let _ = write!(s, " {}", value(p.value, p.width, false));
        }
        if let Some(pr) = e.priority {
            let _ = write!(s, " {pr}");
        }
        s.push('\n');
    }
    for r in &p.registers {
        let _ = writeln!(s, "register_write {} {} {}", r.register, r.index, r.value);
    }
    s
}
