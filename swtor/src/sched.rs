//! Scheduling hint for the data-plane thread. SCHED_FIFO busy loops get
//! RT-throttled (REFERENCE: ~45 ms stalls), so the thread stays SCHED_OTHER
//! and only raises its weight with a negative nice value, which keeps it
//! from being starved by compilers or iperf on a 2-core machine. Asked to
//! (`EngineOptions::cpu`), it keeps a CPU to itself ([`dataplane_cpu`]),
//! and the hosts' receive work goes to the others ([`host_rps_mask`]).

/// Sets the calling thread's nice value (best effort; needs CAP_SYS_NICE
/// for negative values). Returns whether it took effect.
pub fn set_thread_nice(nice: i32) -> bool {
    let tid = thread_id();
    // SAFETY: setpriority on our own thread id; no memory is passed.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice) == 0 }
}

/// The calling thread's kernel id (what `ps -L` and `/proc/PID/task` show).
pub fn thread_id() -> u32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() as u32 }
}

/// The CPUs this process may run on (`sched_getaffinity`), ascending.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 is the calling thread; the size is the set's own.
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0
    {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: CPU_ISSET reads the set within CPU_SETSIZE.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect()
}

/// The CPU a data plane that keeps one to itself takes (`lighthouse run
/// --own-cpu`): the last allowed CPU, if there are two or more.
///
/// Why: a frame the data plane writes to a host's veth is received, and
/// the host's whole TCP answer to it (ACK processing, the next segments)
/// sent, inside that write, on the data plane's CPU. On 2 cores that made
/// the poll loop 100-250 us long under bulk TCP, so queues sat idle in
/// their own slice and live elephants ran 1.1-1.9x slower than virtual
/// time (docs/fidelity.md). Pinned, with the hosts' veths steering their
/// receive work to the other CPUs ([`host_rps_mask`]), that work runs
/// beside it. The cost: a frame to an idle host waits for its CPU to
/// wake (0.1-0.3 ms on this 2-vCPU VM), which sparse traffic such as
/// pings shows; hence an option, not the default.
pub fn dataplane_cpu() -> Option<usize> {
    let cpus = allowed_cpus();
    (cpus.len() >= 2).then(|| cpus[cpus.len() - 1])
}

/// Pins the calling thread to `cpu`. Returns whether it took effect.
pub fn pin_thread(cpu: usize) -> bool {
    set_thread_cpus(&[cpu])
}

/// Lets the calling thread run on `cpus` only (threads it spawns later
/// inherit the set). Returns whether it took effect; an empty set, or one
/// with a CPU beyond `CPU_SETSIZE`, does not.
pub fn set_thread_cpus(cpus: &[usize]) -> bool {
    if cpus.is_empty() || cpus.iter().any(|&c| c >= libc::CPU_SETSIZE as usize) {
        return false;
    }
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        // SAFETY: c is below CPU_SETSIZE (checked above).
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: pid 0 is the calling thread; the set is initialised.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 }
}

/// The CPUs the hosts have when the data plane keeps `dataplane` to
/// itself: every allowed CPU but that one.
pub fn host_cpus(dataplane: usize) -> Vec<usize> {
    allowed_cpus()
        .into_iter()
        .filter(|&c| c != dataplane)
        .collect()
}

/// The `rps_cpus` mask (sysfs's hex, 32-bit groups joined by commas,
/// highest first) of every allowed CPU but `dataplane`: where a host
/// veth's received frames are processed.
pub fn host_rps_mask(dataplane: usize) -> String {
    cpu_mask(&host_cpus(dataplane))
}

/// `cpus` as sysfs writes a CPU mask: hex, in 32-bit groups from the
/// highest, joined by commas (`5` for CPUs 0 and 2; `1,00000000` for 32).
pub fn cpu_mask(cpus: &[usize]) -> String {
    let groups = cpus.iter().max().map_or(1, |m| m / 32 + 1);
    let mut g = vec![0u32; groups];
    for &c in cpus {
        g[c / 32] |= 1 << (c % 32);
    }
    let mut s = format!("{:x}", g[groups - 1]);
    for w in g[..groups - 1].iter().rev() {
        s.push_str(&format!(",{w:08x}"));
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn cpu_masks_are_written_as_sysfs_reads_them() {
        assert_eq!(super::cpu_mask(&[0]), "1");
        assert_eq!(super::cpu_mask(&[0, 2]), "5");
        assert_eq!(super::cpu_mask(&[0, 1, 2, 3, 4, 5, 6]), "7f");
        assert_eq!(super::cpu_mask(&[32]), "1,00000000");
        assert_eq!(super::cpu_mask(&[1, 33, 64]), "1,00000002,00000002");
        assert_eq!(super::cpu_mask(&[]), "0");
    }

    #[test]
    fn allowed_cpus_are_the_kernels_list() {
        // /proc/self/status: "Cpus_allowed_list:\t0-1,4" (ranges and singles).
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let list = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .unwrap()
            .trim();
        let mut want = Vec::new();
        for part in list.split(',') {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            want.extend(a.parse::<usize>().unwrap()..=b.parse::<usize>().unwrap());
        }
        assert_eq!(super::allowed_cpus(), want);
    }

    #[test]
    fn the_data_plane_keeps_the_last_cpu_and_the_hosts_get_the_rest() {
        let cpus = super::allowed_cpus();
        assert!(!cpus.is_empty());
        match super::dataplane_cpu() {
            Some(dp) => {
                assert_eq!(dp, *cpus.last().unwrap());
                assert_eq!(
                    super::host_rps_mask(dp),
                    super::cpu_mask(&cpus[..cpus.len() - 1])
                );
                let t = std::thread::spawn(move || {
                    assert!(super::pin_thread(dp));
                    super::allowed_cpus()
                });
                assert_eq!(t.join().unwrap(), vec![dp]);
                let hosts = super::host_cpus(dp);
                assert_eq!(hosts, cpus[..cpus.len() - 1]);
                // A thread kept to the hosts' CPUs passes them on to the
                // threads it spawns.
                let t = std::thread::spawn(move || {
                    assert!(super::set_thread_cpus(&hosts));
                    let child = std::thread::spawn(super::allowed_cpus);
                    (super::allowed_cpus(), child.join().unwrap())
                });
                let (mine, child) = t.join().unwrap();
                assert_eq!(mine, cpus[..cpus.len() - 1]);
                assert_eq!(child, mine);
            }
            None => assert_eq!(cpus.len(), 1),
        }
        assert!(!super::set_thread_cpus(&[]));
        assert!(!super::set_thread_cpus(&[libc::CPU_SETSIZE as usize]));
    }
}
