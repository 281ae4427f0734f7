"""Lab 03, the Python route (reference): earliest arrival within 2 hops,
from neighbors() and path(): wait for the direct circuit, unless leaving to
an intermediate ToR m in some slot t1 and m's circuit to dst in a later slot
delivers earlier."""


def first_up(net, a, b, t0):
    """The first slot t >= t0 in which a's uplink reaches b."""
    for t in range(t0, t0 + net.ts_num):
        if b in net.neighbors(a, t % net.ts_num):
            return t
    return None


def best_path(net, src, dst, ts):
    tors, departs = [src, dst], [first_up(net, src, dst, ts)]
    for t1 in range(ts, departs[-1]):
        for m in net.neighbors(src, t1 % net.ts_num):
            if m == dst:
                continue
            t2 = first_up(net, m, dst, t1 + 1)
            if t2 is not None and t2 < departs[-1]:
                tors, departs = [src, m, dst], [t1, t2]
    return net.path(tors, departs, ts)


def routing(net):
    n = net.config.tor_num
    return [
        best_path(net, src, dst, ts)
        for src in range(n)
        for dst in range(n)
        if src != dst
        for ts in range(net.ts_num)
    ]
