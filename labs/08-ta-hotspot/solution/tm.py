"""Lab 08 reference, the Python route: the same matrix as solution/tm.txt,
four heavy pairs and 1 MB between everyone else."""


def tm(net):
    n = net.config.tor_num
    m = [[0 if a == b else 1_000_000 for b in range(n)] for a in range(n)]
    # (source, destination, bytes), 0-based: s1->s6, s2->s5, s3->s8, s4->s7
    # and back. Hotspot adds both directions and matches the heaviest.
    for a, b, x in [(0, 5, 50_000_000), (1, 4, 40_000_000), (2, 7, 30_000_000), (3, 6, 20_000_000),
                    (4, 1, 20_000_000), (5, 0, 25_000_000), (6, 3, 10_000_000), (7, 2, 15_000_000)]:
        m[a][b] = x
    return m
