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
//! Hypotheses own flat copies of their configuration and labels, copied
//! from the parent into buffers that are reused from step to step (no
//! allocation once warm; O(n) bytes copied per kept successor, only for
//! the K successors kept, never for the candidates). Goldberg, Zhao &
//! Huang (2013) share the stack and the history between hypotheses
//! instead; at the sentence lengths of treebanks the copies are a small
//! part of the cost next to the feature scoring (`docs/training.md`).

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
}

impl Hyp {
    fn empty(system: System) -> Hyp {
        Hyp { config: Configuration::initial(system, 0), arcs: ArcState::default(), score: 0.0, node: 0, correct: true }
    }
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

/// Two generations of hypotheses, reused from step to step.
#[derive(Debug)]
pub struct Beams {
    system: System,
    /// The current beam (the first `len`).
    pub cur: Vec<Hyp>,
    pub len: usize,
    next: Vec<Hyp>,
}

impl Beams {
    /// Empty beams of `system`.
    pub fn new(system: System) -> Beams {
        Beams { system, cur: Vec::new(), len: 0, next: Vec::new() }
    }

    /// The current hypotheses.
    pub fn hyps(&self) -> &[Hyp] {
        &self.cur[..self.len]
    }

    /// Starts from one hypothesis: `config` with `arcs`, score 0, correct.
    pub fn start(&mut self, config: &Configuration, arcs: &ArcState, node: u32) {
        if self.cur.is_empty() {
            self.cur.push(Hyp::empty(self.system));
        }
        let h = &mut self.cur[0];
        h.config.assign(config);
        h.arcs.assign(arcs);
        h.score = 0.0;
        h.node = node;
        h.correct = true;
        self.len = 1;
    }

    /// Starts from the initial configuration of `system` for `n` positions
    /// with the root at `root` (score 0, correct, node 0), reusing the buffers.
    pub fn start_initial(&mut self, system: System, n: usize, root: Root) {
        if self.cur.is_empty() {
            self.cur.push(Hyp::empty(self.system));
        }
        let h = &mut self.cur[0];
        h.config.reset_at(system, n, root);
        h.arcs.reset(n);
        h.score = 0.0;
        h.node = 0;
        h.correct = true;
        self.len = 1;
    }

    /// Whether every hypothesis is final.
    pub fn all_final(&self) -> bool {
        self.hyps().iter().all(|h| h.config.is_final())
    }

    /// Makes the next beam of the `chosen` successors of the current one
    /// (best first), `node(parent's node, candidate)` giving each its
    /// history node, and makes it current. O(K n).
    pub fn advance(&mut self, chosen: &[Candidate], node: impl FnMut(u32, &Candidate) -> u32) {
        fill(self.system, &mut self.next, &self.cur[..self.len], chosen, node);
        std::mem::swap(&mut self.cur, &mut self.next);
        self.len = chosen.len();
    }

    /// As [`Beams::advance`], with the parents in the current beam of `parents`.
    pub fn advance_from(&mut self, parents: &Beams, chosen: &[Candidate], node: impl FnMut(u32, &Candidate) -> u32) {
        fill(self.system, &mut self.next, parents.hyps(), chosen, node);
        std::mem::swap(&mut self.cur, &mut self.next);
        self.len = chosen.len();
    }
}

/// Writes the successors `chosen` of `parents` into `next`.
fn fill(
    system: System,
    next: &mut Vec<Hyp>,
    parents: &[Hyp],
    chosen: &[Candidate],
    mut node: impl FnMut(u32, &Candidate) -> u32,
) {
    while next.len() < chosen.len() {
        next.push(Hyp::empty(system));
    }
    for (c, dst) in chosen.iter().zip(next.iter_mut()) {
        let src = &parents[c.parent as usize];
        dst.config.assign(&src.config);
        dst.arcs.assign(&src.arcs);
        if let Some(step) = c.step {
            // The step was applicable when offered.
            if let Ok(Some((h, d))) = dst.config.apply(step) {
                dst.arcs.add(h, d, c.label.unwrap_or(0));
            }
        }
        dst.score = c.score;
        dst.correct = c.correct;
        dst.node = node(src.node, c);
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
/// allocation once warm). O(n × K × (features × (steps + arc steps ×
/// labels) + labels × log K + n)) per sentence.
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
    /// hypothesis's score.
    pub fn parse(&mut self, tokens: &Tokens) -> f64 {
        self.search(tokens, None).expect("no oracle, no error")
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
