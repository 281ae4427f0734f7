/* Flow completion times: the CDF per size bucket and the summary table. */

import { $, clear, el, sv } from "./dom.js";
import { fmtBytes, fmtMs, fmtRate, num } from "./format.js";
import { S } from "./state.js";

const BUCKETS = ["mice", "medium", "elephants"];
function bucketOf(size) {
  const b = (S.snap && S.snap.buckets) || { mice_below: 100000, elephants_from: 10000000 };
  if (size < b.mice_below) return "mice";
  if (size >= b.elephants_from) return "elephants";
  return "medium";
}

export function renderFct(verb, v) {
  const recs = (v && v.records) || [];
  const by = { mice: [], medium: [], elephants: [] };
  for (const r of recs) {
    if (!r || r.fct_ns == null || !r.flow) continue;
    by[bucketOf(num(r.flow.size))].push(r.fct_ns / 1e6);
  }
  const head = v && v.head ? String(v.head).replace(/^\*+\s*/, "").trim() : verb;
  const s = (v && v.summary) || {};
  let extra = "";
  if (s.goodput_bps != null) extra += " — goodput " + fmtRate(s.goodput_bps);
  if (s.flows != null) extra += ", " + num(s.completed) + " of " + num(s.flows) + " completed";
  if (s.retrans != null) extra += ", " + num(s.retrans) + " retransmits";
  $("fct-head").textContent = (v && v.head ? "" : verb + ": ") + head + extra;
  const svg = $("fct").querySelector("svg.cdf");
  clear(svg);
  const W = 520, H = 240, L = 46, R = 22, T = 12, B = 38, pw = W - L - R, ph = H - T - B;
  const all = [].concat(by.mice, by.medium, by.elephants).filter((x) => x > 0);
  let lo = all.length ? Math.min(...all) : 0.01, hi = all.length ? Math.max(...all) : 1000;
  let d0 = Math.floor(Math.log10(lo)), d1 = Math.ceil(Math.log10(hi));
  if (d1 <= d0) d1 = d0 + 1;
  const X = (ms) => L + ((Math.log10(Math.max(ms, 1e-6)) - d0) / (d1 - d0)) * pw;
  const Y = (f) => T + ph - f * ph;
  svg.appendChild(sv("rect", { class: "plot-bg", x: L, y: T, width: pw, height: ph }));
  const ax = sv("g", { class: "axis" });
  for (let f = 0; f <= 1.0001; f += 0.25) {
    ax.appendChild(sv("line", { class: "grid", x1: L, x2: L + pw, y1: Y(f), y2: Y(f) }));
    ax.appendChild(sv("text", { x: L - 6, y: Y(f) + 4, "text-anchor": "end" }, f.toFixed(2)));
  }
  for (let d = d0; d <= d1; d++) {
    const ms = Math.pow(10, d);
    ax.appendChild(sv("line", { class: "grid", x1: X(ms), x2: X(ms), y1: T, y2: T + ph }));
    ax.appendChild(sv("text", { x: X(ms), y: T + ph + 16, "text-anchor": "middle" }, d >= 0 ? String(ms) : ms.toFixed(-d)));
    for (let m = 2; m < 10 && d < d1; m++) ax.appendChild(sv("line", { class: "tick", x1: X(m * ms), x2: X(m * ms), y1: T + ph, y2: T + ph + 3 }));
  }
  ax.appendChild(sv("line", { class: "frame", x1: L, x2: L, y1: T, y2: T + ph }));
  ax.appendChild(sv("line", { class: "frame", x1: L, x2: L + pw, y1: T + ph, y2: T + ph }));
  ax.appendChild(sv("text", { x: L + pw / 2, y: H - 4, "text-anchor": "middle", class: "label" }, "flow completion time (ms, log scale)"));
  ax.appendChild(sv("text", { x: 11, y: T + ph / 2, "text-anchor": "middle", class: "label", transform: "rotate(-90 11 " + (T + ph / 2) + ")" }, "fraction of flows"));
  svg.appendChild(ax);
  const lg = $("fct-legend");
  clear(lg);
  for (const b of BUCKETS) {
    const xs = by[b].sort((a, c) => a - c);
    if (!xs.length) continue;
    const n = xs.length, stride = Math.max(1, Math.ceil(n / 400));
    let d = "M" + X(xs[0]).toFixed(1) + "," + Y(0).toFixed(1);
    for (let i = 0; i < n; i += stride) {
      const x = X(xs[i]).toFixed(1);
      d += "V" + Y(i / n).toFixed(1) + "H" + x + "V" + Y((i + 1) / n).toFixed(1);
    }
    d += "H" + X(xs[n - 1]).toFixed(1) + "V" + Y(1).toFixed(1);
    const p = sv("path", { class: "cdf-line " + b, "data-bucket": b, d });
    p.appendChild(sv("title", null, b + ": " + n + " completed flows"));
    svg.appendChild(p);
    const it = el("span", { class: "item" });
    it.appendChild(el("span", { class: "swatch line " + b }));
    it.appendChild(document.createTextNode(b + " (" + n + ")"));
    lg.appendChild(it);
  }
  const bk = (S.snap && S.snap.buckets) || {};
  if (bk.mice_below != null) lg.appendChild(el("span", { class: "caption" }, "mice < " + fmtBytes(bk.mice_below) + " ≤ medium < " + fmtBytes(bk.elephants_from) + " ≤ elephants"));
  const tb = $("fct-summary");
  clear(tb);
  const hr = el("tr");
  for (const h of ["bucket", "flows", "completed", "p50 ms", "p95 ms", "p99 ms", "max ms"]) hr.appendChild(el("th", null, h));
  tb.appendChild(hr);
  for (const b of s.buckets || []) {
    const tr = el("tr", { "data-bucket": b.name });
    tr.appendChild(el("td", null, b.name));
    tr.appendChild(el("td", { class: "num" }, num(b.flows)));
    tr.appendChild(el("td", { class: "num" + (num(b.completed) < num(b.flows) ? " bad" : "") }, num(b.completed)));
    for (const q of ["p50", "p95", "p99", "max"]) tr.appendChild(el("td", { class: "num" }, fmtMs(b[q])));
    tb.appendChild(tr);
  }
}
