//! Arc-hybrid and arc-eager: the optimal step per configuration by sentence
//! length n, on configurations of computations that take a random
//! applicable step with probability 0.3 and an optimal one otherwise:
//!
//! * `grammar` — the grammar oracle (`Algorithm::Cubic`) on random,
//!   generally non-projective gold trees;
//! * `closed-form` — one-shot closed-form calls (`Algorithm::Linear`, O(n))
//!   on random projective trees;
//! * `session` — the same computations followed by an [`OracleSession`]
//!   (O(1) per step; set-up, `scores` and `apply` included).
//!
//! * `arc-eager-nm/reuse` — non-monotonic arc-eager's tabular oracle at
//!   every configuration of such computations (random trees, a random step
//!   with probability 0.1), in their order, so that it keeps the input's
//!   rows from one configuration to the next; `arc-eager-nm/fresh` — the
//!   same calls filling every table from scratch.
//!
//! `cargo bench --bench systems`; criterion reports throughput in
//! configurations per second; the time per configuration is its inverse.

mod common;

use common::{random_projective, random_tree, stray_walk};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tabula::oracle::arc_eager_nm::tabular::TabularOracle;
use tabula::oracle::session::OracleSession;
use tabula::oracle::{Algorithm, Configuration, Oracle, Step, Strategy, System};
use tabula::tree::DepTree;

fn bench(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let mut oracle = Oracle::new();
    for system in [System::ArcHybrid, System::ArcEager] {
        let mut group = c.benchmark_group(format!("systems/{system}"));
        for n in [10usize, 20, 40, 80, 160] {
            // The grammar oracle on non-projective trees: a sample of configurations.
            let mut batch: Vec<(DepTree, Configuration)> = Vec::new();
            while batch.len() < 100 {
                let gold = random_tree(n, &mut rng);
                let configs = stray_walk(system, &gold, &mut oracle, (Strategy::Lbr, Algorithm::Auto), 0.3, &mut rng);
                batch.extend(configs.choose_multiple(&mut rng, 10).map(|c| (gold.clone(), c.clone())));
            }
            group.throughput(Throughput::Elements(batch.len() as u64));
            group.bench_with_input(BenchmarkId::new("grammar", n), &batch, |b, batch| {
                b.iter(|| {
                    for (gold, config) in batch {
                        black_box(oracle.scores(config, gold, Strategy::Lbr, Algorithm::Cubic).expect("scores"));
                    }
                })
            });
            // The closed form on whole computations over projective trees.
            let walks: Vec<(DepTree, Vec<Configuration>)> = (0..(3200 / n).max(4))
                .map(|_| {
                    let gold = random_projective(n, &mut rng);
                    let configs =
                        stray_walk(system, &gold, &mut oracle, (Strategy::Lbr, Algorithm::Auto), 0.3, &mut rng);
                    (gold, configs)
                })
                .collect();
            let configurations: usize = walks.iter().map(|(_, c)| c.len()).sum();
            group.throughput(Throughput::Elements(configurations as u64));
            group.bench_with_input(BenchmarkId::new("closed-form", n), &walks, |b, walks| {
                b.iter(|| {
                    for (gold, configs) in walks {
                        for config in configs {
                            black_box(oracle.scores(config, gold, Strategy::Lbr, Algorithm::Linear).expect("scores"));
                        }
                    }
                })
            });
            // The same computations in a session: the steps between consecutive configurations.
            let steps: Vec<(DepTree, Vec<Step>)> =
                walks.iter().map(|(gold, configs)| (gold.clone(), steps_of(configs))).collect();
            group.bench_with_input(BenchmarkId::new("session", n), &steps, |b, steps| {
                b.iter(|| {
                    for (gold, steps) in steps {
                        let mut session =
                            OracleSession::new(&mut oracle, system, gold.clone(), Strategy::Lbr, Algorithm::Linear)
                                .expect("projective");
                        black_box(session.scores().expect("scores"));
                        for &step in steps {
                            session.apply(step).expect("applicable");
                            if !session.configuration().is_final() {
                                black_box(session.scores().expect("scores"));
                            }
                        }
                    }
                })
            });
        }
        group.finish();
    }
    let mut group = c.benchmark_group("systems/arc-eager-nm");
    for n in [10usize, 20, 40, 80] {
        let walks: Vec<(DepTree, Vec<Configuration>)> = (0..(800 / n).max(4))
            .map(|_| {
                let gold = random_tree(n, &mut rng);
                let configs = stray_walk(
                    System::ArcEagerNm,
                    &gold,
                    &mut oracle,
                    (Strategy::None, Algorithm::Auto),
                    0.1,
                    &mut rng,
                );
                (gold, configs)
            })
            .collect();
        let configurations: usize = walks.iter().map(|(_, c)| c.len()).sum();
        group.throughput(Throughput::Elements(configurations as u64));
        for (name, reuse) in [("reuse", true), ("fresh", false)] {
            let mut tabular = if reuse { TabularOracle::new() } else { TabularOracle::without_reuse() };
            group.bench_with_input(BenchmarkId::new(name, n), &walks, |b, walks| {
                b.iter(|| {
                    for (gold, configs) in walks {
                        for config in configs {
                            black_box(tabular.scores(config, gold).expect("scores"));
                        }
                    }
                })
            });
        }
    }
    group.finish();
}

/// The step from each configuration to the next one, and the last one's to the final configuration.
fn steps_of(configs: &[Configuration]) -> Vec<Step> {
    let mut out = Vec::new();
    for (i, c) in configs.iter().enumerate() {
        let step = c
            .applicable_steps()
            .find(|&s| {
                let mut d = c.clone();
                d.apply(s).expect("applicable");
                configs.get(i + 1).map_or(d.is_final(), |next| *next == d)
            })
            .expect("consecutive configurations");
        out.push(step);
    }
    out
}

criterion_group!(benches, bench);
criterion_main!(benches);
