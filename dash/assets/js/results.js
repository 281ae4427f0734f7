/* Results: ping matrix, throughput, flow and allreduce lines, the result log. */

import { $, clear, el } from "./dom.js";
import { renderFct } from "./fct.js";
import { fmtBytes, fmtMs, fmtRate, fmtRtt, hhmmss, num } from "./format.js";
import { S } from "./state.js";

const LOG_MAX = 20;          // result log lines

export function onResult(msg) {
  if (!msg || typeof msg.verb !== "string") return;
  const verb = msg.verb, v = msg.value;
  let j; try { j = JSON.stringify(v); } catch (_) { j = ""; }
  const fresh = S.latestJSON[verb] !== j;
  S.latest[verb] = v;
  S.latestJSON[verb] = j;
  if (fresh) logResult(verb, v);
  try {
    if (verb === "pingall" || verb === "pingpair") renderPing(verb, v);
    else if (verb === "iperf" || verb === "iperfudp") renderIperf();
    else if (verb === "flows" || verb === "memcached") renderFct(verb, v);
    else if (verb === "flow" || verb === "allreduce") renderMisc();
  } catch (e) { console.error("render " + verb, e); }
}

function resultSummary(verb, v) {
  if (!v || typeof v !== "object") return "";
  if (verb === "pingall" || verb === "pingpair") return num(v.received) + "/" + num(v.sent) + " received";
  if (verb === "iperf" || verb === "iperfudp") return v.client + " → " + v.server + " " + fmtRate(v.server_bps);
  if (verb === "flows" || verb === "memcached") {
    const s = v.summary || {};
    return num(s.completed) + "/" + num(s.flows) + " completed" + (v.elapsed_s != null ? " in " + num(v.elapsed_s).toFixed(2) + " s" : "");
  }
  if (verb === "flow") return v.client + " → " + v.server + " " + fmtMs(v.fct_ns) + " ms";
  if (verb === "allreduce") return (v.hosts || []).length + " hosts, bus " + fmtRate(v.bus_bps);
  return "";
}

function logResult(verb, v) {
  const ol = $("result-log");
  const li = el("li", { "data-verb": verb });
  li.appendChild(el("span", { class: "time" }, hhmmss(new Date())));
  li.appendChild(el("span", { class: "verb" }, verb));
  li.appendChild(el("span", { class: "what" }, resultSummary(verb, v)));
  ol.insertBefore(li, ol.firstChild);
  while (ol.children.length > LOG_MAX) ol.removeChild(ol.lastChild);
}

function renderPing(verb, v) {
  const rows = (v && v.rows) || [];
  const sent = num(v && v.sent), rec = num(v && v.received);
  const loss = sent ? Math.round((100 * (sent - rec)) / sent) : 0;
  $("ping-summary").textContent = verb + ": " + rec + "/" + sent + " received, " + loss + "% loss";
  $("ping-summary").className = "caption" + (rec < sent ? " bad" : "");
  const known = (S.snap && S.snap.nodes && S.snap.nodes.hosts) || [];
  const seen = new Set();
  for (const r of rows) { seen.add(r.src); for (const x of r.results || []) seen.add(x.dst); }
  const hosts = known.filter((h) => seen.has(h));
  for (const h of seen) if (!hosts.includes(h)) hosts.push(h);
  const rtt = new Map();
  let max = 0;
  for (const r of rows) for (const x of r.results || []) {
    rtt.set(r.src + "|" + x.dst, x.rtt_ms);
    if (x.rtt_ms != null && x.rtt_ms > max) max = x.rtt_ms;
  }
  const srcs = hosts.filter((h) => rows.some((r) => r.src === h));
  const tb = $("ping-matrix");
  clear(tb);
  tb.classList.toggle("dense", hosts.length > 24);
  const hr = el("tr");
  hr.appendChild(el("th", { class: "corner" }, "src \\ dst"));
  for (const d of hosts) hr.appendChild(el("th", { scope: "col" }, d));
  tb.appendChild(el("thead")).appendChild(hr);
  const body = el("tbody");
  for (const s of srcs) {
    const tr = el("tr", { "data-src": s });
    tr.appendChild(el("th", { scope: "row" }, s));
    for (const d of hosts) {
      let td;
      if (s === d) td = el("td", { class: "self" });
      else if (!rtt.has(s + "|" + d)) td = el("td", { class: "none" });
      else {
        const m = rtt.get(s + "|" + d);
        if (m == null) td = el("td", { class: "lost", title: s + " → " + d + ": lost" }, "✗");
        else {
          td = el("td", { class: "ok", title: s + " → " + d + ": " + m + " ms" }, fmtRtt(m));
          const f = max > 0 ? m / max : 0;
          td.style.background = "rgba(37,99,235," + (0.06 + 0.3 * f).toFixed(3) + ")";
        }
      }
      td.setAttribute("data-dst", d);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  tb.appendChild(body);
  const cap = el("caption", null, "RTT in ms; ✗ lost");
  tb.insertBefore(cap, tb.firstChild);
}

function renderIperf() {
  const ul = $("iperf");
  clear(ul);
  for (const verb of ["iperf", "iperfudp"]) {
    const v = S.latest[verb];
    if (!v) continue;
    ul.appendChild(el("li", { "data-verb": verb }, v.l4 + " " + v.client + " → " + v.server + ": " + fmtRate(v.server_bps) +
      " (client " + fmtRate(v.client_bps) + (v.bw ? ", asked " + v.bw : "") + ")"));
  }
}

function renderMisc() {
  const ul = $("misc-results");
  clear(ul);
  const f = S.latest.flow;
  if (f) ul.appendChild(el("li", { "data-verb": "flow" }, "flow " + f.client + " → " + f.server + ": " + fmtBytes(f.bytes) +
    " in " + fmtMs(f.fct_ns) + " ms, " + fmtRate(f.server_bps) + " (client " + fmtRate(f.client_bps) + ")"));
  const a = S.latest.allreduce;
  if (a) {
    const ts = (a.times_ns || []).slice().sort((x, y) => x - y);
    const med = ts.length ? ts[Math.floor(ts.length / 2)] : null;
    ul.appendChild(el("li", { "data-verb": "allreduce" }, "allreduce over " + (a.hosts || []).length + " hosts, " + fmtBytes(a.bytes) +
      " × " + num(a.iterations) + ": median " + fmtMs(med) + " ms, bus bandwidth " + fmtRate(a.bus_bps)));
  }
}
