# Key-value store (memcached ETC pool) flow sizes: value sizes follow the
# Generalized Pareto model of Atikoglu et al., "Workload Analysis of a
# Large-Scale Key-Value Store", SIGMETRICS 2012 (sigma 214.476,
# xi 0.348238), the KV-store trace of the Lighthouse paper [8]; each flow
# adds 60 bytes of request and header, and sizes are truncated at
# memcached's 1 MB item limit. Tabulated from the model by
# workloads/README.md's formula. Columns: bytes, cumulative probability.
60 0.000000
76 0.071001
92 0.135370
124 0.247154
188 0.418550
316 0.631441
572 0.824026
1084 0.939928
2108 0.985085
4156 0.997100
8252 0.999519
16444 0.999927
32828 0.999990
65596 0.999999
131132 1.000000
