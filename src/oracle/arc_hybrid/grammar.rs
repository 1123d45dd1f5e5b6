//! The terminal mapping of arc-hybrid for the grammar oracle
//! (`grammars/arc-hybrid.grammar`; docs/systems.md).
//!
//! | terminal | positions |
//! |---|---|
//! | `p` | the stack words a₀ … a_k |
//! | `b` | the remaining input b₁ … b_m |
//!
//! No free arcs: the computation builds every arc of the tree, whose root is
//! a₀ = 0. An arc between two stack words is forbidden unless the head is
//! right below the dependent (right_arc joins s₁ and s₀ only).

use crate::grammar::Grammar;
use crate::oracle::grammar_oracle::{embedded, ArcKind, Encoding, TerminalMapping};
use crate::oracle::system::{Configuration, System};
use std::sync::OnceLock;

/// The arc-hybrid terminal mapping.
#[derive(Clone, Copy, Debug, Default)]
pub struct HybridMapping;

const STACK: u8 = 0;
const INPUT: u8 = 1;

impl TerminalMapping for HybridMapping {
    fn system(&self) -> System {
        System::ArcHybrid
    }
    fn terminals(&self) -> &'static [&'static str] {
        &["p", "b"]
    }
    fn encode(&self, c: &Configuration, out: &mut Encoding) {
        out.clear();
        for &a in c.stack() {
            out.push(a, STACK);
        }
        for b in c.buffer() {
            out.push(b, INPUT);
        }
    }
    fn arc(&self, e: &Encoding, h: usize, d: usize) -> ArcKind {
        if e.roles[h] == STACK && e.roles[d] == STACK && h + 1 != d {
            ArcKind::Forbidden
        } else {
            ArcKind::Scored
        }
    }
    fn embedded_grammar(&self) -> &'static Grammar {
        static G: OnceLock<Grammar> = OnceLock::new();
        embedded(&G, "arc-hybrid.grammar", crate::grammars::ARC_HYBRID)
    }
}
