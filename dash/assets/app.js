/* Lighthouse live dashboard: read-only view of a run.
   GETs /api/snapshot and /api/schedule/{ts}, listens on /api/events (SSE).
   Text from the server goes into the DOM only through textContent/attributes. */
"use strict";

(function () {
  const TOKEN = new URLSearchParams(location.search).get("token");
  const Q = TOKEN ? "?token=" + encodeURIComponent(TOKEN) : "";
  const SVGNS = "http://www.w3.org/2000/svg";
  const RING = 300;            // points kept per time series
  const LOG_MAX = 20;          // result log lines
  const SCHED_CACHE_MAX = 512; // cached slices

  // ---------- small helpers ----------
  const $ = (id) => document.getElementById(id);
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    if (attrs) for (const k in attrs) if (attrs[k] != null) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = String(text);
    return e;
  }
  function sv(tag, attrs, text) {
    const e = document.createElementNS(SVGNS, tag);
    if (attrs) for (const k in attrs) if (attrs[k] != null) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = String(text);
    return e;
  }
  function clear(n) { while (n.firstChild) n.removeChild(n.firstChild); }
  function num(x) { return typeof x === "number" && isFinite(x) ? x : 0; }
  function fmtBytes(b) {
    b = num(b);
    const a = Math.abs(b);
    if (a < 1000) return Math.round(b) + " B";
    if (a < 1e6) return (b / 1e3).toFixed(a < 1e4 ? 2 : 1) + " KB";
    if (a < 1e9) return (b / 1e6).toFixed(a < 1e7 ? 2 : 1) + " MB";
    return (b / 1e9).toFixed(2) + " GB";
  }
  function fmtRate(bps) {
    bps = num(bps);
    if (bps >= 1e10) return (bps / 1e9).toFixed(1) + " Gb/s";
    return (bps / 1e6).toFixed(1) + " Mb/s";
  }
  function fmtMs(ns) {
    if (ns == null || !isFinite(ns)) return "–";
    const ms = ns / 1e6;
    if (ms >= 100) return ms.toFixed(1);
    if (ms >= 1) return ms.toFixed(2);
    return ms.toPrecision(2);
  }
  function fmtRtt(ms) { return ms >= 1 ? ms.toFixed(1) : ms.toPrecision(2); }
  function hhmmss(d) { return d.toTimeString().slice(0, 8); }
  function showError(msg) {
    const e = $("error");
    if (!msg) { e.hidden = true; e.textContent = ""; return; }
    e.hidden = false; e.textContent = msg;
  }
  async function getJSON(path) {
    const r = await fetch(path + Q, { cache: "no-store" });
    let body = null;
    try { body = await r.json(); } catch (_) { body = null; }
    if (!r.ok) {
      const m = body && body.error ? body.error.kind + ": " + body.error.message : "HTTP " + r.status;
      const err = new Error(m); err.status = r.status; throw err;
    }
    return body;
  }

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

  // ---------- state ----------
  const S = {
    snap: null,
    torByName: new Map(),
    sched: new Map(),          // ts -> SliceView
    schedPending: new Map(),   // ts -> Promise
    liveSlice: null,           // tick.slice
    shown: 0,
    follow: true,
    replayTimer: null,
    links: [],                 // current links (snapshot, then `links` events)
    failed: [],                // the failed ones
    series: new Map(),         // "metric:tor:port" -> Ring
    lastSampleT: new Map(),    // "metric:tor:port" -> last sample t_ns seen
    latestBuf: new Map(),      // "tor:port" -> bytes
    maxPort: 0,
    latest: {},                // verb -> value
    latestJSON: {},            // verb -> JSON text, to skip re-sent results
    es: null,
    ended: false,
    hadError: false,
    backoff: 1000,
  };

  function setStatus(s) {
    const e = $("status");
    e.textContent = s;
    e.className = "status " + s.replace(/\s+/g, "-");
  }

  // ---------- header ----------
  function renderHeader() {
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

  // ---------- fabric ----------
  const FAB = { tors: [], cx: 320, cy: 320, R: 250, layerCircuits: null, layerFailed: null, drawnSlice: null, focus: null };

  function portOfIntf(name) {
    // "s1-up0" -> {node:"s1", up:0}; "s1-eth3" -> {node:"s1", eth:3}
    const m = /^(.*)-(up|eth)(\d+)$/.exec(String(name));
    if (!m) return { node: String(name) };
    return m[2] === "up" ? { node: m[1], up: +m[3] } : { node: m[1], eth: +m[3] };
  }

  function setLinks(v) {
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
  function applyPortFilter() {
    const layer = FAB.layerCircuits;
    if (!layer) return;
    const v = $("fabric-port").value;
    for (const c of layer.children) c.classList.toggle("muted", v !== "all" && v !== "" && c.getAttribute("data-port") !== v);
  }

  function fillFabricPort() {
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

  function torName(i) { const t = S.snap.tors && S.snap.tors[i]; return t ? String(t.name) : "tor" + i; }

  function drawCircuits() {
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

  // ---------- slices: fetch, scrub, follow, replay ----------
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

  function showSlice(ts) {
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

  function setFollow(on) {
    S.follow = on;
    $("follow").checked = on;
    if (on) { stopReplay(); if (S.liveSlice) showSlice(S.liveSlice.slice); }
  }

  function stopReplay() {
    if (S.replayTimer) { clearInterval(S.replayTimer); S.replayTimer = null; }
    $("replay").textContent = "▶ replay cycle";
    $("replay").classList.remove("on");
  }

  function startReplay() {
    stopReplay();
    setFollow(false);
    const sp = +$("replay-speed").value || 1;
    $("replay").textContent = "■ stop replay";
    $("replay").classList.add("on");
    S.replayTimer = setInterval(() => showSlice(S.shown + 1), 1000 / sp);
    updateReplayCaption();
  }

  function updateReplayCaption() {
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

  // ---------- queues ----------
  function key(metric, tor, port) { return metric + ":" + tor + ":" + port; }

  function ingestUsage(usage, tickT) {
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

  function fillTorSelect() {
    const sel = $("queue-tor");
    const prev = sel.value;
    clear(sel);
    for (const t of S.snap.tors || []) sel.appendChild(el("option", { value: t.index }, t.name));
    if (prev !== "" && [...sel.options].some((o) => o.value === prev)) sel.value = prev;
  }
  function fillPortSelect() {
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

  function niceStep(range, n) {
    const raw = range / Math.max(n, 1);
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  // Line chart: pts [[x_ns, y]], opts {yMax, fmt, yLabel}
  function lineChart(svg, pts, opts) {
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

  function bytesAxisFmt(max) {
    return (v) => {
      if (max < 1000) return Math.round(v) + " B";
      if (max < 1e6) return +(v / 1e3).toFixed(1) + " KB";
      if (max < 1e9) return +(v / 1e6).toFixed(2) + " MB";
      return +(v / 1e9).toFixed(2) + " GB";
    };
  }

  function renderQueues() {
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

  function renderHeat() {
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

  // ---------- monitors (the config's buffer_usage / bw_usage requests) ----------
  function monitorLabel(m) {
    const tor = m.tor == null ? "every ToR" : torName(m.tor);
    const port = m.port == null ? "every uplink" : "up" + m.port;
    return m.metric + "(" + tor + ", " + port + ", " + m.interval + ")";
  }
  function renderMonitors(usage) {
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

  // ---------- drops ----------
  function renderDrops(cons, dropped) {
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

  // ---------- results ----------
  function onResult(msg) {
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

  const BUCKETS = ["mice", "medium", "elephants"];
  function bucketOf(size) {
    const b = (S.snap && S.snap.buckets) || { mice_below: 100000, elephants_from: 10000000 };
    if (size < b.mice_below) return "mice";
    if (size >= b.elephants_from) return "elephants";
    return "medium";
  }

  function renderFct(verb, v) {
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

  // ---------- ticks ----------
  let renderQueued = false;
  function onTick(t) {
    if (!t) return;
    const lg = num(t.lagged);
    $("lagged").textContent = lg + (lg === 1 ? " sample" : " samples") + " dropped for this client";
    $("lagged").classList.toggle("bad", lg > 0);
    S.liveSlice = t.slice || null;
    // A large fabric (opera-108: 324 circuits, 648 queues) is redrawn at
    // most once a second: the page's drawing competes for the cores with
    // the data plane when the browser runs on the same machine.
    const big = S.snap && (S.snap.tors || []).length > 32; // lh_dash::BIG_FABRIC
    const nowMs = performance.now();
    const draw = !big || !(nowMs - (S.lastDraw || 0) < 1000);
    if (draw) S.lastDraw = nowMs;
    if (S.snap && S.snap.fabric !== "fat_tree") {
      if (t.slice) {
        $("slice-now").textContent = "slice " + t.slice.slice + " of " + t.slice.slices + ", cycle " + t.slice.cycle;
        if (S.follow && draw) showSlice(t.slice.slice);
      } else $("slice-now").textContent = "no data plane (no current slice)";
    }
    ingestUsage(t.usage, num(t.t_ns));
    if (!draw) return;
    renderMonitors(t.usage);
    renderDrops(t.conservation, t.dropped);
    // charts: at most once per animation frame
    if (!renderQueued) {
      renderQueued = true;
      requestAnimationFrame(() => { renderQueued = false; renderQueues(); renderHeat(); });
      setTimeout(() => { if (renderQueued) { renderQueued = false; renderQueues(); renderHeat(); } }, 250);
    }
  }

  function parse(ev) {
    try { return JSON.parse(ev.data); } catch (e) { console.warn("bad event data", e); return null; }
  }

  function connect() {
    if (S.ended) return;
    if (S.es) S.es.close();
    const es = new EventSource("/api/events" + Q);
    S.es = es;
    es.onopen = () => {
      setStatus("live");
      showError("");
      S.backoff = 1000;
      if (S.hadError) { S.hadError = false; reloadSnapshot(); }
    };
    es.onerror = () => {
      if (S.ended) return;
      S.hadError = true;
      setStatus("reconnecting");
      if (es.readyState === EventSource.CLOSED) {
        // the browser gave up (e.g. an HTTP error): retry ourselves
        setTimeout(() => { if (S.es === es) connect(); }, S.backoff);
        S.backoff = Math.min(S.backoff * 2, 15000);
      }
    };
    es.addEventListener("tick", (ev) => { const v = parse(ev); if (v) onTick(v); });
    es.addEventListener("result", (ev) => { const v = parse(ev); if (v) onResult(v); });
    es.addEventListener("links", (ev) => { const v = parse(ev); if (v) setLinks(v); });
    es.addEventListener("end", (ev) => {
      const v = parse(ev);
      S.ended = true;
      es.close();
      setStatus("run ended");
      if (v && v.ok === false) $("status").title = "the run stopped with an error";
      stopReplay();
    });
  }

  async function reloadSnapshot() {
    try {
      const snap = await getJSON("/api/snapshot");
      if (!S.snap || snap.prefix !== S.snap.prefix || snap.slices !== S.snap.slices) {
        S.sched.clear(); S.series.clear(); S.lastSampleT.clear(); S.latestBuf.clear();
        applySnapshot(snap);
      }
    } catch (e) { /* keep the old picture */ }
  }

  function applySnapshot(snap) {
    S.snap = snap;
    S.torByName = new Map((snap.tors || []).map((t, i) => [String(t.name), t.index != null ? t.index : i]));
    renderHeader();
    renderMonitors(); // the config's requests at once, their values from the first tick
    const fat = snap.fabric === "fat_tree";
    $("slice-controls").hidden = fat;
    document.body.classList.toggle("fat-tree", fat);
    if (fat) $("slice-now").textContent = "electrical fat tree (k=" + (snap.fat_tree ? snap.fat_tree.k : "?") + ")";
    const sc = $("scrub");
    sc.min = "0";
    sc.max = String(Math.max(0, (snap.slices || 1) - 1));
    updateReplayCaption();
    fillTorSelect();
    fillPortSelect();
    fillFabricPort();
    S.failed = [];
    setLinks(snap.links); // draws the fabric
    if (!fat) showSlice(S.shown < (snap.slices || 1) ? S.shown : 0);
    renderQueues();
    renderHeat();
  }

  function wire() {
    $("scrub").addEventListener("input", (e) => {
      stopReplay();
      setFollow(false);
      showSlice(+e.target.value);
    });
    $("follow").addEventListener("change", (e) => setFollow(e.target.checked));
    $("replay").addEventListener("click", () => { if (S.replayTimer) stopReplay(); else startReplay(); });
    $("replay-speed").addEventListener("change", () => { updateReplayCaption(); if (S.replayTimer) startReplay(); });
    $("queue-tor").addEventListener("change", renderQueues);
    $("fabric-port").addEventListener("change", applyPortFilter);
    $("queue-port").addEventListener("change", renderQueues);
  }

  async function start() {
    setStatus("connecting");
    wire();
    let delay = 1000;
    for (;;) {
      try {
        applySnapshot(await getJSON("/api/snapshot"));
        break;
      } catch (e) {
        showError("cannot load /api/snapshot: " + e.message + " (retrying)");
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 15000);
      }
    }
    connect();
  }

  start();
})();
