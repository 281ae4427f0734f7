"""Lab 06 reference, the Python route: every answer read from the shipped
configs' entries and slice timing, as solution/answers.json has them."""

FRAME = 1500  # bytes
UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
RATES = {"Gbps": 1_000_000_000, "Mbps": 1_000_000, "Kbps": 1_000, "bps": 1}


def value(text, units):
    """'100us' -> 100_000 with UNITS (ns), '1Gbps' -> 10**9 with RATES."""
    for u in sorted(units, key=len, reverse=True):
        if text.endswith(u):
            return round(float(text[: -len(u)]) * units[u])
    raise ValueError(f"no unit in {text!r}")


def entry(net, tor, dst, arrival, ingress="host"):
    """tor's entry for dst and arrival slice (ingress: host or fabric)."""
    for e in net.table(tor)["entries"]:
        m = e["match"]
        if m["dst"] == dst and m["arrival"] == arrival and m["ingress"] in ("any", ingress):
            return e
    return None


def departs(action):
    return action["hop"]["depart"]


def follow(net, src, dst, first):
    """The ToRs a packet from src visits when src takes `first` (an action),
    and the slice it reaches dst in."""
    tors, tor, action = ["s%d" % (src + 1)], src, first
    while True:
        d = departs(action)
        (tor,) = net.neighbors(tor, d)
        tors.append("s%d" % (tor + 1))
        if tor == dst:
            return tors, d
        action = entry(net, tor, dst, d, "fabric")["action"]


def bytes_per_slice(net):
    c = net.config
    dark = max(value(c.slice.guardband, UNITS), value(c.ocs.reconfiguration_delay, UNITS))
    usable_ns = value(c.slice.duration, UNITS) - dark
    return value(c.tors.link_rate, RATES) * usable_ns // 1_000_000_000 // 8


def burst(frames, per_slice, alternates):
    """(rerouted, dropped): the primary queue takes a slice's worth, each
    alternate as much, the rest is dropped (queues empty)."""
    over = max(frames - per_slice, 0)
    rerouted = min(over, per_slice * alternates)
    return rerouted, over - rerouted


def answers(direct, hoho):
    per_slice = bytes_per_slice(direct) // FRAME
    d = entry(direct, 0, 3, 0)  # s1 -> s4, arrival 0
    d_alts = [departs(a) for a in d.get("alternates", [])]
    h = entry(hoho, 0, 2, 0)  # s1 -> s3, arrival 0
    h_alts = [departs(a) for a in h.get("alternates", [])]
    rerouted, dropped = burst(25, per_slice, len(h_alts))
    primary, _ = follow(hoho, 0, 2, h["action"])
    alternate, arrives = follow(hoho, 0, 2, h["alternates"][0])
    return {
        "direct_primary_slice": departs(d["action"]),
        "direct_alternate_slices": d_alts,
        "frames_per_slice": per_slice,
        "direct_burst10_dropped": burst(10, per_slice, len(d_alts))[1],
        "drop_reason": "slice_miss",
        "hoho_alternate_slices": h_alts,
        "hoho_burst25_rerouted": rerouted,
        "hoho_burst25_dropped": dropped,
        "hoho_primary_path": primary,
        "hoho_alternate_path": alternate,
        "hoho_alternate_arrives_slice": arrives,
    }
