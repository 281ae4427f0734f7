/* The header: the run's name and fabric, the connection status, the error line. */

import { $ } from "./dom.js";
import { S } from "./state.js";

export function showError(msg) {
  const e = $("error");
  if (!msg) { e.hidden = true; e.textContent = ""; return; }
  e.hidden = false; e.textContent = msg;
}

export function setStatus(s) {
  const e = $("status");
  e.textContent = s;
  e.className = "status " + s.replace(/\s+/g, "-");
}

export function renderHeader() {
  const s = S.snap;
  $("run-name").textContent = s.name || "(unnamed run)";
  $("run-prefix").textContent = s.prefix ? "run " + s.prefix : "";
  const tors = s.tors || [];
  const hosts = s.nodes && s.nodes.hosts ? s.nodes.hosts.length
    : tors.reduce((n, t) => n + (t.hosts ? t.hosts.length : 0), 0);
  let txt;
  if (s.fabric === "fat_tree") {
    const f = s.fat_tree || {};
    txt = "fat tree k=" + f.k + ": " + f.edges + " edge, " + f.aggs + " aggregation, " + f.cores + " core switches, " + hosts + " hosts";
  } else {
    txt = tors.length + " ToRs, " + hosts + " hosts, " + s.slices + " slices of " + s.slice_duration + ", guardband " + s.guardband;
    if (s.uplinks > 1 || s.optical_uplinks > 1) txt += ", " + s.optical_uplinks + " optical of " + s.uplinks + " uplinks";
  }
  $("fabric-summary").textContent = "— " + txt;
  document.title = "Lighthouse " + (s.name || s.prefix || "");
}
