/* Line charts over time (the queue and link-use charts). */

import { clear, sv } from "./dom.js";

function niceStep(range, n) {
  const raw = range / Math.max(n, 1);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

// Line chart: pts [[x_ns, y]], opts {yMax, fmt, yLabel}
export function lineChart(svg, pts, opts) {
  clear(svg);
  const W = 520, H = 220, L = 62, R = 12, T = 12, B = 36;
  const pw = W - L - R, ph = H - T - B;
  svg.appendChild(sv("rect", { class: "plot-bg", x: L, y: T, width: pw, height: ph }));
  let x0 = 0, x1 = 1;
  if (pts.length) { x0 = pts[0][0]; x1 = pts[pts.length - 1][0]; if (x1 <= x0) x1 = x0 + 1e9; }
  let ymax = opts.yMin || 0;
  for (const p of pts) if (p[1] > ymax) ymax = p[1];
  if (ymax <= 0) ymax = 1;
  const ystep = niceStep(ymax, 4);
  ymax = Math.ceil(ymax / ystep - 1e-9) * ystep;
  if (opts.yMax != null && opts.fixed) ymax = Math.max(opts.yMax, ymax);
  const X = (x) => L + ((x - x0) / (x1 - x0)) * pw;
  const Y = (y) => T + ph - (y / ymax) * ph;
  const ax = sv("g", { class: "axis" });
  for (let y = 0; y <= ymax + 1e-9; y += ystep) {
    ax.appendChild(sv("line", { class: "grid", x1: L, x2: L + pw, y1: Y(y), y2: Y(y) }));
    ax.appendChild(sv("text", { x: L - 6, y: Y(y) + 4, "text-anchor": "end" }, opts.fmt(y)));
  }
  const xs = (x1 - x0) / 1e9, xstep = niceStep(xs, 5) * 1e9;
  for (let x = Math.ceil(x0 / xstep) * xstep; x <= x1 + 1; x += xstep) {
    ax.appendChild(sv("line", { class: "tick", x1: X(x), x2: X(x), y1: T + ph, y2: T + ph + 4 }));
    const v = x / 1e9;
    ax.appendChild(sv("text", { x: X(x), y: T + ph + 16, "text-anchor": "middle" }, v.toFixed(xstep >= 1e9 ? 0 : xstep >= 1e8 ? 1 : 2)));
  }
  ax.appendChild(sv("line", { class: "frame", x1: L, x2: L, y1: T, y2: T + ph }));
  ax.appendChild(sv("line", { class: "frame", x1: L, x2: L + pw, y1: T + ph, y2: T + ph }));
  ax.appendChild(sv("text", { x: L + pw / 2, y: H - 4, "text-anchor": "middle", class: "label" }, "time (s)"));
  ax.appendChild(sv("text", { x: 12, y: T + ph / 2, "text-anchor": "middle", class: "label",
    transform: "rotate(-90 12 " + (T + ph / 2) + ")" }, opts.yLabel));
  svg.appendChild(ax);
  let d = "";
  pts.forEach((p, i) => { d += (i ? "L" : "M") + X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1); });
  if (pts.length === 1) d += "h1";
  svg.appendChild(sv("path", { class: "series", d }));
  if (!pts.length) svg.appendChild(sv("text", { x: L + pw / 2, y: T + ph / 2, "text-anchor": "middle", class: "empty" }, "no samples yet"));
}

export function bytesAxisFmt(max) {
  return (v) => {
    if (max < 1000) return Math.round(v) + " B";
    if (max < 1e6) return +(v / 1e3).toFixed(1) + " KB";
    if (max < 1e9) return +(v / 1e6).toFixed(2) + " MB";
    return +(v / 1e9).toFixed(2) + " GB";
  };
}
