# Elephants: flow sizes uniform from 1 MB to 4 MB. Lighthouse's own, for
# the live-against-simulated elephant check (docs/fidelity.md, "Elephants,
# live against virtual time"): every flow is large enough for its window
# and the circuit schedule, not its handshake, to set its FCT.
1000000 0
4000000 1
