//! Goldberg, Sartorio and Satta (2014)'s tables (issue 11): the optimal
//! step per configuration by sentence length n, on the configurations of
//! computations over random projective gold trees that take a random
//! applicable step with probability 0.3 and an optimal one otherwise:
//!
//! * `arc-standard/goldberg` — Algorithm 1 with the right stack (Sec. 4),
//!   beside `arc-standard/linear` (Nederhof 2019, Sec. 6) on the same
//!   configurations, both under strategy none;
//! * `lr-spine/goldberg` — the LR-spine table keyed by spine pairs (Sec. 6).
//!
//! `cargo bench --bench goldberg_spine`; criterion reports throughput in
//! configurations per second; the time per configuration is its inverse.

mod common;

use common::{random_projective, stray_walk};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tabula::oracle::{Algorithm, Configuration, Oracle, Strategy, System};
use tabula::tree::DepTree;

fn bench(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut oracle = Oracle::new();
    for system in [System::ArcStandard, System::LrSpine] {
        let mut group = c.benchmark_group(system.name());
        for n in [10usize, 20, 40, 80] {
            let walks: Vec<(DepTree, Vec<Configuration>)> = (0..(1600 / n).max(4))
                .map(|_| {
                    let gold = random_projective(n, &mut rng);
                    let configs =
                        stray_walk(system, &gold, &mut oracle, (Strategy::None, Algorithm::Goldberg), 0.3, &mut rng);
                    (gold, configs)
                })
                .collect();
            let configurations: usize = walks.iter().map(|(_, c)| c.len()).sum();
            group.throughput(Throughput::Elements(configurations as u64));
            let algorithms: &[Algorithm] = if system == System::ArcStandard {
                &[Algorithm::Goldberg, Algorithm::Linear]
            } else {
                &[Algorithm::Goldberg]
            };
            for &algorithm in algorithms {
                group.bench_with_input(BenchmarkId::new(algorithm.name(), n), &walks, |b, walks| {
                    b.iter(|| {
                        for (gold, configs) in walks {
                            for config in configs {
                                black_box(oracle.scores(config, gold, Strategy::None, algorithm).expect("scores"));
                            }
                        }
                    })
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
