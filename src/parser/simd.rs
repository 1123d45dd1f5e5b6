//! Row sums with the scores in vector registers (x86-64, AVX-512F or AVX2).
//!
//! Scoring a configuration adds, for every feature, a row of weights to
//! the scores: 120 rows of 98 label weights for an en_ewt model. Added row
//! after row through memory, each feature's additions wait for the
//! previous feature's stores (store-to-load forwarding, several cycles a
//! vector), and a beam parser spends most of its time there even when the
//! rows are in the cache. Here a block of up to 8 vectors of scores stays
//! in registers while every feature's row is added to it, and is written
//! once. Each score still adds its features one after the other in the
//! order given, so the sums are exactly those of [`super::perceptron`]'s
//! row loop, on every CPU.
//!
//! A block always adds whole vectors: lanes past the scores read the next
//! weights of the table and are dropped (a row near the table's end is
//! added value by value instead).

use super::weight::{prefetch, row_of, Weight, PREFETCH_AHEAD};
use std::arch::x86_64::*;

/// Generates a kernel for one vector width and its block dispatcher.
macro_rules! kernels {
    (
        $feature:literal, $vector:ty, $lanes:literal, $load:ident, $add:ident, $loadps:ident,
        $storeps:ident, $kernel:ident, $blocks:ident
    ) => {
        /// Adds to `scores` (at most `V` vectors of lanes) the weights of
        /// the rows of `features` at `offset`, prefetching the rows
        /// (`ahead_len` values each) when `ahead_len` > 0.
        ///
        /// # Safety
        /// The CPU must have the kernel's target feature.
        #[target_feature(enable = $feature)]
        unsafe fn $kernel<T: Weight, const V: usize>(
            table: &[T],
            (bits, width): (u32, usize),
            features: &[u64],
            offset: usize,
            scores: &mut [f32],
            ahead_len: usize,
        ) {
            let len = scores.len();
            let mut spill = [0f32; 8 * $lanes];
            spill[..len].copy_from_slice(scores);
            // SAFETY (every `unsafe` below): the CPU has the target feature
            // (this function's contract); `spill` holds 8 vectors, V ≤ 8;
            // table reads are within `table`, checked before each row.
            let mut acc: [$vector; V] = std::array::from_fn(|k| unsafe { $loadps(spill.as_ptr().add(k * $lanes)) });
            for (i, &f) in features.iter().enumerate() {
                if ahead_len > 0 {
                    if let Some(&ahead) = features.get(i + PREFETCH_AHEAD) {
                        prefetch(table, row_of(ahead, bits, width) + offset, ahead_len);
                    }
                }
                let r = row_of(f, bits, width) + offset;
                if r + V * $lanes <= table.len() {
                    let p = table.as_ptr().add(r);
                    for (k, a) in acc.iter_mut().enumerate() {
                        *a = $add(*a, T::$load(p.add(k * $lanes)));
                    }
                } else {
                    for (k, a) in acc.iter().enumerate() {
                        $storeps(spill.as_mut_ptr().add(k * $lanes), *a);
                    }
                    for (s, &w) in spill.iter_mut().zip(&table[r..r + len]) {
                        *s += w.to_f32();
                    }
                    for (k, a) in acc.iter_mut().enumerate() {
                        *a = $loadps(spill.as_ptr().add(k * $lanes));
                    }
                }
            }
            for (k, a) in acc.iter().enumerate() {
                $storeps(spill.as_mut_ptr().add(k * $lanes), *a);
            }
            scores.copy_from_slice(&spill[..len]);
        }

        /// Adds the rows of `features` at `offset` to `scores`, a block of
        /// up to 8 vectors at a time, the first block prefetching the rows.
        ///
        /// # Safety
        /// The CPU must have the target feature.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $blocks<T: Weight>(
            table: &[T],
            shape: (u32, usize),
            features: &[u64],
            offset: usize,
            scores: &mut [f32],
        ) {
            let total = scores.len();
            for &f in features.iter().take(PREFETCH_AHEAD) {
                prefetch(table, row_of(f, shape.0, shape.1) + offset, total);
            }
            let mut start = 0;
            for block in scores.chunks_mut(8 * $lanes) {
                let ahead = if start == 0 { total } else { 0 };
                let at = offset + start;
                start += block.len();
                // SAFETY: the CPU has the target feature (this function's contract).
                unsafe {
                    match block.len().div_ceil($lanes) {
                        1 => $kernel::<T, 1>(table, shape, features, at, block, ahead),
                        2 => $kernel::<T, 2>(table, shape, features, at, block, ahead),
                        3 => $kernel::<T, 3>(table, shape, features, at, block, ahead),
                        4 => $kernel::<T, 4>(table, shape, features, at, block, ahead),
                        5 => $kernel::<T, 5>(table, shape, features, at, block, ahead),
                        6 => $kernel::<T, 6>(table, shape, features, at, block, ahead),
                        7 => $kernel::<T, 7>(table, shape, features, at, block, ahead),
                        _ => $kernel::<T, 8>(table, shape, features, at, block, ahead),
                    }
                }
            }
        }
    };
}

kernels!(
    "avx512f",
    __m512,
    16,
    load16,
    _mm512_add_ps,
    _mm512_loadu_ps,
    _mm512_storeu_ps,
    kernel_avx512,
    add_rows_avx512
);
kernels!("avx2", __m256, 8, load8, _mm256_add_ps, _mm256_loadu_ps, _mm256_storeu_ps, kernel_avx2, add_rows_avx2);
