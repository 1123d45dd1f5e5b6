//! Hashed weight tables and the averaged perceptron (Collins 2002; the
//! learner of PanParser, seed 001, Sec. 3, and of seed 000, Algorithm 2).
//!
//! A table has 2^bits rows of `width` weights: a feature hash selects a row
//! by its top `bits` bits, and a row holds one weight per class. Scoring a
//! configuration adds the rows of its features: O(features × width), no
//! allocation. Collisions are not resolved (feature hashing).
//!
//! Averaging uses the usual trick: besides the weights w, the trainer keeps
//! u = Σ c·δ over the updates δ made at instance c; the average over the c
//! instances seen is w − u / c, computed once when a model is taken.

/// A zeroed vector of `len` values whose memory the kernel is asked to back
/// with huge pages (Linux `madvise(MADV_HUGEPAGE)`) when it is large: the
/// tables are read at random, one row per feature, and with 4 KiB pages
/// nearly every read of a 100 MB table also misses the TLB. A hint only:
/// the values are the same either way. O(len).
pub(crate) fn huge_zeros<T: Copy + Default>(len: usize) -> Vec<T> {
    let v = vec![T::default(); len];
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = len * std::mem::size_of::<T>();
        if bytes >= 4 * HUGE {
            // The 2 MiB-aligned part of the (not yet touched) allocation.
            let start = v.as_ptr() as usize;
            let first = start.next_multiple_of(HUGE);
            let end = (start + bytes) / HUGE * HUGE;
            if end > first {
                // SAFETY: madvise only changes how the kernel backs pages
                // inside this live allocation; it never changes their
                // contents, and errors are ignored (it is a hint).
                unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
            }
        }
    }
    v
}

/// How many features ahead [`Weights::add_scores`] prefetches rows.
pub const PREFETCH_AHEAD: usize = 8;

/// A table of weights, read-only: what a model holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    bits: u32,
    width: usize,
    pub(crate) w: Vec<f32>,
}

impl Weights {
    /// A zero table of 2^`bits` rows of `width` classes.
    pub fn zeros(bits: u32, width: usize) -> Weights {
        Weights { bits, width, w: huge_zeros((1usize << bits) * width) }
    }

    /// A table from its rows, laid out row after row. `None` if the size is wrong.
    pub fn from_vec(bits: u32, width: usize, w: Vec<f32>) -> Option<Weights> {
        ((1usize << bits).checked_mul(width)? == w.len()).then_some(Weights { bits, width, w })
    }

    /// Number of hash bits.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Weights per row.
    pub fn width(&self) -> usize {
        self.width
    }

    #[inline]
    fn row(&self, feature: u64) -> usize {
        if self.bits == 0 {
            0
        } else {
            (feature >> (64 - self.bits)) as usize * self.width
        }
    }

    /// Adds to `scores[i]` the weights of class `offset + i` of every
    /// feature (`scores.len()` classes). O(features × scores.len()).
    ///
    /// The rows are scattered over a table much larger than the caches, so
    /// the rows of the features [`PREFETCH_AHEAD`] places ahead are
    /// prefetched while the current one is added (the loads, not the
    /// additions, are what a parser's time goes into).
    pub fn add_scores(&self, features: &[u64], offset: usize, scores: &mut [f32]) {
        let len = scores.len();
        if len == 0 {
            return;
        }
        for &f in features.iter().take(PREFETCH_AHEAD) {
            self.prefetch(self.row(f) + offset, len);
        }
        for (i, &f) in features.iter().enumerate() {
            if let Some(&ahead) = features.get(i + PREFETCH_AHEAD) {
                self.prefetch(self.row(ahead) + offset, len);
            }
            let r = self.row(f) + offset;
            for (s, w) in scores.iter_mut().zip(&self.w[r..r + len]) {
                *s += *w;
            }
        }
    }

    /// Asks the CPU to bring the weights `start .. start + len` into the
    /// cache (a hint: no effect on the result; nothing on other targets).
    #[inline]
    fn prefetch(&self, start: usize, len: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let Some(block) = self.w.get(start..start + len) else { return };
            // One hint per 64-byte cache line of the block (16 weights).
            for k in (0..len).step_by(16).chain(std::iter::once(len - 1)) {
                // SAFETY: `_mm_prefetch` is a hint that never faults, and
                // the pointer is inside `block` anyway; SSE is part of the
                // x86_64 baseline.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(block.as_ptr().add(k).cast::<i8>()) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (start, len);
    }
}

/// The weights being learnt, with the sums that give their average.
#[derive(Clone, Debug)]
pub struct Averaged {
    current: Weights,
    sums: Vec<f64>,
    /// Instances seen (the c of the module doc).
    instances: u64,
}

impl Averaged {
    /// A zero table of 2^`bits` rows of `width` classes.
    pub fn zeros(bits: u32, width: usize) -> Averaged {
        let current = Weights::zeros(bits, width);
        let sums = huge_zeros(current.w.len());
        Averaged { current, sums, instances: 0 }
    }

    /// Starts from `weights` (e.g. a trained model's); the average is
    /// taken over the updates from here on, added to `weights`.
    pub fn from_weights(weights: Weights) -> Averaged {
        let sums = huge_zeros(weights.w.len());
        Averaged { current: weights, sums, instances: 0 }
    }

    /// The current (not averaged) weights, which make the training decisions.
    pub fn current(&self) -> &Weights {
        &self.current
    }

    /// Counts one more training instance (a configuration).
    pub fn tick(&mut self) {
        self.instances += 1;
    }

    /// Adds `delta` to the weight of class `class` of every feature. O(features).
    pub fn update(&mut self, features: &[u64], class: usize, delta: f32) {
        let c = self.instances as f64;
        for &f in features {
            let i = self.current.row(f) + class;
            self.current.w[i] += delta;
            self.sums[i] += c * f64::from(delta);
        }
    }

    /// The averaged weights w − u / c. O(table).
    pub fn averaged(&self) -> Weights {
        let c = self.instances.max(1) as f64;
        let mut w = huge_zeros(self.current.w.len());
        for ((a, &w), &u) in w.iter_mut().zip(&self.current.w).zip(&self.sums) {
            *a = (f64::from(w) - u / c) as f32;
        }
        Weights { bits: self.current.bits, width: self.current.width, w }
    }
}
