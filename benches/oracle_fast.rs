//! The quadratic (Sec. 5) and linear (Sec. 6) optimal-step algorithms, per
//! configuration, over random projective gold trees and configurations on
//! random computations, grouped by k + m (stack plus remaining input).
//!
//! The group `oracle_session` follows whole computations (stray 0.3) over
//! random projective trees of n words, scoring every configuration, once
//! with one-shot linear calls and once with an incremental
//! [`OracleSession`] (Sec. 7; set-up and steps included): the amortised
//! cost per configuration by sentence length.
//!
//! `cargo bench --bench oracle_fast`; per-configuration time is the reported
//! time divided by the batch size (criterion shows it as throughput).

mod common;

use common::random_projective;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tabula::oracle::arc_standard::linear::LinearOracle;
use tabula::oracle::arc_standard::quadratic::QuadraticOracle;
use tabula::oracle::session::OracleSession;
use tabula::oracle::{Algorithm, Configuration, Oracle, Step, Strategy, System};
use tabula::tree::DepTree;

/// Configurations with k + m = `size` (± 2), on random computations that
/// mostly follow the gold tree, as a trained parser would.
fn sample(size: usize, count: usize, rng: &mut ChaCha8Rng) -> Vec<(DepTree, Configuration)> {
    let mut out = Vec::new();
    while out.len() < count {
        let n = rng.gen_range(size..=size + size / 2 + 2);
        let gold = random_projective(n, rng);
        let mut c = Configuration::initial(System::ArcStandard, n);
        let mut oracle = LinearOracle::new();
        while !c.is_final() {
            let km = c.stack().len() - 1 + c.buffer().count();
            if km.abs_diff(size) <= 2 && rng.gen_bool(0.3) {
                out.push((gold.clone(), c.clone()));
            }
            let scores = oracle.scores(&c, &gold, Strategy::Lbr).expect("projective");
            let optimal = scores.optimal();
            let step = if rng.gen_bool(0.9) {
                optimal[rng.gen_range(0..optimal.len())]
            } else {
                let steps: Vec<Step> = c.applicable_steps().collect();
                steps[rng.gen_range(0..steps.len())]
            };
            c.apply(step).expect("applicable");
        }
    }
    out.truncate(count);
    out
}

fn bench(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(2019);
    let mut group = c.benchmark_group("oracle_fast");
    for size in [5usize, 10, 17, 20, 40, 80] {
        let batch = sample(size, 200, &mut rng);
        group.throughput(Throughput::Elements(batch.len() as u64));
        let mut quad = QuadraticOracle::new();
        group.bench_with_input(BenchmarkId::new("quadratic", size), &batch, |b, batch| {
            b.iter(|| {
                for (gold, config) in batch {
                    black_box(quad.scores(config, gold, Strategy::Lbr).expect("projective"));
                }
            })
        });
        let mut lin = LinearOracle::new();
        group.bench_with_input(BenchmarkId::new("linear", size), &batch, |b, batch| {
            b.iter(|| {
                for (gold, config) in batch {
                    black_box(lin.scores(config, gold, Strategy::Lbr).expect("projective"));
                }
            })
        });
    }
    group.finish();
}

/// `count` gold trees of n words, each with the steps of one computation
/// that takes a random applicable step with probability 0.3, else the first
/// optimal one; and the number of configurations scored along them.
fn walks(n: usize, count: usize, rng: &mut ChaCha8Rng) -> (Vec<(DepTree, Vec<Step>)>, u64) {
    let mut oracle = LinearOracle::new();
    let mut scored = 0;
    let out = (0..count)
        .map(|_| {
            let gold = random_projective(n, rng);
            let mut c = Configuration::initial(System::ArcStandard, n);
            let mut steps = Vec::new();
            while !c.is_final() {
                let scores = oracle.scores(&c, &gold, Strategy::Lbr).expect("projective");
                scored += 1;
                let step = if rng.gen_bool(0.3) {
                    let applicable: Vec<Step> = c.applicable_steps().collect();
                    applicable[rng.gen_range(0..applicable.len())]
                } else {
                    scores.optimal()[0]
                };
                c.apply(step).expect("applicable");
                steps.push(step);
            }
            (gold, steps)
        })
        .collect();
    (out, scored)
}

fn bench_session(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut group = c.benchmark_group("oracle_session");
    for n in [10usize, 20, 40, 80, 160, 320] {
        let (batch, scored) = walks(n, 3200 / n, &mut rng);
        group.throughput(Throughput::Elements(scored));
        let mut lin = LinearOracle::new();
        group.bench_with_input(BenchmarkId::new("one-shot", n), &batch, |b, batch| {
            b.iter(|| {
                for (gold, steps) in batch {
                    let mut c = Configuration::initial(System::ArcStandard, gold.len());
                    for &step in steps {
                        black_box(lin.scores(&c, gold, Strategy::Lbr).expect("projective"));
                        c.apply(step).expect("applicable");
                    }
                }
            })
        });
        let mut oracle = Oracle::new();
        group.bench_with_input(BenchmarkId::new("session", n), &batch, |b, batch| {
            b.iter(|| {
                for (gold, steps) in batch {
                    let mut session = OracleSession::new(
                        &mut oracle,
                        System::ArcStandard,
                        gold.clone(),
                        Strategy::Lbr,
                        Algorithm::Linear,
                    )
                    .unwrap();
                    for &step in steps {
                        black_box(session.scores().expect("projective"));
                        session.apply(step).expect("applicable");
                    }
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_session);
criterion_main!(benches);
