//! The kernel's per-connection TCP counters (`getsockopt(TCP_INFO)`).

use std::os::fd::AsRawFd;

/// The counters the workload statistics use.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TcpCounters {
    /// Segments retransmitted over the connection's life.
    pub total_retrans: u32,
    /// Reordering events the sender detected.
    pub reord_seen: u32,
    /// Out-of-order packets the receiver queued.
    pub rcv_ooopack: u32,
    /// Retransmission timeouts.
    pub total_rto: u32,
}

/// `TCP_INFO` of a connected socket; fields the running kernel does not
/// have read as 0.
pub fn read(sock: &impl AsRawFd) -> std::io::Result<TcpCounters> {
    // SAFETY: tcp_info is plain old data, so all-zero is a valid value.
    let mut ti: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: the pointer and length describe `ti`, which outlives the call;
    // the kernel writes at most `len` bytes and updates `len`.
    let rc = unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&raw mut ti).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(TcpCounters {
        total_retrans: ti.tcpi_total_retrans,
        reord_seen: ti.tcpi_reord_seen,
        rcv_ooopack: ti.tcpi_rcv_ooopack,
        total_rto: u32::from(ti.tcpi_total_rto),
    })
}
