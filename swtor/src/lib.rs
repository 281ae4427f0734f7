//! The native software ToR and the emulated OCS (paper §6).
