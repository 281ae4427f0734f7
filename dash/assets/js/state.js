/* The page's state: the run's snapshot and what the events brought since. */

export const S = {
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

export function torName(i) { const t = S.snap.tors && S.snap.tors[i]; return t ? String(t.name) : "tor" + i; }
