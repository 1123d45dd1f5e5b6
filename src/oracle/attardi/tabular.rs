//! The tabular dynamic oracle of Attardi's parser (Gómez-Rodríguez, Sartorio
//! and Satta 2014 = seed 002, Sec. 4–5, Algorithm 1), corrected.
//!
//! # The algorithm
//!
//! The best score of a configuration c = (σ, β) (the most gold arcs that
//! complete computations from c build) is found in two stages.
//!
//! 1. **Buffer reduction** (Sec. 5.2). A complete gold subtree t rooted at
//!    k ∈ β whose words in β, B = t ∩ β, can be built on their own and
//!    without loss is replaced by k: the reduced buffer βR. Its |B| − 1 gold
//!    arcs are added to the score. The conditions (the printed ones are
//!    unsound, see *Corrections*): B is an interval of positions (zero
//!    gap-degree); every word of B but k has its gold head in B (*closed*);
//!    no word of B but k has a gold child on the stack (bottom-up
//!    completeness); B can be built on its own (projective, or all of t(k)
//!    and buildable, decided by this oracle on t(k), memoised per tree);
//!    b₁ is never reduced.
//! 2. **The table** (Sec. 4, 5.3; Cohen et al. 2011). Over γ = σ βR
//!    (ℓ = |σ|) and a bottom symbol $, the item [h₁, h₂ h₃] over γ[i..j)
//!    stands for the computations that start with h₁ on top, shift
//!    γ[i] … γ[j−1] and end with h₂ h₃ on top, never going below h₁'s stack
//!    depth + 2 in between; its value is the most gold arcs they build. The
//!    items over the stack part are forced (the stack words were shifted
//!    one after the other, c is passed through): T[i, i+1] = [γ[i−1],
//!    γ[i−1] γ[i]] for i < ℓ; a buffer word γ[i] can be shifted on any
//!    h < i. Two items [h₁, h₂ h₃] ⊗ [h₃, h₄ h₅] over adjacent spans and a
//!    reduction give [h₁, h₂ h₅] (`la`, h₅ → h₄), [h₁, h₂ h₄] (`ra`,
//!    h₄ → h₅), [h₁, h₄ h₅] (`la₂`, h₅ → h₂), [h₁, h₂ h₄] (`ra₂`,
//!    h₂ → h₅). Spans that start in the stack split only at i + 1 or at
//!    k ≥ ℓ. The answer is T[0, |γ|]([$, $ 0]).
//!
//! Every step is scored from the one table (an extension: the seed computes
//! the loss of c only): the items whose computations pass through c carry
//! the first step taken after c — the shift of γ[ℓ] when the left part ends
//! at c, the combining reduction when the right part does, else the tag of
//! the part that passes through c — and T[0, |γ|]([$, $ 0], step) is the
//! step's score. Works for any gold tree, projective or not.
//!
//! # Pruning (exact)
//!
//! Each step gets a lower bound of its score from a greedy computation
//! after it (gold arcs whose dependent has all its gold children first, then
//! words whose gold head is gone and that have no gold child left, else
//! `shift`) and an upper bound: its arc if gold, plus one arc for every word
//! left whose gold head is left too, one less if the greedy computation
//! does not reach that, and at most the best score of the configuration
//! when the previous call was for the configuration one step before (that
//! call's score of the step less its arc). A step whose bounds meet needs
//! no table; if one step is left and the others are all below the known
//! best, it has the best.
//!
//! The greedy computation reaches the count of the upper bound whenever
//! some computation does (checked against the unpruned table on every
//! configuration of walks over every tree of up to 6 words). A computation
//! that builds all those arcs reduces only words with no gold child left
//! that take their gold head or have lost it already (any other reduction
//! loses one of them), and such a reduction can be taken as soon as it
//! applies: the word has nothing left to gain, and a stack without it is as
//! good as with it (a computation from the stack with the word is followed
//! from the one without: a step that reduces the word is dropped, a word
//! hung under it goes under its neighbour instead, and an arc over it links
//! the same words with one fewer between; never a gold arc lost). So a
//! computation that takes these reductions first and shifts otherwise, as
//! the greedy one does, builds all the arcs if any does; otherwise the best
//! is at least one below the count. The argument holds for any set of the
//! arcs counted, so it also decides whether the best is exactly one below:
//! some computation loses only word w's arc exactly when the greedy
//! computation that takes w as a word whose gold head is gone builds all
//! the others. Where the greedy computation falls short, a step's score is
//! thus decided to be one below the count, or bounded by two below it, with
//! each w tried in turn (O(n²)); [`TabularOracle::optimal`] does the same
//! for a step whose count is one above the level it asks.
//!
//! The other steps are found in passes of the table. Each item
//! [h₁, h₂ h₃] over γ[i..j) has an upper bound: its value plus one arc for
//! every word not reduced inside it whose gold head is not gone (reduced
//! inside it — the span but h₂, h₃ — or, for the words shifted from i on,
//! one of the words between h₁ and i, reduced before γ[i] is shifted). A
//! pass asks for each open step's upper bound: items tagged with the step
//! whose bound is below it are dropped when their cell is complete (items
//! without a tag, below the smallest). A step found at its target is exact;
//! otherwise its score is below the target (a computation reaching it keeps
//! all its items) and at least the best the pass found, and the next pass
//! asks for one less, until the bounds meet. Most items hold wrong arcs
//! that every good computation avoids, and the passes with a small target
//! keep few. [`TabularOracle::set_pruning`] turns all this off.
//!
//! [`TabularOracle::optimal`] (the optimal steps alone, as a training loop
//! asks) never needs a score below the best: it asks each pass whether the
//! open steps reach one level, the best when the last call knew it, else
//! levels going down from the largest upper bound until one is reached,
//! and decides the steps one arc short of their count at a level without
//! the table (above).
//!
//! # Corrections to the printed text
//!
//! See `docs/systems.md` (section *Attardi*) for each with its
//! counterexample; [`Rules::printed`] restores the printed versions for the
//! regression tests (`tests/attardi.rs`).
//!
//! # Complexity
//!
//! O(n) for the reduction; the table O(|σ|³|γ|²|βR| + |γ|⁴|βR|⁴) (Sec. 6),
//! O(n⁸) in the worst case (the items through c carry one of five tags);
//! the pruning adds O(n²) bounds per step (O(n) but for the test of one arc
//! short) and O(|γ|) per h₁ of each cell,
//! and runs the table once per unit between the upper bound and the score
//! of a step (at most n times; most configurations need none or one). Guarded by a
//! limit on |γ| ([`TabularOracle::max_gamma`], default
//! [`DEFAULT_MAX_GAMMA`]): beyond it, [`OracleError::TooLarge`]. Memory: the
//! items of the table, checked against [`crate::memory::max_memory`]. No
//! allocation once warm, except, once per gold tree, for the memo of which
//! non-projective subtrees can be built on their own.

use crate::memory;
use crate::oracle::system::{Configuration, Step, System};
use crate::oracle::{OracleError, StepScores};
use crate::tree::DepTree;

/// The default limit on |γ| = |σ| + |βR| (after the buffer reduction).
pub const DEFAULT_MAX_GAMMA: usize = 48;

/// Which version of each corrected part of Algorithm 1 to run. The default
/// is the corrected one; the printed versions are kept for the tests that
/// show they fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// The filter of lines 18, 21, 24 and 27.
    pub filter: Filter,
    /// The buffer reduction of Sec. 5.2.
    pub reduction: Reduction,
}

impl Default for Rules {
    fn default() -> Self {
        Rules { filter: Filter::None, reduction: Reduction::Sound }
    }
}

impl Rules {
    /// The printed filter and reduction.
    pub fn printed() -> Self {
        Rules { filter: Filter::Printed, reduction: Reduction::Printed }
    }
    /// No filter, no reduction: the plain table of Cohen et al. (2011)
    /// restricted to computations through c.
    pub fn plain() -> Self {
        Rules { filter: Filter::None, reduction: Reduction::None }
    }
}

/// The filter on reductions inside the reduced buffer (items with i ≥ ℓ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// Every arc.
    None,
    /// As printed: an arc h → d only if it is gold or h ∉ γ (always false:
    /// so only gold arcs).
    Printed,
    /// As the prose says: an arc h → d only if it is gold or d's gold head
    /// is not in γ.
    Prose,
}

/// The buffer reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// None: βR = β.
    None,
    /// As printed: bottom-up completeness and zero gap-degree.
    Printed,
    /// Printed, and every word of B but k has its gold head in B (closed).
    Closed,
    /// Closed, and B projective, but b₁ may be reduced.
    ClosedProjective,
    /// Corrected: closed, B buildable on its own (projective, or the whole
    /// subtree t(k) and buildable), b₁ never reduced (the reduction of the
    /// configuration after `shift`).
    Sound,
    /// As `Sound`, but b₁ may be reduced (exact for the best score and the
    /// reductions' scores, not for `shift`'s).
    FirstReducible,
}

/// An item [h₁, h₂ h₃] with its value; positions in γ, |γ| for $.
#[derive(Clone, Copy, Debug)]
struct Item {
    h1: u16,
    h2: u16,
    h3: u16,
    /// For items whose computations pass through c: the first step after c
    /// ([`STEPS`] index), or [`AT_C`]; otherwise [`UNTAGGED`].
    tag: u8,
    value: i32,
}

/// The steps in tag order.
const STEPS: [Step; 5] = [Step::Shift, Step::LeftArc, Step::RightArc, Step::LeftArc2, Step::RightArc2];
/// The tag of T[ℓ−1, ℓ]: its computation ends at c.
const AT_C: u8 = 5;
/// The tag of items whose computations do not contain c.
const UNTAGGED: u8 = 6;
const TAGS: usize = 7;

/// An empty slot of the scratch (values are at most |γ|).
const EMPTY: i16 = i16::MIN;

/// The scratch's slots per tag for |γ| = g: (g + 1) h₁ (with $) × (g + 1)
/// h₂ × g h₃.
fn tag_stride(g: usize) -> usize {
    (g + 1) * (g + 1) * g
}

/// The scratch slot of [h₁, h₂ h₃] with `tag`.
fn slot(g: usize, h1: usize, h2: usize, h3: usize, tag: usize) -> usize {
    tag * tag_stride(g) + (h1 * (g + 1) + h2) * g + h3
}

/// (h₁, h₂, h₃, tag) in one word of the scratch's list of written slots
/// (positions are `u16`).
fn pack(h1: usize, h2: usize, h3: usize, tag: usize) -> u64 {
    h1 as u64 | (h2 as u64) << 16 | (h3 as u64) << 32 | (tag as u64) << 48
}

fn unpack(p: u64) -> (usize, usize, usize, usize) {
    let part = |shift: u32| ((p >> shift) & 0xffff) as usize;
    (part(0), part(16), part(32), part(48))
}

/// The tabular oracle with its reusable buffers.
#[derive(Debug)]
pub struct TabularOracle {
    rules: Rules,
    max_gamma: usize,
    /// The most pairs of items one call may combine (`None`: no budget).
    max_pairs: Option<u64>,
    /// γ as words, and ℓ = |σ| of the last call.
    gamma: Vec<usize>,
    ell: usize,
    /// Position in γ of each word, or `u16::MAX`.
    pos: Vec<u16>,
    /// Cells T[i, j] at i · (g + 1) + j, items sorted by h₁.
    cells: Vec<Vec<Item>>,
    /// Dense scratch of the cell being filled, indexed (tag, h₁, h₂, h₃)
    /// ([`slot`]): the untagged slots, most of those written, lie together,
    /// and the writes of one left item stay within h₁'s rows of a tag
    /// (cache).
    scratch: Vec<i16>,
    /// The slots of the scratch written since the last flush, as
    /// (h₁, h₂, h₃, tag) packed by [`pack`] (no division to decode them).
    touched: Vec<u64>,
    /// Arcs between positions, (g + 1)² (see [`TabularOracle::table`]).
    arcs_all: Vec<i8>,
    arcs_buffer: Vec<i8>,
    /// The same, indexed by dependent first.
    arcs_all_by_dep: Vec<i8>,
    arcs_buffer_by_dep: Vec<i8>,
    /// Start / end of each h₁'s items in the right cell of a combination.
    group: Vec<(u32, u32)>,
    /// Buffer reduction: per word, in σ / in β, and subtree aggregates.
    on_stack: Vec<bool>,
    children: Vec<Vec<usize>>,
    order: Vec<usize>,
    agg: Vec<Agg>,
    reducible: Vec<bool>,
    /// The stack after `shift`.
    shifted: Vec<usize>,
    /// Forces one table (false) or two (true) instead of the cheaper; tests.
    two_tables: Option<bool>,
    /// Per word k of the gold tree `built_for`: whether t(k), a contiguous
    /// subtree, can be built on its own (0 unknown, 1 yes, 2 no).
    built: Vec<u8>,
    built_for: Vec<usize>,
    /// The oracle that decides it (on t(k) as a sentence), made on demand.
    inner: Option<Box<TabularOracle>>,
    /// Whether items that cannot reach a step's lower bound are dropped
    /// (see [`TabularOracle::set_pruning`]).
    pruning: bool,
    bounds: Bounds,
    /// The steps the table must score (the others are answered without it).
    open: [bool; 5],
    stats: TableStats,
    /// The last call's configuration and answer (see `best_after_last`).
    last: LastCall,
    /// The best score of the configuration of this call, if known from the
    /// last one.
    best_known: Option<u32>,
    /// An upper bound of that best score (`u32::MAX` if none is known):
    /// `best_known`, or, after a step that was not optimal, one less than
    /// the last call's best less the step's arc.
    best_cap: u32,
    /// [`TabularOracle::optimal`]'s question to the table: whether each open
    /// step reaches this score (one pass), rather than its exact score.
    floor: Option<u32>,
    /// The bounds of each step at the configuration of this call, once
    /// computed (greedy: `None` if the step does not apply or was not
    /// computed), for the table runs of the same configuration.
    step_bounds: Option<([Option<u32>; 5], [u32; 5])>,
}

/// A configuration (stack, next) scored for the gold heads `heads`.
#[derive(Debug, Default)]
struct LastCall {
    valid: bool,
    stack: Vec<usize>,
    next: usize,
    heads: Vec<usize>,
    /// The exact scores of the steps it answered: every applicable step
    /// ([`TabularOracle::scores`]) or the optimal ones
    /// ([`TabularOracle::optimal`]).
    scores: StepScores,
}

/// What the last [`TabularOracle::scores`] call did: for profiles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    /// Tables run (0 when every step was answered by the bounds).
    pub tables: u32,
    /// Items kept in the cells, and items dropped by the bounds.
    pub items: u64,
    pub dropped: u64,
    /// Pairs of items combined.
    pub pairs: u64,
    /// Whether the best score was known from the previous call (whose
    /// configuration led to this one by one step, or was this one).
    pub best_known: bool,
    /// [`TabularOracle::optimal`] only: whether it asked the table (if at
    /// all) only which steps reach the known best, one pass per table,
    /// instead of every step's exact score.
    pub optimal_only: bool,
    /// [`TabularOracle::optimal`] only: the steps the bounds left open and
    /// the table was asked about (summed over the levels tried), and how
    /// many of them it found optimal.
    pub open_steps: u32,
    pub open_optimal: u32,
}

/// The pruning of the table: lower bounds from greedy computations and, per
/// item, an upper bound (its value plus the gold arcs still possible
/// outside it). Buffers reused across calls.
#[derive(Debug, Default)]
struct Bounds {
    /// Per tag: items with a lower upper bound are dropped (table units).
    threshold: [i32; TAGS],
    /// Whether any threshold is finite (else no pruning in this table).
    active: bool,
    /// Per position p of γ: the position of γ[p]'s gold head, or `NO_HEAD`.
    head: Vec<u16>,
    /// Gold children of each position: `kids[kid_start[p]..kid_start[p + 1]]`.
    kid_start: Vec<u32>,
    kids: Vec<u16>,
    /// For the cell being flushed, per h₁: the gold arcs still possible for
    /// the words outside its span, or `UNKNOWN`; and per h₁ and position in
    /// the span what that word adds if left on the stack (see
    /// [`Bounds::prepare`]).
    outside: Vec<i32>,
    contrib: Vec<i32>,
    /// The greedy computations: stack, reduced words, pending gold children.
    stack: Vec<usize>,
    removed: Vec<bool>,
    pending: Vec<u32>,
    /// A word whose gold arc the greedy computation gives up (0: none).
    lost: usize,
    /// The words whose arc the one-short test gives up in turn.
    candidates: Vec<usize>,
}

/// No gold head in γ (the root, or a head reduced before c or inside a
/// reduced block).
const NO_HEAD: u16 = u16::MAX;
const UNKNOWN: i32 = i32::MIN;
/// A threshold that drops every item of its tag.
const DROP_ALL: i32 = i32::MAX;

/// Which scores a table run must give exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    /// Every step's.
    All,
    /// The reductions' (not `shift`'s).
    Reductions,
    /// Only the best.
    Best,
}

/// Per word v, over the β words of its gold subtree t(v).
#[derive(Clone, Copy, Debug, Default)]
struct Agg {
    count: usize,
    min: usize,
    max: usize,
    /// Some β word of t(v) other than v breaks a condition.
    bad: bool,
    /// Some β word of t(v) other than v has β words of its subtree that are not contiguous.
    nonprojective: bool,
    /// The number of words of t(v).
    size: usize,
}

impl Default for TabularOracle {
    fn default() -> Self {
        Self::new()
    }
}

impl TabularOracle {
    /// The corrected oracle.
    pub fn new() -> Self {
        Self::with_rules(Rules::default())
    }

    /// The oracle with the given versions of the corrected parts.
    pub fn with_rules(rules: Rules) -> Self {
        TabularOracle {
            rules,
            max_gamma: DEFAULT_MAX_GAMMA,
            max_pairs: None,
            gamma: Vec::new(),
            ell: 0,
            pos: Vec::new(),
            cells: Vec::new(),
            scratch: Vec::new(),
            touched: Vec::new(),
            arcs_all: Vec::new(),
            arcs_buffer: Vec::new(),
            arcs_all_by_dep: Vec::new(),
            arcs_buffer_by_dep: Vec::new(),
            group: Vec::new(),
            on_stack: Vec::new(),
            children: Vec::new(),
            order: Vec::new(),
            agg: Vec::new(),
            reducible: Vec::new(),
            shifted: Vec::new(),
            two_tables: None,
            built: Vec::new(),
            built_for: Vec::new(),
            inner: None,
            pruning: true,
            bounds: Bounds::default(),
            open: [true; 5],
            stats: TableStats::default(),
            last: LastCall::default(),
            best_known: None,
            best_cap: u32::MAX,
            floor: None,
            step_bounds: None,
        }
    }

    /// The limit on |γ| = |σ| + |βR| beyond which [`TabularOracle::scores`]
    /// returns [`OracleError::TooLarge`] instead of running the table (the
    /// table is O(|γ|⁸); steps answered by their bounds need none).
    pub fn max_gamma(&self) -> usize {
        self.max_gamma
    }

    /// Sets the limit on |γ| (see [`TabularOracle::max_gamma`]).
    pub fn set_max_gamma(&mut self, limit: usize) {
        self.max_gamma = limit.min(u16::MAX as usize - 2);
    }

    /// The budget of one call: the most pairs of items its tables may
    /// combine, summed over its passes (`None`, the default: no budget).
    /// Past it the call stops, after the span length it was filling, with
    /// [`OracleError::TooMuchWork`]: a bound on the time of every call
    /// (about 10–20 ns a pair), which |γ| bounds only loosely.
    pub fn max_pairs(&self) -> Option<u64> {
        self.max_pairs
    }

    /// Sets the budget of one call (see [`TabularOracle::max_pairs`]).
    pub fn set_max_pairs(&mut self, limit: Option<u64>) {
        self.max_pairs = limit;
    }

    /// Scores every applicable step of `config` (an Attardi configuration)
    /// for `gold`: the most gold arcs that complete computations starting
    /// with the step build. Any gold tree. O(|γ|⁸) per step in the worst
    /// case (module documentation).
    pub fn scores(&mut self, config: &Configuration, gold: &DepTree) -> Result<StepScores, OracleError> {
        if config.system() != System::Attardi {
            return Err(OracleError::WrongSystem { expected: System::Attardi, found: config.system() });
        }
        config.check_gold(gold)?;
        let mut scores = StepScores::default();
        self.stats = TableStats::default();
        if config.is_final() {
            return Ok(scores);
        }
        let (stack, next) = (config.stack(), config.next);
        let pruning = self.pruning && self.rules == Rules::default();
        // The best score of c, if the last call was for the configuration
        // before it (a walk, training): the score of the step that led here
        // less its arc. It bounds every step's score from above.
        (self.best_known, self.best_cap) =
            if pruning { self.best_after_last(stack, next, gold) } else { (None, u32::MAX) };
        self.last.valid = false;
        self.stats.best_known = self.best_known.is_some();
        // Steps whose greedy computation reaches the upper bound need no table.
        let mut open = [true; 5];
        self.step_bounds = None;
        if pruning {
            let cap = self.best_cap;
            let mut uppers = self.bounds.uppers(stack, next, gold);
            let mut lowers = [None; 5];
            for (t, step) in STEPS.iter().enumerate() {
                let Some(lower) = self.bounds.greedy(stack, next, gold, *step) else {
                    open[t] = false;
                    continue;
                };
                let count = uppers[t];
                uppers[t] = tightened(Some(lower), count);
                // Exactly one arc short of the count, or more: told apart without the table.
                let mut lower = lower;
                if lower < uppers[t] && uppers[t] + 1 == count && cap >= uppers[t] {
                    (lower, uppers[t]) = self.bounds.one_short_bounds(stack, next, gold, *step, uppers[t], lower);
                }
                lowers[t] = Some(lower);
                if lower >= uppers[t].min(cap) {
                    scores.set(*step, Some(lower));
                    open[t] = false;
                }
            }
            self.step_bounds = Some((lowers, uppers));
            // One step left, and the others below the best: it is the best.
            let reached = scores.best().is_some_and(|b| Some(b) == self.best_known);
            let left = open.iter().filter(|&&o| o).count();
            if let (Some(best), 1, false) = (self.best_known, left, reached) {
                let t = open.iter().position(|&o| o).unwrap_or(0);
                scores.set(STEPS[t], Some(best));
                open[t] = false;
            }
        }
        if open.contains(&true) {
            self.open = open;
            scores = self.scores_open(config, gold, scores, open)?;
        }
        self.step_bounds = None;
        if pruning {
            self.remember(stack, next, gold, scores);
        }
        Ok(scores)
    }

    /// The optimal steps of `config` for `gold`, each with its score (the
    /// best); the other steps get none. The same as keeping the best steps
    /// of [`TabularOracle::scores`], for less: the table is asked only
    /// which steps reach a level, never a step's score below the best.
    /// The level is the best when it is known from the last call (the
    /// configuration one step before, followed by an optimal step); else it
    /// goes down from the largest upper bound until a step reaches it (a
    /// greedy computation, or one pass of the table). At each level, a step
    /// whose greedy computation reaches it reaches it, one whose upper bound
    /// is below it does not, and one pass per table asks about the others
    /// (unless the best is known and one step is left).
    pub fn optimal(&mut self, config: &Configuration, gold: &DepTree) -> Result<StepScores, OracleError> {
        if config.system() != System::Attardi {
            return Err(OracleError::WrongSystem { expected: System::Attardi, found: config.system() });
        }
        config.check_gold(gold)?;
        let pruning = self.pruning && self.rules == Rules::default();
        if !pruning || config.is_final() {
            return Ok(self.scores(config, gold)?.only_optimal());
        }
        let (stack, next) = (config.stack(), config.next);
        let (known, cap) = self.best_after_last(stack, next, gold);
        self.stats = TableStats { best_known: known.is_some(), optimal_only: true, ..TableStats::default() };
        self.last.valid = false;
        (self.best_known, self.best_cap) = (known, cap);
        let applicable = STEPS.map(|step| config.is_applicable(step));
        let mut uppers = self.bounds.uppers(stack, next, gold);
        // With the best known, a step below it needs no greedy computation.
        let mut lowers = [None; 5];
        // The untightened bounds: the gold arcs each step leaves possible.
        let counts = uppers;
        for (t, step) in STEPS.iter().enumerate() {
            if applicable[t] && uppers[t].min(cap) >= known.unwrap_or(0) {
                lowers[t] = self.bounds.greedy(stack, next, gold, *step);
                uppers[t] = tightened(lowers[t], uppers[t]);
            }
            uppers[t] = uppers[t].min(cap);
        }
        self.step_bounds = Some((lowers, uppers));
        let mut level = match known {
            Some(best) => best,
            None => (0..5).filter(|&t| applicable[t]).map(|t| uppers[t]).max().unwrap_or(0),
        };
        let mut optimal = StepScores::default();
        // At `level`: the steps known to reach it, and those still open.
        let status = |lowers: &[Option<u32>; 5], uppers: &[u32; 5], level: u32| {
            let reached: [bool; 5] = std::array::from_fn(|t| lowers[t].is_some_and(|l| l >= level));
            let open: [bool; 5] =
                std::array::from_fn(|t| applicable[t] && !reached[t] && uppers[t] >= level && lowers[t].is_some());
            (reached, open)
        };
        // The best known, none reached, one step open: it is optimal.
        let one_left = |reached: &[bool; 5], open: &[bool; 5]| {
            known.is_some() && !reached.contains(&true) && open.iter().filter(|&&o| o).count() == 1
        };
        let result = loop {
            // No step scores above `level` (it is the best, or the level
            // above was reached by none).
            let (mut reached, mut open) = status(&lowers, &uppers, level);
            if level > 0 && open.contains(&true) && !one_left(&reached, &open) {
                // A step one arc short of its count at this level: decided
                // without the table.
                for t in (0..5).filter(|&t| open[t] && counts[t] == level + 1) {
                    let lower = lowers[t].unwrap_or(0);
                    let (lower, upper) = self.bounds.one_short_bounds(stack, next, gold, STEPS[t], level, lower);
                    (lowers[t], uppers[t]) = (Some(lower), upper);
                }
                (reached, open) = status(&lowers, &uppers, level);
            }
            let is_best = known.is_some() || reached.contains(&true);
            for t in (0..5).filter(|&t| reached[t]) {
                optimal.set(STEPS[t], Some(level));
            }
            let left = open.iter().filter(|&&o| o).count();
            if one_left(&reached, &open) {
                // Some step is optimal: the one left.
                let t = open.iter().position(|&o| o).unwrap_or(0);
                optimal.set(STEPS[t], Some(level));
                break Ok(());
            }
            if left > 0 {
                self.open = open;
                self.floor = Some(level);
                let found = self.scores_open(config, gold, StepScores::default(), open);
                self.floor = None;
                self.stats.open_steps += left as u32;
                match found {
                    Err(e) => break Err(e),
                    Ok(found) => {
                        for t in (0..5).filter(|&t| open[t] && found.get(STEPS[t]) == Some(level)) {
                            optimal.set(STEPS[t], Some(level));
                            self.stats.open_optimal += 1;
                        }
                    }
                }
            }
            if is_best || optimal.best().is_some() || level == 0 {
                break Ok(());
            }
            level -= 1;
        };
        self.step_bounds = None;
        result?;
        self.remember(stack, next, gold, optimal);
        Ok(optimal)
    }

    /// The best score of (stack, next) if it follows the configuration of
    /// the last call, for the same gold tree, by one step (or is that
    /// configuration), and an upper bound of it (`u32::MAX` if none is
    /// known). O(n).
    fn best_after_last(&self, stack: &[usize], next: usize, gold: &DepTree) -> (Option<u32>, u32) {
        const UNKNOWN_BEST: (Option<u32>, u32) = (None, u32::MAX);
        let last = &self.last;
        if !last.valid || last.heads.len() != gold.len() || (1..=gold.len()).any(|d| last.heads[d - 1] != gold.head(d))
        {
            return UNKNOWN_BEST;
        }
        let (before, k) = (&last.stack[..], last.stack.len());
        if next == last.next && stack == before {
            // The same configuration (e.g. `optimal`, then `scores`).
            return last.scores.best().map_or(UNKNOWN_BEST, |b| (Some(b), b));
        }
        let step = if next == last.next + 1 {
            // shift
            (stack.len() == k + 1 && stack[..k] == *before && stack[k] == last.next).then_some(Step::Shift)
        } else if next != last.next || stack.len() + 1 != k {
            None
        } else if stack == &before[..k - 1] {
            Some(Step::RightArc)
        } else if k >= 3 && stack[..k - 2] == before[..k - 2] && stack[k - 2] == before[k - 1] {
            Some(Step::LeftArc)
        } else if k >= 4 && stack[..k - 3] == before[..k - 3] && stack[k - 3..] == before[k - 2..] {
            Some(Step::LeftArc2)
        } else {
            None
        };
        let Some(step) = step else { return UNKNOWN_BEST };
        let gained = if step == Step::Shift {
            0
        } else {
            let (h, d) = arc(before, step);
            (gold.head(d) == h) as u32
        };
        match last.scores.get(step) {
            Some(score) => (Some(score - gained), score - gained),
            // Not scored by `optimal`: below the best (the step applied, and a
            // non-final configuration has an optimal step).
            None => last.scores.best().map_or(UNKNOWN_BEST, |b| (None, b.saturating_sub(1 + gained))),
        }
    }

    /// Keeps (stack, next), the gold tree and the scores for the next call.
    fn remember(&mut self, stack: &[usize], next: usize, gold: &DepTree, scores: StepScores) {
        let last = &mut self.last;
        last.stack.clear();
        last.stack.extend_from_slice(stack);
        last.next = next;
        last.heads.clear();
        last.heads.extend((1..=gold.len()).map(|d| gold.head(d)));
        last.scores = scores;
        last.valid = true;
    }

    /// The scores of the open steps (the others are in `scores`).
    fn scores_open(
        &mut self,
        config: &Configuration,
        gold: &DepTree,
        mut scores: StepScores,
        open: [bool; 5],
    ) -> Result<StepScores, OracleError> {
        let (stack, next) = (config.stack(), config.next);
        if self.rules.reduction == Reduction::Sound && next <= config.n {
            // Two smaller tables may beat one: with b₁ reducible, the table of c
            // is exact for the reductions (and the best), and the best of
            // c' = shift(c) is the shift's score. Cost ~ |γ|⁶ (measured).
            let one = self.reduce_buffer(stack, next, gold, true).1;
            let first = self.reduce_buffer(stack, next, gold, false).1;
            let mut shifted = std::mem::take(&mut self.shifted);
            shifted.clear();
            shifted.extend_from_slice(stack);
            shifted.push(next);
            let second = self.reduce_buffer(&shifted, next + 1, gold, false).1;
            let cost = |g: usize| (g as f64).powi(6);
            let two = match self.two_tables {
                Some(forced) => forced,
                None => cost(first) + cost(second) < cost(one),
            };
            let (shift_open, reductions_open) = (open[0], open[1..].contains(&true));
            let mut result = Ok(());
            if two || !shift_open || !reductions_open {
                // The table of the configuration after `shift` for its best,
                // the table of c with b₁ reducible for the reductions.
                if shift_open {
                    result = self.run(&shifted, next + 1, gold, false, Need::Best).map(|s| {
                        scores.set(Step::Shift, s.best());
                    });
                }
                if reductions_open {
                    result = result.and_then(|()| {
                        self.run(stack, next, gold, false, Need::Reductions).map(|s| {
                            for (t, step) in STEPS.iter().enumerate().skip(1) {
                                if open[t] {
                                    scores.set(*step, s.get(*step));
                                }
                            }
                        })
                    });
                }
            } else {
                result = self.run(stack, next, gold, true, Need::All).map(|s| {
                    for (t, step) in STEPS.iter().enumerate() {
                        if open[t] {
                            scores.set(*step, s.get(*step));
                        }
                    }
                });
            }
            self.shifted = shifted;
            result?;
            return Ok(scores);
        }
        let keep_first = self.rules.reduction == Reduction::Sound;
        let table = self.run(stack, next, gold, keep_first, Need::All)?;
        for (t, step) in STEPS.iter().enumerate() {
            if open[t] {
                scores.set(*step, table.get(*step));
            }
        }
        Ok(scores)
    }

    /// Reduces the buffer and runs the table for (stack, next); the scores
    /// of the tags.
    fn run(
        &mut self,
        stack: &[usize],
        next: usize,
        gold: &DepTree,
        keep_first: bool,
        need: Need,
    ) -> Result<StepScores, OracleError> {
        if stack.len() == 1 && next > gold.len() {
            return Ok(StepScores::default());
        }
        let (bonus, g) = self.reduce_buffer(stack, next, gold, keep_first);
        if g > self.max_gamma {
            return Err(OracleError::TooLarge { gamma: g, limit: self.max_gamma });
        }
        self.ell = stack.len();
        self.bounds.active = false;
        // Pruning is exact only for the corrected table (the printed parts
        // may score below the greedy computations).
        if !(self.pruning && self.rules == Rules::default()) {
            return self.pass(gold, bonus);
        }
        // Per tag (a step, or for Need::Best the one best score in slot 0):
        // a score reached (lower) and a score not exceeded (upper), both
        // absolute; the tags still open.
        let mut lower = [0u32; 5];
        let mut upper = [0u32; 5];
        let mut open = [false; 5];
        for (t, step) in STEPS.iter().enumerate() {
            let wanted = match need {
                Need::Best => true,
                Need::Reductions => t > 0 && self.open[t],
                Need::All => self.open[t],
            };
            if !wanted {
                continue;
            }
            // The bounds computed for c by the caller (not for the
            // configuration after `shift`, Need::Best).
            let known = self.step_bounds.filter(|_| need != Need::Best);
            let l = match known {
                Some((lowers, _)) => lowers[t],
                None => self.bounds.greedy(stack, next, gold, *step),
            };
            if let Some(l) = l {
                // The best of c bounds the shift's best (Need::Best) too.
                let u = match known {
                    Some((_, uppers)) => uppers[t],
                    None => tightened(Some(l), self.bounds.upper(stack, next, gold, *step)),
                };
                let u = u.min(self.best_cap);
                let slot = if need == Need::Best { 0 } else { t };
                if need != Need::Best || !open[0] {
                    (lower[slot], upper[slot]) = (l, u);
                } else {
                    lower[0] = lower[0].max(l);
                    upper[0] = upper[0].max(u);
                }
                open[slot] = true;
            }
        }
        // With a floor (`optimal`), a tag below it needs no score, and one
        // pass asks whether the others reach it.
        if let Some(floor) = self.floor {
            for t in 0..5 {
                if open[t] && upper[t] < floor {
                    open[t] = false;
                }
                upper[t] = upper[t].min(floor);
            }
        }
        // Passes: each asks for the upper bound of every open tag; a tag
        // found at it is exact; otherwise its score is below it (every item
        // of a computation reaching it would have been kept) and at least
        // the best found.
        let mut scores = StepScores::default();
        loop {
            let mut shared = DROP_ALL;
            for t in 0..5 {
                if open[t] && lower[t] >= upper[t] {
                    open[t] = false;
                    scores.set(STEPS[t], Some(lower[t]));
                }
                let target = if open[t] { upper[t] as i32 - bonus as i32 } else { DROP_ALL };
                self.bounds.threshold[t] = target;
                shared = shared.min(target);
            }
            if shared == DROP_ALL {
                break;
            }
            if need == Need::Best {
                self.bounds.threshold = [shared; TAGS];
            }
            self.bounds.threshold[AT_C as usize] = shared;
            self.bounds.threshold[UNTAGGED as usize] = shared;
            self.bounds.active = true;
            let found = self.pass(gold, bonus)?;
            for t in 0..5 {
                if !open[t] {
                    continue;
                }
                let got = if need == Need::Best { found.best() } else { found.get(STEPS[t]) };
                if let Some(v) = got {
                    lower[t] = lower[t].max(v);
                }
                if got.is_some_and(|v| v >= upper[t]) {
                    lower[t] = upper[t];
                } else if self.floor.is_some() {
                    // Below the floor: not optimal, no score needed.
                    open[t] = false;
                } else {
                    upper[t] -= 1;
                }
            }
        }
        Ok(scores)
    }

    /// One run of the table with the thresholds set; the scores of the tags.
    fn pass(&mut self, gold: &DepTree, bonus: u32) -> Result<StepScores, OracleError> {
        let mut scores = StepScores::default();
        let g = self.gamma.len();
        self.stats.tables += 1;
        self.table(self.ell, gold)?;
        let dollar = g as u16;
        for it in &self.cells[g] {
            if it.h1 == dollar && it.h2 == dollar && it.h3 == 0 && (it.tag as usize) < STEPS.len() {
                scores.set(STEPS[it.tag as usize], Some(it.value as u32 + bonus));
            }
        }
        Ok(scores)
    }

    /// Forces the choice between one table for every step (`Some(false)`)
    /// and two smaller ones, with b₁ reducible (`Some(true)`): the table of c
    /// for the reductions, the best of the configuration after `shift` for
    /// `shift`. `None` (the default): the cheaper by |γ|⁶. For tests.
    #[doc(hidden)]
    pub fn force_two_tables(&mut self, choice: Option<bool>) {
        self.two_tables = choice;
    }

    /// Whether the bounds of the module documentation are used (default:
    /// yes; exact either way): without them, every call runs one table (or
    /// two) keeping every item. For tests and measurements.
    #[doc(hidden)]
    pub fn set_pruning(&mut self, on: bool) {
        self.pruning = on;
    }

    /// What the last call did (tables, items, pairs combined).
    #[doc(hidden)]
    pub fn last_stats(&self) -> TableStats {
        self.stats
    }

    /// The sizes of the last table run: (|σ|, |βR|) (|γ| is their sum; βR
    /// includes b₁, never reduced). For reports on slow configurations.
    pub fn last_size(&self) -> (usize, usize) {
        (self.ell, self.gamma.len().saturating_sub(self.ell))
    }

    /// The best score from `config`: the most gold arcs that complete
    /// computations from it build (0 if it is final).
    pub fn best(&mut self, config: &Configuration, gold: &DepTree) -> Result<u32, OracleError> {
        Ok(self.scores(config, gold)?.best().unwrap_or(0))
    }

    /// Stage 1: fills γ = σ βR and returns the gold arcs inside the reduced
    /// subtrees. O(n).
    fn reduce_buffer(&mut self, stack: &[usize], next: usize, gold: &DepTree, keep_first: bool) -> (u32, usize) {
        let bonus = self.reduce_buffer_bonus(stack, next, gold, keep_first);
        (bonus, self.gamma.len())
    }

    fn reduce_buffer_bonus(&mut self, stack: &[usize], next: usize, gold: &DepTree, keep_first: bool) -> u32 {
        let n = gold.len();
        self.gamma.clear();
        self.gamma.extend_from_slice(stack);
        if self.rules.reduction == Reduction::None || next > n {
            self.gamma.extend(next..=n);
            return 0;
        }
        self.on_stack.clear();
        self.on_stack.resize(n + 1, false);
        for &a in stack {
            self.on_stack[a] = true;
        }
        let closed = self.rules.reduction != Reduction::Printed;
        let projective =
            matches!(self.rules.reduction, Reduction::ClosedProjective | Reduction::Sound | Reduction::FirstReducible);
        // Corrected: reduce as for the configuration after `shift`, with b₁
        // on the stack and never reduced, so that the reduction is sound for
        // every step's successor (the shift's included), not only for the best.
        let first = if keep_first { next + 1 } else { next };
        if keep_first {
            self.on_stack[next] = true;
            self.gamma.push(next);
        }
        let in_beta = |v: usize| v >= first && v <= n;
        if self.children.len() < n + 1 {
            self.children.resize_with(n + 1, Vec::new);
        }
        for c in &mut self.children[..=n] {
            c.clear();
        }
        for d in 1..=n {
            self.children[gold.head(d)].push(d);
        }
        // Post-order of the gold tree from 0.
        self.order.clear();
        self.order.push(0);
        let mut i = 0;
        while i < self.order.len() {
            let v = self.order[i];
            i += 1;
            for &c in &self.children[v] {
                self.order.push(c);
            }
        }
        self.agg.clear();
        self.agg.resize(n + 1, Agg::default());
        for idx in (0..self.order.len()).rev() {
            let v = self.order[idx];
            let mut a = Agg { count: 0, min: usize::MAX, max: 0, bad: false, nonprojective: false, size: 1 };
            if in_beta(v) {
                a.count = 1;
                a.min = v;
                a.max = v;
            }
            for &c in &self.children[v] {
                let ca = self.agg[c];
                a.count += ca.count;
                a.min = a.min.min(ca.min);
                a.max = a.max.max(ca.max);
                a.bad |= ca.bad;
                a.nonprojective |= ca.nonprojective;
                a.size += ca.size;
                if in_beta(c) {
                    // Conditions on c as a non-root β word of t(v) (and above).
                    let stack_child = self.children[c].iter().any(|&x| self.on_stack[x]);
                    a.bad |= stack_child;
                    a.bad |= closed && !in_beta(v);
                    a.nonprojective |= ca.max + 1 - ca.min != ca.count;
                }
            }
            self.agg[v] = a;
        }
        // Reducible roots: β words whose t is good and contiguous over β,
        // and (corrected) B can be built on its own: B projective, or B the
        // whole subtree t(k) and t(k) buildable (checked once per tree).
        self.reducible.clear();
        self.reducible.resize(n + 1, false);
        for k in first..=n {
            let a = self.agg[k];
            let mut ok = !a.bad && a.max + 1 - a.min == a.count;
            if ok && projective && a.nonprojective {
                // Never for a block holding b₁: deciding it would ask the
                // same question of the same subtree (the inner oracle starts
                // at its initial configuration).
                ok = matches!(self.rules.reduction, Reduction::Sound | Reduction::FirstReducible)
                    && a.min > next
                    && a.count == a.size
                    && self.buildable(gold, k, a.min, a.max);
            }
            self.reducible[k] = ok;
        }
        let reducible = |r: &[bool], k: usize| r[k];
        let mut bonus = 0u32;
        let mut v = first;
        while v <= n {
            // The topmost reducible ancestor-or-self of v within β-rooted subtrees.
            let mut root = None;
            let mut u = v;
            loop {
                if in_beta(u) && reducible(&self.reducible, u) {
                    root = Some(u);
                }
                if u == 0 {
                    break;
                }
                u = gold.head(u);
            }
            match root {
                Some(k) if self.agg[k].min == v => {
                    let a = self.agg[k];
                    self.gamma.push(k);
                    bonus += (a.count - 1) as u32;
                    v = a.max + 1;
                }
                _ => {
                    self.gamma.push(v);
                    v += 1;
                }
            }
        }
        bonus
    }

    /// Whether the subtree t(k) of `gold`, whose words are `lo` … `hi`, can
    /// be built on its own (on top of any stack, never touching it): the
    /// oracle on t(k) as a sentence, k hanging from the root, finds all its
    /// arcs. Memoised per gold tree; the inner oracle's reduction asks the
    /// same of smaller subtrees only.
    fn buildable(&mut self, gold: &DepTree, k: usize, lo: usize, hi: usize) -> bool {
        let n = gold.len();
        if self.built_for.len() != n || (1..=n).any(|d| self.built_for[d - 1] != gold.head(d)) {
            self.built_for.clear();
            self.built_for.extend((1..=n).map(|d| gold.head(d)));
            self.built.clear();
            self.built.resize(n + 1, 0);
        }
        if self.built[k] == 0 {
            let heads: Vec<usize> = (lo..=hi).map(|d| if d == k { 0 } else { gold.head(d) + 1 - lo }).collect();
            let m = heads.len();
            let ok = match DepTree::from_heads(&heads) {
                Ok(mini) => {
                    let inner = self.inner.get_or_insert_with(|| Box::new(TabularOracle::new()));
                    inner.max_gamma = self.max_gamma;
                    inner.max_pairs = self.max_pairs;
                    let c = Configuration::initial(System::Attardi, m);
                    // Too large to decide: not reduced (sound, only slower).
                    inner.best(&c, &mini).is_ok_and(|b| b as usize == m)
                }
                Err(_) => false,
            };
            self.built[k] = if ok { 1 } else { 2 };
        }
        self.built[k] == 1
    }

    /// Stage 2: Algorithm 1 over γ with ℓ = `ell`; the most gold arcs of a
    /// completion (T[0, |γ|]([$, $ 0])).
    fn table(&mut self, ell: usize, gold: &DepTree) -> Result<(), OracleError> {
        let g = self.gamma.len();
        let dollar = g as u16;
        let n = gold.len();
        self.pos.clear();
        self.pos.resize(n + 1, u16::MAX);
        for (p, &w) in self.gamma.iter().enumerate() {
            self.pos[w] = p as u16;
        }
        if self.bounds.active {
            self.bounds.positions(&self.gamma, &self.pos, gold);
            if self.bounds.contrib.len() < (g + 1) * (g + 1) {
                self.bounds.contrib.resize((g + 1) * (g + 1), 0);
            }
        }
        let width = g + 1;
        let cells = width * width;
        if self.cells.len() < cells {
            self.cells.resize_with(cells, Vec::new);
        }
        for c in &mut self.cells[..cells] {
            c.clear();
        }
        let scratch = TAGS * tag_stride(g);
        memory::check(Some(scratch), 2, || format!("the Attardi oracle's scratch for |γ| = {g}"))?;
        if self.scratch.len() < scratch {
            self.scratch.resize(scratch, EMPTY);
        }
        if self.group.len() < g + 1 {
            self.group.resize(g + 1, (0, 0));
        }
        // The arcs between positions ($ = g): -1 not allowed (a dependent $ or
        // 0, a head $), else 1 if gold; in the buffer, the filter applies.
        self.arcs_all.clear();
        self.arcs_buffer.clear();
        for h in 0..=g {
            for d in 0..=g {
                let (mut all, mut buffer) = (-1i8, -1i8);
                if h < g && d < g && h != d && self.gamma[d] != 0 {
                    let (hw, dw) = (self.gamma[h], self.gamma[d]);
                    let is_gold = gold.head(dw) == hw;
                    all = is_gold as i8;
                    // Printed: "h ∉ γ" never holds. Prose: d's gold head not in γ.
                    let kept = match self.rules.filter {
                        Filter::None => true,
                        Filter::Printed => is_gold,
                        Filter::Prose => is_gold || self.pos[gold.head(dw)] == u16::MAX,
                    };
                    buffer = if kept { all } else { -1 };
                }
                self.arcs_all.push(all);
                self.arcs_buffer.push(buffer);
            }
        }
        self.arcs_all_by_dep.clear();
        self.arcs_buffer_by_dep.clear();
        for d in 0..=g {
            for h in 0..=g {
                self.arcs_all_by_dep.push(self.arcs_all[h * (g + 1) + d]);
                self.arcs_buffer_by_dep.push(self.arcs_buffer[h * (g + 1) + d]);
            }
        }
        // Initialisation (lines 1–6).
        let tag = |i: usize| if i + 1 == ell { AT_C } else { UNTAGGED };
        self.cells[1].push(Item { h1: dollar, h2: dollar, h3: 0, tag: tag(0), value: 0 });
        for i in 1..ell {
            let (a, b) = ((i - 1) as u16, i as u16);
            self.cells[i * width + i + 1].push(Item { h1: a, h2: a, h3: b, tag: tag(i), value: 0 });
        }
        for i in ell..g {
            for h in 0..i {
                let (h, b) = (h as u16, i as u16);
                self.cells[i * width + i + 1].push(Item { h1: h, h2: h, h3: b, tag: UNTAGGED, value: 0 });
            }
        }
        // Lines 7–12.
        let mut items = 0usize;
        for d in 2..=g {
            for i in ell.saturating_sub(d)..=g - d {
                let j = i + d;
                self.process(i, i + 1, j, ell);
                for k in (i + 2).max(ell)..j {
                    self.process(i, k, j, ell);
                }
                items += self.flush(i, j);
            }
            memory::check(Some(items), std::mem::size_of::<Item>(), || {
                format!("the Attardi oracle's table for |γ| = {g}")
            })?;
            if let Some(limit) = self.max_pairs.filter(|&limit| self.stats.pairs > limit) {
                return Err(OracleError::TooMuchWork { limit });
            }
        }
        Ok(())
    }

    /// Moves the scratch of T[i, j] into its cell, sorted by h₁, dropping
    /// the items whose upper bound is below their tag's threshold; returns
    /// the number of items.
    fn flush(&mut self, i: usize, j: usize) -> usize {
        let g = self.gamma.len();
        let width = g + 1;
        let bounds = &mut self.bounds;
        let cell = &mut self.cells[i * width + j];
        if bounds.active {
            bounds.outside.clear();
            bounds.outside.resize(g + 1, UNKNOWN);
        }
        for &packed in &self.touched {
            let (h1, h2, h3, tag) = unpack(packed);
            let value = std::mem::replace(&mut self.scratch[slot(g, h1, h2, h3, tag)], EMPTY) as i32;
            if bounds.active {
                if bounds.outside[h1] == UNKNOWN {
                    bounds.prepare(i, j, h1);
                }
                let outside = bounds.outside[h1];
                let row = &bounds.contrib[h1 * (g + 1)..(h1 + 1) * (g + 1)];
                let head = &bounds.head;
                let mut possible = outside + row[h3];
                if (i..j).contains(&h2) && h2 != h3 {
                    possible += row[h2] + (head[h2] as usize == h3) as i32 + (head[h3] as usize == h2) as i32;
                }
                if value + possible < bounds.threshold[tag] {
                    self.stats.dropped += 1;
                    continue;
                }
            }
            self.stats.items += 1;
            cell.push(Item { h1: h1 as u16, h2: h2 as u16, h3: h3 as u16, tag: tag as u8, value });
        }
        self.touched.clear();
        cell.sort_unstable_by_key(|it| it.h1);
        cell.len()
    }

    /// PROCESSCELL(T, i, k, j) (lines 14–28), into the scratch of T[i, j].
    fn process(&mut self, i: usize, k: usize, j: usize, ell: usize) {
        let g = self.gamma.len();
        let width = g + 1;
        let (left, right) = (i * width + k, k * width + j);
        if self.cells[left].is_empty() || self.cells[right].is_empty() {
            return;
        }
        // Groups of the right cell by h₁.
        let right_items = &self.cells[right];
        let mut start = 0;
        while start < right_items.len() {
            let h = right_items[start].h1;
            let mut end = start;
            while end < right_items.len() && right_items[end].h1 == h {
                end += 1;
            }
            if (h as usize) < g {
                self.group[h as usize] = (start as u32, end as u32);
            }
            start = end;
        }
        // Arcs h → d between positions: -1 if not allowed, else 1 if gold;
        // by head (h · (g + 1) + d) and by dependent (d · (g + 1) + h).
        let (by_head, by_dep) = if i >= ell {
            (&self.arcs_buffer, &self.arcs_buffer_by_dep)
        } else {
            (&self.arcs_all, &self.arcs_all_by_dep)
        };
        let (lo, hi) = self.cells.split_at_mut(right.max(left));
        let (left_items, right_items): (&Vec<Item>, &Vec<Item>) =
            if left < right { (&lo[left], &hi[0]) } else { (&hi[0], &lo[right]) };
        let scratch = &mut self.scratch;
        let touched = &mut self.touched;
        // The scratch slot t of [h₁, h₂ h₃] with `tag` takes `value` if better.
        // (t is `slot(g, h1, h2, h3, tag)`, its rows computed once per left item.)
        let mut update = |t: usize, h1: usize, h2: usize, h3: usize, tag: usize, value: i32| {
            debug_assert_eq!(t, slot(g, h1, h2, h3, tag));
            let slot = &mut scratch[t];
            let value = value as i16;
            if *slot == EMPTY {
                touched.push(pack(h1, h2, h3, tag));
                *slot = value;
            } else if value > *slot {
                *slot = value;
            }
        };
        let stride = tag_stride(g);
        let mut pairs = 0u64;
        for a in left_items {
            let (s, e) = self.group[a.h3 as usize];
            if s == e || right_items[s as usize].h1 != a.h3 {
                continue;
            }
            pairs += (e - s) as u64;
            let (h1, h2) = (a.h1 as usize, a.h2 as usize);
            // Slots of [h₁, h₂ ·] and [h₁, · ·] (as `slot` counts them).
            let row12 = (h1 * (g + 1) + h2) * g;
            let row1 = h1 * (g + 1);
            let from_h2 = &by_head[h2 * (g + 1)..(h2 + 1) * (g + 1)];
            let to_h2 = &by_dep[h2 * (g + 1)..(h2 + 1) * (g + 1)];
            for b in &right_items[s as usize..e as usize] {
                let base = a.value + b.value;
                let (h4, h5) = (b.h2 as usize, b.h3 as usize);
                // The first step after c: the shift of γ[ℓ] if the left item
                // ends at c; this reduction if the right one does; else
                // the tag of the item that passes through c.
                let tags: [usize; 4] = match (a.tag, b.tag) {
                    (AT_C, _) => [0; 4],
                    (_, AT_C) => [1, 2, 3, 4],
                    (UNTAGGED, t) | (t, _) => [t as usize; 4],
                };
                // la: h₅ → h₄ gives [h₁, h₂ h₅]; ra: h₄ → h₅, [h₁, h₂ h₄];
                // la₂: h₅ → h₂, [h₁, h₄ h₅]; ra₂: h₂ → h₅, [h₁, h₂ h₄].
                let x = by_head[h5 * (g + 1) + h4];
                if x >= 0 {
                    update(tags[0] * stride + row12 + h5, h1, h2, h5, tags[0], base + x as i32);
                }
                let x = by_head[h4 * (g + 1) + h5];
                if x >= 0 {
                    update(tags[1] * stride + row12 + h4, h1, h2, h4, tags[1], base + x as i32);
                }
                let x = to_h2[h5];
                if x >= 0 {
                    update(tags[2] * stride + (row1 + h4) * g + h5, h1, h4, h5, tags[2], base + x as i32);
                }
                let x = from_h2[h5];
                if x >= 0 {
                    update(tags[3] * stride + row12 + h4, h1, h2, h4, tags[3], base + x as i32);
                }
            }
        }
        self.stats.pairs += pairs;
        // Reset the groups used.
        for it in right_items.iter() {
            if (it.h1 as usize) < g {
                self.group[it.h1 as usize] = (0, 0);
            }
        }
    }
}

/// A step's upper bound ([`Bounds::upper`]: every gold arc whose words are
/// both left after it) less one where its greedy computation
/// ([`Bounds::greedy`], `lower`) falls short of it: the greedy computation
/// builds all those arcs whenever some computation does (module
/// documentation, *Pruning*).
fn tightened(lower: Option<u32>, upper: u32) -> u32 {
    match lower {
        Some(lower) if lower < upper => upper - 1,
        _ => upper,
    }
}

impl Bounds {
    /// The gold arcs of a greedy computation from (stack, next) that starts
    /// with `first` (None if it is not applicable): a gold arc whose
    /// dependent has all its gold children is built at once; a word whose
    /// gold head is gone is reduced once it has no pending children (as s₀,
    /// s₁ or s₂); else shift; on an empty input, any gold arc, else
    /// `right_arc`. A lower bound of the step's score, equal to
    /// [`Bounds::upper`] whenever the score is. O(n).
    fn greedy(&mut self, stack: &[usize], next: usize, gold: &DepTree, first: Step) -> Option<u32> {
        let n = gold.len();
        let applicable = |k: usize, next: usize, step: Step| match step {
            Step::Shift => next <= n,
            Step::LeftArc | Step::RightArc2 => k >= 3,
            Step::RightArc => k >= 2,
            Step::LeftArc2 => k >= 4,
            _ => false,
        };
        if !applicable(stack.len(), next, first) {
            return None;
        }
        self.start(stack, next, gold);
        let mut next = next;
        let mut built = self.apply(first, &mut next, gold);
        const ARCS: [Step; 4] = [Step::RightArc, Step::LeftArc, Step::RightArc2, Step::LeftArc2];
        loop {
            let k = self.stack.len();
            if k == 1 && next > n {
                return Some(built);
            }
            let gold_arc = |complete: bool, this: &Self| {
                ARCS.into_iter().find(|&step| {
                    applicable(k, next, step) && {
                        let (h, d) = arc(&this.stack, step);
                        gold.head(d) == h && (!complete || this.pending[d] == 0)
                    }
                })
            };
            let finished =
                |w: usize, this: &Self| (this.removed[gold.head(w)] || w == this.lost) && this.pending[w] == 0;
            let step = gold_arc(true, self)
                .or_else(|| (k >= 2 && finished(self.stack[k - 1], self)).then_some(Step::RightArc))
                .or_else(|| (k >= 3 && finished(self.stack[k - 2], self)).then_some(Step::LeftArc))
                .or_else(|| (k >= 4 && finished(self.stack[k - 3], self)).then_some(Step::LeftArc2))
                .or_else(|| (next <= n).then_some(Step::Shift))
                .or_else(|| gold_arc(false, self))
                .unwrap_or(Step::RightArc);
            built += self.apply(step, &mut next, gold);
        }
    }

    /// Whether some computation from (stack, next) that starts with `first`
    /// (applicable) builds `target` gold arcs, where `target` is one less
    /// than [`Bounds::upper`]: whether the greedy computation reaches it
    /// for some word whose gold arc it gives up (taken as a word whose gold
    /// head is gone). Exact: a computation that loses only that word's arc
    /// builds every arc the bound counts once the word's is not counted,
    /// and the greedy computation reaches that whenever some computation
    /// does (module documentation, *Pruning*). The stack's words are tried
    /// first, from the top, where a computation that strayed loses its
    /// arcs. O(n²).
    fn one_short(&mut self, stack: &[usize], next: usize, gold: &DepTree, first: Step, target: u32) -> bool {
        self.start(stack, next, gold);
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        let counted = |d: usize| d != 0 && !self.removed[d] && !self.removed[gold.head(d)];
        candidates.extend(stack.iter().rev().copied().filter(|&d| counted(d)));
        candidates.extend((next..=gold.len()).filter(|&d| counted(d)));
        let mut found = false;
        for &w in &candidates {
            self.lost = w;
            let built = self.greedy(stack, next, gold, first);
            self.lost = 0;
            if built.is_some_and(|b| b >= target) {
                found = true;
                break;
            }
        }
        self.candidates = candidates;
        found
    }

    /// The bounds of a step whose count ([`Bounds::upper`]) is `target` + 1
    /// and whose lower bound `lower` is below `target`, after
    /// [`Bounds::one_short`]: (`target`, `target`) if it reaches `target`,
    /// else (`lower`, `target` − 1).
    fn one_short_bounds(
        &mut self,
        stack: &[usize],
        next: usize,
        gold: &DepTree,
        first: Step,
        target: u32,
        lower: u32,
    ) -> (u32, u32) {
        if self.one_short(stack, next, gold, first, target) {
            (target, target)
        } else {
            (lower, target - 1)
        }
    }

    /// An upper bound of the score of `first` (applicable) from (stack,
    /// next): its arc if gold, plus one arc for every word left after it
    /// (on the stack or in the input, not the root) whose gold head is left
    /// too. O(n).
    fn upper(&mut self, stack: &[usize], next: usize, gold: &DepTree, first: Step) -> u32 {
        self.start(stack, next, gold);
        let mut next = next;
        let built = self.apply(first, &mut next, gold);
        let left = |w: usize| !self.removed[w];
        built + (1..=gold.len()).filter(|&d| left(d) && left(gold.head(d))).count() as u32
    }

    /// [`Bounds::upper`] of every step (in [`STEPS`] order; 0 where it does
    /// not apply) in one O(n) pass: the words left whose gold head is left,
    /// less, for a reduction, its dependent (if counted) and the gold
    /// children it leaves behind, plus its arc if gold.
    fn uppers(&mut self, stack: &[usize], next: usize, gold: &DepTree) -> [u32; 5] {
        self.start(stack, next, gold);
        let left = |w: usize| !self.removed[w];
        let base = (1..=gold.len()).filter(|&d| left(d) && left(gold.head(d))).count() as u32;
        let k = stack.len();
        STEPS.map(|step| match step {
            Step::Shift => base,
            Step::LeftArc | Step::RightArc2 if k < 3 => 0,
            Step::RightArc if k < 2 => 0,
            Step::LeftArc2 if k < 4 => 0,
            _ => {
                let (h, d) = arc(stack, step);
                let head = gold.head(d);
                (head == h) as u32 + base - left(head) as u32 - self.pending[d]
            }
        })
    }

    /// The greedy computations' state at (stack, next).
    fn start(&mut self, stack: &[usize], next: usize, gold: &DepTree) {
        let n = gold.len();
        self.stack.clear();
        self.stack.extend_from_slice(stack);
        self.removed.clear();
        self.removed.resize(n + 1, false);
        for w in 1..next.min(n + 1) {
            self.removed[w] = true;
        }
        for &w in stack {
            self.removed[w] = false;
        }
        self.pending.clear();
        self.pending.resize(n + 1, 0);
        for d in 1..=n {
            if !self.removed[d] && d != self.lost {
                self.pending[gold.head(d)] += 1;
            }
        }
    }

    /// Applies an applicable step in the greedy computation; 1 if it builds
    /// a gold arc.
    fn apply(&mut self, step: Step, next: &mut usize, gold: &DepTree) -> u32 {
        if step == Step::Shift {
            self.stack.push(*next);
            *next += 1;
            return 0;
        }
        let (h, d) = arc(&self.stack, step);
        let k = self.stack.len();
        match step {
            Step::LeftArc => self.stack.remove(k - 2),
            Step::LeftArc2 => self.stack.remove(k - 3),
            _ => self.stack.remove(k - 1),
        };
        self.removed[d] = true;
        if d != self.lost {
            self.pending[gold.head(d)] -= 1;
        }
        (gold.head(d) == h) as u32
    }

    /// Fills the gold heads and children by position in γ.
    fn positions(&mut self, gamma: &[usize], pos: &[u16], gold: &DepTree) {
        let g = gamma.len();
        self.head.clear();
        self.head.extend(gamma.iter().map(|&w| if w == 0 { NO_HEAD } else { pos[gold.head(w)] }));
        // $ (position g) has no head.
        self.head.push(NO_HEAD);
        self.kid_start.clear();
        self.kid_start.resize(g + 2, 0);
        for &h in &self.head {
            if h != NO_HEAD {
                self.kid_start[h as usize + 2] += 1;
            }
        }
        for p in 2..g + 2 {
            self.kid_start[p] += self.kid_start[p - 1];
        }
        self.kids.clear();
        self.kids.resize(self.kid_start[g + 1] as usize, 0);
        for (d, &h) in self.head.iter().enumerate() {
            if h != NO_HEAD {
                let slot = &mut self.kid_start[h as usize + 1];
                self.kids[*slot as usize] = d as u16;
                *slot += 1;
            }
        }
    }

    /// For items [h₁, h₂ h₃] over γ[i..j) (positions; h₁ = |γ| for $), an
    /// upper bound on the gold arcs outside the span of their completions
    /// is the returned count, for the words outside the span, plus
    /// `contrib[h]` for h₃ and for h₂ if in the span (its gold head outside
    /// the span and its gold children outside), plus the gold arcs between
    /// h₂ and h₃ if both are in it. Each word not reduced inside can still
    /// take one arc, unless its gold head is gone — reduced inside (the span
    /// but h₂, h₃), or, for a word shifted after the item's start, reduced
    /// before it (the words between h₁ and i, which also cannot take a head
    /// at i or after). O(|γ|) per h₁ and cell.
    fn prepare(&mut self, i: usize, j: usize, h1: usize) {
        let g = self.head.len() - 1;
        // Words below h₁ (L = [0, lo)), between h₁ and i (M = [lo, i)).
        let lo = if h1 == g { i } else { h1 + 1 };
        let head = &self.head;
        let gold_head = |w: usize| (head[w] != NO_HEAD).then_some(head[w] as usize);
        let l = (0..lo).filter(|&w| gold_head(w).is_some_and(|h| !(i..j).contains(&h))).count();
        let m = (lo..i).filter(|&w| gold_head(w).is_some_and(|h| h < i)).count();
        let r = (j..g).filter(|&w| gold_head(w).is_some_and(|h| !(lo..j).contains(&h))).count();
        self.outside[h1] = (l + m + r) as i32;
        let row = &mut self.contrib[h1 * (g + 1)..(h1 + 1) * (g + 1)];
        for (h, slot) in row.iter_mut().enumerate().take(j).skip(i) {
            let hd = self.head[h];
            let kids = &self.kids[self.kid_start[h] as usize..self.kid_start[h + 1] as usize];
            *slot = (hd != NO_HEAD && !(lo..j).contains(&(hd as usize))) as i32
                + kids.iter().filter(|&&c| (c as usize) < lo || c as usize >= j).count() as i32;
        }
    }
}

/// The arc (head, dependent) of an arc step on `stack`.
fn arc(stack: &[usize], step: Step) -> (usize, usize) {
    let k = stack.len();
    let s = |i: usize| stack[k - 1 - i];
    match step {
        Step::LeftArc => (s(0), s(1)),
        Step::LeftArc2 => (s(0), s(2)),
        Step::RightArc2 => (s(2), s(0)),
        _ => (s(1), s(0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `visit(gold, c)` at the configurations of `walks` walks (pseudo-random
    /// steps) over every head vector of up to `most` words that is a tree.
    fn walk_every_tree(most: usize, walks: usize, mut visit: impl FnMut(&DepTree, &Configuration)) {
        for n in 1..=most {
            let count = (n + 1).pow(n as u32);
            for code in 0..count {
                let heads: Vec<usize> = (0..n).map(|i| code / (n + 1).pow(i as u32) % (n + 1)).collect();
                let Ok(gold) = DepTree::from_heads(&heads) else { continue };
                for walk in 0..walks {
                    let mut c = Configuration::initial(System::Attardi, n);
                    let mut i = walk;
                    while !c.is_final() {
                        visit(&gold, &c);
                        let steps: Vec<Step> = c.applicable_steps().collect();
                        i = (i * 7 + 3) % 1_000_003;
                        c.apply(steps[i % steps.len()]).unwrap();
                    }
                }
            }
        }
    }

    /// `Bounds::uppers` (one pass) equals `Bounds::upper` step by step, at
    /// the configurations of walks over every tree of up to 5 words.
    #[test]
    fn every_steps_upper_bound_in_one_pass_equals_the_step_by_step_one() {
        let mut bounds = Bounds::default();
        let mut checked = 0;
        walk_every_tree(5, 3, |gold, c| {
            let (stack, next) = (c.stack().to_vec(), c.next);
            let all = bounds.uppers(&stack, next, gold);
            for (t, step) in STEPS.iter().enumerate() {
                if c.is_applicable(*step) {
                    assert_eq!(all[t], bounds.upper(&stack, next, gold, *step), "{gold:?} {c:?} {step}");
                    checked += 1;
                }
            }
        });
        assert!(checked > 10_000, "only {checked}");
    }

    /// `Bounds::upper` is at least the exact score of the step (the table
    /// without pruning); the greedy computation after the step builds every
    /// gold arc the bound counts exactly when the score is that count (the
    /// tightened bound rests on it); and where it does not,
    /// `Bounds::one_short` says exactly whether the score is one less. At
    /// the configurations of walks over every tree of up to 6 words; every
    /// answer occurs.
    #[test]
    fn every_steps_upper_bound_holds_and_the_greedy_and_one_short_tests_are_exact() {
        let mut bounds = Bounds::default();
        let mut exact = TabularOracle::new();
        exact.set_pruning(false);
        let (mut reached, mut one_less, mut more) = (0, 0, 0);
        walk_every_tree(6, 2, |gold, c| {
            let (stack, next) = (c.stack().to_vec(), c.next);
            let scores = exact.scores(c, gold).unwrap();
            for step in STEPS.iter().filter(|&&step| c.is_applicable(step)) {
                let upper = bounds.upper(&stack, next, gold, *step);
                let greedy = bounds.greedy(&stack, next, gold, *step).unwrap();
                let score = scores.get(*step).unwrap();
                assert!(upper >= score, "{gold:?} {c:?} {step}: bound {upper} < score {score}");
                assert_eq!(greedy == upper, score == upper, "{gold:?} {c:?} {step}: greedy {greedy}, score {score}");
                assert!(tightened(Some(greedy), upper) >= score);
                if greedy == upper {
                    reached += 1;
                    continue;
                }
                let one_short = bounds.one_short(&stack, next, gold, *step, upper - 1);
                assert_eq!(one_short, score == upper - 1, "{gold:?} {c:?} {step}: bound {upper}, score {score}");
                one_less += one_short as usize;
                more += !one_short as usize;
            }
        });
        assert!(
            reached > 100_000 && one_less > 1_000 && more > 1_000,
            "{reached} steps reach their bound, {one_less} one less, {more} more"
        );
    }
}
