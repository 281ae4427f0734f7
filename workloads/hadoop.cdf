# Hadoop inter-rack flow sizes: Facebook's Hadoop cluster (Roy et al.,
# "Inside the Social Network's (Datacenter) Network", SIGCOMM 2015), the
# trace the Lighthouse paper replays [36], as digitised for Opera's
# evaluation (Mellette et al., NSDI 2020). Columns: flow size in bytes,
# cumulative probability; linear interpolation between points.
325 0
1177 0.0173
4264 0.0224
15443 0.0277
28000 0.06
37323 0.1049
51067 0.3359
74908 0.5155
93293 0.6419
141819 0.7725
237853 0.8894
573344 0.9572
2076744 0.9656
7521945 0.9687
27244995 0.9742
98686787 0.9839
223092956 1
