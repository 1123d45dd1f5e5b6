//! The exact oracle of non-monotonic arc-eager: a dedicated first-order
//! table (Eisner 1996's spans) over the words whose head can still change.
//!
//! From a configuration, list the *live* items left to right: the root 0,
//! the stack words a₁ … a_k (each with or without a head; a head is always
//! the stack word below), then the remaining input (or the one unshifted
//! word). Words that left both are settled. The final trees reachable from
//! the configuration, restricted to the arcs into live items, are exactly
//! the projective trees over the live items, rooted at 0, in which
//!
//! 1. a stack word *with* a head keeps it (a_{i−1}) or takes one to its
//!    right that is an input word or a stack word without a head (by
//!    `left_arc`, possibly after that word was unshifted); it takes no
//!    live left dependent (it never comes back to the input);
//! 2. a stack word *without* a head takes any head to its left, or a head
//!    to its right that is an input word or a stack word without a head;
//!    if it has a live left dependent, its head is to its left;
//! 3. a stack word a_i whose head is a stack word further left than a_{i−1}
//!    (it must then be unshifted, which needs an empty input) has every
//!    live item after it in its subtree;
//! 4. an input word (or the unshifted word) takes any head except
//!    (unshifted word) one to its right, of which there is none.
//!
//! The table is Eisner's with these arc constraints, a flag on incomplete
//! right spans for rule 3 (the complete span must end at the last item)
//! and a check on the left half of a dependent for rules 1–2. The score of
//! a tree is its number of gold arcs into live items; the score of a step
//! is the gold arc it settles plus the table's best after the step, which
//! equals the brute force's ([`crate::oracle::exhaustive`]) on every
//! configuration of every tree of up to 7 words (`tests/arc_eager_nm.rs`).
//! O(L³) per step for L live items, so O(n³) per configuration.
//!
//! # Reuse between steps
//!
//! A computation calls [`TabularOracle::scores`] at every configuration,
//! and each call fills up to four tables; most of their work repeats.
//!
//! * **Input rows.** The live items sit right-aligned in n + 1 slots: the
//!   last one in slot n, so that input word b (the input is b … n) is in
//!   slot b whatever the stack holds, and the stack words in the slots just
//!   before the first input word. A span [i, j] whose items are all input
//!   words is plain Eisner (every arc allowed, rule 4; rule 3's flag needs
//!   a headless stack word): its value depends on words i … j and the gold
//!   tree alone. The table is filled by rows, right to left (row i, the
//!   spans [i, j], reads only rows i … j), and the rows from the first input
//!   slot on are kept from call to call: a call fills the input rows it
//!   lacks (the input grew: another sentence, a configuration revisited),
//!   then the rows of its stack words, which overwrite rows left of its
//!   input and so mark them stale. Kept rows are used only while the gold
//!   heads (a copy, compared at every call) and n are those they were
//!   computed for; the Oracle is shared across sentences. An unshifted word
//!   is the input alone, in slot n, whose row is the span [n, n] for any
//!   word. Along a computation the input only loses words at its front, so
//!   every call, and every step scored within one call (a shift or a
//!   right_arc moves b to the stack, the input keeps the rest), finds its
//!   input rows kept, except the one row that a previous step's stack
//!   overwrote.
//! * **`reduce` shares `left_arc`'s table.** When `left_arc` applies, the
//!   input is not empty, so `reduce` does not unshift: both pop s₀ and
//!   leave the other stack words' heads and the input as they are, hence
//!   the same live items and the same best.
//! * **Contiguous inner loops.** Each span is a max over a split point of a
//!   sum of a row slice and a column slice; the column-read tables are kept
//!   also column-major, so both slices are contiguous and the loop
//!   vectorises.
//!
//! * **`optimal` skips tables.** A training loop needs the optimal steps
//!   only; [`TabularOracle::optimal`] knows the best score from the last
//!   call when it was the configuration one step before (the step's score
//!   less the arc it settles) and fills no table for a step that the best
//!   decides (see there).
//!
//! A step's table then costs O(k·L²) for k stack words (the rows left of the
//! input, each O(L²)) instead of O(L³), and nothing changes in the answers:
//! every span is computed by the same recurrence from the same spans.
//! `tests/arc_eager_nm.rs` checks this along random computations (optimal
//! and random steps, two sentences interleaved on one oracle, partial gold
//! trees, jumps back to earlier configurations) against
//! [`TabularOracle::without_reuse`]. On en_ewt's dev set (v2.2) with 10 %
//! random steps, the mean time per configuration fell about 6× (95 to
//! 14 µs on a shared, loaded machine; `benches/README.md`).

use crate::oracle::system::{Configuration, Step, System};
use crate::oracle::{OracleError, StepScores};
use crate::tree::DepTree;

/// What a live item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Root,
    /// A stack word with a head (the stack word below it).
    Headed,
    /// A stack word without a head.
    Headless,
    /// A word of the remaining input, or the unshifted word.
    Input,
}

/// No span; stored values are clamped to at least this, so the sum of two
/// never overflows, and every sum with a `NONE` stays negative.
const NONE: i32 = i32::MIN / 4;

/// The table and its buffers, reused between calls (no allocation once
/// warm for a sentence length), and the input rows kept from call to call
/// (see the module documentation).
pub struct TabularOracle {
    /// Slots: n + 1 (the most live items there can be).
    cap: usize,
    /// By slot: the live item's kind and word.
    kinds: Vec<Kind>,
    words: Vec<usize>,
    /// Complete right / left spans, plain incomplete right spans, cap × cap,
    /// row-major ([i × cap + j] is the span [i, j]).
    cr: Vec<i32>,
    cl: Vec<i32>,
    ir: Vec<i32>,
    /// Incomplete right spans that need the last item (rule 3), row-major.
    ir_end: Vec<i32>,
    /// Column-major copies ([j × cap + i] is the span [i, j]) of `cr`, `cl`
    /// and of the incomplete left spans (kept in this form alone): the
    /// inner loops then read two contiguous slices.
    cr_t: Vec<i32>,
    cl_t: Vec<i32>,
    il_t: Vec<i32>,
    /// The gold heads the kept rows were computed for (positions 1 … n).
    gold: Vec<usize>,
    /// Rows `valid_from ..` hold the spans over input words alone, for
    /// `gold` (`cap`: none).
    valid_from: usize,
    /// Whether rows are kept between calls (and `reduce` shares
    /// `left_arc`'s table); off only to check that they change nothing.
    reuse: bool,
    scratch: Option<Configuration>,
    /// The last call's configuration, its gold heads and the exact scores
    /// it found (all applicable steps', or the optimal ones'), for
    /// [`TabularOracle::optimal`].
    last: Option<Configuration>,
    last_gold: Vec<usize>,
    last_scores: StepScores,
    stats: Stats,
}

/// What the last [`TabularOracle::scores`] or [`TabularOracle::optimal`]
/// call did: for tests and profiles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Tables filled (one per step scored; `reduce` shares `left_arc`'s).
    pub tables: u32,
    /// `optimal` only: whether the best score was known from the last call
    /// (the configuration one step before, followed by an optimal step, or
    /// this one), so that the steps were only asked whether they reach it.
    pub best_known: bool,
}

impl Default for TabularOracle {
    fn default() -> Self {
        Self {
            cap: 0,
            kinds: Vec::new(),
            words: Vec::new(),
            cr: Vec::new(),
            cl: Vec::new(),
            ir: Vec::new(),
            ir_end: Vec::new(),
            cr_t: Vec::new(),
            cl_t: Vec::new(),
            il_t: Vec::new(),
            gold: Vec::new(),
            valid_from: 0,
            reuse: true,
            scratch: None,
            last: None,
            last_gold: Vec::new(),
            last_scores: StepScores::default(),
            stats: Stats::default(),
        }
    }
}

/// The largest `a[t] + b[t]` (`NONE` if empty), clamped to at least `NONE`.
#[inline]
fn max_sum(a: &[i32], b: &[i32]) -> i32 {
    a.iter().zip(b).map(|(x, y)| x + y).fold(NONE, i32::max)
}

impl TabularOracle {
    /// A fresh oracle.
    pub fn new() -> Self {
        Self::default()
    }

    /// An oracle that fills every table from scratch (no rows kept between
    /// calls, `reduce` not sharing `left_arc`'s table): the same answers,
    /// slower; for tests and benchmarks.
    pub fn without_reuse() -> Self {
        Self { reuse: false, ..Self::default() }
    }

    /// Scores every applicable step of `config` (a non-monotonic arc-eager
    /// configuration) for `gold`: the most gold arcs into the live items
    /// that a final tree reachable with the step first can have. O(k·n²)
    /// for k stack words once the rows of the input are kept (O(n³) at the
    /// first configuration of a sentence).
    pub fn scores(&mut self, config: &Configuration, gold: &DepTree) -> Result<StepScores, OracleError> {
        if config.system() != System::ArcEagerNm {
            return Err(OracleError::WrongSystem { expected: System::ArcEagerNm, found: config.system() });
        }
        config.check_gold(gold)?;
        let def = config.system().definition();
        let mut scores = StepScores::default();
        let mut next = self.scratch.take().unwrap_or_else(|| config.clone());
        let mut left_arc = None;
        let mut tables = 0;
        for step in config.applicable_steps() {
            let gained = def.settled_arc(config, step).map_or(0, |(h, d)| gold.has_arc(h, d) as u32);
            // `left_arc` and `reduce` both pop s₀ and leave the other stack words' heads and the
            // input as they are (with a non-empty input, `reduce` does not unshift): the same
            // live items, the same best.
            let best = match (step, left_arc) {
                (Step::Reduce, Some(best)) if self.reuse => best,
                _ => {
                    next.assign(config);
                    next.apply(step)?;
                    tables += 1;
                    self.best(&next, gold)
                }
            };
            if step == Step::LeftArc {
                left_arc = Some(best);
            }
            scores.set(step, Some(gained + best));
        }
        self.scratch = Some(next);
        self.stats = Stats { tables, best_known: false };
        self.remember(config, gold, scores);
        Ok(scores)
    }

    /// The optimal steps of `config` for `gold`, each with its score (the
    /// best); the other steps get none. The same as keeping the best steps
    /// of [`TabularOracle::scores`], with fewer tables along a computation:
    /// when the best score B is known from the last call (the configuration
    /// one step before, followed by an optimal step), the steps are scored
    /// in the order `left_arc` (with `reduce`, which shares its table),
    /// `shift`, `right_arc`, and a step needs no table when
    ///
    /// * no step scored so far reaches B and it is the last one left (some
    ///   step is optimal);
    /// * it is `right_arc` and `shift` scored below B: `right_arc` never
    ///   scores above `shift` (after either, b is a stack word; with its
    ///   head s₀ from `right_arc`, the trees of the live items reachable
    ///   from there are among those reachable with b headless: a headed
    ///   stack word keeps its head or takes one to its right and no live
    ///   left dependent, which a headless one may do too, and no word takes
    ///   a headed word as its head; neither step settles an arc);
    /// * it is `shift`, only `right_arc` is left beside it and nothing
    ///   reached B so far (then `shift` does).
    ///
    /// Otherwise (the first configuration, or after a step that was not
    /// optimal) the exact scores are computed, as by `scores`.
    pub fn optimal(&mut self, config: &Configuration, gold: &DepTree) -> Result<StepScores, OracleError> {
        if config.system() != System::ArcEagerNm {
            return Err(OracleError::WrongSystem { expected: System::ArcEagerNm, found: config.system() });
        }
        config.check_gold(gold)?;
        let Some(best) = self.best_from_last(config, gold) else {
            return Ok(self.scores(config, gold)?.only_optimal());
        };
        let def = config.system().definition();
        const ORDER: [Step; 4] = [Step::LeftArc, Step::Reduce, Step::Shift, Step::RightArc];
        let mut undecided = ORDER.map(|step| config.is_applicable(step));
        let mut optimal = StepScores::default();
        let mut next = self.scratch.take().unwrap_or_else(|| config.clone());
        let (mut left_arc, mut shift, mut tables) = (None, None, 0);
        for (t, &step) in ORDER.iter().enumerate() {
            if !undecided[t] {
                continue;
            }
            undecided[t] = false;
            let left = undecided.iter().filter(|&&u| u).count();
            let none_yet = optimal.best().is_none();
            if none_yet && (left == 0 || (step == Step::Shift && left == 1 && undecided[3])) {
                optimal.set(step, Some(best));
                if step == Step::Shift {
                    shift = Some(best);
                }
                continue;
            }
            if step == Step::RightArc && shift.is_some_and(|v| v < best) {
                continue;
            }
            let gained = def.settled_arc(config, step).map_or(0, |(h, d)| gold.has_arc(h, d) as u32);
            let after = match (step, left_arc) {
                (Step::Reduce, Some(after)) => after,
                _ => {
                    next.assign(config);
                    if let Err(e) = next.apply(step) {
                        self.scratch = Some(next);
                        return Err(e);
                    }
                    tables += 1;
                    self.best(&next, gold)
                }
            };
            if step == Step::LeftArc {
                left_arc = Some(after);
            }
            if step == Step::Shift {
                shift = Some(gained + after);
            }
            if gained + after == best {
                optimal.set(step, Some(best));
            }
        }
        self.scratch = Some(next);
        self.stats = Stats { tables, best_known: true };
        self.remember(config, gold, optimal);
        Ok(optimal)
    }

    /// The best score of `c` if the last call was for it, or for a
    /// configuration one step before it whose step it scored exactly (the
    /// step's score less the arc it settles). O(n).
    fn best_from_last(&mut self, c: &Configuration, gold: &DepTree) -> Option<u32> {
        let last = self.last.as_ref()?;
        if !self.reuse || self.last_gold != gold.heads() {
            return None;
        }
        if last == c {
            return self.last_scores.best();
        }
        let def = c.system().definition();
        let mut next = self.scratch.take().unwrap_or_else(|| c.clone());
        let mut found = None;
        for (step, score) in self.last_scores.iter() {
            next.assign(last);
            if next.apply(step).is_ok() && next == *c {
                let gained = def.settled_arc(last, step).map_or(0, |(h, d)| gold.has_arc(h, d) as u32);
                found = Some(score - gained);
                break;
            }
        }
        self.scratch = Some(next);
        found
    }

    /// Keeps the configuration, the gold heads and the scores for the next
    /// call.
    fn remember(&mut self, config: &Configuration, gold: &DepTree, scores: StepScores) {
        match &mut self.last {
            Some(last) => last.assign(config),
            None => self.last = Some(config.clone()),
        }
        self.last_gold.clear();
        self.last_gold.extend_from_slice(gold.heads());
        self.last_scores = scores;
    }

    /// What the last call did.
    #[doc(hidden)]
    pub fn last_stats(&self) -> Stats {
        self.stats
    }

    /// The most gold arcs into live items of any final tree reachable from
    /// `c` (0 if `c` is final). O(k·L²) for k stack words and L live items
    /// when the rows of the input are kept from an earlier call, else O(L³).
    pub fn best(&mut self, c: &Configuration, gold: &DepTree) -> u32 {
        let cap = c.sentence_len() + 1;
        if !self.reuse || cap != self.cap || self.gold != gold.heads() {
            self.cap = cap;
            self.gold.clear();
            self.gold.extend_from_slice(gold.heads());
            for t in [
                &mut self.cr,
                &mut self.cl,
                &mut self.ir,
                &mut self.ir_end,
                &mut self.cr_t,
                &mut self.cl_t,
                &mut self.il_t,
            ] {
                t.clear();
                t.resize(cap * cap, NONE);
            }
            self.kinds.clear();
            self.kinds.resize(cap, Kind::Input);
            self.words.clear();
            self.words.resize(cap, 0);
            self.valid_from = cap;
        }
        // Live items right-aligned: the last one in slot n, so that an input word keeps its
        // slot (its word number) whatever the stack.
        let m = c.buffer().count();
        let l = c.stack().len() + m;
        let base = cap - l;
        let input = cap - m;
        for (slot, &a) in (base..).zip(c.stack()) {
            self.kinds[slot] = match (a, c.head(a)) {
                (0, _) => Kind::Root,
                (_, Some(_)) => Kind::Headed,
                (_, None) => Kind::Headless,
            };
            self.words[slot] = a;
        }
        for (slot, b) in (input..).zip(c.buffer()) {
            self.kinds[slot] = Kind::Input;
            self.words[slot] = b;
        }
        // Rows over the input alone, then the rows that start on a stack word, right to left.
        for i in (input..self.valid_from).rev() {
            self.fill_row(i, input);
        }
        for i in (base..input).rev() {
            self.fill_row(i, input);
        }
        self.valid_from = input;
        let best = self.cr[base * cap + cap - 1];
        debug_assert!(best >= 0, "some final tree is always reachable");
        best.max(0) as u32
    }

    /// Fills the spans [i, j], j ≥ i, from the rows below i; `input` is the
    /// first input slot. O((n − i)²).
    fn fill_row(&mut self, i: usize, input: usize) {
        let cap = self.cap;
        let last = cap - 1;
        let at = |a: usize, b: usize| a * cap + b;
        let (kinds, words, gold) = (&self.kinds, &self.words, &self.gold);
        let score = |h: usize, d: usize| (gold.get(words[d].wrapping_sub(1)) == Some(&words[h])) as i32;
        self.cr[at(i, i)] = 0;
        self.cr_t[at(i, i)] = 0;
        self.cl[at(i, i)] = 0;
        self.cl_t[at(i, i)] = 0;
        self.ir[at(i, i)] = NONE;
        self.ir_end[at(i, i)] = NONE;
        self.il_t[at(i, i)] = NONE;
        let ki = kinds[i];
        for (j, &kj) in kinds.iter().enumerate().skip(i + 1) {
            // Incomplete spans i → j and j → i: cr[i][m] + cl[m + 1][j], i ≤ m < j.
            let split = max_sum(&self.cr[at(i, i)..at(i, j)], &self.cl_t[at(j, i + 1)..at(j, j + 1)]);
            let (mut ir, mut ir_end, mut il) = (NONE, NONE, NONE);
            match kj {
                Kind::Root => {}
                // A stack word with a head takes no live left dependent: only i = j − 1.
                Kind::Headed => {
                    if i + 1 == j {
                        ir = score(i, j);
                    }
                }
                Kind::Headless | Kind::Input => {
                    if split >= 0 {
                        let v = split + score(i, j);
                        if kj == Kind::Headless && i + 1 < j {
                            ir_end = v;
                        } else {
                            ir = v;
                        }
                        if ki != Kind::Root {
                            il = split + score(j, i);
                        }
                    }
                }
            }
            self.ir[at(i, j)] = ir;
            self.ir_end[at(i, j)] = ir_end;
            self.il_t[at(j, i)] = il;
            // Complete right span: ir[i][m] + cr[m][j], i < m ≤ j.
            let mut cr = max_sum(&self.ir[at(i, i + 1)..at(i, j + 1)], &self.cr_t[at(j, i + 1)..at(j, j + 1)]);
            if j == last {
                cr = cr.max(max_sum(&self.ir_end[at(i, i + 1)..at(i, j + 1)], &self.cr_t[at(j, i + 1)..at(j, j + 1)]));
            }
            self.cr[at(i, j)] = cr;
            self.cr_t[at(j, i)] = cr;
            // Complete left span: cl[i][m] + il[m][j], m = i or an input slot m < j (a stack
            // word takes no live left dependent once it has a head to its right).
            let mut cl = self.cl[at(i, i)] + self.il_t[at(j, i)];
            let from = input.max(i + 1);
            if from < j {
                cl = cl.max(max_sum(&self.cl[at(i, from)..at(i, j)], &self.il_t[at(j, from)..at(j, j)]));
            }
            let cl = cl.max(NONE);
            self.cl[at(i, j)] = cl;
            self.cl_t[at(j, i)] = cl;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Step;

    #[test]
    fn a_replaced_head_is_repaired() {
        // Gold: 1 <- 2 <- 0. A wrong right_arc 0 -> 1 is repaired by left_arc 2 -> 1 now, or
        // by shift, then (input empty) the unshift of 2 and left_arc 2 -> 1.
        let gold = DepTree::from_heads(&[2, 0]).unwrap();
        let mut c = Configuration::initial(System::ArcEagerNm, 2);
        c.apply(Step::RightArc).unwrap();
        let s = TabularOracle::new().scores(&c, &gold).unwrap();
        let want =
            [(Step::Shift, Some(2)), (Step::LeftArc, Some(2)), (Step::RightArc, Some(0)), (Step::Reduce, Some(1))];
        assert_eq!(s, StepScores::new(&want));
        assert_eq!(s.optimal(), vec![Step::Shift, Step::LeftArc]);
    }
}
