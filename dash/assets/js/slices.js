/* Slices: fetch (cached), scrub, follow live, replay the cycle. */

import { getJSON } from "./api.js";
import { $ } from "./dom.js";
import { FAB, drawCircuits } from "./fabric.js";
import { num } from "./format.js";
import { S } from "./state.js";

const SCHED_CACHE_MAX = 512; // cached slices

function fetchSlice(ts) {
  if (S.sched.has(ts)) return Promise.resolve(S.sched.get(ts));
  if (S.schedPending.has(ts)) return S.schedPending.get(ts);
  const p = getJSON("/api/schedule/" + ts).then((v) => {
    if (S.sched.size >= SCHED_CACHE_MAX) S.sched.delete(S.sched.keys().next().value);
    S.sched.set(ts, v);
    S.schedPending.delete(ts);
    return v;
  }, (e) => { S.schedPending.delete(ts); throw e; });
  S.schedPending.set(ts, p);
  return p;
}

export function showSlice(ts) {
  const n = Math.max(1, S.snap.slices || 1);
  ts = ((ts % n) + n) % n;
  S.shown = ts;
  $("scrub").value = String(ts);
  if (S.sched.has(ts)) { if (FAB.drawnSlice !== ts) drawCircuits(); }
  else {
    $("shown-slice").textContent = "loading slice " + ts + "…";
    fetchSlice(ts).then(() => { if (S.shown === ts) drawCircuits(); },
      (e) => { if (S.shown === ts) $("shown-slice").textContent = "slice " + ts + ": " + e.message; });
  }
  // warm the next slice for replay/follow
  const nx = (ts + 1) % n;
  if (!S.sched.has(nx)) fetchSlice(nx).catch(() => {});
}

export function setFollow(on) {
  S.follow = on;
  $("follow").checked = on;
  if (on) { stopReplay(); if (S.liveSlice) showSlice(S.liveSlice.slice); }
}

export function stopReplay() {
  if (S.replayTimer) { clearInterval(S.replayTimer); S.replayTimer = null; }
  $("replay").textContent = "▶ replay cycle";
  $("replay").classList.remove("on");
}

export function startReplay() {
  stopReplay();
  setFollow(false);
  const sp = +$("replay-speed").value || 1;
  $("replay").textContent = "■ stop replay";
  $("replay").classList.add("on");
  S.replayTimer = setInterval(() => showSlice(S.shown + 1), 1000 / sp);
  updateReplayCaption();
}

export function updateReplayCaption() {
  const s = S.snap;
  if (!s) return;
  const sp = +$("replay-speed").value || 1;
  $("replay-caption").textContent = "Replay is slowed down: a real slice lasts " + s.slice_duration +
    " (guardband " + s.guardband + "), a whole cycle of " + s.slices + " slices " + cycleText(s) +
    "; here each slice stays " + (1 / sp).toFixed(sp > 1 ? 2 : 0) + " s. Live, the page samples the current slice every " +
    (s.sample_period_ms || "?") + " ms, so following live shows a sample, not every slice.";
}
function cycleText(s) {
  const ns = num(s.slice_ns) * num(s.slices);
  if (!ns) return "";
  if (ns >= 1e6) return "lasts " + (ns / 1e6).toFixed(ns >= 1e7 ? 1 : 2) + " ms";
  return "lasts " + (ns / 1e3).toFixed(0) + " µs";
}
