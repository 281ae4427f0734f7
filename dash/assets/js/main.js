/* Lighthouse live dashboard: a read-only view of a run. The page's entry
   module: wires the controls, loads the snapshot, opens the event stream. */

import { getJSON } from "./api.js";
import { $ } from "./dom.js";
import { applyPortFilter } from "./fabric.js";
import { setStatus, showError } from "./header.js";
import { renderQueues } from "./queues.js";
import { setFollow, showSlice, startReplay, stopReplay, updateReplayCaption } from "./slices.js";
import { applySnapshot } from "./snapshot.js";
import { S } from "./state.js";
import { connect } from "./stream.js";

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
