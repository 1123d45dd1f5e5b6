//! Optimal projectivization and counting (placeholder).
