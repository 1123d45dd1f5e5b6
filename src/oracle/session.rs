//! Incremental oracle (Sec. 7).
