//! Traffic a run sends: the built-in prober (ping, iperf, flows), workloads
//! from flow-size distributions, and applications (memcached, allreduce).

pub mod apps;
pub mod probe;
pub mod workload;
