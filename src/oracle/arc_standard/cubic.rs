//! The O(n³) optimal step (Nederhof 2019, Sec. 4): the Eisner–Satta engine
//! ([`crate::engine`]) run with the Table 4 grammar, once per step.
//!
//! # How a configuration becomes engine input
//!
//! For each applicable step the oracle builds the configuration *after* the
//! step, stack a₀′ … a′_{k′} and remaining input b′₁ … b′_{m′}, and the string
//! c₀ … c_{k′+m′} of its nodes (stack, then input). Every position gets a
//! [`Role`]; the grammar must have one terminal named after each role:
//!
//! | role | terminal | positions |
//! |---|---|---|
//! | [`Role::Below`] | `p` | stack elements below the top, c₀ … c_{k′−1} |
//! | [`Role::Suffix`] | `s` | the top of the stack and the remaining input, c_{k′} … |
//!
//! The arc weights are w(i, j) = δ_g(c_i, c_j) in [`MaxPlus`] (1 for a gold
//! arc, 0 otherwise), except that a *strategy mask* sets some of them to −∞
//! (below), and the step's score is σ = W ⊗ δ_g(arc the step builds). A new
//! strategy that only restricts which trees are possible is therefore a new
//! grammar file over the terminals `p` and `s` ([`CubicOracle::new`] takes
//! one grammar for the non-strict strategies and one for strict
//! left-before-right); the masks below encode what a grammar over these two
//! roles cannot see: the history of one node.
//!
//! # Strategy masks
//!
//! With k the index of the top a_k *before* the step, positions being those of
//! the string after the step. "No left children" means w(h, i) = −∞ for all
//! i < h, "no right children" w(h, i) = −∞ for all i > h.
//!
//! | step | none | lbr | strict-lbr | rbl |
//! |---|---|---|---|---|
//! | shift | — | a_k (position k) gets no left children | same as lbr (redundant with the strict grammar, kept for user grammars) | — |
//! | reduce_left | — | — | a_{k−1} (position k−1, new top) gets no left children | — |
//! | reduce_right | — | — | — (strict grammar) | a_k (position k−1, new top) gets no right children |
//!
//! Strict left-before-right runs `shift-reduce-strict.grammar` (Table 4
//! without its last rule), so stack elements below the top never take left
//! children. These masks were checked against the brute force
//! ([`crate::oracle::exhaustive`]) on every reachable configuration of every gold
//! tree with n ≤ 5 (`tests/oracle_cubic.rs`). Two corrections to the paper's
//! text: for reduce_right with rbl the paper writes w(k, i), but after the
//! reduction a_k sits at position k − 1 of the new string; and the shift mask
//! applies to strict-lbr too (there it is implied by the strict grammar).
//! `none` and `rbl` need no mask after a shift: a computation can always give
//! a_k its remaining right children before its new left children, and `none`
//! needs none at all.
//!
//! # Reuse between steps
//!
//! A span's chart items depend only on the terminals and weights inside it.
//! Each string is placed at the end of a frame of n + 1 positions
//! ([`Parser::parse_framed_from`]), so the remaining input keeps its
//! positions from one call to the next; the oracle compares the words, the
//! gold tree and the mask with those of its previous engine run and tells
//! the engine from which position on nothing changed, and the engine fills
//! only the spans that start before it: along a computation, the spans that
//! start on the stack. Any call order gives the one-shot answer (the brute
//! force suites run through it); along a computation the cost per engine run
//! is O(n²) + O(K · n²) for the K changed positions, about the stack depth.
//!
//! # Complexity
//!
//! Three engine runs over at most k + m + 1 positions: O((k + m)³) time at
//! worst, O(n²) space kept in the reusable [`CubicOracle`]; after the first
//! call for a given length, no allocation.

use crate::engine::Parser;
use crate::grammar::{text, Grammar, Terminal};
use crate::oracle::{Configuration, OracleError, Step, StepScores, Strategy, System};
use crate::semiring::MaxPlus;
use crate::tree::ArcTarget;
use std::sync::OnceLock;

/// What a position of the engine's input stands for; the grammar must have a
/// terminal with the role's [`name`](Role::name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A stack element below the top (terminal `p`).
    Below,
    /// The top of the stack or a remaining input element (terminal `s`).
    Suffix,
}

impl Role {
    /// All roles.
    pub const ALL: [Role; 2] = [Role::Below, Role::Suffix];

    /// The terminal name a grammar uses for this role: `p` or `s`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Below => "p",
            Role::Suffix => "s",
        }
    }
}

/// Which arcs of one head a strategy mask forbids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Arcs to dependents left of the head.
    Left,
    /// Arcs to dependents right of the head.
    Right,
}

/// A strategy mask: `head` (a position of the string after the step) may not
/// take (new) children on `side`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mask {
    pub head: usize,
    pub side: Side,
}

impl Mask {
    /// Whether the arc from position `h` to position `d` is forbidden.
    #[inline]
    pub fn forbids(&self, h: usize, d: usize) -> bool {
        h == self.head
            && match self.side {
                Side::Left => d < h,
                Side::Right => d > h,
            }
    }
}

/// The strategy mask for `step` from a configuration whose top is a_k
/// (see the [module documentation](self) for the table). O(1).
pub fn mask(step: Step, strategy: Strategy, k: usize) -> Option<Mask> {
    match (step, strategy) {
        (Step::Shift, Strategy::Lbr | Strategy::StrictLbr) => Some(Mask { head: k, side: Side::Left }),
        (Step::ReduceLeft, Strategy::StrictLbr) => Some(Mask { head: k - 1, side: Side::Left }),
        (Step::ReduceRight, Strategy::Rbl) => Some(Mask { head: k - 1, side: Side::Right }),
        _ => None,
    }
}

/// A grammar that lacks a terminal for one of the [`Role`]s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the oracle grammar has no terminal `{terminal}` (needed for {role:?} positions); it must have the terminals p and s")]
pub struct MissingRole {
    pub terminal: &'static str,
    pub role: Role,
}

/// Sentences shorter than this run the engine in `MaxPlus<i16>` (scores
/// stay within ±`i16::MAX / 4`; the vectorised inner sums take twice the
/// lanes), longer ones in `MaxPlus<i32>`.
const SMALL_SCORES: usize = 8_000;

/// One grammar with its parsers, the terminals of the roles, and what the
/// last parse was given (for the promise of [`Parser::parse_framed_from`]).
struct Runner<'g> {
    small: Parser<'g, MaxPlus<i16>>,
    large: Parser<'g, MaxPlus<i32>>,
    below: Terminal,
    suffix: Terminal,
    /// The word at each frame position in the last parse ([`VACANT`] where
    /// there was none), its mask in frame positions, and its gold heads.
    last_nodes: Vec<usize>,
    last_mask: Option<Mask>,
    /// The fingerprint of the target of the last call, and a buffer for this one's.
    last_target: Vec<usize>,
    target: Vec<usize>,
}

/// A frame position without a word.
const VACANT: usize = usize::MAX;

impl<'g> Runner<'g> {
    fn new(grammar: &'g Grammar) -> Result<Self, MissingRole> {
        let get = |role: Role| grammar.terminal(role.name()).ok_or(MissingRole { terminal: role.name(), role });
        Ok(Runner {
            small: Parser::new(grammar),
            large: Parser::new(grammar),
            below: get(Role::Below)?,
            suffix: get(Role::Suffix)?,
            last_nodes: Vec::new(),
            last_mask: None,
            last_target: Vec::new(),
            target: Vec::new(),
        })
    }

    /// W for the string `nodes` with `terminals` and `mask` (positions of the
    /// string): the engine in a frame of n + 1 positions, so that the chart
    /// over the remaining input survives from one call to the next along a
    /// computation. The weights are a function of the gold tree, the two
    /// words and the mask, so the promise to the engine is the first string
    /// position from which on the words, the mask and the target (its fingerprint) are those
    /// of the last call. O(n) besides the engine.
    fn run<G: ArcTarget + ?Sized>(
        &mut self,
        nodes: &[usize],
        terminals: &[Terminal],
        mask: Option<Mask>,
        gold: &G,
    ) -> Result<Option<i64>, OracleError> {
        let frame = gold.words() + 1;
        let lo = frame - nodes.len();
        let framed_mask = mask.map(|m| Mask { head: m.head + lo, side: m.side });
        gold.fingerprint(&mut self.target);
        let unchanged_from = if self.last_target != self.target || self.last_nodes.len() != frame {
            std::mem::swap(&mut self.last_target, &mut self.target);
            self.last_nodes.clear();
            self.last_nodes.resize(frame, VACANT);
            nodes.len()
        } else {
            let mut from = (lo..frame).rev().find(|&p| self.last_nodes[p] != nodes[p - lo]).map_or(lo, |p| p + 1);
            if framed_mask != self.last_mask {
                for m in [framed_mask, self.last_mask].into_iter().flatten() {
                    from = from.max(m.head + 1);
                }
            }
            from.max(lo) - lo
        };
        self.last_nodes[..lo].fill(VACANT);
        self.last_nodes[lo..].copy_from_slice(nodes);
        self.last_mask = framed_mask;
        let weight = |h: usize, d: usize| {
            if mask.is_some_and(|m| m.forbids(h, d)) {
                None
            } else {
                Some(gold.has_arc(nodes[h], nodes[d]))
            }
        };
        if frame < SMALL_SCORES {
            let w =
                self.small.parse_framed_from(frame, terminals, Some(unchanged_from), |h, d| match weight(h, d) {
                    None => MaxPlus::neg_inf(),
                    Some(g) => MaxPlus::new(g as i16),
                })?;
            Ok(w.finite().map(i64::from))
        } else {
            let w =
                self.large.parse_framed_from(frame, terminals, Some(unchanged_from), |h, d| match weight(h, d) {
                    None => MaxPlus::neg_inf(),
                    Some(g) => MaxPlus::new(g as i32),
                })?;
            Ok(w.finite().map(i64::from))
        }
    }
}

/// The cubic oracle with its reusable state: one engine (and chart) per
/// grammar and the buffers for the strings of positions and terminals.
/// Create it once and call [`CubicOracle::scores`] for many configurations.
pub struct CubicOracle<'g> {
    general: Runner<'g>,
    strict: Runner<'g>,
    nodes: Vec<usize>,
    terminals: Vec<Terminal>,
}

fn embedded(slot: &'static OnceLock<Grammar>, name: &str, src: &str) -> &'static Grammar {
    slot.get_or_init(|| match text::parse_str(name, src) {
        Ok(parsed) => parsed.grammar,
        // The embedded files are checked by the tests; this cannot happen.
        Err(e) => unreachable!("embedded grammar {name} is invalid: {e}"),
    })
}

/// `grammars/shift-reduce.grammar` (Table 4), compiled once.
pub fn shift_reduce_grammar() -> &'static Grammar {
    static G: OnceLock<Grammar> = OnceLock::new();
    embedded(&G, "shift-reduce.grammar", crate::grammars::SHIFT_REDUCE)
}

/// `grammars/shift-reduce-strict.grammar` (Table 4 without its last rule), compiled once.
pub fn shift_reduce_strict_grammar() -> &'static Grammar {
    static G: OnceLock<Grammar> = OnceLock::new();
    embedded(&G, "shift-reduce-strict.grammar", crate::grammars::SHIFT_REDUCE_STRICT)
}

impl CubicOracle<'static> {
    /// The oracle with the embedded grammars.
    pub fn embedded() -> Self {
        match CubicOracle::new(shift_reduce_grammar(), shift_reduce_strict_grammar()) {
            Ok(o) => o,
            Err(e) => unreachable!("embedded grammars lack a role terminal: {e}"),
        }
    }
}

impl<'g> CubicOracle<'g> {
    /// An oracle running `general` for the strategies none, lbr and rbl and
    /// `strict` for strict-lbr. Both need the terminals `p` and `s`.
    pub fn new(general: &'g Grammar, strict: &'g Grammar) -> Result<Self, MissingRole> {
        Ok(CubicOracle {
            general: Runner::new(general)?,
            strict: Runner::new(strict)?,
            nodes: Vec::new(),
            terminals: Vec::new(),
        })
    }

    /// An oracle running `grammar` for every strategy (for a user's grammar file).
    pub fn with_grammar(grammar: &'g Grammar) -> Result<Self, MissingRole> {
        Self::new(grammar, grammar)
    }

    /// Whether `strategy` runs the embedded grammar (not a user's file):
    /// only then do the other algorithms, which compute the embedded
    /// grammar's answer in closed form, answer for it too.
    pub fn is_embedded(&self, strategy: Strategy) -> bool {
        match strategy {
            Strategy::StrictLbr => std::ptr::eq(self.strict.small.grammar(), shift_reduce_strict_grammar()),
            _ => std::ptr::eq(self.general.small.grammar(), shift_reduce_grammar()),
        }
    }

    /// The number of chart spans the engine has filled so far (a work counter:
    /// along a computation most spans are reused, see the module doc).
    pub fn spans_filled(&self) -> u64 {
        [&self.general, &self.strict].iter().map(|r| r.small.framed_spans() + r.large.framed_spans()).sum()
    }

    /// Scores every applicable step of `config` (Sec. 4): for each, one
    /// engine run on the configuration after the step. O((k + m)³) time; no
    /// allocation once the buffers have grown to the sentence length.
    pub fn scores<G: ArcTarget + ?Sized>(
        &mut self,
        config: &Configuration,
        gold: &G,
        strategy: Strategy,
    ) -> Result<StepScores, OracleError> {
        config.check_gold(gold)?;
        if config.system() != System::ArcStandard {
            return Err(OracleError::WrongSystem { expected: System::ArcStandard, found: config.system() });
        }
        let mut out = StepScores::default();
        for step in System::ArcStandard.steps().iter().copied() {
            if config.is_applicable(step) {
                out.set(step, self.step_score(config, gold, strategy, step)?);
            }
        }
        Ok(out)
    }

    /// The score of one applicable step; `None` if no computation respecting
    /// the strategy completes after it.
    fn step_score<G: ArcTarget + ?Sized>(
        &mut self,
        config: &Configuration,
        gold: &G,
        strategy: Strategy,
        step: Step,
    ) -> Result<Option<u32>, OracleError> {
        let stack = config.stack();
        let k = stack.len() - 1;
        // The string after the step, and the arc the step builds.
        self.nodes.clear();
        let (gained, top_after) = match step {
            Step::Shift => {
                self.nodes.extend_from_slice(stack);
                (0, k + 1)
            }
            Step::ReduceLeft => {
                self.nodes.extend_from_slice(&stack[..k]);
                (gold.has_arc(stack[k - 1], stack[k]) as i64, k - 1)
            }
            Step::ReduceRight => {
                self.nodes.extend_from_slice(&stack[..k - 1]);
                self.nodes.push(stack[k]);
                (gold.has_arc(stack[k], stack[k - 1]) as i64, k - 1)
            }
            _ => unreachable!("not an arc-standard step: {step}"),
        };
        self.nodes.extend(config.buffer());
        let runner = if strategy == Strategy::StrictLbr { &mut self.strict } else { &mut self.general };
        self.terminals.clear();
        self.terminals.extend((0..self.nodes.len()).map(|i| if i < top_after { runner.below } else { runner.suffix }));
        let w = runner.run(&self.nodes, &self.terminals, mask(step, strategy, k), gold)?;
        Ok(w.map(|v| (v + gained) as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::DepTree;

    #[test]
    fn the_worked_example_of_the_exhaustive_reference() {
        let gold = DepTree::from_heads(&[2, 0, 2]).unwrap();
        let c = Configuration::new(System::ArcStandard, &[0, 1, 2], &[3], 3).unwrap();
        let mut o = CubicOracle::embedded();
        let s = o.scores(&c, &gold, Strategy::Lbr).unwrap();
        assert_eq!(
            s,
            StepScores::new(&[(Step::Shift, Some(1)), (Step::ReduceLeft, Some(0)), (Step::ReduceRight, Some(3))])
        );
    }

    #[test]
    fn a_grammar_without_the_role_terminals_is_rejected() {
        let g = text::parse_str("projective.grammar", crate::grammars::PROJECTIVE).unwrap().grammar;
        assert_eq!(CubicOracle::with_grammar(&g).err(), Some(MissingRole { terminal: "p", role: Role::Below }));
    }
}
