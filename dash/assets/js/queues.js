/* Calendar queues and uplinks: the sampled time series, their charts, the
   heat map of the latest bytes queued. */

import { bytesAxisFmt, lineChart } from "./charts.js";
import { $, clear, el } from "./dom.js";
import { fmtBytes, num } from "./format.js";
import { S } from "./state.js";

const RING = 300;            // points kept per time series

// Fixed-size ring of (x, y) points.
class Ring {
  constructor(n) { this.n = n; this.x = new Float64Array(n); this.y = new Float64Array(n); this.len = 0; this.head = 0; }
  push(x, y) { this.x[this.head] = x; this.y[this.head] = y; this.head = (this.head + 1) % this.n; if (this.len < this.n) this.len++; }
  lastX() { return this.len ? this.x[(this.head - 1 + this.n) % this.n] : -Infinity; }
  last() { return this.len ? this.y[(this.head - 1 + this.n) % this.n] : null; }
  points() {
    const out = [];
    const start = (this.head - this.len + this.n) % this.n;
    for (let i = 0; i < this.len; i++) { const j = (start + i) % this.n; out.push([this.x[j], this.y[j]]); }
    return out;
  }
}

function key(metric, tor, port) { return metric + ":" + tor + ":" + port; }

export function ingestUsage(usage, tickT) {
  if (!Array.isArray(usage)) return;
  let newPorts = false;
  for (const s of usage) {
    if (!s || (s.metric !== "buffer_usage" && s.metric !== "bw_usage")) continue;
    const k = key(s.metric, s.tor, s.port);
    const t = typeof s.t_ns === "number" ? s.t_ns : tickT;
    const lt = S.lastSampleT.get(k);
    if (lt !== undefined && t === lt) continue;           // the same sample sent again
    let r = S.series.get(k);
    if (!r) { r = new Ring(RING); S.series.set(k, r); }
    if (lt !== undefined && t < lt) { r.len = 0; r.head = 0; } // clock went back: new run
    S.lastSampleT.set(k, t);
    r.push(t, num(s.value));
    if (s.metric === "buffer_usage") S.latestBuf.set(s.tor + ":" + s.port, num(s.value));
    if (s.port + 1 > S.maxPort) { S.maxPort = s.port + 1; newPorts = true; }
  }
  if (newPorts) fillPortSelect();
}

export function fillTorSelect() {
  const sel = $("queue-tor");
  const prev = sel.value;
  clear(sel);
  for (const t of S.snap.tors || []) sel.appendChild(el("option", { value: t.index }, t.name));
  if (prev !== "" && [...sel.options].some((o) => o.value === prev)) sel.value = prev;
}
export function fillPortSelect() {
  const sel = $("queue-port");
  const prev = sel.value || "all";
  const n = Math.max(S.snap ? num(S.snap.uplinks) : 0, S.maxPort, 1);
  if (sel.options.length === n + 1) return;
  clear(sel);
  sel.appendChild(el("option", { value: "all" }, "all uplinks"));
  for (let p = 0; p < n; p++) sel.appendChild(el("option", { value: p }, "up" + p));
  sel.value = [...sel.options].some((o) => o.value === prev) ? prev : "all";
}
function nPorts() { return Math.max(S.snap ? num(S.snap.uplinks) : 0, S.maxPort, 1); }

// Series for the chosen ToR/port; "all": buffer bytes summed, bw averaged (equal link rates).
function seriesFor(metric) {
  const tor = $("queue-tor").value, port = $("queue-port").value;
  if (tor === "") return [];
  if (port !== "all") { const r = S.series.get(key(metric, tor, port)); return r ? r.points() : []; }
  const acc = new Map();
  let used = 0;
  for (let p = 0; p < nPorts(); p++) {
    const r = S.series.get(key(metric, tor, p));
    if (!r) continue;
    used++;
    for (const [x, y] of r.points()) { const a = acc.get(x) || [0, 0]; a[0] += y; a[1]++; acc.set(x, a); }
  }
  const xs = [...acc.keys()].sort((a, b) => a - b);
  return xs.map((x) => { const a = acc.get(x); return [x, metric === "bw_usage" ? a[0] / a[1] : a[0]]; });
}


export function renderQueues() {
  if (!S.snap) return;
  const buf = seriesFor("buffer_usage");
  let bmax = 0; for (const p of buf) if (p[1] > bmax) bmax = p[1];
  lineChart($("queue-chart"), buf, { fmt: bytesAxisFmt(Math.max(bmax, 1)), yLabel: "queued" });
  const bw = seriesFor("bw_usage").map((p) => [p[0], p[1] * 100]);
  lineChart($("bw-chart"), bw, { fmt: (v) => +v.toFixed(1) + "%", yLabel: "% of link rate", yMin: 10 });
  const lb = buf.length ? buf[buf.length - 1][1] : null, lw = bw.length ? bw[bw.length - 1][1] : null;
  $("queue-latest").textContent = lb == null ? "" : "latest: " + fmtBytes(lb) + " queued, " + (lw == null ? "–" : lw.toFixed(1) + "%") +
    " of " + ($("queue-port").value === "all" ? "the uplinks (mean)" : "the link");
}

function heatColor(f) {
  // white -> amber -> red
  f = Math.max(0, Math.min(1, f));
  const r = 255, g = Math.round(255 - 175 * f), b = Math.round(255 - 235 * Math.min(1, f * 1.6));
  return "rgb(" + r + "," + g + "," + b + ")";
}

export function renderHeat() {
  if (!S.snap) return;
  const box = $("queue-heat");
  clear(box);
  const tors = S.snap.tors || [];
  const np = nPorts();
  let max = 0; for (const v of S.latestBuf.values()) if (v > max) max = v;
  const scale = Math.max(max, 1500);
  $("heat-scale").textContent = "(scale 0 … " + fmtBytes(scale) + ")";
  const compact = tors.length > 32;
  const per = compact ? Math.ceil(tors.length / Math.ceil(tors.length / 27)) : tors.length;
  box.classList.toggle("compact", compact);
  for (let s = 0; s < tors.length; s += per) {
    const tb = el("table", { class: "heat-table" });
    const hr = el("tr");
    hr.appendChild(el("th", null, "ToR"));
    for (let p = 0; p < np; p++) hr.appendChild(el("th", null, compact ? String(p) : "up" + p));
    tb.appendChild(hr);
    for (const t of tors.slice(s, s + per)) {
      const tr = el("tr", { "data-tor": t.index });
      tr.appendChild(el("th", null, t.name));
      for (let p = 0; p < np; p++) {
        const v = S.latestBuf.get(t.index + ":" + p);
        const td = el("td", { "data-port": p, title: t.name + " up" + p + ": " + (v == null ? "no sample" : fmtBytes(v)) }, compact ? "" : (v == null ? "–" : fmtBytes(v)));
        if (v != null) td.style.background = heatColor(v / scale);
        tr.appendChild(td);
      }
      tb.appendChild(tr);
    }
    box.appendChild(tb);
  }
}
