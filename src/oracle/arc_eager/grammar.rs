//! The terminal mapping of arc-eager for the grammar oracle
//! (`grammars/arc-eager.grammar`; docs/systems.md).
//!
//! | terminal | positions | arcs into it |
//! |---|---|---|
//! | `r` | a virtual root ⊥ in front (position 0) | — |
//! | `h` | a stack word with a head, and a₀ = 0 | free from the position right before it (its earlier arc, or ⊥ → 0), forbidden from any other |
//! | `u` | a stack word without a head | scored from input words, free from ⊥, forbidden from stack words |
//! | `b` | the remaining input b₁ … b_m | scored (free from ⊥) |
//!
//! Arcs from ⊥ are free: they hold the words that end without a head.

use crate::grammar::Grammar;
use crate::oracle::grammar_oracle::{embedded, ArcKind, Encoding, TerminalMapping, VIRTUAL};
use crate::oracle::system::{Configuration, System};
use std::sync::OnceLock;

/// The arc-eager terminal mapping.
#[derive(Clone, Copy, Debug, Default)]
pub struct EagerMapping;

const ROOT: u8 = 0;
const HEADED: u8 = 1;
const HEADLESS: u8 = 2;
const INPUT: u8 = 3;

impl TerminalMapping for EagerMapping {
    fn system(&self) -> System {
        System::ArcEager
    }
    fn terminals(&self) -> &'static [&'static str] {
        &["r", "h", "u", "b"]
    }
    fn encode(&self, c: &Configuration, out: &mut Encoding) {
        out.clear();
        out.push(VIRTUAL, ROOT);
        for &a in c.stack() {
            if a == 0 || c.head(a).is_some() {
                out.push(a, HEADED);
            } else {
                out.push(a, HEADLESS);
            }
        }
        for b in c.buffer() {
            out.push(b, INPUT);
        }
    }
    fn arc(&self, e: &Encoding, h: usize, d: usize) -> ArcKind {
        match (e.roles[h], e.roles[d]) {
            (_, HEADED) if h + 1 == d => ArcKind::Free,
            (_, HEADED) => ArcKind::Forbidden,
            (ROOT, _) => ArcKind::Free,
            (HEADED | HEADLESS, HEADLESS) => ArcKind::Forbidden,
            _ => ArcKind::Scored,
        }
    }
    fn embedded_grammar(&self) -> &'static Grammar {
        static G: OnceLock<Grammar> = OnceLock::new();
        embedded(&G, "arc-eager.grammar", crate::grammars::ARC_EAGER)
    }
}
