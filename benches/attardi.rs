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

use common::{random_projective, random_tree, stray_walk};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tabula::oracle::{Algorithm, Configuration, Oracle, Strategy, System};
use tabula::tree::DepTree;

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
                let configs = stray_walk(
                    System::Attardi,
                    &gold,
                    &mut oracle,
                    (Strategy::None, Algorithm::Tabular),
                    0.3,
                    &mut rng,
                );
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
