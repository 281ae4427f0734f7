/* The run's snapshot: applied to every panel at start and after a reconnect. */

import { getJSON } from "./api.js";
import { $ } from "./dom.js";
import { fillFabricPort, setLinks } from "./fabric.js";
import { renderHeader } from "./header.js";
import { renderMonitors } from "./monitors.js";
import { fillPortSelect, fillTorSelect, renderHeat, renderQueues } from "./queues.js";
import { showSlice, updateReplayCaption } from "./slices.js";
import { S } from "./state.js";

export async function reloadSnapshot() {
  try {
    const snap = await getJSON("/api/snapshot");
    if (!S.snap || snap.prefix !== S.snap.prefix || snap.slices !== S.snap.slices) {
      S.sched.clear(); S.series.clear(); S.lastSampleT.clear(); S.latestBuf.clear();
      applySnapshot(snap);
    }
  } catch (e) { /* keep the old picture */ }
}

export function applySnapshot(snap) {
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
