/* The fabric view: ToRs around the OCS with the shown slice's circuits, or
   the fat tree's switches; failed links; the legend. */

import { $, clear, el, sv } from "./dom.js";
import { num } from "./format.js";
import { S, torName } from "./state.js";

export const FAB = { tors: [], cx: 320, cy: 320, R: 250, layerCircuits: null, layerFailed: null, drawnSlice: null, focus: null };

function portOfIntf(name) {
  // "s1-up0" -> {node:"s1", up:0}; "s1-eth3" -> {node:"s1", eth:3}
  const m = /^(.*)-(up|eth)(\d+)$/.exec(String(name));
  if (!m) return { node: String(name) };
  return m[2] === "up" ? { node: m[1], up: +m[3] } : { node: m[1], eth: +m[3] };
}

export function setLinks(v) {
  const links = v && Array.isArray(v.links) ? v.links : [];
  S.links = links;
  S.failed = links.filter((l) => !(l.a_up && l.b_up));
  const ul = $("failed-links");
  clear(ul);
  for (const l of S.failed) {
    const why = !l.a_up && !l.b_up ? "down" : (l.a_up ? l.b : l.a) + " down";
    ul.appendChild(el("li", { class: "failed" }, l.a + " — " + l.b + " (" + why + ")"));
  }
  if (!S.failed.length) ul.appendChild(el("li", { class: "none" }, "none"));
  if (S.snap) drawFabric();
}

function failedTorPairs() {
  // "a:b" with a<b (ToR indices) and "a:pa:b:pb" for port-exact matches.
  const pairs = new Set();
  for (const l of S.failed) {
    const a = portOfIntf(l.a), b = portOfIntf(l.b);
    const ta = S.torByName.get(a.node), tb = S.torByName.get(b.node);
    if (ta == null || tb == null || a.up == null || b.up == null) continue;
    pairs.add(Math.min(ta, tb) + ":" + Math.max(ta, tb));
  }
  return pairs;
}

function drawFabric() {
  const svg = $("fabric").querySelector("svg");
  clear(svg);
  if (S.snap.fabric === "fat_tree") drawFatTree(svg); else drawOptical(svg);
  drawLegend();
}

function drawOptical(svg) {
  const tors = S.snap.tors || [];
  const n = Math.max(tors.length, 1);
  const cx = FAB.cx, cy = FAB.cy, R = FAB.R;
  svg.setAttribute("viewBox", "0 0 640 640");
  const r = Math.max(3, Math.min(16, (Math.PI * R / n) * 0.7));
  const pos = [];
  for (let i = 0; i < n; i++) {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / n;
    pos.push([cx + R * Math.cos(a), cy + R * Math.sin(a), a]);
  }
  FAB.tors = pos;
  // OCS in the middle (under the chords).
  const ocs = sv("g", { class: "ocs" });
  ocs.appendChild(sv("circle", { cx, cy, r: 34 }));
  ocs.appendChild(sv("text", { x: cx, y: cy + 4, "text-anchor": "middle" }, "OCS"));
  const ocsN = S.snap.optical_uplinks || 1;
  ocs.appendChild(sv("title", null, "optical circuit switch" + (ocsN > 1 ? "es (" + ocsN + " uplinks)" : "")));
  svg.appendChild(ocs);
  FAB.layerFailed = sv("g", { class: "failed-links" });
  FAB.layerCircuits = sv("g", { class: "circuits" });
  svg.appendChild(FAB.layerCircuits);
  svg.appendChild(FAB.layerFailed);
  // Failed ToR-to-ToR uplink links: red dashed chords.
  for (const l of S.failed) {
    const a = portOfIntf(l.a), b = portOfIntf(l.b);
    const ta = S.torByName.get(a.node), tb = S.torByName.get(b.node);
    if (ta == null || tb == null || ta === tb || !pos[ta] || !pos[tb]) continue;
    const ln = sv("line", { class: "link failed", "data-a": Math.min(ta, tb), "data-b": Math.max(ta, tb),
      x1: pos[ta][0], y1: pos[ta][1], x2: pos[tb][0], y2: pos[tb][1] });
    ln.appendChild(sv("title", null, "failed: " + l.a + " — " + l.b));
    FAB.layerFailed.appendChild(ln);
  }
  // ToRs.
  const every = n <= 32 ? 1 : Math.ceil(n / 27);
  const failedHosts = new Set();
  for (const l of S.failed) { failedHosts.add(portOfIntf(l.a).node); failedHosts.add(portOfIntf(l.b).node); }
  const layerT = sv("g", { class: "tors" });
  for (let i = 0; i < tors.length; i++) {
    const t = tors[i];
    const [x, y, a] = pos[i];
    const cls = "tor" + (t.kind === "bmv2" ? " bmv2" : "") + (failedHosts.has(t.name) ? " has-failed" : "");
    const g = sv("g", { class: cls, "data-tor": t.index != null ? t.index : i });
    g.appendChild(sv("circle", { cx: x, cy: y, r }));
    const name = String(t.name);
    if (n <= 32) {
      const fs = r >= 12 ? 11 : 9;
      if (r >= 12 && name.length <= 3) {
        g.appendChild(sv("text", { x, y: y + 4, "text-anchor": "middle", class: "in", "font-size": fs }, name));
      } else {
        const lx = cx + (R + r + 10) * Math.cos(a), ly = cy + (R + r + 10) * Math.sin(a);
        g.appendChild(sv("text", { x: lx, y: ly + 4, "text-anchor": "middle", "font-size": fs }, name));
      }
    } else if (i % every === 0) {
      const lx = cx + (R + r + 14) * Math.cos(a), ly = cy + (R + r + 14) * Math.sin(a);
      g.appendChild(sv("text", { x: lx, y: ly + 3, "text-anchor": "middle", "font-size": 9 }, name));
    }
    const hosts = t.hosts && t.hosts.length ? " (" + t.hosts.join(", ") + ")" : "";
    g.appendChild(sv("title", null, name + (t.kind === "bmv2" ? " [BMv2]" : "") + hosts));
    const ti = t.index != null ? t.index : i;
    g.addEventListener("mouseenter", () => focusTor(ti));
    g.addEventListener("mouseleave", () => focusTor(null));
    layerT.appendChild(g);
  }
  svg.appendChild(layerT);
  drawCircuits();
}

// Pick out one ToR's circuits (hover), or show all again (null).
function focusTor(ti) {
  const layer = FAB.layerCircuits;
  FAB.focus = ti;
  if (!layer) return;
  layer.classList.toggle("focusing", ti != null);
  for (const c of layer.children) {
    c.classList.toggle("focus", ti != null && (c.getAttribute("data-a") === String(ti) || c.getAttribute("data-b") === String(ti)));
  }
}

// With several optical uplinks, optionally draw only one uplink's circuits strongly.
export function applyPortFilter() {
  const layer = FAB.layerCircuits;
  if (!layer) return;
  const v = $("fabric-port").value;
  for (const c of layer.children) c.classList.toggle("muted", v !== "all" && v !== "" && c.getAttribute("data-port") !== v);
}

export function fillFabricPort() {
  const n = num(S.snap.optical_uplinks);
  const box = $("fabric-port-box"), sel = $("fabric-port");
  box.hidden = !(n > 1 && S.snap.fabric !== "fat_tree");
  const prev = sel.value || "all";
  clear(sel);
  sel.appendChild(el("option", { value: "all" }, "all uplinks"));
  for (let p = 0; p < n; p++) sel.appendChild(el("option", { value: p }, "up" + p + " only"));
  sel.value = [...sel.options].some((o) => o.value === prev) ? prev : "all";
}

function circuitsOf(view) {
  // A slice lists each circuit in both directions: keep one per unordered pair.
  const seen = new Set(), out = [];
  for (const c of (view && view.circuits) || []) {
    let a = [c.a_tor, c.a_port], b = [c.b_tor, c.b_port];
    if (a[0] > b[0] || (a[0] === b[0] && a[1] > b[1])) { const t = a; a = b; b = t; }
    const k = a.join(".") + "-" + b.join(".");
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ a: a[0], ap: a[1], b: b[0], bp: b[1], reconfigured: !!c.reconfigured });
  }
  return out;
}



export function drawCircuits() {
  if (!S.snap || S.snap.fabric === "fat_tree" || !FAB.layerCircuits) return;
  const layer = FAB.layerCircuits;
  clear(layer);
  const list = $("circuit-list");
  clear(list);
  const view = S.sched.get(S.shown);
  FAB.drawnSlice = null;
  if (!view) { list.appendChild(el("tr", null)).appendChild(el("td", null, "loading slice " + S.shown + "…")); return; }
  const fp = failedTorPairs();
  const cs = circuitsOf(view).sort((x, y) => x.a - y.a || x.ap - y.ap);
  const pos = FAB.tors;
  const nPorts = Math.max(1, S.snap.optical_uplinks || 1);
  const thead = el("tr");
  for (const h of ["circuit", ""]) thead.appendChild(el("th", null, h));
  list.appendChild(thead);
  for (const c of cs) {
    if (!pos[c.a] || !pos[c.b]) continue;
    const failed = fp.has(c.a + ":" + c.b);
    const cls = "circuit" + (c.reconfigured ? " reconfigured" : "") + (failed ? " failed" : "") + " p" + (c.ap % 8);
    let ln;
    if (c.a === c.b) {
      ln = sv("circle", { class: cls, cx: pos[c.a][0], cy: pos[c.a][1], r: 10, fill: "none" });
    } else {
      ln = sv("line", { class: cls, x1: pos[c.a][0], y1: pos[c.a][1], x2: pos[c.b][0], y2: pos[c.b][1] });
    }
    ln.setAttribute("data-a", c.a);
    ln.setAttribute("data-b", c.b);
    ln.setAttribute("data-port", c.ap);
    const label = torName(c.a) + " up" + c.ap + " ↔ " + torName(c.b) + " up" + c.bp;
    ln.appendChild(sv("title", null, label + (c.reconfigured ? " (reconfigured)" : "") + (failed ? " (failed)" : "")));
    layer.appendChild(ln);
    const tr = el("tr", { class: (c.reconfigured ? "reconfigured" : "") + (failed ? " failed" : ""), "data-a": c.a, "data-b": c.b });
    tr.appendChild(el("td", null, label));
    tr.appendChild(el("td", { class: "note" }, (c.reconfigured ? "reconfigured" : "") + (failed ? (c.reconfigured ? ", " : "") + "failed" : "")));
    list.appendChild(tr);
  }
  if (nPorts > 1) layer.setAttribute("class", "circuits multi");
  applyPortFilter();
  if (FAB.focus != null) focusTor(FAB.focus);
  FAB.drawnSlice = S.shown;
  $("fabric").querySelector("svg").setAttribute("data-slice", S.shown);
  const el2 = (view.electrical || []).map((e) => "up" + e[0] + " " + e[1]).join(", ");
  $("shown-slice").textContent = "showing slice " + view.slice + " of " + view.slices + ": " + cs.length + " circuits" +
    (el2 ? "; electrical uplinks " + el2 : "");
}

function drawFatTree(svg) {
  FAB.layerCircuits = null;
  const sw = (S.snap.nodes && S.snap.nodes.switches) || [];
  const f = S.snap.fat_tree || {};
  let core = sw.filter((s) => /^c\d+$/.test(s)), agg = sw.filter((s) => /^a\d+$/.test(s)),
    edge = sw.filter((s) => !/^[ca]\d+$/.test(s));
  if (!sw.length) {
    const g = (p, n) => Array.from({ length: n || 0 }, (_, i) => p + (i + 1));
    core = g("c", f.cores); agg = g("a", f.aggs); edge = g("s", f.edges);
  }
  const hosts = (S.snap.nodes && S.snap.nodes.hosts) || [];
  const W = 640, H = 460;
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  const rows = { core: [core, 50], agg: [agg, 170], edge: [edge, 290] };
  const P = new Map();
  const place = (names, y) => {
    const n = names.length, step = (W - 40) / Math.max(n, 1);
    names.forEach((nm, i) => P.set(nm, [20 + step * (i + 0.5), y]));
    return step;
  };
  let minStep = 1e9;
  for (const k in rows) minStep = Math.min(minStep, place(rows[k][0], rows[k][1]));
  const hostStep = place(hosts, 400);
  const links = S.links || [];
  const lg = sv("g", { class: "links" });
  const torOf = new Map((S.snap.tors || []).map((t) => [String(t.name), t]));
  for (const l of links) {
    const a = portOfIntf(l.a).node, b = portOfIntf(l.b).node;
    const pa = P.get(a), pb = P.get(b);
    if (!pa || !pb) continue;
    const isHost = hosts.includes(a) || hosts.includes(b);
    const down = !(l.a_up && l.b_up);
    const ln = sv("line", { class: (isHost ? "hostlink" : "link") + (down ? " failed" : ""),
      "data-a": l.a, "data-b": l.b, x1: pa[0], y1: pa[1], x2: pb[0], y2: pb[1] });
    ln.appendChild(sv("title", null, l.a + " — " + l.b + (down ? " (down)" : "")));
    lg.appendChild(ln);
  }
  svg.appendChild(lg);
  const r = Math.max(5, Math.min(15, minStep * 0.35));
  const ng = sv("g", { class: "switches" });
  for (const layer of ["core", "agg", "edge"]) {
    for (const nm of rows[layer][0]) {
      const [x, y] = P.get(nm);
      const t = torOf.get(nm);
      const g = sv("g", { class: "switch " + layer + (t && t.kind === "bmv2" ? " bmv2" : ""), "data-layer": layer, "data-name": nm });
      if (t) g.setAttribute("data-tor", t.index);
      g.appendChild(sv("rect", { x: x - r, y: y - r * 0.75, width: 2 * r, height: 1.5 * r, rx: 3 }));
      g.appendChild(sv("text", { x, y: y + (r >= 11 ? 4 : -r - 3), "text-anchor": "middle", "font-size": r >= 11 ? 11 : 9 }, nm));
      g.appendChild(sv("title", null, nm + " (" + layer + ")" + (t && t.hosts ? ": " + t.hosts.join(", ") : "")));
      ng.appendChild(g);
    }
  }
  const hg = sv("g", { class: "hosts" });
  const hr = Math.max(2, Math.min(6, hostStep * 0.3));
  hosts.forEach((h, i) => {
    const [x, y] = P.get(h);
    const g = sv("g", { class: "host", "data-name": h });
    g.appendChild(sv("circle", { cx: x, cy: y, r: hr }));
    if (hosts.length <= 32 || i % Math.ceil(hosts.length / 24) === 0)
      g.appendChild(sv("text", { x, y: y + hr + 12, "text-anchor": "middle", "font-size": 9 }, h));
    g.appendChild(sv("title", null, h));
    hg.appendChild(g);
  });
  for (const [lab, y] of [["core", 50], ["aggregation", 170], ["edge", 290], ["hosts", 400]])
    svg.appendChild(sv("text", { x: 4, y: y - 26, class: "row-label" }, lab));
  svg.appendChild(ng);
  svg.appendChild(hg);
}

function drawLegend() {
  const lg = $("fabric-legend");
  clear(lg);
  const item = (cls, label) => {
    const s = el("span", { class: "item" });
    s.appendChild(el("span", { class: "swatch " + cls }));
    s.appendChild(document.createTextNode(label));
    lg.appendChild(s);
  };
  if (S.snap.fabric === "fat_tree") {
    item("sw", "switch"); item("bmv2", "BMv2 ToR"); item("line", "link"); item("failed", "link down");
  } else {
    item("tor", "ToR"); item("bmv2", "BMv2 ToR"); item("ocs", "OCS");
    item("line", "circuit"); item("reconf", "reconfigured this slice"); item("failed", "failed link");
  }
}
