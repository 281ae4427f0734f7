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
    /// The current retransmission timeout, µs.
    pub rto_us: u32,
    /// The congestion window now, segments.
    pub snd_cwnd: u32,
    /// The peer's advertised receive window, bytes.
    pub snd_wnd: u32,
}

/// `TCP_RTO_MAX_MS` (include/uapi/linux/tcp.h, Linux >= 6.15; not in the
/// libc crate yet).
pub const TCP_RTO_MAX_MS: libc::c_int = 44;

/// The socket's maximum RTO in ms (`getsockopt(TCP_RTO_MAX_MS)`); an
/// error on kernels without the option.
pub fn rto_max_ms(sock: &impl AsRawFd) -> std::io::Result<u32> {
    let mut v: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: the pointer and length describe `v`, which outlives the call.
    let rc = unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::IPPROTO_TCP,
            TCP_RTO_MAX_MS,
            (&raw mut v).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(v as u32)
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
        rto_us: ti.tcpi_rto,
        snd_cwnd: ti.tcpi_snd_cwnd,
        snd_wnd: ti.tcpi_snd_wnd,
    })
}
