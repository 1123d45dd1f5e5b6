//! Global training with a beam and the exact global dynamic oracle
//! (Aufrant, Wisniewski & Yvon 2017; PanParser, Aufrant & Wisniewski 2018,
//! Algorithms 1–3).
//!
//! # Correct hypotheses
//!
//! A hypothesis is *correct* when it can still reach as many gold arcs as
//! the configuration c₀ the search started from (its cost relative to c₀
//! is 0). A correct hypothesis's successor by a labelled step is correct
//! exactly when the step is optimal (the oracle's best score among the
//! steps the model has a class for, [`target`]) and, if it builds a gold
//! arc, carries the gold label; a hypothesis that has lost an arc never
//! becomes correct again, so the oracle is asked only at correct
//! hypotheses (at most K per search step). The oracle is the system's
//! exact one ([`Oracle::scores`]: the closed forms or the linear
//! algorithm for projective gold trees, the grammar oracles for any tree,
//! Goldberg's table for LR-spine, the tabular oracle for Attardi), so the
//! correct set is exact: `tests/beam.rs` checks every hypothesis of every
//! beam against the brute force. With the static oracle, the correct
//! hypotheses are the prefixes of the canonical computation.
//!
//! # One training unit (Algorithm 3)
//!
//! The beam is expanded from c₀ until every hypothesis is final. When it
//! first holds no correct hypothesis:
//!
//! * **early update**: the best correct successor (c⁺) against the best
//!   hypothesis (c⁻);
//! * **max-violation** and **full update**: decoding goes on, with a second
//!   beam of the K best correct successors of the correct hypotheses; at
//!   every later step the pair (best correct, best) is a candidate, and
//!   max-violation takes the pair with the largest score difference, full
//!   update the last pair.
//!
//! If the beam never loses every correct hypothesis, the pair is the best
//! correct final hypothesis against the best final one (no update when
//! they are the same). The update adds the features of c⁺'s steps from c₀
//! and subtracts c⁻'s (the shared prefix cancels and is skipped), to the
//! step table (steps with a class) and to the label table (arc steps);
//! at the first step where the two differ the step table is updated only
//! if the steps differ, as in local training.
//!
//! Without restart the sentence is done after one update; with restart
//! (Aufrant et al. 2017) the search starts again from c⁺, until a search
//! ends without an error. With K = 1, early update with restart *is* the
//! greedy local training of [`super::train`] (with its exploration: after
//! an update the search restarts from c⁻ with probability `explore_p` in
//! exploring epochs, the draw made at every configuration), and gives the
//! same models bit for bit (`tests/beam.rs`).
//!
//! LR-spine, static oracle: a canonical step deeper than the model's spine
//! classes is offered to the correct hypothesis only, scored by its label
//! alone; its update touches the label table only. (Greedy training
//! follows such a step without any step update, so there K = 1 global
//! training differs from greedy training; it never happens on sentences
//! whose spines are shorter than [`MODEL_SPINE_DEPTH`](super::model::MODEL_SPINE_DEPTH).)
//!
//! Cost per search step: K × (features × (steps + arc steps × labels)) for
//! the model, the oracle at the correct hypotheses, O(K n) to copy the
//! kept successors, and O(n) per update to replay the two derivations.

use super::beam::{offer_successors, Beams, Candidate, Selection};
use super::features::ArcState;
use super::learner::{arc_standard_static, count_children, Item, Learner, OracleKind, TrainOptions};
pub use super::learner::{Search, Update};
use super::model::{arc_class, classes, step_class};
use super::ParserError;
use crate::oracle::session::OracleSession;
use crate::oracle::{Configuration, Oracle, OracleError, Step, StepScores, Strategy, System};
use rand::Rng;

/// The best oracle score among the steps with a class in the model: the
/// score a correct successor keeps (`None` if no step with a class can
/// complete the computation). O(classes).
pub fn target(system: System, scores: &StepScores) -> Option<u32> {
    classes(system).iter().filter_map(|&s| scores.get(s)).max()
}

/// The steps with a class by which a correct hypothesis with oracle scores
/// `scores` has correct successors (each with the gold label if it builds
/// a gold arc, any label otherwise). O(classes).
pub fn correct_steps(system: System, scores: &StepScores) -> impl Iterator<Item = Step> + '_ {
    let best = target(system, scores);
    classes(system).iter().copied().filter(move |&s| best.is_some() && scores.get(s) == best)
}

/// A step of a derivation: its parent node, the labelled step, its class
/// and label block, its depth from the initial configuration.
#[derive(Clone, Copy, Debug)]
struct Node {
    parent: u32,
    step: Option<Step>,
    class: Option<u32>,
    block: Option<u32>,
    label: Option<u32>,
    depth: u32,
}

const ROOT: u32 = u32::MAX;

/// A check called with every hypothesis global training makes
/// ([`super::train::Trainer::observe`]).
pub type Observer = Box<dyn FnMut(&Observed<'_>) + Send>;

/// A hypothesis made by global training, for checks.
pub struct Observed<'a> {
    /// The gold tree and the gold labels of words 1 … n.
    pub gold: &'a crate::tree::DepTree,
    pub labels: &'a [u32],
    /// c₀, the configuration the search started from, with its labels.
    pub start: (&'a Configuration, &'a ArcState),
    /// The hypothesis, with its labels.
    pub hyp: (&'a Configuration, &'a ArcState),
    /// The hypothesis's steps from c₀, and c₀'s number of steps from the
    /// initial configuration.
    pub steps: &'a [Step],
    pub start_depth: usize,
    pub correct: bool,
}

/// Calls the observer (if any) for `hyps`.
fn observe(
    observer: &mut Option<Observer>,
    history: &[Node],
    item: &Item,
    start: (&Configuration, &ArcState),
    hyps: &[super::beam::Hyp],
) {
    let Some(f) = observer.as_mut() else {
        return;
    };
    let mut nodes = Vec::new();
    for h in hyps {
        path(history, h.node, &mut nodes);
        let steps: Vec<Step> = nodes.iter().filter_map(|&i| history[i as usize].step).collect();
        let mut root = h.node;
        while history[root as usize].parent != ROOT {
            root = history[root as usize].parent;
        }
        f(&Observed {
            gold: &item.tree,
            labels: &item.labels,
            start,
            hyp: (&h.config, &h.arcs),
            steps: &steps,
            start_depth: history[root as usize].depth as usize,
            correct: h.correct,
        });
    }
}

/// The reusable state of global training (no allocation once warm).
pub(super) struct Global {
    beams: Beams,
    gold: Beams,
    selection: Selection,
    correct: Selection,
    history: Vec<Node>,
    /// c₀ and its labels.
    start: Configuration,
    start_arcs: ArcState,
    replay: Configuration,
    replay_arcs: ArcState,
    fork: Configuration,
    fork_arcs: ArcState,
    /// Static oracle: the canonical computation, labelled.
    canonical: Vec<(Step, Option<u32>)>,
    pos: Vec<u32>,
    neg: Vec<u32>,
    missing: Vec<u32>,
    /// Called with (c₀, hypothesis, correct) for every hypothesis made (checks).
    pub observer: Option<Observer>,
}

impl Global {
    pub(super) fn new(system: System) -> Global {
        Global {
            beams: Beams::new(system),
            gold: Beams::new(system),
            selection: Selection::default(),
            correct: Selection::default(),
            history: Vec::new(),
            start: Configuration::initial(system, 0),
            start_arcs: ArcState::default(),
            replay: Configuration::initial(system, 0),
            replay_arcs: ArcState::default(),
            fork: Configuration::initial(system, 0),
            fork_arcs: ArcState::default(),
            canonical: Vec::new(),
            pos: Vec::new(),
            neg: Vec::new(),
            missing: Vec::new(),
            observer: None,
        }
    }
}

/// What the expansion of one beam found.
enum Expanded {
    Done,
    /// The oracle refused a configuration for its size: the sentence is abandoned.
    Abandon,
}

impl Learner {
    /// Trains on one sentence with a beam (module documentation).
    pub(super) fn learn_global(
        &mut self,
        g: &mut Global,
        oracle: &mut Oracle<'static>,
        item: &Item,
        options: &TrainOptions,
        explore: bool,
    ) -> Result<(), ParserError> {
        let Search::Beam { width, update, restart, .. } = options.search else {
            unreachable!("global training has a beam");
        };
        let width = width.max(1);
        let n = item.tree.len();
        let line = item.first_line;
        if options.oracle == OracleKind::Static && !self.canonical(g, oracle, item, options)? {
            self.stats.abandoned += 1;
            return Ok(());
        }
        g.start.reset_at(self.system, n, self.root);
        g.start_arcs.reset(n);
        g.history.clear();
        let mut start_depth = 0u32;
        loop {
            g.history.push(Node {
                parent: ROOT,
                step: None,
                class: None,
                block: None,
                label: None,
                depth: start_depth,
            });
            let root = (g.history.len() - 1) as u32;
            g.beams.start(&g.start, &g.start_arcs, root);
            observe(&mut g.observer, &g.history, item, (&g.start, &g.start_arcs), g.beams.hyps());
            let mut fell = false;
            // (violation, c⁺ node, c⁻ node)
            let mut pair: Option<(f64, u32, u32)> = None;
            let mut explore_now = false;
            while !g.beams.all_final() {
                self.steps.tick();
                self.arcs.tick();
                if explore && width == 1 {
                    explore_now = self.rng.gen_bool(options.explore_p);
                }
                g.selection.start(width);
                g.correct.start(width);
                if let Expanded::Abandon = self.expand(g, oracle, item, options, false)? {
                    self.stats.abandoned += 1;
                    return Ok(());
                }
                if fell {
                    // The gold beam: the K best correct successors of its correct hypotheses.
                    g.correct.start(width);
                    if let Expanded::Abandon = self.expand(g, oracle, item, options, true)? {
                        self.stats.abandoned += 1;
                        return Ok(());
                    }
                }
                g.selection.finish();
                g.correct.finish();
                if g.selection.chosen.is_empty() {
                    return Err(ParserError::NoOptimalStep { line });
                }
                let lost = !g.selection.chosen.iter().any(|c| c.correct);
                let falls_now = !fell && lost;
                if falls_now || fell {
                    if g.correct.chosen.is_empty() {
                        return Err(ParserError::NoOptimalStep { line });
                    }
                    // Gold successors come from the main beam at the fall, from the gold beam after.
                    let from_gold = fell;
                    advance_gold(g, item, self.system, from_gold);
                }
                advance_main(g, item, self.system);
                if falls_now || fell {
                    fell = true;
                    let (p, q) = (&g.gold.hyps()[0], &g.beams.hyps()[0]);
                    let violation = q.score - p.score;
                    let take = match update {
                        Update::Early | Update::Full => true,
                        Update::MaxViolation => pair.is_none_or(|(v, _, _)| violation > v),
                    };
                    if take {
                        pair = Some((violation, p.node, q.node));
                    }
                    if update == Update::Early {
                        break;
                    }
                }
            }
            let (pos, neg) = match pair {
                Some((_, p, q)) => (p, q),
                None => {
                    // No fall: the best correct final hypothesis against the best.
                    let hyps = g.beams.hyps();
                    let best = hyps[0].node;
                    match hyps.iter().find(|h| h.correct) {
                        Some(h) => (h.node, best),
                        None => return Err(ParserError::NoOptimalStep { line }),
                    }
                }
            };
            if pos == neg {
                return Ok(());
            }
            self.stats.updates += 1;
            self.global_update(g, item, pos, neg);
            if !restart {
                return Ok(());
            }
            // Restart from c⁺ (the replay's end state), or from c⁻ when exploring.
            if explore_now {
                self.stats.explored += 1;
                replay_to(g, item, neg);
            }
            std::mem::swap(&mut g.start, &mut g.replay);
            std::mem::swap(&mut g.start_arcs, &mut g.replay_arcs);
            start_depth = g.history[(if explore_now { neg } else { pos }) as usize].depth;
            if g.start.is_final() {
                return Ok(());
            }
        }
    }

    /// Offers the successors of the main beam (`gold_beam` false: all
    /// successors to `g.selection`, the correct ones to `g.correct` too) or
    /// of the gold beam (only correct successors, to `g.correct`).
    fn expand(
        &mut self,
        g: &mut Global,
        oracle: &mut Oracle<'static>,
        item: &Item,
        options: &TrainOptions,
        gold_beam: bool,
    ) -> Result<Expanded, ParserError> {
        let system = self.system;
        let steps = classes(system);
        let line = item.first_line;
        let labels = match options.search {
            Search::Beam { labels, .. } => labels,
            Search::Greedy => None,
        };
        let Global { beams, gold, selection, correct: good, history, canonical: path_steps, .. } = g;
        let beam = if gold_beam { &*gold } else { &*beams };
        for (p, h) in beam.hyps().iter().enumerate() {
            let config = &h.config;
            if config.is_final() {
                let stay = Candidate::stay(p as u32, h);
                if !gold_beam {
                    selection.offer(stay);
                }
                if h.correct {
                    good.offer(stay);
                }
                continue;
            }
            if gold_beam && !h.correct {
                continue;
            }
            self.stats.configurations += 1;
            self.extractor.extract(config, &h.arcs, &item.tokens);
            // The oracle at correct hypotheses (dynamic).
            let scores = match (h.correct, options.oracle) {
                (true, OracleKind::Dynamic) => {
                    match oracle.scores(config, &item.tree, options.strategy, options.algorithm) {
                        Err(
                            OracleError::TooLarge { .. }
                            | OracleError::TooMuchWork { .. }
                            | OracleError::SpineTooLong { .. },
                        ) => return Ok(Expanded::Abandon),
                        Err(source) => return Err(ParserError::Training { line, source }),
                        Ok(s) => Some(s),
                    }
                }
                _ => None,
            };
            let best = scores.as_ref().and_then(|s| target(system, s));
            if let (Some(s), Some(b)) = (&scores, best) {
                if s.best() != Some(b) {
                    self.stats.beyond_depth += 1;
                }
            }
            let legal = |i: usize| match &scores {
                Some(s) => s.get(steps[i]).is_some(),
                None => config.is_applicable(steps[i]),
            };
            // Static: the canonical labelled step at this depth.
            let depth = history[h.node as usize].depth as usize;
            let canonical =
                if h.correct && options.oracle == OracleKind::Static { path_steps.get(depth).copied() } else { None };
            // The class whose label block a canonical step without a class
            // shares (LR-spine): its labels are scored too.
            let shared = canonical
                .filter(|&(cs, _)| step_class(system, cs).is_none())
                .and_then(|(cs, _)| arc_class(system, cs))
                .and_then(|b| steps.iter().position(|&s| arc_class(system, s) == Some(b)));
            let needed = |i: usize| legal(i) || shared == Some(i);
            self.scores.fill(self.steps.current(), self.arcs.current(), &self.extractor.features, needed);
            let gold_label = |s: Step| config.arc(s).and_then(|(hd, d)| item.gold_label(hd, d));
            let correct = |i: usize, l: Option<u32>| {
                if !h.correct {
                    return false;
                }
                let s = steps[i];
                match (&scores, canonical) {
                    (Some(sc), _) => {
                        best.is_some() && sc.get(s) == best && gold_label(s).is_none_or(|gl| l == Some(gl))
                    }
                    // A canonical step that builds no gold arc (arc-eager-nm's labelled `reduce`
                    // popping a word with a head, or an arc that a later step replaces) takes any label.
                    (None, Some((cs, cl))) => s == cs && (l == cl || cl.is_none()),
                    (None, None) => false,
                }
            };
            if gold_beam {
                offer_successors(good, p as u32, h.score, &self.scores, steps, legal, correct, true, None);
            } else {
                offer_successors(selection, p as u32, h.score, &self.scores, steps, legal, correct, false, labels);
                if h.correct {
                    offer_successors(good, p as u32, h.score, &self.scores, steps, legal, correct, true, None);
                }
            }
            // LR-spine, static: a canonical step without a class.
            if let Some((cs, cl)) = canonical {
                if step_class(system, cs).is_none() {
                    self.stats.beyond_depth += 1;
                    let w = shared.and_then(|i| cl.and_then(|l| self.scores.label_weight(i, l))).unwrap_or(0.0);
                    let local = 0.0 + w;
                    let c = Candidate {
                        parent: p as u32,
                        step: Some(cs),
                        class: None,
                        label: cl,
                        score: h.score + f64::from(local),
                        local,
                        label_weight: w,
                        correct: true,
                    };
                    if !gold_beam {
                        selection.offer(c);
                    }
                    good.offer(c);
                }
            }
        }
        Ok(Expanded::Done)
    }

    /// The perceptron update of c⁺ (node `pos`) against c⁻ (node `neg`),
    /// both reached from c₀ (module documentation). Leaves c⁺'s
    /// configuration in `g.replay`. O(length of the derivations × features).
    fn global_update(&mut self, g: &mut Global, item: &Item, pos: u32, neg: u32) {
        path(&g.history, pos, &mut g.pos);
        path(&g.history, neg, &mut g.neg);
        let common = g.pos.iter().zip(&g.neg).take_while(|(a, b)| a == b).count();
        g.replay.assign(&g.start);
        g.replay_arcs.assign(&g.start_arcs);
        for &i in &g.pos[..common] {
            apply(&mut g.replay, &mut g.replay_arcs, &g.history[i as usize]);
        }
        g.fork.assign(&g.replay);
        g.fork_arcs.assign(&g.replay_arcs);
        let labels = self.labels.max(1);
        // The first differing step of each side, from the same configuration.
        let first =
            (g.pos.get(common).map(|&i| g.history[i as usize]), g.neg.get(common).map(|&i| g.history[i as usize]));
        let both = first.0.is_some() && first.1.is_some();
        if let (Some(p), Some(q)) = first {
            self.extractor.extract(&g.replay, &g.replay_arcs, &item.tokens);
            let f = &self.extractor.features;
            if p.class != q.class {
                if let Some(c) = p.class {
                    self.steps.update(f, c as usize, 1.0);
                }
                if let Some(c) = q.class {
                    self.steps.update(f, c as usize, -1.0);
                }
            }
            if let (Some(b), Some(l)) = (p.block, p.label) {
                self.arcs.update(f, b as usize * labels + l as usize, 1.0);
            }
            if let (Some(b), Some(l)) = (q.block, q.label) {
                self.arcs.update(f, b as usize * labels + l as usize, -1.0);
            }
        }
        // The rest of each side (one side may have stopped: a final hypothesis stays).
        for (side, delta) in [(true, -1.0f32), (false, 1.0)] {
            // Negative side first from the fork, then the positive, which leaves c⁺ in `replay`.
            let nodes = if side { &g.neg } else { &g.pos };
            g.replay.assign(&g.fork);
            g.replay_arcs.assign(&g.fork_arcs);
            for (k, &i) in nodes.iter().enumerate().skip(common) {
                let node = g.history[i as usize];
                if k > common || !both {
                    self.extractor.extract(&g.replay, &g.replay_arcs, &item.tokens);
                    let f = &self.extractor.features;
                    if let Some(c) = node.class {
                        self.steps.update(f, c as usize, delta);
                    }
                    if let (Some(b), Some(l)) = (node.block, node.label) {
                        self.arcs.update(f, b as usize * labels + l as usize, delta);
                    }
                }
                apply(&mut g.replay, &mut g.replay_arcs, &node);
            }
        }
    }

    /// Fills `g.canonical` with the canonical computation of the gold tree
    /// (static oracle), labelled. `false` if the oracle refuses a
    /// configuration for its size.
    fn canonical(
        &mut self,
        g: &mut Global,
        oracle: &mut Oracle<'static>,
        item: &Item,
        options: &TrainOptions,
    ) -> Result<bool, ParserError> {
        let line = item.first_line;
        let fail = |e: OracleError| ParserError::Training { line, source: e };
        let n = item.tree.len();
        g.canonical.clear();
        let label = |config: &Configuration, s: Step| config.arc(s).and_then(|(h, d)| item.gold_label(h, d));
        if self.system == System::ArcStandard {
            count_children(&item.tree, &mut g.missing);
            let mut config = Configuration::initial_at(self.system, n, self.root);
            while !config.is_final() {
                let s = arc_standard_static(&config, &item.tree, &g.missing);
                g.canonical.push((s, label(&config, s)));
                if let Some((h, d)) = config.apply(s).map_err(fail)? {
                    if item.tree.head(d) == h {
                        g.missing[h] -= 1;
                    }
                }
            }
            return Ok(true);
        }
        let (strategy, algorithm) = if Oracle::has_canonical_tie_break(self.system) {
            (Strategy::None, crate::oracle::Algorithm::Auto)
        } else {
            (options.strategy, crate::oracle::Algorithm::Linear)
        };
        let mut session =
            OracleSession::at(oracle, item.tree.clone(), self.initial(n), strategy, algorithm).map_err(fail)?;
        while !session.configuration().is_final() {
            let s = match session.static_step() {
                Err(
                    OracleError::TooLarge { .. } | OracleError::TooMuchWork { .. } | OracleError::SpineTooLong { .. },
                ) => return Ok(false),
                other => other.map_err(fail)?,
            };
            g.canonical.push((s, label(session.configuration(), s)));
            session.apply(s).map_err(fail)?;
        }
        Ok(true)
    }
}

/// Makes the main beam's next generation from `g.selection`.
fn advance_main(g: &mut Global, item: &Item, system: System) {
    let Global { beams, selection, history, observer, start, start_arcs, .. } = g;
    beams.advance(&selection.chosen, |parent, c| node_for(history, system, parent, c));
    observe(observer, history, item, (start, start_arcs), beams.hyps());
}

/// Makes the gold beam's next generation from `g.correct`, whose parents
/// are in the gold beam (`from_gold`) or in the main beam (at the fall).
fn advance_gold(g: &mut Global, item: &Item, system: System, from_gold: bool) {
    let Global { beams, gold, correct, history, observer, start, start_arcs, .. } = g;
    let node = |parent: u32, c: &Candidate| node_for(history, system, parent, c);
    if from_gold {
        gold.advance(&correct.chosen, node);
    } else {
        gold.advance_from(beams, &correct.chosen, node);
    }
    observe(observer, history, item, (start, start_arcs), gold.hyps());
}

/// The history node of candidate `c` whose parent has node `parent`: a new
/// node for a step, the parent's for a staying final hypothesis.
fn node_for(history: &mut Vec<Node>, system: System, parent: u32, c: &Candidate) -> u32 {
    let Some(step) = c.step else {
        return parent;
    };
    let depth = history[parent as usize].depth + 1;
    let block = c.label.and_then(|_| arc_class(system, step)).map(|b| b as u32);
    history.push(Node { parent, step: Some(step), class: c.class, block, label: c.label, depth });
    (history.len() - 1) as u32
}

/// The nodes from c₀ (excluded) to `node`, in order.
fn path(history: &[Node], mut node: u32, out: &mut Vec<u32>) {
    out.clear();
    while history[node as usize].parent != ROOT {
        out.push(node);
        node = history[node as usize].parent;
    }
    out.reverse();
}

/// Applies a node's step to a configuration and its labels.
fn apply(config: &mut Configuration, arcs: &mut ArcState, node: &Node) {
    if let Some(step) = node.step {
        if let Ok(Some((h, d))) = config.apply(step) {
            arcs.add(h, d, node.label.unwrap_or(0));
        }
    }
}

/// Replays the derivation of `node` from c₀ into `g.replay`.
fn replay_to(g: &mut Global, _item: &Item, node: u32) {
    path(&g.history, node, &mut g.neg);
    g.replay.assign(&g.start);
    g.replay_arcs.assign(&g.start_arcs);
    for &i in &g.neg {
        apply(&mut g.replay, &mut g.replay_arcs, &g.history[i as usize]);
    }
}
