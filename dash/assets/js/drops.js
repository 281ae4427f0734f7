/* Packets and drops: the conservation line and drops by reason. */

import { $, el } from "./dom.js";
import { num } from "./format.js";

export function renderDrops(cons, dropped) {
  const c = $("conservation");
  if (cons) {
    const holds = !!cons.holds;
    c.textContent = "sent " + num(cons.sent) + " = delivered " + num(cons.delivered) + " + dropped " + num(cons.dropped) +
      " + queued " + num(cons.queued) + (num(cons.held) ? " + held at hosts " + num(cons.held) : "") +
      " + in flight " + num(cons.in_flight) + " — conservation " + (holds ? "holds" : "VIOLATED");
    c.className = "conservation " + (holds ? "holds" : "violated");
  }
  if (!dropped || typeof dropped !== "object") return;
  const tb = $("drop-table").tBodies[0];
  const have = new Map([...tb.rows].map((r) => [r.getAttribute("data-reason"), r]));
  for (const reason of Object.keys(dropped)) {
    const v = num(dropped[reason]);
    let tr = have.get(reason);
    if (!tr) {
      tr = el("tr", { "data-reason": reason });
      tr.appendChild(el("td", null, reason));
      tr.appendChild(el("td", { class: "num" }));
      tb.appendChild(tr);
    }
    tr.cells[1].textContent = String(v);
    tr.classList.toggle("nonzero", v !== 0);
  }
}
