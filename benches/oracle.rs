//! The optimal step by algorithm over k + m (Nederhof 2019, Fig. 9), on
//! random gold trees (non-projective allowed for cubic), stack height k =
//! (k + m) / 4.

mod common;

use common::random_tree;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::SeedableRng;
use tabula::oracle::{Algorithm, Configuration, Oracle, Strategy, System};
use tabula::tree::DepTree;

fn bench(c: &mut Criterion) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut group = c.benchmark_group("oracle");
    for len in [10usize, 20, 40, 80] {
        let gold = random_tree(len, &mut rng);
        let k = len / 4;
        let stack: Vec<usize> = (0..=k).collect();
        let buffer: Vec<usize> = (k + 1..=len).collect();
        let config = Configuration::new(System::ArcStandard, &stack, &buffer, len).expect("valid");
        let mut oracle = Oracle::new();
        group.bench_with_input(BenchmarkId::new("cubic", len), &len, |b, _| {
            b.iter(|| oracle.scores(&config, &gold, Strategy::Lbr, Algorithm::Cubic).expect("scores"))
        });
        for a in [Algorithm::Quadratic, Algorithm::Linear] {
            // Sec. 5 / 6 need a projective gold tree: bench on a flat one.
            let flat = DepTree::from_heads(&vec![0; len]).expect("tree");
            group.bench_with_input(BenchmarkId::new(a.name(), len), &len, |b, _| {
                b.iter(|| oracle.scores(&config, &flat, Strategy::Lbr, a).expect("scores"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
