"""Lab 08, the Python route: the traffic matrix in Python.

Instead of editing tm.txt you may return the matrix from tm(net) here; once
this file differs from the shipped stub, `lighthouse lab grade 08` grades it
(run through the lighthouse package, on the shipped config.json: the matrix
is handed to net.topo_aware(matrix, scheduler="hotspot"), paper Table 5)
and not tm.txt. Leave it as shipped to be graded on tm.txt.

tm(net) returns 8 rows of 8 byte counts: row = source ToR (s1..s8, index
0..7), column = destination, a zero diagonal. net.config.tor_num is 8.
"""


def tm(net):
    n = net.config.tor_num
    # The starter: heavy pairs t <-> t+4 (the hotspot matching pairs them).
    m = [[0 if a == b else 1_000_000 for b in range(n)] for a in range(n)]
    for a in range(n):
        m[a][(a + 4) % n] = 100_000_000
    # TODO: make hotspot match s1-s6, s2-s5, s3-s8 and s4-s7 instead.
    return m
