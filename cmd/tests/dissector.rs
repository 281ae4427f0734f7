//! The Wireshark dissector `tools/wireshark/lighthouse.lua` (issue 41)
//! against the data plane's own readers: tshark decodes pcaps of a host
//! port and a native ToR's uplinks (source-route headers), of a BMv2 ToR's
//! end of an uplink (departure tags) and its CPU port (rotation frames),
//! and frames from swtor's encoders (push-back, which never crosses a
//! captured link; a header of the wrong version). Every field tshark
//! decodes must equal what `swtor::wire` reads from the same bytes.
//! Skips visibly without root, tshark (scripts/setup.sh installs it) or,
//! for the BMv2 case, the P4 toolchain.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use swtor::wire;

const BIN: &str = env!("CARGO_BIN_EXE_lighthouse");

/// The columns compared, in order.
const FIELDS: [&str; 16] = [
    "lighthouse.srh.version",
    "lighthouse.srh.count",
    "lighthouse.srh.port",
    "lighthouse.srh.depart",
    "lighthouse.srh.type",
    "lighthouse.shim.kind",
    "lighthouse.shim.flags",
    "lighthouse.shim.slice",
    "lighthouse.shim.slot",
    "lighthouse.shim.type",
    "lighthouse.pushback.sender_tor",
    "lighthouse.pushback.dst_tor",
    "lighthouse.pushback.from_tor",
    "lighthouse.pushback.reason",
    "ip.src",
    "ip.dst",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn lua() -> PathBuf {
    repo().join("tools/wireshark/lighthouse.lua")
}

/// Prints a visible skip line and returns true when tshark is missing.
fn skip_without_tshark(test: &str) -> bool {
    let ok = Command::new("tshark")
        .arg("-v")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIPPED {test}: tshark not installed (scripts/setup.sh installs it)");
    }
    !ok
}

/// tshark with the dissector: one row of `fields` per frame.
fn tshark(pcap: &Path, fields: &[&str], filter: Option<&str>) -> Vec<Vec<String>> {
    let mut c = Command::new("tshark");
    c.arg("-n")
        .arg("-X")
        .arg(format!("lua_script:{}", lua().display()))
        .arg("-r")
        .arg(pcap)
        .args(["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a"]);
    if let Some(f) = filter {
        c.args(["-Y", f]);
    }
    for f in fields {
        c.args(["-e", f]);
    }
    let o = c.output().expect("run tshark");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "tshark on {}: {err}", pcap.display());
    // A Lua error is printed, not fatal: the dissector must load cleanly.
    assert!(!err.contains("Lua"), "tshark: {err}");
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn frames(pcap: &Path) -> Vec<Vec<u8>> {
    let f = std::fs::File::open(pcap).unwrap();
    let mut r = pcap_file::pcap::PcapReader::new(f).unwrap();
    let mut v = Vec::new();
    while let Some(p) = r.next_packet() {
        v.push(p.unwrap().data.into_owned());
    }
    v
}

fn be16(f: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([f[o], f[o + 1]])
}

/// The [`FIELDS`] row swtor's readers give for one frame: what tshark must
/// print for it.
fn expected(f: &[u8]) -> Vec<String> {
    let mut row = vec![String::new(); FIELDS.len()];
    let join = |v: Vec<String>| v.join(",");
    let mut inner = 12;
    let mut ty = wire::ethertype(f).unwrap_or(0);
    if let Some(s) = wire::shim_parse(f) {
        row[5] = s.kind.to_string();
        row[6] = format!("0x{:02x}", s.flags);
        row[7] = s.slice.to_string();
        row[8] = s.slot.to_string();
        let next = be16(f, 22);
        row[9] = format!("0x{next:04x}");
        if let Some(m) = wire::pushback_parse(f) {
            row[10] = m.sender_tor.to_string();
            row[11] = m.dst_tor.to_string();
            row[12] = m.from_tor.to_string();
            row[13] = m.reason.to_string();
        }
        inner = 22;
        ty = if next == 0 { 0 } else { next };
    }
    if ty == wire::ETH_SRH {
        // The header starts at `inner + 2`: version, count, steps, type.
        let h = inner + 2;
        let n = f[h + 1] as usize;
        row[0] = f[h].to_string();
        row[1] = n.to_string();
        row[2] = join((0..n).map(|k| f[h + 2 + 3 * k].to_string()).collect());
        row[3] = join((0..n).map(|k| be16(f, h + 3 + 3 * k).to_string()).collect());
        let t = h + 2 + 3 * n;
        ty = be16(f, t);
        row[4] = format!("0x{ty:04x}");
        inner = t;
    }
    // (IPv4's own dissector shows addresses only of a version-4 header.)
    if ty == wire::ETH_IPV4 && f.get(inner + 2).is_some_and(|b| b >> 4 == 4) {
        let ip = inner + 2;
        let a = |o: usize| std::net::Ipv4Addr::new(f[o], f[o + 1], f[o + 2], f[o + 3]).to_string();
        row[14] = a(ip + 12);
        row[15] = a(ip + 16);
    }
    row
}

/// Every frame of `pcap` decodes as swtor reads it; returns the frames.
fn agrees(pcap: &Path) -> Vec<Vec<u8>> {
    let fr = frames(pcap);
    let got = tshark(pcap, &FIELDS, None);
    assert_eq!(got.len(), fr.len(), "{}: frames", pcap.display());
    for (k, (f, row)) in fr.iter().zip(&got).enumerate() {
        let want = expected(f);
        assert_eq!(
            row,
            &want,
            "{} frame {}: tshark (left) against swtor::wire (right), columns {FIELDS:?}",
            pcap.display(),
            k + 1
        );
    }
    fr
}

/// `lighthouse run CONFIG ARGS --script` with `script`; its stderr.
fn run_script(config: &str, args: &str, script: &str, dir: &Path) -> String {
    let s = dir.join("s.lh");
    std::fs::write(&s, script).unwrap();
    let o = Command::new(BIN)
        .arg("run")
        .arg(repo().join("topologies").join(config))
        .args(args.split_whitespace())
        .args(["--script", s.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .expect("run lighthouse");
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{e}");
    e
}

#[test]
fn source_routes_on_a_native_uplink_and_a_host_port_decode_as_the_tor_reads_them() {
    let test = "source_routes_on_a_native_uplink_and_a_host_port_decode_as_the_tor_reads_them";
    if skip_unless_root(test) || skip_without_tshark(test) {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ups: Vec<PathBuf> = (0..4).map(|p| d.join(format!("up{p}.pcap"))).collect();
    let host = d.join("host.pcap");
    let mut script = format!("pcap h1 eth0 {}\n", host.display());
    for (p, f) in ups.iter().enumerate() {
        script += &format!("pcap s1 up{p} {}\n", f.display());
    }
    script += "pingall\npcap stop\n";
    let p = free_prefix();
    let e = run_script("opera-8.json", &format!("--prefix {p}"), &script, d);
    assert!(e.contains("0% dropped"), "{e}");
    // The host port: plain IPv4 and ARP, none of our headers.
    let hf = agrees(&host);
    assert!(hf.len() >= 2 * 15 * 2, "{} frames on h1's port", hf.len());
    for f in &hf {
        assert!(wire::shim_parse(f).is_none() && wire::srh_count(f).is_none());
    }
    // The uplinks: Opera's indirect paths carry source-route headers
    // (pushed at s1, or arriving at s1 as a transit ToR).
    let mut routed = 0;
    for f in &ups {
        routed += agrees(f)
            .iter()
            .filter(|f| wire::srh_count(f).is_some())
            .count();
    }
    assert!(routed > 0, "no source-routed frame on s1's uplinks:\n{e}");
    // And the display filter users type finds them.
    let filtered: usize = ups
        .iter()
        .map(|f| tshark(f, &["frame.number"], Some("lighthouse.srh.count >= 1")).len())
        .sum();
    assert_eq!(filtered, routed);
}

#[test]
fn departure_tags_and_rotation_frames_at_a_bmv2_tor_decode_as_swtor_reads_them() {
    let test = "departure_tags_and_rotation_frames_at_a_bmv2_tor_decode_as_swtor_reads_them";
    if skip_unless_root(test)
        || skip_without_tshark(test)
        || bmv2_thrift::require::p4_test(test, &[]).is_none()
    {
        return;
    }
    let _g = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (up, cpu) = (d.join("s3-up0.pcap"), d.join("s3-cpu.pcap"));
    let script = format!(
        "pcap s3 s3-up0 {}\npcap s3 cpu {}\nh5 ping -c 3 h1\nh1 ping -c 3 h5\npcap stop\n",
        up.display(),
        cpu.display()
    );
    let p = free_prefix();
    let e = run_script(
        "rotornet-8-1ms.json",
        &format!("--tor bmv2:s3 --prefix {p}"),
        &script,
        d,
    );
    assert!(e.contains("3 received"), "{e}");
    // s3's end of uplink 0: BMv2 tags what it sends (kind 1, then IPv4),
    // and what the OCS delivers comes untagged.
    let fr = agrees(&up);
    let tagged: Vec<_> = fr.iter().filter_map(|f| wire::shim_parse(f)).collect();
    assert!(
        tagged
            .iter()
            .filter(|s| s.kind == wire::SHIM_DEPARTURE)
            .count()
            >= 3,
        "{} tagged of {} frames",
        tagged.len(),
        fr.len()
    );
    // The CPU port: a rotation frame per slot, slot numbers counting up.
    let rot: Vec<_> = agrees(&cpu)
        .iter()
        .filter_map(|f| wire::shim_parse(f))
        .collect();
    assert!(rot.len() > 100, "{} rotation frames", rot.len());
    assert!(rot.iter().all(|s| s.kind == wire::SHIM_ROTATION));
    assert!(rot.windows(2).all(|w| w[1].slot > w[0].slot));
    let rows = tshark(&cpu, &["_ws.col.Info"], None);
    let info = &rows[0][0];
    assert_eq!(
        info,
        &format!(
            "Lighthouse rotation: slice {}, slot {}",
            rot[0].slice, rot[0].slot
        )
    );
}

#[test]
fn push_back_and_malformed_headers_decode_from_swtors_encoders() {
    let test = "push_back_and_malformed_headers_decode_from_swtors_encoders";
    if skip_without_tshark(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("made.pcap");
    let mut pb = [0u8; wire::PUSHBACK_LEN];
    wire::pushback_frame(
        &mut pb,
        &wire::PushbackMsg {
            sender_tor: 7,
            dst_tor: 2,
            from_tor: 5,
            slice: 3,
            slot: 4_000_000_001,
            reason: 2,
        },
    );
    let mut rot = [0u8; wire::ROTATION_FRAME_LEN];
    wire::rotation_frame(&mut rot, 6, 123);
    // A version-2 source-route header: the ToRs drop it as bad_header.
    let mut bad = vec![
        2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x88, 0xb5, 2, 1, 0, 0, 1, 8, 0,
    ];
    bad.resize(60, 0);
    {
        let f = std::fs::File::create(&pcap).unwrap();
        let h = pcap_file::pcap::PcapHeader::default();
        let mut w = pcap_file::pcap::PcapWriter::with_header(f, h).unwrap();
        for (k, fr) in [&pb[..], &rot[..], &bad[..]].into_iter().enumerate() {
            let p = pcap_file::pcap::PcapPacket::new(
                std::time::Duration::from_millis(k as u64),
                fr.len() as u32,
                fr,
            );
            w.write_packet(&p).unwrap();
        }
    }
    let rows = agrees(&pcap);
    assert_eq!(rows.len(), 3);
    let info = tshark(&pcap, &["_ws.col.Info", "_ws.expert.message"], None);
    assert_eq!(
        info[0][0],
        "Lighthouse push-back: ToR 7's hosts pause to ToR 2 until slot 4000000001 (ToR 5: queue full)"
    );
    assert_eq!(info[1][0], "Lighthouse rotation: slice 6, slot 123");
    assert!(
        info[2][1].contains("Not version 1"),
        "expert info of a version-2 header: {:?}",
        info[2]
    );
    assert!(info[0][1].is_empty() && info[1][1].is_empty(), "{info:?}");
}
