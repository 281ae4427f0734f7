//! An external (BMv2-like) ToR joined over veths: tagged frames, rotation
//! frames, and pacing to what it took in.

use super::*;

/// h1 on native ToR 0, h2 on ToR 1, which is external: its uplink and CPU
/// veths end in namespace `<fabric>-x` (where BMv2 would run), with a
/// socket on each. The namespace goes with the rig.
struct ExtRig {
    net: Net,
    ext: std::path::PathBuf,
    up: swtor::afpacket::RawSocket,
    cpu: swtor::afpacket::RawSocket,
    spec: Option<FabricSpec>,
    _del: DelNs,
}

struct DelNs(String);

impl Drop for DelNs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("ip")
            .args(["netns", "del", &self.0])
            .status();
    }
}

impl ExtRig {
    fn new(taken_in: Option<swtor::TakenIn>) -> ExtRig {
        let net = Net::new(&[0, 1]);
        let ext = format!("{}-x", net.fabric);
        run(&["ip", "netns", "add", &ext]);
        let del = DelNs(ext.clone());
        for key in ["all", "default"] {
            let k = format!("net.ipv6.conf.{key}.disable_ipv6=1");
            run(&["ip", "netns", "exec", &ext, "sysctl", "-qw", &k]);
            run(&["ip", "netns", "exec", &net.fabric, "sysctl", "-qw", &k]);
        }
        for (mine, theirs) in [("x-t1-u0", "u0"), ("x-t1-c", "c")] {
            run(&[
                "ip",
                "-n",
                &net.fabric,
                "link",
                "add",
                mine,
                "type",
                "veth",
                "peer",
                "name",
                theirs,
                "netns",
                &ext,
            ]);
            run(&["ip", "-n", &net.fabric, "link", "set", mine, "up"]);
            run(&["ip", "-n", &ext, "link", "set", theirs, "up"]);
        }
        let tables = tables(
            1,
            Lookup::Hop,
            vec![(0, vec![entry(1, None, hop(0, None), vec![])])],
        );
        let spec = FabricSpec {
            schedule: two_tor_schedule(1),
            tables: tables.into(),
            timing: timing(2000, 0, 1_000_000_000),
            hosts: net.attach(),
            external: vec![swtor::ExternalTor {
                tor: 1,
                uplinks: vec!["x-t1-u0".into()],
                cpu: "x-t1-c".into(),
                taken_in,
            }],
        };
        let ext_path = std::path::PathBuf::from(format!("/run/netns/{ext}"));
        let open = |name: &'static str| {
            in_ns(ext_path.clone(), move || {
                let ix = swtor::afpacket::if_nametoindex(name).unwrap();
                swtor::afpacket::RawSocket::open(swtor::afpacket::SocketOptions {
                    ifindex: Some(ix),
                    ..Default::default()
                })
                .unwrap()
            })
        };
        let (up, cpu) = (open("u0"), open("c"));
        ExtRig {
            net,
            ext: ext_path,
            up,
            cpu,
            spec: Some(spec),
            _del: del,
        }
    }
}

#[test]
fn external_tor_joins_over_veths_with_tags_and_rotation_frames() {
    let Some(_serial) = can_run("external_tor_joins_over_veths_with_tags_and_rotation_frames")
    else {
        return;
    };
    let rig = ExtRig::new(None);
    let (net, ext_path, mut up, mut cpu) = (&rig.net, rig.ext.clone(), rig.up, rig.cpu);
    let spec = rig.spec.unwrap();
    let fab = swtor::start(spec, Some(&net.fabric_path())).unwrap();
    let clock = fab.clock();
    let mut buf = vec![0u8; 2048];

    // Rotation frames: kind 2, the current slot, one per 2 ms slot.
    let mut slots = Vec::new();
    while slots.len() < 5 {
        let (n, _, _, _) = cpu
            .recv_one(&mut buf, 1000)
            .unwrap()
            .expect("rotation frame");
        let s = swtor::wire::shim_parse(&buf[..n]).expect("shim");
        assert_eq!((s.kind, s.slice), (swtor::wire::SHIM_ROTATION, 0));
        let now = clock.slot(monotonic_ns()) as u32;
        // Never from the future, and current to within a second (frames
        // queue in the socket while a loaded machine delays this thread).
        assert!(
            now.wrapping_sub(s.slot) < 5_000,
            "slot {} now {now}",
            s.slot
        );
        slots.push(s.slot);
    }
    assert!(slots.windows(2).all(|w| w[1] > w[0]), "{slots:?}");

    // h1 -> h2 crosses native ToR 0 and the OCS and leaves on ToR 1's
    // uplink veth untagged.
    send_probes(
        net,
        0,
        net.hosts[1].ip,
        vec![b"to-external".to_vec()],
        vec![0],
    );
    let got = loop {
        let (n, _, _, _) = up
            .recv_one(&mut buf, 2000)
            .unwrap()
            .expect("frame for ToR 1");
        if swtor::wire::ipv4_dst(&buf[..n]).is_some() {
            break buf[..n].to_vec();
        }
    };
    assert_eq!(swtor::wire::ethertype(&got), Some(0x0800), "no tag");
    assert_eq!(&got[30..34], &[10, 0, 0, 2]);
    assert!(got.ends_with(b"to-external"));

    // ToR 1 sends h2 -> h1 tagged for slice 0 of the current slot.
    let rx = udp_in(net.host_path(0), net.hosts[0].ip, UDP_DST_PORT);
    let payload = b"from-external";
    let mut f = udp(2, 1, 4000, 42 + payload.len());
    f[42..].copy_from_slice(payload);
    let tag = swtor::wire::Shim {
        kind: swtor::wire::SHIM_DEPARTURE,
        flags: 0,
        slice: 0,
        slot: clock.slot(monotonic_ns()) as u32,
    };
    let mut pool = swtor::pool::FramePool::new(2);
    let i = pool
        .alloc_from(&swtor::wire::shim_insert(&f, &tag))
        .unwrap();
    let ix = in_ns(ext_path.clone(), || {
        swtor::afpacket::if_nametoindex("u0").unwrap()
    });
    assert_eq!(up.send_batch(&pool, &[(i, ix)]).unwrap(), 1);
    let got = collect(&rx, Duration::from_millis(300));
    assert_eq!(got.len(), 1, "{}", fab.counters());
    assert_eq!(got[0].1, b"from-external");

    // Idle, the data plane sleeps until the next slot start instead of
    // spinning (BMv2 needs the core): over 0.5 s its thread's CPU time
    // stays under half the wall time (spinning takes all of it; a loaded
    // machine only lowers it), and the rotation frames keep coming.
    let tid = fab.dataplane_tid().expect("data-plane thread");
    let cpu_ticks = || {
        let s = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).unwrap();
        let f: Vec<u64> = s[s.rfind(')').unwrap() + 2..]
            .split(' ')
            .filter_map(|x| x.parse().ok())
            .collect();
        f[11] + f[12] // utime + stime (fields 14 and 15)
    };
    let (t0, c0) = (std::time::Instant::now(), cpu_ticks());
    let mut rotations = 0;
    while t0.elapsed() < Duration::from_millis(500) {
        if let Some((n, _, _, _)) = cpu.recv_one(&mut buf, 50).unwrap()
            && swtor::wire::shim_parse(&buf[..n])
                .is_some_and(|s| s.kind == swtor::wire::SHIM_ROTATION)
        {
            rotations += 1;
        }
    }
    let (wall, used) = (t0.elapsed(), cpu_ticks() - c0);
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let share = used as f64 / hz / wall.as_secs_f64();
    assert!(
        share < 0.5,
        "idle data plane used {:.0}% of a core",
        share * 100.0
    );
    assert!(
        rotations as f64 >= wall.as_secs_f64() / 0.002 / 2.0,
        "{rotations} rotation frames in {wall:?} of 2 ms slots"
    );

    let c = fab.stop();
    assert_eq!(c.from_external, 1, "{c}");
    assert_eq!(c.to_external, 1, "{c}");
    assert_eq!(c.dropped_total(), 0, "{c}");
    assert!(c.rotation_tx >= 5, "{c}");
    assert!(c.conservation_holds(), "{c}");
}

#[test]
fn an_external_tor_gets_no_more_than_a_window_beyond_what_it_took_in() {
    let Some(_serial) =
        can_run("an_external_tor_gets_no_more_than_a_window_beyond_what_it_took_in")
    else {
        return;
    };
    // The test plays the ToR: it "takes in" the rotation frames at once,
    // and the data frames only when told to; the count it reports is what
    // swtor paces itself to (docs/p4.md, "Pacing").
    let taken = swtor::TakenIn::new();
    let rig = ExtRig::new(Some(taken.clone()));
    let (net, mut up, mut cpu) = (&rig.net, rig.up, rig.cpu);
    let fab = swtor::start(rig.spec.unwrap(), Some(&net.fabric_path())).unwrap();
    const N: usize = 200;
    let window = swtor::pacer::WINDOW as usize;
    send_probes(
        net,
        0,
        net.hosts[1].ip,
        vec![b"paced".to_vec(); N],
        vec![0; N],
    );
    let mut buf = vec![0u8; 2048];
    let (mut rotations, mut data) = (0u64, 0usize);
    let mut take_data = false;
    let mut step = |until: Duration, take_data: bool, rotations: &mut u64, data: &mut usize| {
        let t0 = std::time::Instant::now();
        while t0.elapsed() < until {
            while let Some((n, _, _, out)) = cpu.recv_one(&mut buf, 0).unwrap() {
                if !out && swtor::wire::shim_parse(&buf[..n]).is_some() {
                    *rotations += 1;
                }
            }
            while let Some((n, _, _, out)) = up.recv_one(&mut buf, 1).unwrap() {
                if !out && swtor::wire::ipv4_dst(&buf[..n]).is_some() {
                    *data += 1;
                }
            }
            let took = *rotations + if take_data { *data as u64 } else { 0 };
            taken.set(took);
        }
    };
    // Taking in only the rotation frames: one window of data, no more
    // (looked at well within STALL_NS of the window filling).
    let t0 = std::time::Instant::now();
    while data == 0 && t0.elapsed() < Duration::from_secs(2) {
        step(Duration::from_millis(1), false, &mut rotations, &mut data);
    }
    step(Duration::from_millis(8), false, &mut rotations, &mut data);
    assert_eq!(data, window, "{}", fab.counters());
    let c = fab.counters();
    assert_eq!(c.queued, (N - window) as u64, "the rest wait: {c}");
    assert_eq!(c.to_external, window as u64, "{c}");
    assert!(rotations > 0, "rotation frames go outside the backlog");
    // Still not taking them in while the rotation frames keep the count
    // moving: after STALL_NS of a full window, the frames in flight are
    // written off and more come (slower, never stuck).
    step(
        Duration::from_nanos(3 * swtor::pacer::STALL_NS),
        take_data,
        &mut rotations,
        &mut data,
    );
    assert!(data > window, "{data} frames: {}", fab.counters());
    // Taking in everything: the rest follow, none lost.
    take_data = true;
    step(
        Duration::from_millis(300),
        take_data,
        &mut rotations,
        &mut data,
    );
    assert_eq!(data, N, "{}", fab.counters());
    let c = fab.stop();
    assert_eq!(c.to_external, N as u64, "{c}");
    assert_eq!(c.dropped_total(), 0, "{c}");
    assert_eq!(c.queued, 0, "{c}");
    assert!(c.conservation_holds(), "{c}");
}
