//! The live web dashboard of a run (docs/dashboard.md): an HTTP server
//! inside the run, fed by the typed Network API. The network publishes
//! its operations' values through its tap ([`Network::set_tap`]); a
//! sampler reads the current slice, telemetry and counters through an
//! [`lh_emu::net::Observer`]; both go to every page as server-sent events
//! through bounded per-client queues ([`hub`]).
//!
//! ```no_run
//! # fn f(net: &mut lh_emu::net::Network) -> Result<(), lh_dash::DashError> {
//! let bound = lh_dash::bind(lh_dash::DEFAULT_ADDR)?; // before the run exists
//! let dash = lh_dash::Dashboard::start(bound, net, lh_dash::Options::default())?;
//! eprintln!("*** Dashboard: {}", dash.url());
//! // ... the run ...
//! dash.stop(Some(net.stop()));
//! # Ok(()) }
//! ```

pub mod assets;
pub mod hub;
mod sampler;
pub mod server;
pub mod snapshot;

use hub::Hub;
use lh_emu::net::Network;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Where `--dashboard` listens without an address (OpenOptics' port).
pub const DEFAULT_ADDR: &str = "127.0.0.1:8001";

#[derive(Debug, thiserror::Error)]
pub enum DashError {
    #[error("--dashboard {0}: not an address (expected HOST:PORT, e.g. 127.0.0.1:8001, or a PORT)")]
    BadAddr(String),
    #[error("--dashboard {addr}: {what}")]
    Bind { addr: String, what: String },
    #[error("dashboard: {0}")]
    Io(#[from] std::io::Error),
}

/// A listening socket, made before the run so that a port in use fails
/// before any namespace exists.
pub struct Bound {
    listener: TcpListener,
    addr: SocketAddr,
    /// Required on every request when bound beyond loopback.
    token: Option<String>,
}

/// Binds `addr` (`HOST:PORT`, or a bare `PORT` on 127.0.0.1).
pub fn bind(addr: &str) -> Result<Bound, DashError> {
    let text = if addr.parse::<u16>().is_ok() {
        format!("127.0.0.1:{addr}")
    } else {
        addr.to_string()
    };
    let sa = text
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| DashError::BadAddr(addr.to_string()))?;
    let listener = TcpListener::bind(sa).map_err(|e| DashError::Bind {
        addr: sa.to_string(),
        what: match e.kind() {
            std::io::ErrorKind::AddrInUse => {
                "address already in use (another dashboard or server?): give another, e.g. --dashboard 127.0.0.1:8002".into()
            }
            _ => e.to_string(),
        },
    })?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let token = (!addr.ip().is_loopback()).then(new_token);
    Ok(Bound {
        listener,
        addr,
        token,
    })
}

fn new_token() -> String {
    use rand::Rng;
    let b: [u8; 16] = rand::thread_rng().r#gen();
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Bound {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL (with the token, if one is needed); an unspecified
    /// bind (0.0.0.0) is shown as loopback, where this machine reaches it.
    pub fn url(&self) -> String {
        let mut a = self.addr;
        if a.ip().is_unspecified() {
            a.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        match &self.token {
            Some(t) => format!("http://{a}/?token={t}"),
            None => format!("http://{a}/"),
        }
    }
}

/// ToRs above which the default tick is 1 s instead of 200 ms.
pub const BIG_FABRIC: usize = 32;

/// Tunables.
#[derive(Clone, Debug)]
pub struct Options {
    /// How often the sampler sends a tick (`None`: 200 ms, or 1 s on a
    /// fabric of more than [`BIG_FABRIC`] ToRs, whose ticks carry every
    /// uplink's samples: opera-108's are ~150 KB).
    pub period: Option<Duration>,
    /// Events a client's queue holds before it drops its oldest.
    pub queue: usize,
    /// The monitoring requests the page lists (default: the config's).
    pub monitors: Option<Vec<lh_ctrl::config::Monitor>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            period: None,
            queue: hub::CLIENT_QUEUE,
            monitors: None,
        }
    }
}

/// A running dashboard.
pub struct Dashboard {
    hub: Arc<Hub>,
    url: String,
    addr: SocketAddr,
    sampler: Option<sampler::Sampler>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    server: Option<JoinHandle<()>>,
}

impl Dashboard {
    /// Serves `net` on `bound`: its tap publishes every operation's value
    /// from now on, and, if its data plane runs, a sampler sends ticks.
    pub fn start(bound: Bound, net: &mut Network, opts: Options) -> Result<Dashboard, DashError> {
        let hub = Arc::new(Hub::new(opts.queue));
        let period = opts
            .period
            .unwrap_or(if net.plan.visible_tors > BIG_FABRIC {
                Duration::from_secs(1)
            } else {
                Duration::from_millis(200)
            });
        let period_ms = period.as_millis() as u64;
        let mut snap = snapshot::Snapshot::of(net, period_ms);
        if let Some(m) = &opts.monitors {
            snap.monitors = m.iter().map(snapshot::Monitor::of).collect();
        }
        let snapshot = serde_json::to_string(&snap).map_err(std::io::Error::other)?;
        let links = serde_json::to_string(&snap.links).map_err(std::io::Error::other)?;
        hub.publish("links", links, Some("links"));
        let state = Arc::new(server::AppState {
            hub: hub.clone(),
            snapshot,
            schedule: net
                .compiled
                .as_ref()
                .map(|c| (c.config.clone(), c.schedule.clone())),
            token: bound.token.clone(),
        });
        let url = bound.url();
        let addr = bound.addr;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let listener = bound.listener;
        let app = server::router(state);
        let server = std::thread::Builder::new()
            .name("lh-dash-http".into())
            .spawn(move || serve(listener, app, rx))?;
        net.set_tap(Some(tap(hub.clone())));
        let sampler = match net.observer() {
            Some(o) => Some(sampler::Sampler::start(o, hub.clone(), period)?),
            None => None,
        };
        Ok(Dashboard {
            hub,
            url,
            addr,
            sampler,
            shutdown: Some(tx),
            server: Some(server),
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    /// Sends `end` (with whether the run ended well, if known), ends every
    /// stream and stops the server.
    pub fn stop(mut self, ok: Option<bool>) {
        self.halt(ok);
    }

    fn halt(&mut self, ok: Option<bool>) {
        if let Some(s) = self.sampler.take() {
            s.stop();
        }
        let end = serde_json::json!({ "ok": ok });
        self.hub.close(Some(("end", end.to_string())));
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.server.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Dashboard {
    fn drop(&mut self) {
        if self.server.is_some() {
            self.halt(None);
        }
    }
}

/// The network's tap: `links` (after a link change) replaces the links
/// event; any other verb's value goes out as a `result`, the latest of
/// each verb replayed to pages opened later.
fn tap(hub: Arc<Hub>) -> lh_emu::net::Tap {
    Arc::new(move |verb: &str, v: serde_json::Value| {
        if verb == "links" {
            hub.publish("links", v.to_string(), Some("links"));
        } else {
            let body = serde_json::json!({ "verb": verb, "value": v });
            hub.publish("result", body.to_string(), Some(&format!("result:{verb}")));
        }
    })
}

/// How long stopping waits for pages to read their last events.
const DRAIN: Duration = Duration::from_millis(500);

/// The server thread: a current-thread tokio runtime. On shutdown the
/// streams have ended; connections get [`DRAIN`] to finish, then the
/// runtime is dropped (a client that never reads cannot hold the run).
fn serve(listener: TcpListener, app: axum::Router, stop: tokio::sync::oneshot::Receiver<()>) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("dashboard: no runtime: {e}");
            return;
        }
    };
    rt.block_on(async move {
        let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
            return;
        };
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let graceful = axum::serve(listener, app).with_graceful_shutdown(async move {
            let _ = rx.await;
        });
        let server = tokio::spawn(async move {
            let _ = graceful.await;
        });
        let _ = stop.await;
        let _ = tx.send(());
        let _ = tokio::time::timeout(DRAIN, server).await;
    });
    rt.shutdown_timeout(Duration::from_millis(100));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// The events waiting in `c`'s queue, as (name, data).
    fn pending(c: &hub::Client) -> Vec<(&'static str, Value)> {
        let mut v = Vec::new();
        while c.depth().0 > 0 {
            let e = futures::executor::block_on(c.next()).unwrap();
            v.push((e.name, serde_json::from_str(&e.data).unwrap()));
        }
        v
    }

    #[test]
    fn the_tap_sends_links_as_links_and_other_verbs_as_their_latest_result() {
        let hub = Arc::new(Hub::new(8));
        let early = hub.subscribe();
        let t = tap(hub.clone());
        t("links", json!({"links": []}));
        t("pingall", json!({"sent": 2}));
        t("pingall", json!({"sent": 4}));
        t("iperf", json!({"bps": 1}));
        assert_eq!(
            pending(&early),
            [
                ("links", json!({"links": []})),
                ("result", json!({"verb": "pingall", "value": {"sent": 2}})),
                ("result", json!({"verb": "pingall", "value": {"sent": 4}})),
                ("result", json!({"verb": "iperf", "value": {"bps": 1}})),
            ]
        );
        // A page opened now starts with the links and each verb's latest.
        let mut late = pending(&hub.subscribe());
        late.sort_by_key(|(n, v)| (*n, v.to_string()));
        assert_eq!(
            late,
            [
                ("links", json!({"links": []})),
                ("result", json!({"verb": "iperf", "value": {"bps": 1}})),
                ("result", json!({"verb": "pingall", "value": {"sent": 4}})),
            ]
        );
    }
}
