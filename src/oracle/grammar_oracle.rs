//! The optimal step through the engine for any system whose reachable arc
//! sets form a split bilexical language (Nederhof 2019, Sec. 4 for
//! arc-standard; Sec. 9 names the generalisation): the grammar oracle.
//!
//! A system provides a [`TerminalMapping`]: how the positions of a
//! configuration become terminals, and what kind of arc each pair of
//! positions is ([`ArcKind`]): scored (an arc the computation may build),
//! free (an arc the grammar needs for a tree but the computation does not
//! build) or forbidden. For every applicable step the
//! oracle applies it to a copy of the configuration, encodes the result and
//! runs the Eisner–Satta engine in [`MaxPlus`]: W is the largest number of
//! gold arcs a complete computation from there builds, provided that the
//! grammar's trees are exactly the arc sets the system can still build (each
//! once, with the free arcs added). The step's score is W plus 1 if the step
//! itself builds a gold arc.
//!
//! Arc weights in max-plus: a scored arc weighs 1 if it is gold and 0
//! otherwise, a free arc 0 (the semiring's one), a forbidden arc −∞ (its
//! zero). Forbidding arcs by weight keeps the grammars small (and the engine
//! fast) where a constraint is about adjacent positions ("the stack word
//! right below"), which weights say directly.
//!
//! # Complexity
//!
//! One engine run per applicable step over the k + m + 1 (+ virtual)
//! positions (consecutive steps that lead to the same encoding share one):
//! O((k + m)³) time at worst; the parser's chart and the buffers are kept
//! in the [`GrammarOracle`], so that nothing is allocated once warm. The
//! encoding is placed at the end of a frame of n + 2 positions
//! ([`Parser::parse_framed`]), so that along a computation the spans over
//! the remaining input are reused and only those that start before the
//! last changed position are filled again (as for arc-standard's
//! [`cubic`](super::arc_standard::cubic) oracle).

use super::system::{Configuration, Step, System};
use super::{OracleError, StepScores};
use crate::engine::Parser;
use crate::grammar::{text, Grammar, Terminal};
use crate::semiring::MaxPlus;
use crate::tree::ArcTarget;
use std::sync::OnceLock;

/// The node of a virtual position (one that stands for no word).
pub const VIRTUAL: usize = usize::MAX;

/// The engine input of one configuration, written by a [`TerminalMapping`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoding {
    /// The word at each position, or [`VIRTUAL`].
    pub nodes: Vec<usize>,
    /// The terminal of each position, as an index into [`TerminalMapping::terminals`].
    pub roles: Vec<u8>,
}

/// What an arc between two positions of an [`Encoding`] stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArcKind {
    /// An arc the computation may build: weight 1 if gold, 0 otherwise.
    Scored,
    /// An arc of the encoding only (e.g. from a virtual root): weight one.
    Free,
    /// No tree of the system has it: weight zero.
    Forbidden,
}

impl Encoding {
    /// Empties the encoding, keeping its buffers.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.roles.clear();
    }
    /// Appends a position.
    pub fn push(&mut self, node: usize, role: u8) {
        self.nodes.push(node);
        self.roles.push(role);
    }
}

/// How a system's configurations become terminal strings.
pub trait TerminalMapping: Send + Sync + 'static {
    /// The system.
    fn system(&self) -> System;
    /// The terminal names the grammar must have, indexed by role.
    fn terminals(&self) -> &'static [&'static str];
    /// Encodes `c` (a configuration of [`TerminalMapping::system`]). O(k + m).
    fn encode(&self, c: &Configuration, out: &mut Encoding);
    /// The kind of the arc from position `h` to position `d` of `e`. O(1).
    fn arc(&self, e: &Encoding, h: usize, d: usize) -> ArcKind;
    /// The embedded grammar for this mapping, compiled once.
    fn embedded_grammar(&self) -> &'static Grammar;
}

/// A grammar that lacks one of the terminals a mapping needs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {system} grammar has no terminal `{terminal}`; it must have the terminals {expected}")]
pub struct MissingTerminal {
    pub system: System,
    pub terminal: &'static str,
    pub expected: String,
}

/// Compiles an embedded grammar once.
pub(crate) fn embedded(slot: &'static OnceLock<Grammar>, name: &str, src: &str) -> &'static Grammar {
    slot.get_or_init(|| match text::parse_str(name, src) {
        Ok(parsed) => parsed.grammar,
        // The embedded files are checked by the tests; this cannot happen.
        Err(e) => unreachable!("embedded grammar {name} is invalid: {e}"),
    })
}

/// The grammar oracle of one system, with its reusable state.
pub struct GrammarOracle<'g> {
    mapping: &'static dyn TerminalMapping,
    /// The engine in `MaxPlus<i16>` for sentences shorter than
    /// [`SMALL_SCORES`] words (twice the lanes in the vectorised inner
    /// sums), in `MaxPlus<i32>` beyond.
    small: Parser<'g, MaxPlus<i16>>,
    large: Parser<'g, MaxPlus<i32>>,
    terminals: Vec<Terminal>,
    encoding: Encoding,
    input: Vec<Terminal>,
    after: Configuration,
    /// The encoding of the previous step's configuration in this call and
    /// its value: steps that lead to the same encoding (arc-hybrid's
    /// `left_arc` and `right_arc` both pop s₀) share one engine run.
    previous: Encoding,
    previous_w: Option<Option<i64>>,
}

/// Sentences shorter than this run the engine in `MaxPlus<i16>` (scores
/// stay within ±`i16::MAX / 4`).
const SMALL_SCORES: usize = 8_000;

impl GrammarOracle<'static> {
    /// The oracle with the mapping's embedded grammar.
    pub fn embedded(mapping: &'static dyn TerminalMapping) -> Self {
        match GrammarOracle::new(mapping, mapping.embedded_grammar()) {
            Ok(o) => o,
            Err(e) => unreachable!("embedded grammar lacks a terminal: {e}"),
        }
    }
}

impl GrammarOracle<'_> {
    /// Whether this oracle runs its system's embedded grammar (not a
    /// user's file).
    pub fn is_embedded(&self) -> bool {
        std::ptr::eq(self.small.grammar(), self.mapping.embedded_grammar())
    }
}

impl<'g> GrammarOracle<'g> {
    /// An oracle running `grammar` with `mapping`; the grammar must have the
    /// mapping's terminals.
    pub fn new(mapping: &'static dyn TerminalMapping, grammar: &'g Grammar) -> Result<Self, MissingTerminal> {
        let terminals = mapping
            .terminals()
            .iter()
            .map(|&t| {
                grammar.terminal(t).ok_or_else(|| MissingTerminal {
                    system: mapping.system(),
                    terminal: t,
                    expected: mapping.terminals().join(", "),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(GrammarOracle {
            mapping,
            small: Parser::new(grammar),
            large: Parser::new(grammar),
            terminals,
            encoding: Encoding::default(),
            input: Vec::new(),
            after: Configuration::initial(mapping.system(), 0),
            previous: Encoding::default(),
            previous_w: None,
        })
    }

    /// The system this oracle is for.
    pub fn system(&self) -> System {
        self.mapping.system()
    }

    /// Scores every applicable step of `config` (see the module doc).
    /// O((k + m)³); no allocation once warm.
    pub fn scores<G: ArcTarget + ?Sized>(
        &mut self,
        config: &Configuration,
        gold: &G,
    ) -> Result<StepScores, OracleError> {
        config.check_gold(gold)?;
        if config.system() != self.system() {
            return Err(OracleError::WrongSystem { expected: self.system(), found: config.system() });
        }
        let mut out = StepScores::default();
        self.previous_w = None;
        for &step in config.system().steps() {
            if config.is_applicable(step) {
                out.set(step, self.step_score(config, gold, step)?);
            }
        }
        Ok(out)
    }

    /// The best score of the computations from `config` on (the value W of
    /// the engine), `None` if none completes. O((k + m)³).
    pub fn best<G: ArcTarget + ?Sized>(
        &mut self,
        config: &Configuration,
        gold: &G,
    ) -> Result<Option<u32>, OracleError> {
        config.check_gold(gold)?;
        self.mapping.encode(config, &mut self.encoding);
        let w = self.run(gold)?;
        Ok(w.map(|v| v as u32))
    }

    fn step_score<G: ArcTarget + ?Sized>(
        &mut self,
        config: &Configuration,
        gold: &G,
        step: Step,
    ) -> Result<Option<u32>, OracleError> {
        self.after.clone_from(config);
        let arc = self.after.apply(step)?;
        let gained = arc.is_some_and(|(h, d)| gold.has_arc(h, d)) as i64;
        self.mapping.encode(&self.after, &mut self.encoding);
        let w = match self.previous_w {
            Some(w) if self.previous == self.encoding => w,
            _ => {
                let w = self.run(gold)?;
                self.previous.clone_from(&self.encoding);
                self.previous_w = Some(w);
                w
            }
        };
        Ok(w.map(|v| (v + gained) as u32))
    }

    fn run<G: ArcTarget + ?Sized>(&mut self, gold: &G) -> Result<Option<i64>, OracleError> {
        let e = &self.encoding;
        let mapping = self.mapping;
        self.input.clear();
        self.input.extend(e.roles.iter().map(|&r| self.terminals[r as usize]));
        // A frame of n + 2 positions holds every configuration's encoding
        // (n + 1 words and at most one virtual position), so that the chart
        // over the remaining input survives from one call to the next along
        // a computation (`Parser::parse_framed`).
        let frame = gold.words() + 2;
        let kind = |h: usize, d: usize| match mapping.arc(e, h, d) {
            ArcKind::Scored => Some(gold.has_arc(e.nodes[h], e.nodes[d])),
            ArcKind::Free => Some(false),
            ArcKind::Forbidden => None,
        };
        if frame < SMALL_SCORES {
            let w = self.small.parse_framed(frame, &self.input, |h, d| match kind(h, d) {
                Some(g) => MaxPlus::new(g as i16),
                None => MaxPlus::neg_inf(),
            })?;
            Ok(w.finite().map(i64::from))
        } else {
            let w = self.large.parse_framed(frame, &self.input, |h, d| match kind(h, d) {
                Some(g) => MaxPlus::new(g as i32),
                None => MaxPlus::neg_inf(),
            })?;
            Ok(w.finite().map(i64::from))
        }
    }
}
