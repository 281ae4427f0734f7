//! Scheduling hint for the data-plane thread. SCHED_FIFO busy loops get
//! RT-throttled (REFERENCE: ~45 ms stalls), so the thread stays SCHED_OTHER
//! and only raises its weight with a negative nice value, which keeps it
//! from being starved by compilers or iperf on a 2-core machine.

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
