//! The generic Eisner–Satta engine (Nederhof 2019, Table 2) on the Table 3
//! grammar, beside a specialised first-order Eisner parser over `i64`, for
//! optimal projectivization weights: w(i, j) = 1 iff j's gold head is i, for
//! a random (generally non-projective) gold tree.
//!
//! Run: `cargo bench --bench engine -- --warm-up-time 1 --measurement-time 3`;
//! `TABULA_BENCH_INTERLEAVED=1 cargo bench --bench engine` prints minimum
//! times of interleaved runs instead (steadier on a shared machine).
//! Figures and machine: `benches/README.md`.

use criterion::{criterion_group, BenchmarkId, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tabula::engine::Parser;
use tabula::grammar::text;
use tabula::semiring::{CheckedCount, MaxCount, MaxPlus};

const LENGTHS: [usize; 5] = [10, 20, 40, 80, 160];

/// A random tree over 0 … n (root 0): nodes are attached in a random order,
/// each to a random node attached before it. `heads[d]` for d ≥ 1.
fn random_gold(n: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let mut order: Vec<usize> = (1..=n).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.gen_range(0..=i));
    }
    let mut heads = vec![usize::MAX; n + 1];
    let mut placed = vec![0usize];
    for d in order {
        heads[d] = placed[rng.gen_range(0..placed.len())];
        placed.push(d);
    }
    heads
}

/// First-order projective Eisner (Eisner 1996) specialised to `i64` scores:
/// the classic complete / incomplete spans, each table kept both by row and
/// by column where an inner maximum reads it, so every inner loop runs over
/// two contiguous slices. Buffers are reused across calls. O(n³) time,
/// O(n²) space. Position 0 is the root and may take any number of children
/// (as in the Table 3 grammar).
#[derive(Default)]
struct Eisner {
    size: usize,
    weight: Vec<i64>,
    /// Complete, head on the left: `[i][j]` (row) and `[j][i]` (column).
    right_row: Vec<i64>,
    right_col: Vec<i64>,
    /// Complete, head on the right: `[i][j]` (row) and `[j][i]` (column).
    left_row: Vec<i64>,
    left_col: Vec<i64>,
    /// Incomplete, arc j → i, stored by column `[j][i]`.
    inc_left_col: Vec<i64>,
    /// Incomplete, arc i → j, stored by row `[i][j]`.
    inc_right_row: Vec<i64>,
}

impl Eisner {
    fn parse(&mut self, size: usize, weight: impl Fn(usize, usize) -> i64) -> i64 {
        let sq = size * size;
        self.size = size;
        for v in [
            &mut self.weight,
            &mut self.right_row,
            &mut self.right_col,
            &mut self.left_row,
            &mut self.left_col,
            &mut self.inc_left_col,
            &mut self.inc_right_row,
        ] {
            if v.len() < sq {
                v.resize(sq, 0);
            }
        }
        for h in 0..size {
            for d in 0..size {
                self.weight[h * size + d] = if h == d { 0 } else { weight(h, d) };
            }
        }
        for i in 0..size {
            let ii = i * size + i;
            self.right_row[ii] = 0;
            self.right_col[ii] = 0;
            self.left_row[ii] = 0;
            self.left_col[ii] = 0;
        }
        let max_dot = |a: &[i64], b: &[i64]| a.iter().zip(b).map(|(x, y)| x + y).fold(i64::MIN, i64::max);
        for width in 1..size {
            for i in 0..size - width {
                let j = i + width;
                let (row_i, col_j) = (i * size, j * size);
                let s = max_dot(&self.right_row[row_i + i..row_i + j], &self.left_col[col_j + i + 1..col_j + j + 1]);
                self.inc_left_col[col_j + i] = s + self.weight[j * size + i];
                self.inc_right_row[row_i + j] = s + self.weight[i * size + j];
                let l = max_dot(&self.left_row[row_i + i..row_i + j], &self.inc_left_col[col_j + i..col_j + j]);
                self.left_row[row_i + j] = l;
                self.left_col[col_j + i] = l;
                let r = max_dot(
                    &self.inc_right_row[row_i + i + 1..row_i + j + 1],
                    &self.right_col[col_j + i + 1..col_j + j + 1],
                );
                self.right_row[row_i + j] = r;
                self.right_col[col_j + i] = r;
            }
        }
        self.right_row[size - 1]
    }
}

fn bench_engine(c: &mut Criterion) {
    let g = text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE).unwrap().grammar;
    let a = g.terminal("a").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2019);
    let mut group = c.benchmark_group("engine");
    let mut max_plus = Parser::<MaxPlus>::new(&g);
    let mut max_count = Parser::<MaxCount<CheckedCount>>::new(&g);
    let mut eisner = Eisner::default();
    for n in LENGTHS {
        let gold = random_gold(n, &mut rng);
        let input = vec![a; n + 1];
        let w = |h: usize, d: usize| (gold[d] == h) as i64;
        // The three agree on the best score.
        let best = max_plus.parse(&input, |h, d| MaxPlus::new(w(h, d))).unwrap();
        assert_eq!(best, MaxPlus::new(eisner.parse(n + 1, w)));
        assert_eq!(max_count.parse(&input, |h, d| MaxCount::new(w(h, d))).unwrap().score, best);

        group.bench_with_input(BenchmarkId::new("max_plus", n), &n, |b, _| {
            b.iter(|| max_plus.parse(black_box(&input), |h, d| MaxPlus::new(w(h, d))).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("max_count", n), &n, |b, _| {
            b.iter(|| max_count.parse(black_box(&input), |h, d| MaxCount::new(w(h, d))).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("eisner_i64", n), &n, |b, _| {
            b.iter(|| eisner.parse(black_box(n + 1), w))
        });
    }
    group.finish();
}

/// Interleaved timing, robust on a loaded machine: for each n, 30 rounds
/// that each time max-plus, max-count and the baseline back to back; the
/// minimum per-parse time of each over the rounds is printed, with the ratios.
fn interleaved() {
    let g = text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE).unwrap().grammar;
    let a = g.terminal("a").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2019);
    let mut max_plus = Parser::<MaxPlus>::new(&g);
    let mut max_count = Parser::<MaxCount<CheckedCount>>::new(&g);
    let mut eisner = Eisner::default();
    println!("n | max_plus | max_count | eisner_i64 | max_plus / eisner | max_count / eisner");
    for n in LENGTHS {
        let gold = random_gold(n, &mut rng);
        let input = vec![a; n + 1];
        let w = |h: usize, d: usize| (gold[d] == h) as i64;
        let reps = (2_000_000 / (n * n * n)).max(3);
        let time = |f: &mut dyn FnMut()| {
            let start = std::time::Instant::now();
            for _ in 0..reps {
                f();
            }
            start.elapsed().as_secs_f64() * 1e6 / reps as f64
        };
        let mut best = [f64::MAX; 3];
        for _ in 0..30 {
            let t = [
                time(&mut || {
                    black_box(max_plus.parse(black_box(&input), |h, d| MaxPlus::new(w(h, d))).unwrap());
                }),
                time(&mut || {
                    black_box(max_count.parse(black_box(&input), |h, d| MaxCount::new(w(h, d))).unwrap());
                }),
                time(&mut || {
                    black_box(eisner.parse(black_box(n + 1), w));
                }),
            ];
            for (b, t) in best.iter_mut().zip(t) {
                *b = b.min(t);
            }
        }
        let [mp, mc, e] = best;
        println!("{n} | {mp:.2} µs | {mc:.2} µs | {e:.2} µs | {:.2} | {:.2}", mp / e, mc / e);
    }
}

criterion_group!(benches, bench_engine);

fn main() {
    // `TABULA_BENCH_INTERLEAVED=1 cargo bench --bench engine`: the interleaved
    // minimum-time table only, instead of criterion.
    if std::env::var_os("TABULA_BENCH_INTERLEAVED").is_some() {
        interleaved();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
