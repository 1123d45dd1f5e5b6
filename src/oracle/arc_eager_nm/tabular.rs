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

use crate::oracle::system::{Configuration, System};
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

const NONE: i32 = i32::MIN / 4;

/// The table and its buffers, reused between calls (no allocation once
/// warm for a sentence length).
#[derive(Default)]
pub struct TabularOracle {
    kinds: Vec<Kind>,
    words: Vec<usize>,
    /// Complete right / left spans, incomplete spans (right: plain and
    /// needing the last item; left), L × L, row-major.
    cr: Vec<i32>,
    cl: Vec<i32>,
    ir: Vec<i32>,
    ir_end: Vec<i32>,
    il: Vec<i32>,
    scratch: Option<Configuration>,
}

impl TabularOracle {
    /// A fresh oracle.
    pub fn new() -> Self {
        Self::default()
    }

    /// Scores every applicable step of `config` (a non-monotonic arc-eager
    /// configuration) for `gold`: the most gold arcs into the live items
    /// that a final tree reachable with the step first can have. O(n³).
    pub fn scores(&mut self, config: &Configuration, gold: &DepTree) -> Result<StepScores, OracleError> {
        if config.system() != System::ArcEagerNm {
            return Err(OracleError::WrongSystem { expected: System::ArcEagerNm, found: config.system() });
        }
        config.check_gold(gold)?;
        let def = config.system().definition();
        let mut scores = StepScores::default();
        let mut next = self.scratch.take().unwrap_or_else(|| config.clone());
        for step in config.applicable_steps() {
            let gained = def.settled_arc(config, step).map_or(0, |(h, d)| gold.has_arc(h, d) as u32);
            next.assign(config);
            next.apply(step)?;
            scores.set(step, Some(gained + self.best(&next, gold)));
        }
        self.scratch = Some(next);
        Ok(scores)
    }

    /// The most gold arcs into live items of any final tree reachable from
    /// `c` (0 if `c` is final). O(L³).
    pub fn best(&mut self, c: &Configuration, gold: &DepTree) -> u32 {
        self.kinds.clear();
        self.words.clear();
        for &a in c.stack() {
            let kind = match (a, c.head(a)) {
                (0, _) => Kind::Root,
                (_, Some(_)) => Kind::Headed,
                (_, None) => Kind::Headless,
            };
            self.kinds.push(kind);
            self.words.push(a);
        }
        for b in c.buffer() {
            self.kinds.push(Kind::Input);
            self.words.push(b);
        }
        let l = self.words.len();
        for t in [&mut self.cr, &mut self.cl, &mut self.ir, &mut self.ir_end, &mut self.il] {
            t.clear();
            t.resize(l * l, NONE);
        }
        for i in 0..l {
            self.cr[i * l + i] = 0;
            self.cl[i * l + i] = 0;
        }
        let (kinds, words) = (&self.kinds, &self.words);
        let score = |h: usize, d: usize| gold.has_arc(words[h], words[d]) as i32;
        let at = |i: usize, j: usize| i * l + j;
        for width in 1..l {
            for i in 0..l - width {
                let j = i + width;
                // Incomplete spans: i → j and j → i.
                let mut right = NONE;
                let mut left = NONE;
                for m in i..j {
                    let split = self.cr[at(i, m)].saturating_add(self.cl[at(m + 1, j)]);
                    if split < 0 {
                        continue;
                    }
                    // j's left half is cl[m + 1][j]: live left dependents of j exist iff m + 1 < j.
                    if m + 1 == j || kinds[j] != Kind::Headed {
                        right = right.max(split);
                    }
                    left = left.max(split);
                }
                let (ri, rj) = (kinds[i], kinds[j]);
                // i → j (head left of the dependent).
                let right_ok = match rj {
                    Kind::Root => false,
                    Kind::Headed => i + 1 == j,
                    Kind::Headless | Kind::Input => true,
                };
                if right_ok && right >= 0 {
                    let v = right + score(i, j);
                    if rj == Kind::Headless && i + 1 < j {
                        self.ir_end[at(i, j)] = v;
                    } else {
                        self.ir[at(i, j)] = v;
                    }
                }
                // j → i (head right of the dependent): j must be an input word or a headless stack word.
                let left_ok = ri != Kind::Root && matches!(rj, Kind::Input | Kind::Headless);
                if left_ok && left >= 0 {
                    self.il[at(i, j)] = left + score(j, i);
                }
                // Complete spans.
                let mut cr = NONE;
                for m in i + 1..=j {
                    let tail = self.cr[at(m, j)];
                    if tail < 0 {
                        continue;
                    }
                    cr = cr.max(self.ir[at(i, m)].saturating_add(tail));
                    if j == l - 1 {
                        cr = cr.max(self.ir_end[at(i, m)].saturating_add(tail));
                    }
                }
                self.cr[at(i, j)] = cr.max(NONE);
                let mut cl = NONE;
                for (m, &kind) in kinds.iter().enumerate().take(j).skip(i) {
                    // m is j's dependent; cl[i][m] its left half.
                    let stack_word = matches!(kind, Kind::Headed | Kind::Headless);
                    if stack_word && i < m {
                        continue;
                    }
                    cl = cl.max(self.cl[at(i, m)].saturating_add(self.il[at(m, j)]));
                }
                self.cl[at(i, j)] = cl.max(NONE);
            }
        }
        let best = self.cr[at(0, l - 1)];
        debug_assert!(best >= 0, "some final tree is always reachable");
        best.max(0) as u32
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
