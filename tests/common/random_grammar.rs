//! Random split bilexical grammars, inputs and weights small enough for the
//! brute-force references of this folder (n ≤ 6), as a proptest strategy.

use proptest::prelude::*;
use tabula::grammar::{Grammar, GrammarBuilder, Terminal};

/// A random split grammar, input and weights, small enough for brute force.
#[derive(Clone, Debug)]
pub struct Case {
    pub categories: usize,
    pub left_states: usize,
    pub right_states: usize,
    /// Per terminal: (left state, right state).
    pub lexical: Vec<(usize, usize)>,
    /// (category, left, right).
    pub finish: Vec<(usize, usize, usize)>,
    /// (to, child, from).
    pub left: Vec<(usize, usize, usize)>,
    /// (to, from, child).
    pub right: Vec<(usize, usize, usize)>,
    pub input: Vec<usize>,
    /// w(h, d) at h·(n+1) + d; `None` is 𝟘.
    pub weights: Vec<Option<u8>>,
}

pub fn case() -> impl Strategy<Value = Case> {
    (1..=3usize, 1..=3usize, 1..=3usize, 1..=2usize, 0..=6usize).prop_flat_map(|(c, l, r, t, n)| {
        let pick = |len: usize, p: f64| proptest::collection::vec(proptest::bool::weighted(p), len);
        (
            proptest::collection::vec((0..l, 0..r), t),
            proptest::collection::vec((0..l, 0..r), c),
            pick(c * l * r, 0.3),
            pick(l * c * l, 0.4),
            pick(r * r * c, 0.4),
            proptest::collection::vec(0..t, n + 1),
            proptest::collection::vec(proptest::option::weighted(0.85, 0..3u8), (n + 1) * (n + 1)),
        )
            .prop_map(move |(lexical, forced, fin, lm, rm, input, weights)| {
                let mut finish: Vec<_> = forced.iter().enumerate().map(|(a, &(b, cc))| (a, b, cc)).collect();
                for a in 0..c {
                    for b in 0..l {
                        for cc in 0..r {
                            if fin[(a * l + b) * r + cc] && !finish.contains(&(a, b, cc)) {
                                finish.push((a, b, cc));
                            }
                        }
                    }
                }
                let left = (0..l * c * l).filter(|&i| lm[i]).map(|i| (i / (c * l), i / l % c, i % l)).collect();
                let right = (0..r * r * c).filter(|&i| rm[i]).map(|i| (i / (r * c), i / c % r, i % c)).collect();
                Case { categories: c, left_states: l, right_states: r, lexical, finish, left, right, input, weights }
            })
    })
}

impl Case {
    pub fn grammar(&self) -> Grammar {
        let mut b = GrammarBuilder::new();
        b.start("C0");
        for (t, &(l, r)) in self.lexical.iter().enumerate() {
            b.lexical(&format!("L{l}"), &format!("R{r}"), &format!("t{t}"));
        }
        for &(a, l, r) in &self.finish {
            b.finish(&format!("C{a}"), &format!("L{l}"), &format!("R{r}"));
        }
        for &(to, a, from) in &self.left {
            b.left_attach(&format!("L{to}"), &format!("C{a}"), &format!("L{from}"));
        }
        for &(to, from, a) in &self.right {
            b.right_attach(&format!("R{to}"), &format!("R{from}"), &format!("C{a}"));
        }
        let g = b.build().expect("every category has a finish rule");
        assert!(g.num_categories() <= self.categories);
        assert!(g.num_left_states() <= self.left_states && g.num_right_states() <= self.right_states);
        g
    }
    pub fn input(&self, g: &Grammar) -> Vec<Terminal> {
        self.input.iter().map(|t| g.terminal(&format!("t{t}")).unwrap()).collect()
    }
    pub fn weight(&self, h: usize, d: usize) -> Option<u8> {
        self.weights[h * self.input.len() + d]
    }
}
