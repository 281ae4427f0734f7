"""Lab 05 reference, the Python route: the tables of solution/tables.json,
as paths. Every packet waits for its direct circuit, but for Fig. 4(b)'s
two-hop path."""


def first_up(net, a, b, ts):
    """The first slot t >= ts in which a's uplink reaches b."""
    for t in range(ts, ts + net.slices):
        if b in net.neighbors(a, t % net.slices):
            return t
    raise ValueError(f"ToR {a} never meets ToR {b}")


def tables(net):
    n = net.config.tor_num
    paths = [net.path([0, 1, 3], [0, 1], 0)]  # Fig. 4(b), the starter's
    for src in range(n):
        for dst in range(n):
            for ts in range(net.slices):
                if src != dst and (src, dst, ts) != (0, 3, 0):
                    paths.append(net.path([src, dst], [first_up(net, src, dst, ts)], ts))
    return paths
