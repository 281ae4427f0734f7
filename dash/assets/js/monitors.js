/* Monitors: the config's buffer_usage / bw_usage requests, with the latest value. */

import { $, clear, el } from "./dom.js";
import { fmtBytes, num } from "./format.js";
import { S, torName } from "./state.js";

function monitorLabel(m) {
  const tor = m.tor == null ? "every ToR" : torName(m.tor);
  const port = m.port == null ? "every uplink" : "up" + m.port;
  return m.metric + "(" + tor + ", " + port + ", " + m.interval + ")";
}
export function renderMonitors(usage) {
  const ms = (S.snap && S.snap.monitors) || [];
  $("monitors").hidden = ms.length === 0;
  if (!ms.length) return;
  const tb = $("monitor-table").tBodies[0];
  if (tb.rows.length !== ms.length) {
    clear(tb);
    ms.forEach((m, i) => {
      const tr = el("tr", { "data-monitor": String(i) });
      tr.appendChild(el("td", { class: "mono" }, monitorLabel(m)));
      tr.appendChild(el("td", { class: "num" }, "–"));
      tb.appendChild(tr);
    });
  }
  ms.forEach((m, i) => {
    let sum = 0, n = 0;
    for (const s of usage || []) {
      if (s.metric !== m.metric) continue;
      if (m.tor != null && s.tor !== m.tor) continue;
      if (m.port != null && s.port !== m.port) continue;
      sum += num(s.value); n += 1;
    }
    if (!n) return;
    tb.rows[i].cells[1].textContent = m.metric === "buffer_usage" ? fmtBytes(sum) : (100 * sum / n).toFixed(1) + " %";
  });
}
