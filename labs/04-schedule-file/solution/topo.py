"""Lab 04, the Python route (reference): the circle method of the paper's
Fig. 6b with net.connect(): ToR 0 stays put, the others rotate one place
per slice, and in each slice the i-th ToR of the list meets the i-th from
the end."""


def topo(net):
    n = net.config.tor_num
    assert n % 2 == 0, "the circle method pairs an even number of ToRs"
    tors = list(range(n))
    for ts in range(n - 1):
        for i in range(n // 2):
            if not net.connect(tors[i], 0, tors[-i - 1], 0, ts):
                return False
        tors.insert(1, tors.pop())
    return True
