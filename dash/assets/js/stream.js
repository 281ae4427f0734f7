/* The event stream: reconnects, and hands each event to its panels. */

import { openEvents } from "./api.js";
import { $ } from "./dom.js";
import { renderDrops } from "./drops.js";
import { setLinks } from "./fabric.js";
import { num } from "./format.js";
import { setStatus, showError } from "./header.js";
import { renderMonitors } from "./monitors.js";
import { ingestUsage, renderHeat, renderQueues } from "./queues.js";
import { onResult } from "./results.js";
import { showSlice, stopReplay } from "./slices.js";
import { reloadSnapshot } from "./snapshot.js";
import { S } from "./state.js";

let renderQueued = false;
function onTick(t) {
  if (!t) return;
  const lg = num(t.lagged);
  $("lagged").textContent = lg + (lg === 1 ? " sample" : " samples") + " dropped for this client";
  $("lagged").classList.toggle("bad", lg > 0);
  S.liveSlice = t.slice || null;
  // A large fabric (opera-108: 324 circuits, 648 queues) is redrawn at
  // most once a second: the page's drawing competes for the cores with
  // the data plane when the browser runs on the same machine.
  const big = S.snap && (S.snap.tors || []).length > 32; // lh_dash::BIG_FABRIC
  const nowMs = performance.now();
  const draw = !big || !(nowMs - (S.lastDraw || 0) < 1000);
  if (draw) S.lastDraw = nowMs;
  if (S.snap && S.snap.fabric !== "fat_tree") {
    if (t.slice) {
      $("slice-now").textContent = "slice " + t.slice.slice + " of " + t.slice.slices + ", cycle " + t.slice.cycle;
      if (S.follow && draw) showSlice(t.slice.slice);
    } else $("slice-now").textContent = "no data plane (no current slice)";
  }
  ingestUsage(t.usage, num(t.t_ns));
  if (!draw) return;
  renderMonitors(t.usage);
  renderDrops(t.conservation, t.dropped);
  // charts: at most once per animation frame
  if (!renderQueued) {
    renderQueued = true;
    requestAnimationFrame(() => { renderQueued = false; renderQueues(); renderHeat(); });
    setTimeout(() => { if (renderQueued) { renderQueued = false; renderQueues(); renderHeat(); } }, 250);
  }
}

function parse(ev) {
  try { return JSON.parse(ev.data); } catch (e) { console.warn("bad event data", e); return null; }
}

export function connect() {
  if (S.ended) return;
  if (S.es) S.es.close();
  const es = openEvents();
  S.es = es;
  es.onopen = () => {
    setStatus("live");
    showError("");
    S.backoff = 1000;
    if (S.hadError) { S.hadError = false; reloadSnapshot(); }
  };
  es.onerror = () => {
    if (S.ended) return;
    S.hadError = true;
    setStatus("reconnecting");
    if (es.readyState === EventSource.CLOSED) {
      // the browser gave up (e.g. an HTTP error): retry ourselves
      setTimeout(() => { if (S.es === es) connect(); }, S.backoff);
      S.backoff = Math.min(S.backoff * 2, 15000);
    }
  };
  es.addEventListener("tick", (ev) => { const v = parse(ev); if (v) onTick(v); });
  es.addEventListener("result", (ev) => { const v = parse(ev); if (v) onResult(v); });
  es.addEventListener("links", (ev) => { const v = parse(ev); if (v) setLinks(v); });
  es.addEventListener("end", (ev) => {
    const v = parse(ev);
    S.ended = true;
    es.close();
    setStatus("run ended");
    if (v && v.ok === false) $("status").title = "the run stopped with an error";
    stopReplay();
  });
}
