//! Beam search over labelled steps: the [`BeamParser`], and the beam that
//! global training ([`super::global`]) decodes with.
//!
//! A *hypothesis* is a configuration reached from the start with its
//! labels ([`ArcState`]) and its score, the sum of the scores of its
//! labelled steps (each the step weight plus the label weight, as the
//! greedy [`Parser`](super::Parser) scores them, [`LabelledScores`]). One
//! search step expands every hypothesis of the beam by every applicable
//! labelled step (a final hypothesis stays as it is: Aufrant et al. 2017,
//! NEXT(c) = {c}) and keeps the K best successors; the search ends when
//! every hypothesis is final and returns the best.
//!
//! Ties are broken deterministically ([`Candidate::rank`]): by score, then
//! by the score of the last step alone, then by the beam position of the
//! parent, the step's class, the label weight and the label. With K = 1
//! the search therefore takes exactly the greedy parser's steps (the
//! greedy parser's first-best rule on ties is the same order), which
//! `tests/beam.rs` checks.
//!
//! Hypotheses own flat copies of their configuration and labels, but a
//! successor is not copied whole from its parent: every step records in a
//! history arena ([`Beams`]) which words it touched (the arc's head and
//! dependent, and the dependent's old head if the step replaced it) and how
//! deep into the stack it reached, and a successor is written over a buffer
//! of the generation before (preferably the one holding its parent's
//! parent) by copying only what differs: the words touched on the two paths
//! of the history up to their common ancestor, and the top of the stack.
//! Goldberg, Zhao & Huang (2013) share the stack and the history between
//! hypotheses for the same reason: a full copy is O(n). A successor here
//! costs the words touched on the two paths since their common ancestor,
//! which is short when the beam's hypotheses share a recent ancestor, as
//! they mostly do (`tests/beam.rs` counts the words copied per step: far
//! below a full copy, though not constant, when hypotheses diverged long
//! before); a path that touched more than half the words falls back to a
//! full copy. Every step itself is O(1), non-monotonic arc-eager's
//! head-replacing `left_arc` included (`Configuration`'s `before`).
//!
//! Memory: two generations of K hypotheses of O(n) each, and the history
//! arena of K nodes per step ([`beam_memory`], checked against
//! [`crate::memory::max_memory`] before a sentence is parsed).

use super::features::{laid_out, ArcState, Extractor, Tokens};
use super::model::{classes, read_tree, LabelledScores, Model};
use crate::oracle::direction::{Direction, Directions};
use crate::oracle::{Algorithm, Configuration, Oracle, OracleError, Root, Step, Strategy, System};
use crate::tree::DepTree;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One hypothesis of a beam.
#[derive(Clone, Debug)]
pub struct Hyp {
    pub config: Configuration,
    pub arcs: ArcState,
    /// The sum of the labelled step scores from the start.
    pub score: f64,
    /// Training: the history node of the last step ([`super::global`]).
    pub node: u32,
    /// Training: whether the hypothesis can still reach as many gold arcs
    /// as the configuration the search started from.
    pub correct: bool,
    /// The node of the last step in the [`Beams`]' history arena, or
    /// [`NO_CHANGE`] when unknown (a buffer to be copied whole).
    change: u32,
}

impl Hyp {
    fn empty(system: System) -> Hyp {
        Hyp {
            config: Configuration::initial(system, 0),
            arcs: ArcState::default(),
            score: 0.0,
            node: 0,
            correct: true,
            change: NO_CHANGE,
        }
    }
}

/// No node of the history arena.
const NO_CHANGE: u32 = u32::MAX;

/// A step in the history arena of a [`Beams`]: what it touched.
#[derive(Clone, Copy, Debug)]
struct Change {
    /// The node of the step before; [`NO_CHANGE`] for a start.
    parent: u32,
    /// Steps from the start.
    depth: u32,
    /// The stack below this position is the same before and after the step.
    low: u32,
    /// The words whose heads, outer dependents or labels the step changed
    /// ([`NO_CHANGE`] for none).
    words: [u32; 3],
}

/// Bytes of one hypothesis per position of the sentence: the heads and
/// outer dependents of its configuration and the labels, children,
/// valencies and label sets of its [`ArcState`].
const HYP_BYTES_PER_POSITION: usize = 64;

/// Bytes of one node of the history arena.
const CHANGE_BYTES: usize = std::mem::size_of::<Change>();

/// Checks the memory a beam of `width` needs for a sentence of `n` words
/// (two generations of `width` hypotheses of n + 1 positions, and a
/// history node per hypothesis and step, at most 4(n + 1) steps for the
/// systems' computations) against the limit ([`crate::memory::max_memory`]).
/// O(1).
pub fn beam_memory(width: usize, n: usize) -> Result<(), crate::memory::TooMuchMemory> {
    let positions = n.checked_add(2);
    let hyps = positions.and_then(|p| p.checked_mul(2 * HYP_BYTES_PER_POSITION));
    let history = positions.and_then(|p| p.checked_mul(4 * CHANGE_BYTES));
    let per_item = hyps.and_then(|h| history.and_then(|g| h.checked_add(g)));
    crate::memory::check(per_item, width.max(1), || format!("a beam of {width} over a sentence of {n} words"))
}

/// A scored successor of a hypothesis.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    /// The parent's position in the beam.
    pub parent: u32,
    /// The step; `None`: the parent is final and stays.
    pub step: Option<Step>,
    /// The step's class in the model ([`classes`]); `None` for a staying
    /// parent, or for a canonical step without a class (LR-spine, static
    /// training: [`super::global`]).
    pub class: Option<u32>,
    /// The label of an arc step.
    pub label: Option<u32>,
    /// The parent's score plus `local`.
    pub score: f64,
    /// The labelled step's own score (step weight + label weight).
    pub local: f32,
    /// The label's weight (0 without a label).
    pub label_weight: f32,
    /// Training: whether the successor is correct.
    pub correct: bool,
}

impl Candidate {
    /// A final hypothesis at beam position `parent` staying as it is.
    pub fn stay(parent: u32, hyp: &Hyp) -> Candidate {
        Candidate {
            parent,
            step: None,
            class: None,
            label: None,
            score: hyp.score,
            local: 0.0,
            label_weight: 0.0,
            correct: hyp.correct,
        }
    }

    /// The search order: `Less` when `self` comes first (is better). By
    /// score (higher first), then `local` (higher first), then parent,
    /// class (a staying parent first), label weight (higher first) and
    /// label. A total order: two candidates never compare equal unless
    /// they are the same successor.
    pub fn rank(&self, other: &Candidate) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(other.local.total_cmp(&self.local))
            .then(self.parent.cmp(&other.parent))
            .then(self.class.map(|c| c as i64).unwrap_or(-1).cmp(&other.class.map(|c| c as i64).unwrap_or(-1)))
            .then(other.label_weight.total_cmp(&self.label_weight))
            .then(self.label.cmp(&other.label))
            .then(self.step.cmp(&other.step))
    }
}

/// A candidate in the selection heap: the worst is on top.
#[derive(Clone, Copy, Debug)]
struct Ranked(Candidate);

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.0.rank(&other.0) == Ordering::Equal
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    /// A max-heap of `Ranked` has the worst candidate on top.
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.rank(&other.0)
    }
}

/// The K best of the candidates offered. O(log K) per offer.
#[derive(Debug, Default)]
pub struct Selection {
    width: usize,
    heap: BinaryHeap<Ranked>,
    /// The selection, best first, after [`Selection::finish`].
    pub chosen: Vec<Candidate>,
}

impl Selection {
    /// Starts a selection of at most `width` candidates.
    pub fn start(&mut self, width: usize) {
        self.width = width.max(1);
        self.heap.clear();
        self.chosen.clear();
    }

    /// Whether `c` would be kept now (it beats the worst of a full selection).
    #[inline]
    pub fn admits(&self, score: f64) -> bool {
        self.heap.len() < self.width || self.heap.peek().is_some_and(|w| score >= w.0.score)
    }

    /// Offers `c`.
    #[inline]
    pub fn offer(&mut self, c: Candidate) {
        if self.heap.len() < self.width {
            self.heap.push(Ranked(c));
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if c.rank(&worst.0) == Ordering::Less {
                *worst = Ranked(c);
            }
        }
    }

    /// Moves the selection, best first, into [`Selection::chosen`]. O(K log K).
    pub fn finish(&mut self) {
        self.chosen.clear();
        self.chosen.extend(self.heap.drain().map(|r| r.0));
        self.chosen.sort_unstable_by(|a, b| a.rank(b));
    }
}

pub use super::model::MAX_BEAM_LABELS;

/// Offers the successors of the hypothesis at beam position `parent` by the
/// steps (by class) where `legal` holds, one per label for an arc step,
/// with `scores` filled for its configuration. `correct(class, label)`
/// says whether a successor is correct; with `only_correct`, the others are
/// not offered. `labels`: at most this many labels per arc step, those of
/// the highest label weights (first label first on ties), unless
/// `only_correct` (every correct label is offered); `None`: all.
/// O(classes + arc steps × labels × log K).
#[allow(clippy::too_many_arguments)]
pub fn offer_successors(
    selection: &mut Selection,
    parent: u32,
    parent_score: f64,
    scores: &LabelledScores,
    steps: &[Step],
    legal: impl Fn(usize) -> bool,
    correct: impl Fn(usize, Option<u32>) -> bool,
    only_correct: bool,
    labels: Option<usize>,
) {
    for (i, &step) in steps.iter().enumerate() {
        if !legal(i) {
            continue;
        }
        let sw = scores.step_weight(i);
        let class = Some(i as u32);
        if scores.block(i).is_none() {
            let local = sw + 0.0;
            let ok = correct(i, None);
            if only_correct && !ok {
                continue;
            }
            let score = parent_score + f64::from(local);
            selection.offer(Candidate {
                parent,
                step: Some(step),
                class,
                label: None,
                score,
                local,
                label_weight: 0.0,
                correct: ok,
            });
            continue;
        }
        let count = scores.label_count();
        let limit = labels.filter(|&m| !only_correct && m < count).map(|m| m.clamp(1, MAX_BEAM_LABELS));
        let mut top = [(0f32, 0u32); MAX_BEAM_LABELS];
        let mut kept = 0;
        if let Some(m) = limit {
            // The m labels of the highest weights, best first (insertion).
            for l in 0..count as u32 {
                let w = scores.label_weight(i, l).unwrap_or(0.0);
                if kept == m && w <= top[m - 1].0 {
                    continue;
                }
                let mut at = kept.min(m - 1);
                while at > 0 && w > top[at - 1].0 {
                    top[at] = top[at - 1];
                    at -= 1;
                }
                top[at] = (w, l);
                kept = (kept + 1).min(m);
            }
        }
        let chosen = |k: usize| if limit.is_some() { top[k].1 } else { k as u32 };
        for k in 0..if limit.is_some() { kept } else { count } {
            let l = chosen(k);
            let w = scores.label_weight(i, l).unwrap_or(0.0);
            let local = sw + w;
            let score = parent_score + f64::from(local);
            if !selection.admits(score) {
                continue;
            }
            let ok = correct(i, Some(l));
            if only_correct && !ok {
                continue;
            }
            selection.offer(Candidate {
                parent,
                step: Some(step),
                class,
                label: Some(l),
                score,
                local,
                label_weight: w,
                correct: ok,
            });
        }
    }
}

/// Two generations of hypotheses, reused from step to step, and the
/// history arena of the steps that made them (see the module documentation).
#[derive(Debug)]
pub struct Beams {
    system: System,
    /// The current beam (the first `len`).
    pub cur: Vec<Hyp>,
    pub len: usize,
    next: Vec<Hyp>,
    /// The steps taken since the start, one node per hypothesis and step.
    history: Vec<Change>,
    /// Scratch: the words touched between two hypotheses.
    touched: Vec<u32>,
    /// Scratch: the buffers of the generation before, by beam position
    /// (`None` once reused), and where each history node's buffer is.
    pool: Vec<Option<Hyp>>,
    slot_of: std::collections::HashMap<u32, usize>,
    /// Copy every successor whole (the reference the tests compare with).
    copy_whole: bool,
    /// Words and stack entries copied so far (a full copy counts n + 1 and
    /// the stack): what `tests/beam.rs` reads to check that the cost of a
    /// step does not grow with the sentence.
    pub copied: u64,
}

impl Beams {
    /// Empty beams of `system`.
    pub fn new(system: System) -> Beams {
        Beams {
            system,
            cur: Vec::new(),
            len: 0,
            next: Vec::new(),
            history: Vec::new(),
            touched: Vec::new(),
            pool: Vec::new(),
            slot_of: std::collections::HashMap::new(),
            copy_whole: false,
            copied: 0,
        }
    }

    /// Copies every successor whole from its parent, O(n) per successor:
    /// the reference the tests compare the incremental copies with.
    #[doc(hidden)]
    pub fn set_copy_whole(&mut self, whole: bool) {
        self.copy_whole = whole;
    }

    /// The current hypotheses.
    pub fn hyps(&self) -> &[Hyp] {
        &self.cur[..self.len]
    }

    /// Forgets the history: every buffer is copied whole when next reused.
    fn restart_history(&mut self) {
        self.history.clear();
        self.history.push(Change { parent: NO_CHANGE, depth: 0, low: 0, words: [NO_CHANGE; 3] });
        for h in self.cur.iter_mut().chain(self.next.iter_mut()) {
            h.change = NO_CHANGE;
        }
    }

    /// Starts from one hypothesis: `config` with `arcs`, score 0, correct.
    pub fn start(&mut self, config: &Configuration, arcs: &ArcState, node: u32) {
        if self.cur.is_empty() {
            self.cur.push(Hyp::empty(self.system));
        }
        self.restart_history();
        let h = &mut self.cur[0];
        h.config.assign(config);
        h.arcs.assign(arcs);
        h.score = 0.0;
        h.node = node;
        h.correct = true;
        h.change = 0;
        self.len = 1;
    }

    /// Starts from the initial configuration of `system` for `n` positions
    /// with the root at `root` (score 0, correct, node 0), reusing the buffers.
    pub fn start_initial(&mut self, system: System, n: usize, root: Root) {
        if self.cur.is_empty() {
            self.cur.push(Hyp::empty(self.system));
        }
        self.restart_history();
        let h = &mut self.cur[0];
        h.config.reset_at(system, n, root);
        h.arcs.reset(n);
        h.score = 0.0;
        h.node = 0;
        h.correct = true;
        h.change = 0;
        self.len = 1;
    }

    /// Whether every hypothesis is final.
    pub fn all_final(&self) -> bool {
        self.hyps().iter().all(|h| h.config.is_final())
    }

    /// Makes the next beam of the `chosen` successors of the current one
    /// (best first), `node(parent's node, candidate)` giving each its
    /// history node, and makes it current. Amortised O(K) copies per step
    /// (see the module documentation).
    pub fn advance(&mut self, chosen: &[Candidate], mut node: impl FnMut(u32, &Candidate) -> u32) {
        let parents = std::mem::take(&mut self.cur);
        let len = self.len;
        self.fill(&parents[..len], true, chosen, &mut node);
        self.cur = parents;
        std::mem::swap(&mut self.cur, &mut self.next);
        self.len = chosen.len();
    }

    /// As [`Beams::advance`], with the parents in the current beam of
    /// `parents` (another history: every successor is copied whole).
    pub fn advance_from(
        &mut self,
        parents: &Beams,
        chosen: &[Candidate],
        mut node: impl FnMut(u32, &Candidate) -> u32,
    ) {
        // The successors start a history of their own.
        self.restart_history();
        self.fill(parents.hyps(), false, chosen, &mut node);
        std::mem::swap(&mut self.cur, &mut self.next);
        self.len = chosen.len();
    }

    /// Writes the successors `chosen` of `parents` into `next`, over the
    /// buffers of the generation before; `ours`: the parents are this
    /// beam's (their history nodes are in this arena).
    fn fill(
        &mut self,
        parents: &[Hyp],
        ours: bool,
        chosen: &[Candidate],
        node: &mut impl FnMut(u32, &Candidate) -> u32,
    ) {
        let system = self.system;
        let monotonic = system.definition().is_monotonic();
        // The buffers of the generation before, and where each node's is.
        self.pool.clear();
        self.pool.extend(self.next.drain(..).map(Some));
        self.slot_of.clear();
        for (i, h) in self.pool.iter().enumerate() {
            if let Some(h) = h {
                if h.change != NO_CHANGE {
                    self.slot_of.insert(h.change, i);
                }
            }
        }
        let mut free = 0;
        for c in chosen {
            let src = &parents[c.parent as usize];
            // Preferably the buffer of the parent's parent: one step apart.
            let near = if ours && src.change != NO_CHANGE {
                let grand = self.history[src.change as usize].parent;
                self.slot_of.get(&grand).copied().filter(|&i| self.pool[i].is_some())
            } else {
                None
            };
            let taken = match near {
                Some(i) => self.pool[i].take(),
                None => {
                    while free < self.pool.len() && self.pool[free].is_none() {
                        free += 1;
                    }
                    self.pool.get_mut(free).and_then(Option::take)
                }
            };
            let mut dst = taken.unwrap_or_else(|| Hyp::empty(system));
            let src_change = if ours { src.change } else { NO_CHANGE };
            self.copy_from(&mut dst, src, src_change);
            let before = dst.config.stack().len();
            let mut words = [NO_CHANGE; 3];
            if let Some(step) = c.step {
                // Non-monotonic arc-eager may replace the dependent's head.
                let old = if monotonic { None } else { dst.config.arc(step).and_then(|(_, d)| dst.config.head(d)) };
                // The step was applicable when offered.
                if let Ok(Some((h, d))) = dst.config.apply(step) {
                    dst.arcs.add(h, d, c.label.unwrap_or(0));
                    words = [h as u32, d as u32, old.map_or(NO_CHANGE, |o| o as u32)];
                }
            }
            let after = dst.config.stack().len();
            dst.score = c.score;
            dst.correct = c.correct;
            dst.node = node(src.node, c);
            let (parent, depth) = match src_change {
                NO_CHANGE => (NO_CHANGE, 0),
                p => (p, self.history[p as usize].depth + 1),
            };
            let low = before.min(after).saturating_sub(3) as u32;
            dst.change = self.history.len() as u32;
            self.history.push(Change { parent, depth, low, words });
            self.next.push(dst);
        }
        // The buffers not reused stay as spares, copied whole when used.
        for mut h in self.pool.drain(..).flatten() {
            h.change = NO_CHANGE;
            self.next.push(h);
        }
    }

    /// Makes `dst` (a buffer of history node `dst.change`) a copy of `src`
    /// (of node `src_change`): only the words touched on the paths between
    /// the two nodes and their common ancestor, and the stack above the
    /// lowest position those steps reached; whole if there is no common
    /// ancestor or the paths touched more than half the words.
    fn copy_from(&mut self, dst: &mut Hyp, src: &Hyp, src_change: u32) {
        let positions = src.arcs.positions();
        let mut low = dst.config.stack().len().min(src.config.stack().len());
        let mut whole =
            self.copy_whole || dst.change == NO_CHANGE || src_change == NO_CHANGE || dst.arcs.positions() != positions;
        self.touched.clear();
        let (mut x, mut y) = (dst.change, src_change);
        while !whole && x != y {
            if x == NO_CHANGE || y == NO_CHANGE || self.touched.len() > positions / 2 {
                whole = true;
                break;
            }
            let (cx, cy) = (self.history[x as usize], self.history[y as usize]);
            if cx.depth >= cy.depth {
                self.touched.extend(cx.words.iter().filter(|&&w| w != NO_CHANGE));
                low = low.min(cx.low as usize);
                x = cx.parent;
            }
            if cy.depth >= cx.depth {
                self.touched.extend(cy.words.iter().filter(|&&w| w != NO_CHANGE));
                low = low.min(cy.low as usize);
                y = cy.parent;
            }
        }
        // Two starts of different histories (after `advance_from`) are not a common ancestor.
        whole |= x == NO_CHANGE;
        if whole {
            dst.config.assign(&src.config);
            dst.arcs.assign(&src.arcs);
            self.copied += (positions + src.config.stack().len()) as u64;
        } else {
            dst.config.assign_where(&src.config, &self.touched, low);
            for &w in &self.touched {
                dst.arcs.copy_word(&src.arcs, w as usize);
            }
            self.copied += (self.touched.len() + src.config.stack().len() - low) as u64;
        }
    }
}

/// What a constrained search keeps: the arcs of a (partial) tree laid out
/// for the model's root position and their labels, or direction constraints.
#[derive(Clone, Copy)]
enum Target<'a> {
    Tree(&'a DepTree, &'a [Option<u32>]),
    Directions(&'a Directions),
}

/// Arcs a parse must keep where it can (`tabula parse --constraints`): a
/// partial tree over the sentence's words (a word without a head is free)
/// and, for the words with a head, the label if it is fixed too.
#[derive(Clone, Debug)]
pub struct Constraints {
    /// The constrained heads ([`DepTree::from_partial_heads`]).
    pub tree: DepTree,
    /// The label of each word 1 … n, `None` where it is free.
    pub labels: Vec<Option<u32>>,
}

/// The beam-search parser: one per thread, reused for every sentence (no
/// allocation once warm but the history arena). O(n × K × (features ×
/// (steps + arc steps × labels) + labels × log K)) per sentence, and the
/// copies between hypotheses (amortised O(1) per hypothesis and step when
/// the beam shares a recent ancestor: see the module documentation).
pub struct BeamParser<'m> {
    model: &'m Model,
    width: usize,
    /// At most this many labels per arc step ([`Model::beam_labels`]).
    labels_per_step: Option<usize>,
    /// The tokens laid out for the model's root position ([`laid_out`]).
    laid: Tokens,
    extractor: Extractor,
    scores: LabelledScores,
    beams: Beams,
    selection: Selection,
    /// The heads found by the last [`BeamParser::parse`], for words 1 … n.
    pub heads: Vec<usize>,
    /// The label indices found by the last [`BeamParser::parse`], for words 1 … n.
    pub labels: Vec<u32>,
    /// The oracle of constrained parsing, made on first use.
    oracle: Option<Box<Oracle<'static>>>,
}

impl<'m> BeamParser<'m> {
    /// A parser applying `model` with a beam of `width` (at least 1).
    pub fn new(model: &'m Model, width: usize) -> Self {
        BeamParser {
            model,
            width: width.max(1),
            labels_per_step: model.beam_labels.map(|m| m as usize),
            laid: Tokens::default(),
            extractor: Extractor { columns: model.columns, ..Extractor::default() },
            scores: LabelledScores::new(model.system, model.labels.len()),
            beams: Beams::new(model.system),
            selection: Selection::default(),
            heads: Vec::new(),
            labels: Vec::new(),
            oracle: None,
        }
    }

    /// Copies every successor whole (O(n) per step): the reference that
    /// `tests/beam.rs` compares the incremental copies with.
    #[doc(hidden)]
    pub fn set_copy_whole(&mut self, whole: bool) {
        self.beams.set_copy_whole(whole);
    }

    /// Words and stack entries copied from hypothesis to hypothesis so far
    /// (see the module documentation): what the tests read to check that
    /// the cost of a step does not grow with the sentence.
    pub fn copied(&self) -> u64 {
        self.beams.copied
    }

    /// Parses a sentence as [`BeamParser::parse`] does, among the
    /// computations that keep as many arcs of `constraints` as any
    /// computation of the model's system can: every step taken is optimal
    /// for the constraints as a gold tree (the exact oracle, [`Oracle::scores`]:
    /// a partial tree needs arc-standard, arc-hybrid or arc-eager), and an
    /// arc the constraints fix gets their label where they give one. With
    /// a beam of 1, the greedy parser restricted so. One oracle call per
    /// hypothesis and step (cubic for a partial or non-projective tree).
    pub fn parse_constrained(&mut self, tokens: &Tokens, constraints: &Constraints) -> Result<f64, OracleError> {
        let root = self.model.root;
        let mut labels = constraints.labels.clone();
        if root == Root::Last {
            labels.push(None);
        }
        let gold = root.extend_tree(&constraints.tree);
        let mut oracle = self.oracle.take().unwrap_or_else(|| Box::new(Oracle::new()));
        let result = self.search(tokens, Some((&mut oracle, Target::Tree(&gold, &labels))));
        self.oracle = Some(oracle);
        result
    }

    /// Parses a sentence as [`BeamParser::parse`] does, among the
    /// computations that satisfy as many of the direction constraints
    /// `directions` (the head of word d before it, after it, or the root;
    /// `directions[d - 1]`, `None`: free) as any computation of the model's
    /// system can: every step taken is optimal for them, by the exact
    /// oracle with an arc weight of 1 for every arc in a constrained
    /// direction ([`Oracle::scores_for`], [`crate::oracle::direction`]).
    /// Arc-standard, arc-hybrid and arc-eager, with the root first
    /// ([`OracleError::TargetRootLast`] otherwise). One oracle call (cubic)
    /// per hypothesis and step.
    pub fn parse_directed(&mut self, tokens: &Tokens, directions: &[Option<Direction>]) -> Result<f64, OracleError> {
        if self.model.root == Root::Last {
            return Err(OracleError::TargetRootLast);
        }
        let target = Directions::root_first(directions);
        let mut oracle = self.oracle.take().unwrap_or_else(|| Box::new(Oracle::new()));
        let result = self.search(tokens, Some((&mut oracle, Target::Directions(&target))));
        self.oracle = Some(oracle);
        result
    }

    /// Parses a sentence: beam search from the initial configuration until
    /// every hypothesis is final, then the best; words left without a head
    /// (arc-eager) go to the root with [`Model::root_label`]. Fills
    /// [`BeamParser::heads`] and [`BeamParser::labels`]. Returns the best
    /// hypothesis's score. A beam whose memory ([`beam_memory`]) would
    /// exceed the limit is refused before anything is allocated.
    pub fn parse(&mut self, tokens: &Tokens) -> Result<f64, crate::memory::TooMuchMemory> {
        beam_memory(self.width, tokens.len())?;
        Ok(self.search(tokens, None).expect("no oracle, and the memory was checked"))
    }

    /// The search of [`BeamParser::parse`], restricted by `constrained`
    /// (the oracle, the constraints laid out for the model's root
    /// position, and their labels) as [`BeamParser::parse_constrained`] says.
    fn search(
        &mut self,
        tokens: &Tokens,
        mut constrained: Option<(&mut Oracle<'static>, Target<'_>)>,
    ) -> Result<f64, OracleError> {
        let model = self.model;
        let system = model.system;
        let tokens = laid_out(tokens, model.root, &mut self.laid);
        let n = tokens.len();
        beam_memory(self.width, n)?;
        let steps = classes(system);
        self.beams.start_initial(system, n, model.root);
        while !self.beams.all_final() {
            self.selection.start(self.width);
            for (p, h) in self.beams.hyps().iter().enumerate() {
                let config = &h.config;
                if config.is_final() {
                    self.selection.offer(Candidate::stay(p as u32, h));
                    continue;
                }
                self.extractor.extract(config, &h.arcs, tokens);
                // Constrained: the optimal steps for the constraints, and their labels.
                let optimal = match constrained.as_mut() {
                    Some((oracle, Target::Tree(gold, _))) => {
                        Some(oracle.scores(config, gold, Strategy::None, Algorithm::Auto)?)
                    }
                    Some((oracle, Target::Directions(d))) => Some(oracle.scores_for(config, *d)?),
                    None => None,
                };
                let best = optimal.as_ref().and_then(|o| o.best());
                let legal = |i: usize| {
                    config.is_applicable(steps[i]) && optimal.as_ref().is_none_or(|o| o.get(steps[i]) == best)
                };
                let fixed = match constrained.as_ref() {
                    Some((_, Target::Tree(gold, labels))) => Some((*gold, *labels)),
                    _ => None,
                };
                let label_kept = |i: usize, l: Option<u32>| match (fixed, config.arc(steps[i])) {
                    (Some((gold, labels)), Some((h, d))) if gold.head(d) == h => {
                        labels[d - 1].is_none_or(|f| l == Some(f))
                    }
                    _ => true,
                };
                self.scores.fill(model.steps(), model.compact_arcs(), &self.extractor.features, legal);
                offer_successors(
                    &mut self.selection,
                    p as u32,
                    h.score,
                    &self.scores,
                    steps,
                    legal,
                    label_kept,
                    constrained.is_some(),
                    self.labels_per_step,
                );
            }
            self.selection.finish();
            if self.selection.chosen.is_empty() {
                // Never: every non-final configuration has an applicable step with a class.
                break;
            }
            self.beams.advance(&self.selection.chosen, |_, _| 0);
        }
        let best = &self.beams.hyps()[0];
        read_tree(model, &best.config, &best.arcs, &mut self.heads, &mut self.labels);
        Ok(best.score)
    }
}
