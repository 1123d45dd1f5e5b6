//! Attardi's tabular oracle (seed 002, Algorithm 1 corrected): the scores of
//! one configuration by sentence length n, on configurations of
//! computations that take a random applicable step with probability 0.3
//! and an optimal one otherwise:
//!
//! * `random` — random, generally very non-projective gold trees (little
//!   buffer reduction: the table's worst side);
//! * `projective` — random projective trees shaped like natural language
//!   (consecutive short segments; the buffer reduces well).
//!
//! `cargo bench --bench attardi`; criterion reports throughput in
//! configurations per second; the time per configuration is its inverse.

mod common;

use common::{random_projective, random_tree};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tabula::oracle::{Algorithm, Configuration, Oracle, Step, Strategy, System};
use tabula::tree::DepTree;

/// One computation for `gold` (stray 0.3): every non-final configuration on the way.
fn walk(gold: &DepTree, oracle: &mut Oracle<'static>, rng: &mut ChaCha8Rng) -> Vec<Configuration> {
    let mut c = Configuration::initial(System::Attardi, gold.len());
    let mut out = Vec::new();
    while !c.is_final() {
        out.push(c.clone());
        let scores = oracle.scores(&c, gold, Strategy::None, Algorithm::Tabular).expect("scores");
        let optimal = scores.optimal();
        let step = if rng.gen_bool(0.3) || optimal.is_empty() {
            *c.applicable_steps().collect::<Vec<Step>>().choose(rng).expect("a step")
        } else {
            *optimal.choose(rng).expect("an optimal step")
        };
        c.apply(step).expect("applicable");
    }
    out
}

fn bench(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut oracle = Oracle::new();
    let mut group = c.benchmark_group("attardi");
    group.sample_size(10);
    for (kind, sizes) in [("random", &[8usize, 12, 16, 20][..]), ("projective", &[10, 20, 40, 80][..])] {
        for &n in sizes {
            let mut batch: Vec<(DepTree, Configuration)> = Vec::new();
            while batch.len() < 40 {
                let gold = if kind == "random" { random_tree(n, &mut rng) } else { random_projective(n, &mut rng) };
                let configs = walk(&gold, &mut oracle, &mut rng);
                batch.extend(configs.choose_multiple(&mut rng, 8).map(|c| (gold.clone(), c.clone())));
            }
            group.throughput(Throughput::Elements(batch.len() as u64));
            group.bench_with_input(BenchmarkId::new(kind, n), &batch, |b, batch| {
                b.iter(|| {
                    for (gold, config) in batch {
                        black_box(oracle.scores(config, gold, Strategy::None, Algorithm::Tabular).expect("scores"));
                    }
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
