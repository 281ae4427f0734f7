#!/usr/bin/env python3
"""Put `lighthouse sim --flows F --fct-csv OURS.csv` beside the Opera
authors' published FCTs of the same flows (docs/fidelity.md).

usage: compare.py FLOWS.htsim THEIRS.txt OURS.csv [--md] [--as-htsim]
                  [--bulk=BYTES]

FLOWS.htsim: the flow list both ran (`src dst bytes start_ns`, hosts from
0). THEIRS.txt: their simulator's output (`FCT src dst bytes fct_ms
start_ms` lines; a flow that did not finish has none). OURS.csv:
`lighthouse sim`'s per-flow CSV (h1 is host 0). Flows are matched by
(src, dst, bytes, start); per size bucket, each side's p50 and p99 FCT (ms)
over the flows it finished and its completed share, and the median of
our/their FCT over the flows both finished (flow by flow).

Our FCT is `fct_ns` (connect to the receiver holding every byte);
`--as-htsim` takes `data_fct_ns` instead (first data out to the last ACK
back), which is how their simulator measures an NDP flow.
`--bulk=BYTES` splits the last bucket at the bulk threshold (their runs:
15 MB for Fig. 7, 30 MB for Fig. 9), so RotorLB's flows show apart.
"""
import csv
import sys

BUCKETS = [(0, 10_000, "< 10 KB"), (10_000, 100_000, "10-100 KB"),
           (100_000, 1_000_000, "100 KB-1 MB"), (1_000_000, 1 << 62, ">= 1 MB")]


def pct(v, p):
    """Nearest-rank percentile (as `fct::percentile`)."""
    if not v:
        return None
    v = sorted(v)
    k = max(0, min(len(v) - 1, int(-(-p * len(v) // 100)) - 1))
    return v[k]


def load(flows_path, theirs_path, ours_path, column="fct_ns"):
    flows = []
    with open(flows_path) as f:
        for line in f:
            p = line.split()
            if len(p) == 4:
                flows.append(tuple(int(x) for x in p))
    theirs = {}
    with open(theirs_path) as f:
        for line in f:
            p = line.split()
            if len(p) == 6 and p[0] == "FCT":
                start_ns = round(float(p[5]) * 1e6)
                key = (int(p[1]), int(p[2]), int(p[3]))
                theirs.setdefault(key, []).append((start_ns, float(p[4])))
    ours = {}
    with open(ours_path) as f:
        for r in csv.DictReader(f):
            key = (int(r["src"][1:]) - 1, int(r["dst"][1:]) - 1,
                   int(r["size_bytes"]), int(r["start_ns"]))
            ours[key] = float(r[column]) / 1e6 if r[column] else None
    rows = []
    for (s, d, b, t) in flows:
        # Their start is printed in ms to 1 ns: match within 1 us.
        th = next((fct for (st, fct) in theirs.get((s, d, b), [])
                   if abs(st - t) <= 1000), None)
        rows.append((b, th, ours.get((s, d, b, t))))
    return rows


def buckets(bulk):
    """The size buckets, the last split at `bulk` bytes if given."""
    if not bulk:
        return BUCKETS
    mb = bulk / 1e6
    return BUCKETS[:-1] + [(1_000_000, bulk, f"1-{mb:g} MB"),
                           (bulk, 1 << 62, f">= {mb:g} MB (bulk)")]


def table(rows, md, bulk=None):
    out = []
    head = ["bucket", "flows", "theirs p50", "p99", "done",
            "ours p50", "p99", "done", "ours/theirs (median)"]
    out.append(("| " + " | ".join(head) + " |") if md else "  ".join(head))
    if md:
        out.append("|" + "---|" * len(head))
    for lo, hi, name in buckets(bulk):
        b = [r for r in rows if lo <= r[0] < hi]
        if not b:
            continue
        th = [r[1] for r in b if r[1] is not None]
        ou = [r[2] for r in b if r[2] is not None]
        ratio = [r[2] / r[1] for r in b if r[1] and r[2]]
        f = lambda x: "-" if x is None else f"{x:.3f}"
        cells = [name, str(len(b)), f(pct(th, 50)), f(pct(th, 99)),
                 f"{100 * len(th) / len(b):.1f}%", f(pct(ou, 50)),
                 f(pct(ou, 99)), f"{100 * len(ou) / len(b):.1f}%",
                 "-" if not ratio else f"{pct(ratio, 50):.2f}"]
        out.append(("| " + " | ".join(cells) + " |") if md else "  ".join(cells))
    return "\n".join(out)


def main(argv):
    md = "--md" in argv
    column = "data_fct_ns" if "--as-htsim" in argv else "fct_ns"
    bulk = next((int(a.split("=", 1)[1]) for a in argv[1:]
                 if a.startswith("--bulk=")), None)
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 3:
        sys.exit(__doc__)
    print(table(load(*args, column=column), md, bulk))


if __name__ == "__main__":
    main(sys.argv)
