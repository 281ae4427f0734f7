//! Traffic-aware scheduling (paper §8, Table 5): circuits from a ToR-level
//! traffic matrix. `bvn` (Mordia), `hotspot` (c-Through), `mip` (Jupiter).

pub mod bvn;
pub mod hotspot;
pub mod mip;
