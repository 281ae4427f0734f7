/* The run's read-only HTTP API: GETs /api/snapshot and /api/schedule/{ts},
   listens on /api/events (SSE), with the page's token if it has one. */

const TOKEN = new URLSearchParams(location.search).get("token");
const Q = TOKEN ? "?token=" + encodeURIComponent(TOKEN) : "";

export async function getJSON(path) {
  const r = await fetch(path + Q, { cache: "no-store" });
  let body = null;
  try { body = await r.json(); } catch (_) { body = null; }
  if (!r.ok) {
    const m = body && body.error ? body.error.kind + ": " + body.error.message : "HTTP " + r.status;
    const err = new Error(m); err.status = r.status; throw err;
  }
  return body;
}

// The run's event stream (server-sent events: links, tick, result, end).
export function openEvents() {
  return new EventSource("/api/events" + Q);
}
