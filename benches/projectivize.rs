//! Optimal projectivization: the generic engine (Table 3 grammar, max-plus)
//! against a specialised first-order Eisner, over every tree of
//! `../shared/ud/v2.2/en_ewt-ud-train.conllu.xz` when present (else 2,000
//! random trees), without the projective fast path; plus counting in the
//! (max, count) semiring over la_perseus.
//!
//! Run: `cargo bench --bench projectivize`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rand::{Rng, SeedableRng};
use std::path::Path;
use std::process::Command;
use tabula::conllu::Reader;
use tabula::grammar::text;
use tabula::projectivize::{Counter, OptimalProjectivizer, TreeClass};
use tabula::tree::DepTree;

/// Every tree of an xz-compressed shared treebank, if it is there.
fn treebank(name: &str) -> Option<Vec<DepTree>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/ud/v2.2").join(name);
    if !path.exists() {
        return None;
    }
    let out = Command::new("xz").arg("-dc").arg(&path).output().ok()?;
    Reader::new(out.stdout.as_slice(), name).map(|s| s.ok().map(|s| s.tree().clone())).collect()
}

fn random_trees(count: usize) -> Vec<DepTree> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    (0..count)
        .map(|_| {
            let n = rng.gen_range(1..=40);
            let heads: Vec<usize> = (1..=n).map(|d| if d == 1 { 0 } else { rng.gen_range(0..d) }).collect();
            DepTree::from_heads(&heads).unwrap()
        })
        .collect()
}

/// First-order Eisner (1996) in max-plus over i64, specialised to the gold
/// weights w(h, d) = [gold head of d is h]: complete and incomplete spans
/// in flat tables reused across calls. O(n³). The baseline the generic
/// engine is measured against.
#[derive(Default)]
struct Eisner {
    complete_left: Vec<i64>,
    complete_right: Vec<i64>,
    incomplete_left: Vec<i64>,
    incomplete_right: Vec<i64>,
}

const NEG: i64 = i64::MIN / 4;

impl Eisner {
    fn best(&mut self, gold: &DepTree) -> i64 {
        let size = gold.len() + 1;
        let sq = size * size;
        for t in
            [&mut self.complete_left, &mut self.complete_right, &mut self.incomplete_left, &mut self.incomplete_right]
        {
            if t.len() < sq {
                t.resize(sq, 0);
            }
        }
        let at = |s: usize, t: usize| s * size + t;
        let w = |h: usize, d: usize| -> i64 {
            if d == 0 {
                NEG
            } else {
                i64::from(gold.head(d) == h)
            }
        };
        for s in 0..size {
            self.complete_left[at(s, s)] = 0;
            self.complete_right[at(s, s)] = 0;
        }
        for width in 1..size {
            for s in 0..size - width {
                let t = s + width;
                let mut best = NEG;
                for r in s..t {
                    best = best.max(self.complete_right[at(s, r)] + self.complete_left[at(r + 1, t)]);
                }
                self.incomplete_left[at(s, t)] = best + w(t, s);
                self.incomplete_right[at(s, t)] = best + w(s, t);
                let mut left = NEG;
                for r in s..t {
                    left = left.max(self.complete_left[at(s, r)] + self.incomplete_left[at(r, t)]);
                }
                self.complete_left[at(s, t)] = left;
                let mut right = NEG;
                for r in s + 1..=t {
                    right = right.max(self.incomplete_right[at(s, r)] + self.complete_right[at(r, t)]);
                }
                self.complete_right[at(s, t)] = right;
            }
        }
        self.complete_right[at(0, size - 1)]
    }
}

fn bench(c: &mut Criterion) {
    let g = text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE).unwrap().grammar;
    let (name, trees) = match treebank("en_ewt-ud-train.conllu.xz") {
        Some(t) => ("en_ewt-train", t),
        None => ("random", random_trees(2000)),
    };
    // The two must agree before they are timed.
    let mut engine = OptimalProjectivizer::new(&g, TreeClass::Projective).unwrap();
    let mut eisner = Eisner::default();
    for t in &trees {
        assert_eq!(engine.best_score(t).unwrap() as i64, eisner.best(t));
    }
    let mut group = c.benchmark_group(format!("all trees of {name}, no fast path"));
    group.sample_size(10);
    group.bench_function("engine (Table 3, max-plus)", |b| {
        b.iter(|| trees.iter().map(|t| engine.best_score(black_box(t)).unwrap()).sum::<usize>())
    });
    group.bench_function("specialised Eisner", |b| {
        b.iter(|| trees.iter().map(|t| eisner.best(black_box(t))).sum::<i64>())
    });
    group.bench_function("engine with backtrace", |b| {
        b.iter(|| trees.iter().map(|t| engine.projectivize_with_engine(black_box(t)).unwrap().score).sum::<usize>())
    });
    group.finish();

    if let Some(trees) = treebank("la_perseus-ud-train.conllu.xz") {
        let mut group = c.benchmark_group("la_perseus-train");
        group.sample_size(10);
        let mut counter = Counter::new(&g, TreeClass::Projective).unwrap();
        group.bench_function("count (max, count)", |b| {
            b.iter(|| trees.iter().map(|t| counter.count(black_box(t)).unwrap().best).sum::<usize>())
        });
        group.bench_function("projectivize (fast path + engine)", |b| {
            b.iter(|| trees.iter().map(|t| engine.projectivize(black_box(t)).unwrap().score).sum::<usize>())
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
