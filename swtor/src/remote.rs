//! The data plane in another process (`lighthouse ocs`,
//! docs/architecture.md): [`serve`] answers a [`FabricHandle`]'s questions
//! on a unix socket, one JSON object per line each way, and [`connect`]
//! gives a [`FabricHandle`] whose commands go there. Counters cross as
//! [`Counters`] itself, serialized: there is no second counter type.
//!
//! Request: `{"op":"counters"}`, `{"op":"queues","tor":2}`, ... (see
//! [`Request`]); reply: `{"ok":VALUE}` or `{"err":"message"}`. The first
//! request of a client is `hello` (the clock and the process); `stop`
//! stops the engine and answers with the final counters. One client at a
//! time (the run that started the process); others wait in the backlog.

use crate::runtime::Cmd;
use crate::{CapturePoint, Counters, FabricError, FabricHandle, SliceClock};
use lh_ctrl::TorId;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// One request on the control socket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// The data plane's clock and process ([`Hello`]).
    Hello,
    /// [`FabricHandle::try_counters`].
    Counters,
    /// [`FabricHandle::queues`].
    Queues { tor: TorId },
    /// [`FabricHandle::usage`].
    Usage,
    /// [`FabricHandle::traffic_matrix`].
    TrafficMatrix,
    /// [`FabricHandle::capture`] (`file`: an absolute path) or, without a
    /// file, [`FabricHandle::stop_capture`].
    Capture {
        tor: TorId,
        at: CapturePoint,
        file: Option<PathBuf>,
    },
    /// [`FabricHandle::set_link`].
    SetLink { a: TorId, b: TorId, up: bool },
    /// [`FabricHandle::set_switch_link`].
    SetSwitchLink { a: u16, b: u16, up: bool },
    /// [`FabricHandle::set_host_link`].
    SetHostLink {
        h: u16,
        to_tor: bool,
        cfg: Option<lh_ctrl::config::HostLinkCfg>,
    },
    /// [`FabricHandle::switch_ports`].
    SwitchPorts,
    /// [`FabricHandle::stop`]: answers with the final counters.
    Stop,
}

/// What `hello` answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// CLOCK_MONOTONIC ns of slice 0 of cycle 0 (the machine's clock, the
    /// same in every process).
    pub epoch: u64,
    pub slice_ns: u64,
    pub slices: u64,
    /// The serving process and its data-plane thread.
    pub pid: u32,
    pub tid: Option<u32>,
}

/// One reply line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    Ok(serde_json::Value),
    Err(String),
}

fn ok<T: Serialize>(v: T) -> Reply {
    serde_json::to_value(v).map_or_else(|e| Reply::Err(e.to_string()), Reply::Ok)
}

fn result<T: Serialize>(r: Result<T, FabricError>) -> Reply {
    match r {
        Ok(v) => ok(v),
        // A link error's own text, not "link: ..." twice once the client
        // wraps it again.
        Err(FabricError::Link(s)) => Reply::Err(s),
        Err(e) => Reply::Err(e.to_string()),
    }
}

fn answer(h: &FabricHandle, req: Request) -> Reply {
    match req {
        Request::Hello => {
            let c = h.clock();
            ok(Hello {
                epoch: c.epoch,
                slice_ns: c.slice,
                slices: c.slices,
                pid: std::process::id(),
                tid: h.dataplane_tid(),
            })
        }
        Request::Counters => result(h.try_counters()),
        Request::Queues { tor } => ok(h.queues(tor)),
        Request::Usage => result(h.usage()),
        Request::TrafficMatrix => result(h.traffic_matrix()),
        Request::Capture {
            tor,
            at,
            file: Some(f),
        } => result(h.capture(tor, at, &f)),
        Request::Capture {
            tor,
            at,
            file: None,
        } => result(h.stop_capture(tor, at)),
        Request::SetLink { a, b, up } => result(h.set_link(a, b, up)),
        Request::SetSwitchLink { a, b, up } => result(h.set_switch_link(a, b, up)),
        Request::SetHostLink { h: k, to_tor, cfg } => result(h.set_host_link(k, to_tor, cfg)),
        Request::SwitchPorts => result(h.switch_ports()),
        Request::Stop => Reply::Err("stop is answered by serve".into()),
    }
}

/// Why [`serve`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// A client asked to stop.
    Stopped,
    /// `quit` became true (a signal).
    Quit,
    /// The client went away and `until_disconnect` was set (the run that
    /// started this process is gone).
    Disconnected,
}

/// Serves `h` on `listener` until a client sends `stop`, `quit()` turns
/// true, or (with `until_disconnect`) the first client disconnects. Stops
/// the engine and returns its final counters.
pub fn serve(
    h: FabricHandle,
    listener: &UnixListener,
    quit: &dyn Fn() -> bool,
    until_disconnect: bool,
) -> io::Result<(Ended, Counters)> {
    listener.set_nonblocking(true)?;
    loop {
        if quit() {
            return Ok((Ended::Quit, h.stop()));
        }
        let conn = match listener.accept() {
            Ok((c, _)) => c,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            Err(e) => return Err(e),
        };
        conn.set_nonblocking(false)?;
        conn.set_read_timeout(Some(Duration::from_millis(100)))?;
        let mut w = conn.try_clone()?;
        let mut r = BufReader::new(conn);
        let mut line = String::new();
        let gone = loop {
            if quit() {
                return Ok((Ended::Quit, h.stop()));
            }
            match r.read_line(&mut line) {
                Ok(0) => break true,
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    // A partial line stays in `line` for the next read.
                    continue;
                }
                Err(_) => break true,
            }
            let text = std::mem::take(&mut line);
            let reply = match serde_json::from_str::<Request>(text.trim()) {
                Ok(Request::Stop) => {
                    let c = h.stop();
                    let _ = write_line(&mut w, &ok(&c));
                    return Ok((Ended::Stopped, c));
                }
                Ok(req) => answer(&h, req),
                Err(e) => Reply::Err(format!("bad request: {e}")),
            };
            if write_line(&mut w, &reply).is_err() {
                break true;
            }
        };
        if gone && until_disconnect {
            return Ok((Ended::Disconnected, h.stop()));
        }
    }
}

fn write_line<T: Serialize>(w: &mut impl Write, v: &T) -> io::Result<()> {
    let mut s = serde_json::to_string(v).map_err(io::Error::other)?;
    s.push('\n');
    w.write_all(s.as_bytes())?;
    w.flush()
}

/// The client's end of one connection.
struct Conn {
    w: UnixStream,
    r: BufReader<UnixStream>,
}

/// How long the client waits for one reply (the server's own engine
/// replies within 2 s).
const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

impl Conn {
    fn call<T: DeserializeOwned>(&mut self, req: &Request) -> io::Result<Result<T, String>> {
        write_line(&mut self.w, req)?;
        let mut line = String::new();
        if self.r.read_line(&mut line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the OCS process closed its control socket",
            ));
        }
        match serde_json::from_str::<Reply>(line.trim()).map_err(io::Error::other)? {
            Reply::Ok(v) => Ok(Ok(serde_json::from_value(v).map_err(io::Error::other)?)),
            Reply::Err(e) => Ok(Err(e)),
        }
    }
}

/// A [`FabricHandle`] for the data plane served on `socket` by another
/// process. Its commands are sent by a proxy thread; when that process is
/// gone every command fails as [`FabricError::Stopped`] (and `counters()`
/// gives defaults). `stop()` asks the process to stop and returns its
/// final counters. Runtime reconfiguration (`--ta-live`) is not carried.
pub fn connect(socket: &Path) -> Result<FabricHandle, FabricError> {
    let io = |what: &str| {
        let what = format!("{what} {}", socket.display());
        move |source| FabricError::Io { what, source }
    };
    let s = UnixStream::connect(socket).map_err(io("connecting to"))?;
    s.set_read_timeout(Some(CLIENT_TIMEOUT))
        .map_err(io("configuring"))?;
    let mut conn = Conn {
        w: s.try_clone().map_err(io("cloning"))?,
        r: BufReader::new(s),
    };
    let hello: Hello = conn
        .call(&Request::Hello)
        .map_err(io("hello on"))?
        .map_err(FabricError::Spec)?;
    let clock = SliceClock {
        epoch: hello.epoch,
        slice: hello.slice_ns,
        slices: hello.slices,
    };
    let (tx, rx) = mpsc::channel::<Cmd>();
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let thread = std::thread::Builder::new()
        .name("swtor-remote".into())
        .spawn(move || proxy(conn, rx, &stop2))
        .map_err(|source| FabricError::Io {
            what: "spawning the control-channel thread".into(),
            source,
        })?;
    Ok(FabricHandle::from_parts(tx, stop, thread, clock, hello.tid))
}

/// Forwards commands until `stop`; then asks the process to stop.
fn proxy(mut conn: Conn, rx: mpsc::Receiver<Cmd>, stop: &AtomicBool) -> Counters {
    let mut alive = true;
    loop {
        if stop.load(Ordering::Relaxed) {
            if !alive {
                return Counters::default();
            }
            return conn
                .call::<Counters>(&Request::Stop)
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
        }
        let cmd = match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(c) => c,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => return Counters::default(),
        };
        if !alive {
            // Dropping the command drops its reply sender: the asker sees
            // `FabricError::Stopped`.
            continue;
        }
        if let Err(e) = forward(&mut conn, cmd) {
            tracing::warn!("OCS control channel: {e}");
            alive = false;
        }
    }
}

/// One command as a request; its reply goes to the command's sender. An
/// I/O error means the process is gone.
fn forward(conn: &mut Conn, cmd: Cmd) -> io::Result<()> {
    match cmd {
        Cmd::Counters(r) => {
            if let Ok(v) = conn.call(&Request::Counters)? {
                let _ = r.send(v);
            }
        }
        Cmd::Queues(tor, r) => {
            if let Ok(v) = conn.call(&Request::Queues { tor })? {
                let _ = r.send(v);
            }
        }
        Cmd::Usage(r) => {
            if let Ok(v) = conn.call(&Request::Usage)? {
                let _ = r.send(v);
            }
        }
        Cmd::TrafficMatrix(r) => {
            if let Ok(v) = conn.call(&Request::TrafficMatrix)? {
                let _ = r.send(v);
            }
        }
        Cmd::SwitchPorts(r) => {
            if let Ok(v) = conn.call(&Request::SwitchPorts)? {
                let _ = r.send(v);
            }
        }
        Cmd::Capture(tor, at, file, r) => {
            // The process opens the path itself (and truncates the file
            // the caller created).
            let file = file.map(|(_, p)| p);
            let v = conn.call::<()>(&Request::Capture { tor, at, file })?;
            let _ = r.send(v.map_err(io::Error::other));
        }
        Cmd::SetLink(a, b, up, r) => {
            let _ = r.send(conn.call::<()>(&Request::SetLink { a, b, up })?);
        }
        Cmd::SetSwitchLink(a, b, up, r) => {
            let _ = r.send(conn.call::<()>(&Request::SetSwitchLink { a, b, up })?);
        }
        Cmd::SetHostLink(h, to_tor, cfg, r) => {
            let _ = r.send(conn.call::<()>(&Request::SetHostLink { h, to_tor, cfg })?);
        }
        Cmd::Reconfigure(_, r) => {
            let _ = r.send(Err(FabricError::Spec(
                "reconfiguring a data plane in another process (the OCS process) is not supported"
                    .into(),
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_replies_are_json_lines_with_an_op() {
        let r = Request::Queues { tor: 2 };
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"op":"queues","tor":2}"#
        );
        assert_eq!(
            serde_json::from_str::<Request>(r#"{"op":"stop"}"#).unwrap(),
            Request::Stop
        );
        assert_eq!(
            serde_json::to_string(&Reply::Err("x".into())).unwrap(),
            r#"{"err":"x"}"#
        );
    }

    #[test]
    fn counters_cross_the_channel_unchanged() {
        let mut c = Counters {
            sent: 7,
            delivered: 5,
            queued: 1,
            ..Default::default()
        };
        c.drop_one(crate::DropReason::LinkDown);
        c.boundary_lateness_hist[3] = 9;
        let v = match ok(&c) {
            Reply::Ok(v) => v,
            Reply::Err(e) => panic!("{e}"),
        };
        assert_eq!(v["dropped"]["link_down"], 1);
        let back: Counters = serde_json::from_value(v).unwrap();
        assert_eq!(back, c);
        assert!(back.conservation_holds());
    }
}
