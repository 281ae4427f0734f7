//! NIC offloads through the legacy ETHTOOL ioctl (what `ethtool -K` does).
//! A userspace forwarder sees frames before the kernel fills in checksums or
//! splits super-frames, so hosts must send finished, MTU-sized frames: TX
//! checksum, TSO, GSO and GRO off. The ioctl socket is opened inside the
//! namespace (on a [`crate::netns::run_in`] thread), since ioctls address
//! interfaces by name in the socket's namespace. All `unsafe` for ioctls is
//! here.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const SIOCETHTOOL: libc::c_ulong = 0x8946;

/// Legacy get/set command pairs (include/uapi/linux/ethtool.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offload {
    TxChecksum,
    Tso,
    Gso,
    Gro,
}

impl Offload {
    fn cmds(self) -> (u32, u32) {
        match self {
            Offload::TxChecksum => (0x16, 0x17),
            Offload::Tso => (0x1e, 0x1f),
            Offload::Gso => (0x23, 0x24),
            Offload::Gro => (0x2b, 0x2c),
        }
    }
}

#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

fn ioctl_socket() -> io::Result<OwnedFd> {
    // SAFETY: plain socket(2); the fd is owned right away.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh, valid descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn ethtool(sock: &OwnedFd, ifname: &str, v: &mut EthtoolValue) -> io::Result<()> {
    if ifname.len() >= libc::IFNAMSIZ {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "interface name too long",
        ));
    }
    // SAFETY: ifreq is plain old data; all-zero is a valid value.
    let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in ifr.ifr_name.iter_mut().zip(ifname.bytes()) {
        *d = s as libc::c_char;
    }
    ifr.ifr_ifru.ifru_data = (v as *mut EthtoolValue).cast();
    // SAFETY: SIOCETHTOOL reads/writes the EthtoolValue that ifr points to,
    // which outlives the call.
    let r = unsafe { libc::ioctl(sock.as_raw_fd(), SIOCETHTOOL, &mut ifr) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Read an offload flag of `ifname` in the calling thread's namespace.
pub fn get(ifname: &str, o: Offload) -> io::Result<bool> {
    let s = ioctl_socket()?;
    let mut v = EthtoolValue {
        cmd: o.cmds().0,
        data: 0,
    };
    ethtool(&s, ifname, &mut v)?;
    Ok(v.data != 0)
}

/// Set an offload flag of `ifname` in the calling thread's namespace.
pub fn set(ifname: &str, o: Offload, on: bool) -> io::Result<()> {
    let s = ioctl_socket()?;
    let mut v = EthtoolValue {
        cmd: o.cmds().1,
        data: on as u32,
    };
    ethtool(&s, ifname, &mut v)
}

/// Host-end policy: TX checksum, TSO, GSO and GRO all off. TX checksum goes
/// first; the kernel then drops TSO, which depends on it.
pub fn host_offloads_off(ifname: &str) -> io::Result<()> {
    for o in [
        Offload::TxChecksum,
        Offload::Tso,
        Offload::Gso,
        Offload::Gro,
    ] {
        set(ifname, o, false)
            .map_err(|e| io::Error::new(e.kind(), format!("{ifname} {o:?} off: {e}")))?;
    }
    Ok(())
}
