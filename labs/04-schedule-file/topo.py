"""Lab 04, the Python route: build the 6-ToR round robin with net.connect().

Instead of editing sched.json you may write topo(net) here; once this file
differs from the shipped stub, `lighthouse lab grade 04` grades it (run
through the lighthouse package, on the shipped config.json) and not
sched.json. Leave it as shipped to be graded on sched.json.

net.connect(tor1, port1, tor2, port2, ts) adds a two-way circuit in slice
ts and returns False (the reason in net.refusal) when it is refused; the
cycle has as many slices as you connect. net.config.tor_num is the number of
ToRs. Do not call net.round_robin(): writing it is the lab.
"""


def topo(net):
    n = net.config.tor_num
    # Slice 0 of the circle method (paper Fig. 6b): pair the first ToR with
    # the last, the second with the second-to-last, ...
    tors = list(range(n))
    for i in range(n // 2):
        if not net.connect(tors[i], 0, tors[-i - 1], 0, 0):
            return False
    # TODO: slices 1 .. n-2: rotate every ToR but the first by one place and
    # pair them again.
    return True
