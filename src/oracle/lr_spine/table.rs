//! The LR-spine oracle of Goldberg, Sartorio and Satta (2014), Sec. 6.2–6.3:
//! Algorithm 1 ([`goldberg`](crate::oracle::arc_standard::goldberg)) with
//! each table entry keyed by the spine pair (ls, rs) of its tree instead of
//! its root.
//!
//! * The right stack is built as for arc-standard from the roots of the
//!   stack (Sec. 4.2); its fragments take new dependents at their root only
//!   (ls = rs = ⟨root⟩): their other words have all their gold dependents
//!   inside the fragment.
//! * T[i, j] maps spine pairs to the most gold arcs of a tree over
//!   σ_L[1 … i] and σ_R[1 … j] containing s₀ (σ_L[1] = σ_R[1] = s₀, σ_L read
//!   from the top with the stack elements' real spines). A tree grows by its
//!   left neighbour σ_L[i + 1] or its right neighbour σ_R[j + 1], either tree
//!   heading the other. Of the `left_arc_K` (`right_arc_K`) ways, only one is
//!   tried: the spine node that is the gold head of the other root, if any,
//!   else the deepest one (Sec. 6.2), which keeps the whole spine.
//! * Both restrictions of Sec. 6.3: (1) a spine keeps, besides its root,
//!   only words with a gold dependent that can still come: for ls, a root of
//!   σ_L[k] with **k > i** (the words further down the stack, the only ones
//!   left of the tree), for rs a root of σ_R[k] with k > j; (2) an entry is
//!   dropped when another with the same root, spines that are supersets, and
//!   at least as many gold arcs exists.
//!
//! **Correction.** The first restriction is printed with k < i for ls: that
//! keeps the words that could have taken dependents already inside the tree
//! and drops those that still can, so a later gold arc is missed. Found by
//! brute force (`tests/lr_spine.rs`,
//! `the_printed_spine_restriction_is_wrong`); the counterexample is in
//! `docs/systems.md`.
//!
//! Scores are gold arcs still buildable (as everywhere in this crate): the
//! step's own gold arc plus the table's value at the configuration after
//! the step, plus one gold arc per input word inside a fragment.
//!
//! # Complexity
//!
//! One table per applicable step (1 + |ls(s₀)| + |rs(s₁)| of them), each
//! O(ℓ_L · ℓ_R · e² · s) for e entries per cell and spines of s words
//! after the restrictions; the paper measures e growing linearly with
//! i + j on the Penn Treebank (Fig. 3), and s is bounded by the stack
//! depth. Every buffer is kept in [`SpineTable`]: no allocation once warm.

use crate::oracle::arc_standard::goldberg::GoldIndex;
use crate::oracle::{Configuration, OracleError, Step, StepScores, System, SPINE_CAPACITY};
use crate::tree::DepTree;
use std::ops::Range;

/// A stack element of the configuration scored: its root and its spines
/// (root first) in [`SpineTable::spines`].
#[derive(Clone, Debug)]
struct Elem {
    root: usize,
    ls: Range<usize>,
    rs: Range<usize>,
}

/// An entry of a cell of T: a tree with root `root`, spines at
/// `ls` / `rs` in its row's arena, and its gold arcs.
#[derive(Clone, Copy, Debug)]
struct Entry {
    root: u32,
    value: i32,
    ls: (u32, u32),
    rs: (u32, u32),
}

/// One row of T: a list of entries per column and the arena of their spines.
#[derive(Debug, Default)]
struct Row {
    cells: Vec<Vec<Entry>>,
    arena: Vec<u32>,
}

impl Row {
    fn reset(&mut self, columns: usize) {
        for c in self.cells.iter_mut() {
            c.clear();
        }
        if self.cells.len() < columns {
            self.cells.resize_with(columns, Vec::new);
        }
        self.arena.clear();
    }
    fn spine(&self, (start, len): (u32, u32)) -> &[u32] {
        &self.arena[start as usize..(start + len) as usize]
    }
    /// Stores `ls` and `rs` and adds the entry to column `j` (0-based).
    fn push(&mut self, j: usize, root: u32, value: i32, ls: &[u32], rs: &[u32]) {
        let a = self.arena.len() as u32;
        self.arena.extend_from_slice(ls);
        let b = self.arena.len() as u32;
        self.arena.extend_from_slice(rs);
        self.cells[j].push(Entry { root, value, ls: (a, ls.len() as u32), rs: (b, rs.len() as u32) });
    }
}

/// The LR-spine oracle with its reusable buffers (create once, call
/// [`SpineTable::scores`] for every configuration).
#[derive(Debug, Default)]
pub struct SpineTable {
    gold: GoldIndex,
    /// The spines of the stack elements (and of the successor's new top).
    spines: Vec<usize>,
    stack: Vec<Elem>,
    /// σ_L of the successor scored, from the top.
    left: Vec<Elem>,
    on_stack: Vec<bool>,
    is_root: Vec<bool>,
    right: Vec<usize>,
    /// need_left[x]: the largest i with x the gold head of root(σ_L[i]);
    /// need_right[x]: the largest j with x the gold head of σ_R[j] (0: none).
    need_left: Vec<usize>,
    need_right: Vec<usize>,
    row: Row,
    next_row: Row,
    survivors: Vec<Entry>,
    scratch_ls: Vec<u32>,
    scratch_rs: Vec<u32>,
    /// The values of the tables of the current family of steps, by their
    /// T[1, 1] pair: (start in `memo_arena`, |ls|, |rs|, value).
    memo: Vec<(u32, u32, u32, i32)>,
    memo_arena: Vec<u32>,
    /// Test hook: the first restriction as printed (k < i for ls).
    printed_restriction: bool,
}

impl SpineTable {
    /// A new oracle (no buffers yet).
    pub fn new() -> Self {
        Self::default()
    }

    /// The oracle with the first restriction of Sec. 6.3 as printed (ls keeps
    /// words with gold dependents among σ_L[k], k < i), which is wrong: for
    /// the test that shows it.
    #[doc(hidden)]
    pub fn with_printed_restriction() -> Self {
        SpineTable { printed_restriction: true, ..Self::default() }
    }

    /// Scores every applicable step of `config` (LR-spine) for `gold`, over
    /// all computations (strategy none). Projective gold trees only
    /// ([`OracleError::ProjectiveOnly`]); spines of s₀ and s₁ up to
    /// [`SPINE_CAPACITY`] ([`OracleError::SpineTooLong`]). See the module doc
    /// for the complexity; no allocation once warm.
    pub fn scores(&mut self, config: &Configuration, gold: &DepTree) -> Result<StepScores, OracleError> {
        if config.system() != System::LrSpine {
            return Err(OracleError::WrongSystem { expected: System::LrSpine, found: config.system() });
        }
        config.check_gold(gold)?;
        self.gold.prepare(gold);
        if !self.gold.is_projective() {
            return Err(OracleError::ProjectiveOnly(System::LrSpine));
        }
        let (nl, nr) = super::LrSpine::spine_lengths(config);
        if nl.max(nr) > SPINE_CAPACITY {
            return Err(OracleError::SpineTooLong { len: nl.max(nr), max: SPINE_CAPACITY });
        }
        let n = config.sentence_len();
        for v in [&mut self.on_stack, &mut self.is_root] {
            v.clear();
            v.resize(n + 1, false);
        }
        for v in [&mut self.need_left, &mut self.need_right] {
            v.clear();
            v.resize(n + 1, 0);
        }
        self.spines.clear();
        self.stack.clear();
        for &a in config.stack() {
            self.on_stack[a] = true;
            let s = self.spines.len();
            self.spines.extend(config.left_spine(a));
            let m = self.spines.len();
            self.spines.extend(config.right_spine(a));
            self.stack.push(Elem { root: a, ls: s..m, rs: m..self.spines.len() });
        }
        let base = self.spines.len();
        let next = config.next_input().unwrap_or(n + 1);
        let k = self.stack.len();
        let mut scores = StepScores::default();
        if next <= n {
            self.clear_memo();
            self.left.clear();
            let s = self.spines.len();
            self.spines.extend([next, next]);
            self.left.push(Elem { root: next, ls: s..s + 1, rs: s + 1..s + 2 });
            self.left.extend(self.stack.iter().rev().cloned());
            self.on_stack[next] = true;
            scores.set(Step::Shift, Some(self.value(next)));
            self.on_stack[next] = false;
            self.spines.truncate(base);
        }
        if k >= 2 {
            let (s1, s0) = (self.stack[k - 2].clone(), self.stack[k - 1].clone());
            // right_arc_K: rs(s₁)[K] → s₀, pop s₀; the new top is s₁ with rs(s₁)[..K] ⊕ rs(s₀).
            self.on_stack[s0.root] = false;
            self.clear_memo();
            for kk in 1..=s1.rs.len() {
                let h = self.spines[s1.rs.start + kk - 1];
                let s = self.spines.len();
                self.spines.extend_from_within(s1.rs.start..s1.rs.start + kk);
                self.spines.extend_from_within(s0.rs.clone());
                let top = Elem { root: s1.root, ls: s1.ls.clone(), rs: s..self.spines.len() };
                self.left.clear();
                self.left.push(top);
                self.left.extend(self.stack[..k - 2].iter().rev().cloned());
                let v = self.value(next - 1) + (self.gold.head(s0.root) == h) as u32;
                scores.set(Step::RightArcAt(kk as u32), Some(v));
                self.spines.truncate(base);
            }
            self.on_stack[s0.root] = true;
            if k >= 3 {
                // left_arc_K: ls(s₀)[K] → s₁, remove s₁; the new top is s₀ with ls(s₀)[..K] ⊕ ls(s₁).
                self.on_stack[s1.root] = false;
                self.clear_memo();
                for kk in 1..=s0.ls.len() {
                    let h = self.spines[s0.ls.start + kk - 1];
                    let s = self.spines.len();
                    self.spines.extend_from_within(s0.ls.start..s0.ls.start + kk);
                    self.spines.extend_from_within(s1.ls.clone());
                    let top = Elem { root: s0.root, ls: s..self.spines.len(), rs: s0.rs.clone() };
                    self.left.clear();
                    self.left.push(top);
                    self.left.extend(self.stack[..k - 2].iter().rev().cloned());
                    let v = self.value(next - 1) + (self.gold.head(s1.root) == h) as u32;
                    scores.set(Step::LeftArcAt(kk as u32), Some(v));
                    self.spines.truncate(base);
                }
                self.on_stack[s1.root] = true;
            }
        }
        Ok(scores)
    }

    /// Forgets the tables of the previous family of steps.
    fn clear_memo(&mut self) {
        self.memo.clear();
        self.memo_arena.clear();
    }

    /// Whether word `x` stays on a left spine in row `i` (1-based): it has a
    /// gold dependent among the roots of σ_L[k], k > i (printed: k < i).
    fn keep_left(&self, x: u32, i: usize) -> bool {
        let need = self.need_left[x as usize];
        if self.printed_restriction {
            // need_left holds the smallest such k in this mode.
            need != 0 && need < i
        } else {
            need > i
        }
    }

    /// Whether word `x` stays on a right spine in column `j` (1-based).
    fn keep_right(&self, x: u32, j: usize) -> bool {
        self.need_right[x as usize] > j
    }

    /// The most gold arcs that complete computations build from the
    /// configuration with stack `self.left` (top first, roots marked in
    /// `on_stack`) and input after `last` (the last word that left the input).
    fn value(&mut self, last: usize) -> u32 {
        let next = last + 1;
        let inside = self.gold.right_stack(&self.on_stack, next, &mut self.right, &mut self.is_root);
        let (ll, lr) = (self.left.len(), self.right.len() + 1);
        for (i, e) in self.left.iter().enumerate() {
            let h = self.gold.head(e.root);
            if h != DepTree::NO_HEAD {
                let need = &mut self.need_left[h];
                *need = if self.printed_restriction && *need != 0 { (*need).min(i + 1) } else { i + 1 };
            }
        }
        for (j, &c) in self.right.iter().enumerate() {
            let h = self.gold.head(c);
            if h != DepTree::NO_HEAD {
                self.need_right[h] = j + 2;
            }
        }
        self.row.reset(lr);
        // T[1, 1]: s₀ with its spines, restricted.
        {
            let top = &self.left[0];
            self.scratch_ls.clear();
            self.scratch_rs.clear();
            for (t, x) in self.spines[top.ls.clone()].iter().enumerate() {
                if t == 0 || self.keep_left(*x as u32, 1) {
                    self.scratch_ls.push(*x as u32);
                }
            }
            for (t, x) in self.spines[top.rs.clone()].iter().enumerate() {
                if t == 0 || self.keep_right(*x as u32, 1) {
                    self.scratch_rs.push(*x as u32);
                }
            }
            let root = top.root as u32;
            self.row.push(0, root, 0, &self.scratch_ls, &self.scratch_rs);
        }
        // Within a family of steps (every `right_arc_K`, every `left_arc_K`)
        // only T[1, 1] differs; after restriction 1 many K give the same one.
        let key = (self.scratch_ls.len(), self.scratch_rs.len());
        let found = self.memo.iter().find(|m| {
            let (a, b) = (m.0 as usize, m.0 as usize + key.0);
            (m.1 as usize, m.2 as usize) == key
                && self.memo_arena[a..b] == self.scratch_ls[..]
                && self.memo_arena[b..b + key.1] == self.scratch_rs[..]
        });
        let best = match found {
            Some(m) => m.3,
            None => {
                let start = self.memo_arena.len() as u32;
                self.memo_arena.extend_from_slice(&self.scratch_ls);
                self.memo_arena.extend_from_slice(&self.scratch_rs);
                let best = self.table(ll, lr);
                self.memo.push((start, key.0 as u32, key.1 as u32, best));
                best
            }
        };
        for e in self.left.iter() {
            let h = self.gold.head(e.root);
            if h != DepTree::NO_HEAD {
                self.need_left[h] = 0;
            }
        }
        for &c in self.right.iter() {
            self.need_right[self.gold.head(c)] = 0;
        }
        debug_assert!(best >= 0, "every configuration completes");
        best.max(0) as u32 + inside
    }

    /// Algorithm 1 over spine pairs from T[1, 1] (already in `row`) to
    /// T[ℓ_L, ℓ_R]: the best entry with root 0.
    fn table(&mut self, ll: usize, lr: usize) -> i32 {
        let mut best = i32::MIN;
        for i in 1..=ll {
            if i < ll {
                self.next_row.reset(lr);
            }
            for j in 1..=lr {
                self.prune(j - 1);
                for e in 0..self.survivors.len() {
                    let entry = self.survivors[e];
                    if i == ll && j == lr {
                        if entry.root == 0 {
                            best = best.max(entry.value);
                        }
                        continue;
                    }
                    if i < ll {
                        self.expand_left(i, j, entry);
                    }
                    if j < lr {
                        self.expand_right(i, j, entry);
                    }
                }
            }
            if i < ll {
                std::mem::swap(&mut self.row, &mut self.next_row);
            }
        }
        best
    }

    /// The second restriction of Sec. 6.3 on column `j` (0-based) of the
    /// current row, into `survivors`: drop an entry when another with the same
    /// root has superset spines and at least its value (ties: the first kept).
    fn prune(&mut self, j: usize) {
        self.survivors.clear();
        // By root, then most gold arcs first: only entries of one root compete.
        self.row.cells[j].sort_unstable_by(|x, y| x.root.cmp(&y.root).then(y.value.cmp(&x.value)));
        let cell = &self.row.cells[j];
        let mut start = 0;
        while start < cell.len() {
            let end = start + cell[start..].iter().take_while(|e| e.root == cell[start].root).count();
            let group = &cell[start..end];
            'entries: for (a, ea) in group.iter().enumerate() {
                // Sorted by value descending: only earlier entries (or equal ones) can dominate.
                for (b, eb) in group.iter().enumerate() {
                    if a == b || eb.value < ea.value {
                        continue;
                    }
                    let covers = subset(self.row.spine(ea.ls), self.row.spine(eb.ls))
                        && subset(self.row.spine(ea.rs), self.row.spine(eb.rs));
                    if covers {
                        let same = eb.value == ea.value
                            && subset(self.row.spine(eb.ls), self.row.spine(ea.ls))
                            && subset(self.row.spine(eb.rs), self.row.spine(ea.rs));
                        // Equal entries: keep the first only.
                        if !same || b < a {
                            continue 'entries;
                        }
                    }
                }
                self.survivors.push(*ea);
            }
            start = end;
        }
    }

    /// Combines `entry` of T[i, j] with the tree of σ_L[i + 1] (the stack
    /// element below), into T[i + 1, j].
    fn expand_left(&mut self, i: usize, j: usize, entry: Entry) {
        let b = self.left[i].clone();
        // left_arc: a node of ls(a) → root(b) (b ≠ 0); the gold head if on the spine, else the deepest.
        if b.root != 0 {
            let head = self.gold.head(b.root);
            self.scratch_ls.clear();
            let ls = self.row.spine(entry.ls);
            let (cut, gain) = match ls.iter().position(|&x| x as usize == head) {
                Some(p) => (p + 1, 1),
                None => (ls.len(), 0),
            };
            for &x in &ls[..cut] {
                self.scratch_ls.push(x);
            }
            for &x in &self.spines[b.ls.clone()] {
                self.scratch_ls.push(x as u32);
            }
            let root = entry.root;
            self.filter_left(i + 1, root);
            self.scratch_rs.clear();
            self.scratch_rs.extend_from_slice(self.row.spine(entry.rs));
            self.next_row.push(j - 1, root, entry.value + gain, &self.scratch_ls, &self.scratch_rs);
        }
        // right_arc: a node of rs(b) → root(a); the gold head if on the spine, else the deepest.
        {
            let head = self.gold.head(entry.root as usize);
            let rs_b = &self.spines[b.rs.clone()];
            let (cut, gain) = match rs_b.iter().position(|&x| x == head) {
                Some(p) => (p + 1, 1),
                None => (rs_b.len(), 0),
            };
            self.scratch_rs.clear();
            self.scratch_rs.extend(rs_b[..cut].iter().map(|&x| x as u32));
            self.scratch_rs.extend_from_slice(self.row.spine(entry.rs));
            self.filter_right(j, b.root as u32);
            self.scratch_ls.clear();
            self.scratch_ls.extend(self.spines[b.ls.clone()].iter().map(|&x| x as u32));
            self.filter_left(i + 1, b.root as u32);
            self.next_row.push(j - 1, b.root as u32, entry.value + gain, &self.scratch_ls, &self.scratch_rs);
        }
    }

    /// Combines `entry` of T[i, j] with the fragment of σ_R[j + 1] (spines
    /// ⟨c⟩), into T[i, j + 1].
    fn expand_right(&mut self, i: usize, j: usize, entry: Entry) {
        let c = self.right[j - 1] as u32;
        // left_arc: c → root(a) (root(a) ≠ 0); c is the new root, ls = ⟨c⟩ ⊕ ls(a).
        if entry.root != 0 {
            let gain = (self.gold.head(entry.root as usize) == c as usize) as i32;
            self.scratch_ls.clear();
            self.scratch_ls.push(c);
            self.scratch_ls.extend_from_slice(self.row.spine(entry.ls));
            self.filter_left(i, c);
            self.scratch_rs.clear();
            self.scratch_rs.push(c);
            self.row.push(j, c, entry.value + gain, &self.scratch_ls, &self.scratch_rs);
        }
        // right_arc: a node of rs(a) → c; the gold head if on the spine, else the deepest.
        {
            let head = self.gold.head(c as usize);
            let rs = self.row.spine(entry.rs);
            let (cut, gain) = match rs.iter().position(|&x| x as usize == head) {
                Some(p) => (p + 1, 1),
                None => (rs.len(), 0),
            };
            self.scratch_rs.clear();
            self.scratch_rs.extend_from_slice(&rs[..cut]);
            self.scratch_rs.push(c);
            self.filter_right(j + 1, entry.root);
            self.scratch_ls.clear();
            self.scratch_ls.extend_from_slice(self.row.spine(entry.ls));
            self.row.push(j, entry.root, entry.value + gain, &self.scratch_ls, &self.scratch_rs);
        }
    }

    /// Restriction 1 on `scratch_ls` for row `i`: the root and the words with
    /// gold dependents still to come from the stack.
    fn filter_left(&mut self, i: usize, root: u32) {
        let mut ls = std::mem::take(&mut self.scratch_ls);
        ls.retain(|&x| x == root || self.keep_left(x, i));
        self.scratch_ls = ls;
    }

    /// Restriction 1 on `scratch_rs` for column `j`.
    fn filter_right(&mut self, j: usize, root: u32) {
        let mut rs = std::mem::take(&mut self.scratch_rs);
        rs.retain(|&x| x == root || self.keep_right(x, j));
        self.scratch_rs = rs;
    }
}

/// Whether every word of spine `a` is in spine `b` (both in spine order, so
/// monotone in position). O(|a| + |b|).
fn subset(a: &[u32], b: &[u32]) -> bool {
    if a.len() > b.len() {
        return false;
    }
    // A spine is sorted (decreasing for ls, increasing for rs) after its root;
    // the sets are small, so a direct scan is fastest.
    a.iter().all(|x| b.contains(x))
}
