//! Walks.
