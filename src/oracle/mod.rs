//! Optimal steps for shift-reduce parsing (placeholder).
