//! Loops compiled for the widest vectors the CPU has, chosen at run time.
//!
//! The default target (x86-64's baseline) has 128-bit vectors only; a
//! loop run through [`with_wide_vectors`] is compiled a second and third
//! time for AVX2 and AVX-512F and the copy the CPU can run is called. The
//! arithmetic is the same in every copy (no fused multiply-add), so
//! results do not depend on the machine.

/// Runs `$body` (a call of an `#[inline(always)]` loop) compiled for
/// AVX-512F or AVX2 when the CPU has them, else for the baseline: the same
/// loop, the same sums in the same order, more values per instruction.
macro_rules! with_wide_vectors {
    ($body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f")]
            unsafe fn avx512<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            #[target_feature(enable = "avx2")]
            unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F, checked just above.
                unsafe { avx512(|| $body) }
            } else if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, checked just above.
                unsafe { avx2(|| $body) }
            } else {
                $body
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            $body
        }
    }};
}

pub(crate) use with_wide_vectors;
