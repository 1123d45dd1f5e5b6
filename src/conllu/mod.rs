//! CoNLL-U reading and writing (placeholder).
