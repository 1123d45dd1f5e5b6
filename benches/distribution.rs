//! Real arc scores: arc marginals of the projective grammar (Table 3) by the
//! outside pass in `ScaledReal` (what `TreeDistribution` runs) and in
//! `LogSumExp`, against the same engine's max-plus pass and inside passes on
//! the same batch (32 sentences of n = 40, one thread), and
//! Matrix-Tree marginals over all trees (Koo et al. 2007) for n = 10 … 100.
//!
//! Run: `cargo bench --bench distribution -- --warm-up-time 1 --measurement-time 3`.
//! Figures and machine: `benches/README.md`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tabula::distribution::TreeDistribution;
use tabula::engine::Parser;
use tabula::grammar::text;
use tabula::nonprojective::{MatrixTree, Roots};
use tabula::semiring::{LogSumExp, RealMaxPlus};

/// `count` matrices of (n+1)² standard-normal-ish scores.
fn batch(count: usize, n: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count).map(|_| (0..(n + 1) * (n + 1)).map(|_| rng.gen_range(-2.0..2.0)).collect()).collect()
}

fn bench_projective(c: &mut Criterion) {
    let g = text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE).unwrap().grammar;
    let n = 40;
    let size = n + 1;
    let input = vec![g.terminal("a").unwrap(); size];
    let scores = batch(32, n, 1);
    let mut group = c.benchmark_group("projective_batch32_n40");
    let mut dist = TreeDistribution::new(&g);
    let mut out = Vec::new();
    group.bench_function("marginals", |b| {
        b.iter(|| {
            for s in &scores {
                black_box(dist.marginals(&input, s, &mut out).unwrap());
            }
        })
    });
    group.bench_function("log_partition", |b| {
        b.iter(|| {
            for s in &scores {
                black_box(dist.log_partition(&input, s).unwrap());
            }
        })
    });
    let mut lse = Parser::<LogSumExp>::new(&g);
    let mut log_marginals = Vec::new();
    group.bench_function("marginals_log_sum_exp", |b| {
        b.iter(|| {
            for s in &scores {
                black_box(lse.parse(&input, |h, d| LogSumExp(s[h * size + d])).unwrap());
                lse.marginals_into(&mut log_marginals).unwrap();
                black_box(&log_marginals);
            }
        })
    });
    group.bench_function("log_partition_log_sum_exp", |b| {
        b.iter(|| {
            for s in &scores {
                black_box(lse.parse(&input, |h, d| LogSumExp(s[h * size + d])).unwrap());
            }
        })
    });
    let mut max = Parser::<RealMaxPlus>::new(&g);
    group.bench_function("max_plus", |b| {
        b.iter(|| {
            for s in &scores {
                black_box(max.parse(&input, |h, d| RealMaxPlus(s[h * size + d])).unwrap());
            }
        })
    });
    group.bench_function("entropy", |b| {
        b.iter(|| {
            for s in &scores {
                black_box(dist.entropy(&input, s).unwrap());
            }
        })
    });
    group.finish();
}

fn bench_matrix_tree(c: &mut Criterion) {
    let mut group = c.benchmark_group("matrix_tree_marginals");
    let mut out = Vec::new();
    let mut tree = MatrixTree::new();
    for n in [10, 20, 40, 100] {
        let s = batch(1, n, 2).pop().unwrap();
        for (name, roots) in [("multi", Roots::Multi), ("single", Roots::Single)] {
            group.bench_with_input(BenchmarkId::new(name, n), &s, |b, s| {
                b.iter(|| black_box(tree.marginals(s, n + 1, roots, &mut out).unwrap()))
            });
        }
        group.bench_with_input(BenchmarkId::new("log_partition_multi", n), &s, |b, s| {
            b.iter(|| black_box(tree.log_partition(s, n + 1, Roots::Multi).unwrap()))
        });
        // Scores spread by 2000 within a column: beyond the f64 range, the log-space path.
        let wide: Vec<f64> = s.iter().map(|x| x * 1000.0).collect();
        group.bench_with_input(BenchmarkId::new("multi_log_space", n), &wide, |b, s| {
            b.iter(|| black_box(tree.marginals(s, n + 1, Roots::Multi, &mut out).unwrap()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_projective, bench_matrix_tree);
criterion_main!(benches);
