//! The whole controller pipeline for `lighthouse compile`: config →
//! schedule → routes → tables → files and a readable summary.
