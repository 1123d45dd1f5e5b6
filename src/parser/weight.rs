//! A weight as the hashed tables store it ([`Weight`]: f32, or bfloat16
//! bits), where a feature's row lies ([`row_of`]), and the cache hints of
//! the row loops ([`prefetch`]): what the tables of [`super::perceptron`]
//! and the vector kernels of `simd` (x86-64) share.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// How many features ahead [`Rows::add_scores`](super::perceptron::Rows::add_scores) prefetches rows. Far
/// ahead, because a joint scoring reads several cache lines per feature and
/// the loads must overlap: on en_ewt (118 features per configuration, a
/// 2^18-row bfloat16 label table) 8 gave about 127,000 tokens/s, 16 about
/// 130,000, 32 about 167,000, 64 about 170,000 (`scripts/parse-speed.sh`,
/// docs/training.md).
pub const PREFETCH_AHEAD: usize = 64;

/// The row of `feature` in a table of 2^`bits` rows of `width` values: its
/// top `bits` bits. O(1).
#[inline]
pub(super) fn row_of(feature: u64, bits: u32, width: usize) -> usize {
    if bits == 0 {
        0
    } else {
        (feature >> (64 - bits)) as usize * width
    }
}

/// A weight as a table stores it: f32, or bfloat16 bits (u16).
pub trait Weight: Copy {
    /// The weight as f32.
    fn to_f32(self) -> f32;
    /// 16 weights from `p` as f32.
    ///
    /// # Safety
    /// The CPU must have AVX-512F; 16 values readable at `p`.
    #[cfg(target_arch = "x86_64")]
    unsafe fn load16(p: *const Self) -> std::arch::x86_64::__m512;
    /// 8 weights from `p` as f32.
    ///
    /// # Safety
    /// The CPU must have AVX2; 8 values readable at `p`.
    #[cfg(target_arch = "x86_64")]
    unsafe fn load8(p: *const Self) -> std::arch::x86_64::__m256;
}

impl Weight for f32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load16(p: *const f32) -> std::arch::x86_64::__m512 {
        // SAFETY: the caller's contract.
        unsafe { load16_f32(p) }
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load8(p: *const f32) -> std::arch::x86_64::__m256 {
        // SAFETY: the caller's contract.
        unsafe { load8_f32(p) }
    }
}

impl Weight for u16 {
    /// The bfloat16 `self` as f32 (its top 16 bits).
    #[inline(always)]
    fn to_f32(self) -> f32 {
        f32::from_bits(u32::from(self) << 16)
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load16(p: *const u16) -> std::arch::x86_64::__m512 {
        // SAFETY: the caller's contract.
        unsafe { load16_bf16(p) }
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load8(p: *const u16) -> std::arch::x86_64::__m256 {
        // SAFETY: the caller's contract.
        unsafe { load8_bf16(p) }
    }
}

/// Asks the CPU to bring `table[start .. start + len]` into the cache (a
/// hint: no effect on the result; nothing on other targets): one hint per
/// 64-byte cache line the block touches. `len` ≥ 1. No bounds check: a
/// prefetch never faults, and the address is only computed, never read.
#[inline(always)]
pub(super) fn prefetch<T>(table: &[T], start: usize, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let first = table.as_ptr().wrapping_add(start) as usize;
        let last = first + len * std::mem::size_of::<T>() - 1;
        let mut line = first & !63;
        loop {
            // SAFETY: `_mm_prefetch` is a hint that never faults, whatever
            // the address; SSE is part of the x86_64 baseline.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line as *const i8) };
            if line >= last & !63 {
                break;
            }
            line += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (table, start, len);
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;

    /// 16 weights as f32 (AVX-512F).
    ///
    /// # Safety
    /// The CPU must have AVX-512F; 16 values readable at `p`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn load16_f32(p: *const f32) -> __m512 {
        unsafe { _mm512_loadu_ps(p) }
    }

    /// 16 bfloat16 weights as f32 (AVX-512F).
    ///
    /// # Safety
    /// The CPU must have AVX-512F; 16 values readable at `p`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn load16_bf16(p: *const u16) -> __m512 {
        unsafe { _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(_mm256_loadu_si256(p.cast())))) }
    }

    /// 8 weights as f32 (AVX2).
    ///
    /// # Safety
    /// The CPU must have AVX2; 8 values readable at `p`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn load8_f32(p: *const f32) -> __m256 {
        unsafe { _mm256_loadu_ps(p) }
    }

    /// 8 bfloat16 weights as f32 (AVX2).
    ///
    /// # Safety
    /// The CPU must have AVX2; 8 values readable at `p`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn load8_bf16(p: *const u16) -> __m256 {
        unsafe { _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast())))) }
    }
}
#[cfg(target_arch = "x86_64")]
use x86::{load16_bf16, load16_f32, load8_bf16, load8_f32};
