//! The HTTP side: GET routes only (nothing here changes the network), the
//! page's assets from the binary, the snapshot, one slice's circuits and
//! the event stream (server-sent events). Bound to a non-loopback address,
//! every request needs the run's token; on loopback without a token the
//! `Host` header must name loopback too, so a web page elsewhere cannot
//! read the run through DNS rebinding.

use crate::hub::{Client, Hub};
use axum::Router;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::Stream;
use lh_ctrl::config::Config;
use lh_ctrl::schedule::Schedule;
use lh_emu::net::values::SliceView;
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

/// What the handlers share.
pub struct AppState {
    pub hub: Arc<Hub>,
    pub snapshot: String,
    /// The compiled config and schedule (`/api/schedule/{ts}`).
    pub schedule: Option<(Config, Schedule)>,
    pub token: Option<String>,
}

pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", crate::assets::page()) }),
        )
        .route("/js/{name}", get(module))
        .route(
            "/app.css",
            get(|| async { asset("text/css; charset=utf-8", crate::assets::CSS) }),
        )
        .route("/api/snapshot", get(snapshot))
        .route("/api/schedule/{ts}", get(schedule))
        .route("/api/events", get(events))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// One of the page's ES modules: a browser runs a module only if it comes
/// with a JavaScript MIME type.
async fn module(Path(name): Path<String>) -> Response {
    match crate::assets::module(&name) {
        Some(text) => asset("text/javascript; charset=utf-8", text),
        None => (
            StatusCode::NOT_FOUND,
            format!("404: the page has no module {name:?}\n"),
        )
            .into_response(),
    }
}

fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The token check (non-loopback binds) or the loopback `Host` check.
async fn guard(
    State(st): State<Arc<AppState>>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
    req: Request,
    next: Next,
) -> Response {
    match &st.token {
        Some(t) => {
            let bearer = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "));
            let given = q.get("token").map(String::as_str).or(bearer);
            if !given.is_some_and(|g| constant_time_eq(g.as_bytes(), t.as_bytes())) {
                return (
                    StatusCode::UNAUTHORIZED,
                    "401: this dashboard needs its token: open the URL the run printed at start\n",
                )
                    .into_response();
            }
        }
        None => {
            let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
            if !host.is_some_and(loopback_host) {
                return (
                    StatusCode::FORBIDDEN,
                    "403: a loopback dashboard answers only to a loopback Host (127.0.0.1, localhost or [::1])\n",
                )
                    .into_response();
            }
        }
    }
    next.run(req).await
}

/// `127.0.0.1:8001`, `localhost:8001`, `[::1]:8001` (port optional).
pub fn loopback_host(h: &str) -> bool {
    let name = match h.strip_prefix('[') {
        Some(r) => r.split(']').next().unwrap_or(""),
        None => h.rsplit_once(':').map_or(h, |(n, _)| n),
    };
    name == "localhost"
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn snapshot(State(st): State<Arc<AppState>>) -> Response {
    json(StatusCode::OK, st.snapshot.clone())
}

async fn schedule(State(st): State<Arc<AppState>>, Path(ts): Path<String>) -> Response {
    let err = |kind: &str, message: String| {
        let body = serde_json::json!({"error": {"kind": kind, "message": message}});
        json(StatusCode::NOT_FOUND, body.to_string())
    };
    let Some((cfg, s)) = &st.schedule else {
        return err("NoSchedule", "this run has no compiled schedule".into());
    };
    match ts.parse::<lh_ctrl::SliceId>() {
        Ok(t) if (t as usize) < s.slices() => {
            let v = SliceView::on(cfg, s, t);
            json(
                StatusCode::OK,
                serde_json::to_string(&v).unwrap_or_default(),
            )
        }
        _ => err(
            "BadSlice",
            format!(
                "slice {ts:?}: the cycle has slices 0..={}",
                s.slices().saturating_sub(1)
            ),
        ),
    }
}

/// Unsubscribes its client when the response stream is dropped.
struct Subscription {
    hub: Arc<Hub>,
    client: Arc<Client>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.hub.unsubscribe(&self.client);
    }
}

async fn events(
    State(st): State<Arc<AppState>>,
) -> (
    [(header::HeaderName, HeaderValue); 1],
    Sse<impl Stream<Item = Result<SseEvent, Infallible>>>,
) {
    let sub = Subscription {
        hub: st.hub.clone(),
        client: st.hub.subscribe(),
    };
    let stream = futures::stream::unfold(sub, |sub| async move {
        let e = sub.client.next().await?;
        let ev = SseEvent::default().event(e.name).data(e.data.as_ref());
        Some((Ok(ev), sub))
    });
    (
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"))],
        Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(10))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_only_loopback() {
        for h in [
            "127.0.0.1:8001",
            "localhost:8001",
            "[::1]:8001",
            "localhost",
            "127.3.4.5",
        ] {
            assert!(loopback_host(h), "{h}");
        }
        for h in [
            "evil.example:8001",
            "10.0.0.1:8001",
            "[::2]:80",
            "",
            "localhost.evil:1",
        ] {
            assert!(!loopback_host(h), "{h}");
        }
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        // Two characters swapped: the differences must not cancel out.
        assert!(!constant_time_eq(b"abcd", b"bacd"));
    }
}
