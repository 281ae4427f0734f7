/* Numbers and times as the page shows them. */

export function num(x) { return typeof x === "number" && isFinite(x) ? x : 0; }
export function fmtBytes(b) {
  b = num(b);
  const a = Math.abs(b);
  if (a < 1000) return Math.round(b) + " B";
  if (a < 1e6) return (b / 1e3).toFixed(a < 1e4 ? 2 : 1) + " KB";
  if (a < 1e9) return (b / 1e6).toFixed(a < 1e7 ? 2 : 1) + " MB";
  return (b / 1e9).toFixed(2) + " GB";
}
export function fmtRate(bps) {
  bps = num(bps);
  if (bps >= 1e10) return (bps / 1e9).toFixed(1) + " Gb/s";
  return (bps / 1e6).toFixed(1) + " Mb/s";
}
export function fmtMs(ns) {
  if (ns == null || !isFinite(ns)) return "–";
  const ms = ns / 1e6;
  if (ms >= 100) return ms.toFixed(1);
  if (ms >= 1) return ms.toFixed(2);
  return ms.toPrecision(2);
}
export function fmtRtt(ms) { return ms >= 1 ? ms.toFixed(1) : ms.toPrecision(2); }
export function hhmmss(d) { return d.toTimeString().slice(0, 8); }
