//! Random gold trees and stray walks shared by the oracle benches.
#![allow(dead_code)]

use rand::seq::SliceRandom;
use rand::Rng;
use tabula::oracle::{Algorithm, Configuration, Oracle, Step, Strategy, System};
use tabula::tree::DepTree;

/// A random tree over 0 … n: nodes in random order, each headed by 0 or an
/// earlier one (generally non-projective).
pub fn random_tree(n: usize, rng: &mut impl Rng) -> DepTree {
    let mut order: Vec<usize> = (1..=n).collect();
    order.shuffle(rng);
    let mut heads = vec![0; n];
    for (i, &v) in order.iter().enumerate() {
        let c = rng.gen_range(0..=i);
        heads[v - 1] = if c == 0 { 0 } else { order[c - 1] };
    }
    DepTree::from_heads(&heads).expect("acyclic")
}

/// A random projective tree: consecutive short segments hang from a common
/// head, a few children per head, like natural language.
pub fn random_projective(n: usize, rng: &mut impl Rng) -> DepTree {
    fn fill(lo: usize, hi: usize, head: usize, heads: &mut [usize], rng: &mut impl Rng) {
        let mut s = lo;
        while s <= hi {
            let span = rng.gen_range(0..8);
            let e = rng.gen_range(s..=hi.min(s + span));
            let r = rng.gen_range(s..=e);
            heads[r - 1] = head;
            if r > s {
                fill(s, r - 1, r, heads, rng);
            }
            fill(r + 1, e, r, heads, rng);
            s = e + 1;
        }
    }
    let mut heads = vec![0; n];
    fill(1, n, 0, &mut heads, rng);
    DepTree::from_heads(&heads).expect("a tree")
}

/// One computation of `system` for `gold`, scored under `strategy` and
/// `algorithm`: at each step a random applicable step with probability
/// `stray`, else a random optimal one. Returns every non-final
/// configuration on the way (what the oracle benches time).
pub fn stray_walk(
    system: System,
    gold: &DepTree,
    oracle: &mut Oracle<'static>,
    (strategy, algorithm): (Strategy, Algorithm),
    stray: f64,
    rng: &mut impl Rng,
) -> Vec<Configuration> {
    let mut c = Configuration::initial(system, gold.len());
    let mut out = Vec::new();
    while !c.is_final() {
        out.push(c.clone());
        let scores = oracle.scores(&c, gold, strategy, algorithm).expect("scores");
        let optimal = scores.optimal();
        let step = if rng.gen_bool(stray) || optimal.is_empty() {
            *c.applicable_steps().collect::<Vec<Step>>().choose(rng).expect("a step")
        } else {
            *optimal.choose(rng).expect("an optimal step")
        };
        c.apply(step).expect("applicable");
    }
    out
}
