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
//! [`Averaged`] keeps u in a dense table ([`DenseSums`]), [`SparseAveraged`]
//! only for the weights an update touched ([`SparseSums`]; the others' u is
//! 0): a label table leaves most of its weights untouched.

use super::weight::{prefetch, row_of};
pub use super::weight::{Weight, PREFETCH_AHEAD};

/// A zeroed vector of `len` values whose memory the kernel is asked to back
/// with huge pages (Linux `madvise(MADV_HUGEPAGE)`) when it is large: the
/// tables are read at random, one row per feature, and with 4 KiB pages
/// nearly every read of a 100 MB table also misses the TLB. A hint only:
/// the values are the same either way. O(len).
pub(crate) fn huge_zeros<T: Copy + Default>(len: usize) -> Vec<T> {
    let v = vec![T::default(); len];
    advise_huge(&v);
    v
}

/// Asks the kernel to back the allocation of `v` (its capacity) with huge
/// pages when it is large ([`huge_zeros`]); again after it grows. A hint
/// only. O(1).
pub(crate) fn advise_huge<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = v.capacity() * std::mem::size_of::<T>();
        if bytes >= 4 * HUGE {
            // The 2 MiB-aligned part of the allocation.
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
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// The bytes per weight that training is counted for against the memory
/// limit: the current f32 weights and their f64 sums ([`Averaged`]), the
/// averaged model of the epoch and the best one kept so far (f32 each).
/// The label table's sums ([`SparseAveraged`]) are counted as dense ones;
/// they take a fraction of that when most of its weights are never updated.
pub const TRAINING_BYTES_PER_WEIGHT: usize = 4 + 8 + 4 + 4;

/// The bytes per weight of reading a model, at most: the file's (4 in the
/// dense files of version 2), the tables' f32 and the label table's
/// bfloat16 (counted for both tables).
pub const LOADING_BYTES_PER_WEIGHT: usize = 4 + 4 + 2;

/// Refuses, before anything is allocated, two tables of 2^`step_bits` rows
/// of `step_width` weights and 2^`label_bits` rows of `label_width` weights
/// at `bytes_per_weight` bytes each when that is more than the memory limit
/// ([`crate::memory`]); `what` says what they are for. O(1).
pub fn check_tables(
    (step_bits, step_width): (u32, usize),
    (label_bits, label_width): (u32, usize),
    bytes_per_weight: usize,
    what: &str,
) -> Result<(), crate::memory::TooMuchMemory> {
    let rows = |bits: u32| 1usize.checked_shl(bits);
    let weights = rows(step_bits)
        .and_then(|r| r.checked_mul(step_width))
        .zip(rows(label_bits).and_then(|r| r.checked_mul(label_width)))
        .and_then(|(s, l)| s.checked_add(l));
    crate::memory::check(weights, bytes_per_weight, || {
        format!(
            "{what} (2^{step_bits} rows × {step_width} step weights and 2^{label_bits} rows × {label_width} label weights)"
        )
    })
}

/// A table that adds the weights of its rows to scores: [`Weights`] (f32,
/// what training updates) or [`CompactWeights`] (bfloat16, what parsing reads).
pub trait Rows {
    /// Adds to `scores[i]` the weights of class `offset + i` of every
    /// feature (`scores.len()` classes). O(features × scores.len()).
    fn add_scores(&self, features: &[u64], offset: usize, scores: &mut [f32]);
}

/// Adds rows of `table` (values converted by `value`) to `scores`, the rows
/// of the features [`PREFETCH_AHEAD`] places ahead prefetched while the
/// current one is added: the rows are scattered over a table much larger
/// than the caches, and the loads, not the additions, are what a parser's
/// time goes into. O(features × scores.len()).
#[inline]
fn add_rows<T: Copy>(
    table: &[T],
    shape: (u32, usize),
    features: &[u64],
    offset: usize,
    scores: &mut [f32],
    value: impl Fn(T) -> f32,
) {
    crate::wide::with_wide_vectors!(add_rows_any(table, shape, features, offset, scores, &value))
}

/// [`add_rows`], with the scores in vector registers where the CPU has
/// them and the rows are wide enough ([`super::simd`]): the same sums.
#[inline]
fn add_weight_rows<T: Weight>(table: &[T], shape: (u32, usize), features: &[u64], offset: usize, scores: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if scores.len() >= 8 {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            unsafe { super::simd::add_rows_avx512(table, shape, features, offset, scores) };
            return;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { super::simd::add_rows_avx2(table, shape, features, offset, scores) };
            return;
        }
    }
    match scores.len() {
        1 => add_narrow_rows::<T, 1>(table, shape, features, offset, scores),
        2 => add_narrow_rows::<T, 2>(table, shape, features, offset, scores),
        3 => add_narrow_rows::<T, 3>(table, shape, features, offset, scores),
        4 => add_narrow_rows::<T, 4>(table, shape, features, offset, scores),
        5 => add_narrow_rows::<T, 5>(table, shape, features, offset, scores),
        6 => add_narrow_rows::<T, 6>(table, shape, features, offset, scores),
        7 => add_narrow_rows::<T, 7>(table, shape, features, offset, scores),
        _ => add_rows(table, shape, features, offset, scores, T::to_f32),
    }
}

/// [`add_rows`] for `N` scores (a step table's few classes), kept in
/// registers while the rows are added: the same sums.
#[inline]
fn add_narrow_rows<T: Weight, const N: usize>(
    table: &[T],
    (bits, width): (u32, usize),
    features: &[u64],
    offset: usize,
    scores: &mut [f32],
) {
    let Ok(acc) = <&mut [f32; N]>::try_from(scores) else { return };
    let mut sums = *acc;
    for &f in features.iter().take(PREFETCH_AHEAD) {
        prefetch(table, row_of(f, bits, width) + offset, N);
    }
    for (i, &f) in features.iter().enumerate() {
        if let Some(&ahead) = features.get(i + PREFETCH_AHEAD) {
            prefetch(table, row_of(ahead, bits, width) + offset, N);
        }
        let r = row_of(f, bits, width) + offset;
        let row: &[T; N] = table[r..r + N].try_into().expect("N weights");
        for (s, w) in sums.iter_mut().zip(row) {
            *s += w.to_f32();
        }
    }
    *acc = sums;
}

/// The loop of [`add_rows`].
#[inline(always)]
fn add_rows_any<T: Copy>(
    table: &[T],
    (bits, width): (u32, usize),
    features: &[u64],
    offset: usize,
    scores: &mut [f32],
    value: &impl Fn(T) -> f32,
) {
    let len = scores.len();
    if len == 0 {
        return;
    }
    for &f in features.iter().take(PREFETCH_AHEAD) {
        prefetch(table, row_of(f, bits, width) + offset, len);
    }
    for (i, &f) in features.iter().enumerate() {
        if let Some(&ahead) = features.get(i + PREFETCH_AHEAD) {
            prefetch(table, row_of(ahead, bits, width) + offset, len);
        }
        let r = row_of(f, bits, width) + offset;
        for (s, &w) in scores.iter_mut().zip(&table[r..r + len]) {
            *s += value(w);
        }
    }
}

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

    /// The weights, row after row.
    pub fn as_slice(&self) -> &[f32] {
        &self.w
    }
}

impl Rows for Weights {
    fn add_scores(&self, features: &[u64], offset: usize, scores: &mut [f32]) {
        add_weight_rows(&self.w, (self.bits, self.width), features, offset, scores);
    }
}

/// A read-only copy of a [`Weights`] table in bfloat16 (the top 16 bits of
/// an f32, rounded to nearest even): half the memory, so half the cache
/// lines a parser reads per feature, for about three significant digits per
/// weight. Converting back to f32 is a shift. O(table) to build.
#[derive(Clone, Debug, PartialEq)]
pub struct CompactWeights {
    bits: u32,
    width: usize,
    w: Vec<u16>,
}

impl CompactWeights {
    /// The bfloat16 copy of `table`.
    pub fn new(table: &Weights) -> CompactWeights {
        let mut w = huge_zeros(table.w.len());
        for (c, &x) in w.iter_mut().zip(&table.w) {
            *c = to_bf16(x);
        }
        CompactWeights { bits: table.bits, width: table.width, w }
    }

    /// A zero table of 2^`bits` rows of `width` classes.
    pub fn zeros(bits: u32, width: usize) -> CompactWeights {
        CompactWeights { bits, width, w: huge_zeros((1usize << bits) * width) }
    }

    /// Number of hash bits.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Weights per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The weights as f32 (exactly: every bfloat16 is an f32). O(table).
    pub fn to_weights(&self) -> Weights {
        let mut w = huge_zeros(self.w.len());
        for (x, &c) in w.iter_mut().zip(&self.w) {
            *x = c.to_f32();
        }
        Weights { bits: self.bits, width: self.width, w }
    }

    /// The bfloat16 bits, row after row.
    pub(crate) fn values(&self) -> &[u16] {
        &self.w
    }

    /// The bfloat16 bits, row after row, to fill.
    pub(crate) fn values_mut(&mut self) -> &mut [u16] {
        &mut self.w
    }
}

/// The bfloat16 nearest to `x` (ties to even; x finite). O(1).
#[inline]
pub(crate) fn to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    ((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16
}

impl Rows for CompactWeights {
    fn add_scores(&self, features: &[u64], offset: usize, scores: &mut [f32]) {
        add_weight_rows(&self.w, (self.bits, self.width), features, offset, scores);
    }
}

/// Where an averaged table keeps its sums u (the module doc): one per
/// weight ([`DenseSums`]), or only for the weights an update touched
/// ([`SparseSums`]). Rows and classes are those of the table.
pub trait Sums: Clone + std::fmt::Debug {
    /// No sums for `rows` rows of `width` classes.
    fn new(rows: usize, width: usize) -> Self;
    /// Asks the CPU to bring what [`Sums::prefetch`] of `row` reads into
    /// the cache (a hint, called earlier than that one). O(1).
    fn prefetch_place(&self, _row: usize) {}
    /// Asks the CPU to bring what [`Sums::add`] of `row`, `class` reads
    /// into the cache (a hint: no effect on the values). O(1).
    fn prefetch(&self, row: usize, class: usize);
    /// Adds `x` to the sum of class `class` of row `row`.
    fn add(&mut self, row: usize, class: usize, x: f64);
    /// The stored sums: at least one for each weight an update touched.
    fn stored(&self) -> usize;
    /// Calls `f(row, class, sum)` for every stored sum; a sum not stored is 0.
    fn for_each(&self, f: impl FnMut(usize, usize, f64));
}

/// One f64 sum per weight.
#[derive(Clone, Debug)]
pub struct DenseSums {
    width: usize,
    sums: Vec<f64>,
}

impl Sums for DenseSums {
    fn new(rows: usize, width: usize) -> DenseSums {
        DenseSums { width, sums: huge_zeros(rows * width) }
    }

    #[inline(always)]
    fn prefetch(&self, row: usize, class: usize) {
        prefetch(&self.sums, row * self.width + class, 1);
    }

    #[inline]
    fn add(&mut self, row: usize, class: usize, x: f64) {
        self.sums[row * self.width + class] += x;
    }

    fn stored(&self) -> usize {
        self.sums.len()
    }

    fn for_each(&self, mut f: impl FnMut(usize, usize, f64)) {
        if self.width == 0 {
            return;
        }
        for (r, row) in self.sums.chunks_exact(self.width).enumerate() {
            for (c, &u) in row.iter().enumerate() {
                f(r, c, u);
            }
        }
    }
}

/// The weights being learnt, with the sums that give their average, kept
/// by `U`: [`Averaged`] (dense sums) or [`SparseAveraged`]; both make the
/// same updates and give the same averages, bit for bit.
#[derive(Clone, Debug)]
pub struct Averaged<U = DenseSums> {
    current: Weights,
    sums: U,
    /// Instances seen (the c of the module doc).
    instances: u64,
}

/// [`Averaged`] with its sums stored only where an update touched a weight
/// ([`SparseSums`]): the same current weights (dense f32, so scoring reads
/// them as fast), the same updates and the same averaged values, bit for
/// bit, in a fraction of the memory for a table most of whose weights are
/// never updated (a label table: one weight per label). An update costs a
/// scan of the touched classes of each feature's row besides (at most
/// those that take half a dense row of sums; O(1) in a dense row).
pub type SparseAveraged = Averaged<SparseSums>;

impl<U: Sums> Averaged<U> {
    /// A zero table of 2^`bits` rows of `width` classes.
    pub fn zeros(bits: u32, width: usize) -> Self {
        Self::from_weights(Weights::zeros(bits, width))
    }

    /// Starts from `weights` (e.g. a trained model's); the average is
    /// taken over the updates from here on, added to `weights`.
    pub fn from_weights(weights: Weights) -> Self {
        let sums = U::new(1usize << weights.bits, weights.width);
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

    /// Adds `delta` to the weight of class `class` of every feature.
    /// O(features) with dense sums; O(features × touched classes of a row)
    /// with sparse ones.
    pub fn update(&mut self, features: &[u64], class: usize, delta: f32) {
        let c = self.instances as f64;
        let (bits, width) = (self.current.bits, self.current.width);
        // The rows are scattered: the weights (and, for sparse sums, the
        // place of the row) are prefetched 2·AHEAD features ahead, what
        // `add` reads AHEAD ahead.
        const AHEAD: usize = 8;
        for &f in features.iter().take(2 * AHEAD) {
            self.sums.prefetch_place(row_of(f, bits, 1));
        }
        for &f in features.iter().take(AHEAD) {
            self.sums.prefetch(row_of(f, bits, 1), class);
        }
        for (k, &f) in features.iter().enumerate() {
            if let Some(&a) = features.get(k + 2 * AHEAD) {
                self.sums.prefetch_place(row_of(a, bits, 1));
                prefetch(&self.current.w, row_of(a, bits, width) + class, 1);
            }
            if let Some(&a) = features.get(k + AHEAD) {
                self.sums.prefetch(row_of(a, bits, 1), class);
            }
            let r = row_of(f, bits, 1);
            self.current.w[r * width + class] += delta;
            self.sums.add(r, class, c * f64::from(delta));
        }
    }

    /// The sums stored: at least one for each weight an update touched.
    /// O(rows).
    pub fn stored(&self) -> usize {
        self.sums.stored()
    }

    /// The averaged weights w − u / c. O(table).
    pub fn averaged(&self) -> Weights {
        Weights { bits: self.current.bits, width: self.current.width, w: self.averaged_as(|x| x) }
    }

    /// [`Averaged::averaged`] rounded to bfloat16, without the f32 table in
    /// between: the same values as `CompactWeights::new(&self.averaged())`.
    pub fn averaged_compact(&self) -> CompactWeights {
        CompactWeights { bits: self.current.bits, width: self.current.width, w: self.averaged_as(to_bf16) }
    }

    /// The averaged weights, each converted by `convert`: a weight without
    /// a stored sum has u = 0, so its average is its current value. O(table).
    fn averaged_as<T: Copy + Default>(&self, convert: impl Fn(f32) -> T) -> Vec<T> {
        let c = self.instances.max(1) as f64;
        let mut w = huge_zeros(self.current.w.len());
        for (a, &x) in w.iter_mut().zip(&self.current.w) {
            *a = convert(x);
        }
        let width = self.current.width;
        self.sums.for_each(|r, k, u| {
            let i = r * width + k;
            w[i] = convert((f64::from(self.current.w[i]) - u / c) as f32);
        });
        w
    }
}

/// The f64 sums of [`Averaged`] kept only for the weights that an update
/// touched: per row a list of (class, sum) in one arena, or, once that
/// list would take more memory than a dense row, a dense row of sums.
/// Adding zero never changes a float sum, so an untouched weight's sum is 0
/// and needs no storage. A hashed label table has most of its weights never
/// updated (87 % of the en_ewt label table), so this takes a fraction of
/// the dense sums' memory.
///
/// A row's list sits in a block of the arena whose size is a power of two
/// (at least [`SparseSums::MIN_BLOCK`]); a full block is moved to one twice
/// as large, and the old one goes to a free list of its size for the next
/// row that grows to it. A row whose next block would take more than half
/// the bytes of a dense row becomes dense instead (the rows of frequent
/// features, which most updates touch): an update costs a scan of at most
/// that many classes, eight at a time, or O(1) in a dense row; no
/// allocation once the arenas and the free lists have grown.
#[derive(Clone, Debug, Default)]
pub struct SparseSums {
    /// Classes per row.
    width: usize,
    /// Per row: the start of its block in the arena and its entries, or
    /// ([`SparseSums::DENSE`]) the start of its row in `dense`.
    rows: Vec<(usize, u32)>,
    /// The class (index within the row) of each arena slot.
    classes: Vec<u32>,
    /// The sum of each arena slot.
    sums: Vec<f64>,
    /// `free[k]`: the starts of unused blocks of 2^k slots.
    free: Vec<Vec<usize>>,
    /// The dense rows, one after the other.
    dense: Vec<f64>,
}

impl SparseSums {
    /// The smallest block: a row's first entries.
    const MIN_BLOCK: usize = 4;
    /// The length of a row that is dense.
    const DENSE: u32 = u32::MAX;

    /// The slots of a block holding `len` entries (0 for none).
    #[inline]
    fn block(len: usize) -> usize {
        if len == 0 {
            0
        } else {
            len.next_power_of_two().max(Self::MIN_BLOCK)
        }
    }

    /// The place of `class` in `classes`: eight compares at a time, without
    /// a branch among them (they become vector compares). O(classes).
    #[inline]
    fn find(classes: &[u32], class: u32) -> Option<usize> {
        let mut chunks = classes.chunks_exact(8);
        let mut base = 0;
        for chunk in &mut chunks {
            let mut mask = 0u32;
            for (k, &c) in chunk.iter().enumerate() {
                mask |= u32::from(c == class) << k;
            }
            if mask != 0 {
                return Some(base + mask.trailing_zeros() as usize);
            }
            base += 8;
        }
        chunks.remainder().iter().position(|&c| c == class).map(|k| base + k)
    }

    /// A slot of `size` entries, from the free list of its size or the end
    /// of the arena; returns its start.
    fn take_block(&mut self, size: usize) -> usize {
        let k = size.trailing_zeros() as usize;
        if self.free.len() <= k {
            self.free.resize(k + 1, Vec::new());
        }
        match self.free[k].pop() {
            Some(s) => s,
            None => {
                let s = self.classes.len();
                let capacity = self.classes.capacity();
                self.classes.resize(s + size, 0);
                self.sums.resize(s + size, 0.0);
                if self.classes.capacity() != capacity {
                    // Read at random, as the dense tables.
                    advise_huge(&self.classes);
                    advise_huge(&self.sums);
                }
                s
            }
        }
    }

    /// Moves the full block of `row` to one twice as large (the smallest
    /// block for an empty row); returns its start.
    #[cold]
    fn grow(&mut self, row: usize) -> usize {
        let (old, len) = self.rows[row];
        let len = len as usize;
        let start = self.take_block(Self::block(len + 1));
        self.classes.copy_within(old..old + len, start);
        self.sums.copy_within(old..old + len, start);
        if len > 0 {
            self.free[Self::block(len).trailing_zeros() as usize].push(old);
        }
        self.rows[row] = (start, len as u32);
        start
    }

    /// Makes `row` dense: its sums in a new row of `dense` (0 where it had
    /// none), its block freed; returns the row's start in `dense`.
    #[cold]
    fn densify(&mut self, row: usize) -> usize {
        let (old, len) = self.rows[row];
        let len = len as usize;
        let start = self.dense.len();
        let capacity = self.dense.capacity();
        self.dense.resize(start + self.width, 0.0);
        if self.dense.capacity() != capacity {
            advise_huge(&self.dense);
        }
        for k in old..old + len {
            self.dense[start + self.classes[k] as usize] = self.sums[k];
        }
        if len > 0 {
            self.free[Self::block(len).trailing_zeros() as usize].push(old);
        }
        self.rows[row] = (start, Self::DENSE);
        start
    }
}

impl Sums for SparseSums {
    /// No sums for `rows` rows of `width` classes. O(rows).
    fn new(rows: usize, width: usize) -> SparseSums {
        SparseSums { width, rows: huge_zeros(rows), ..SparseSums::default() }
    }

    #[inline(always)]
    fn prefetch_place(&self, row: usize) {
        prefetch(&self.rows, row, 1);
    }

    /// Asks the CPU to bring what an update of class `class` of `row` reads
    /// into the cache (a hint: no effect on the values). O(1).
    #[inline(always)]
    fn prefetch(&self, row: usize, class: usize) {
        let (start, len) = self.rows[row];
        if len == Self::DENSE {
            prefetch(&self.dense, start + class, 1);
        } else {
            prefetch(&self.classes, start, (len as usize).max(1));
            prefetch(&self.sums, start, (len as usize).clamp(1, 16));
        }
    }

    /// Adds `x` to the sum of class `class` of row `row`. O(1) in a dense
    /// row, else O(entries of the row).
    #[inline]
    fn add(&mut self, row: usize, class: usize, x: f64) {
        let (start, len) = self.rows[row];
        if len == Self::DENSE {
            self.dense[start + class] += x;
            return;
        }
        let (len, class) = (len as usize, class as u32);
        if let Some(k) = Self::find(&self.classes[start..start + len], class) {
            self.sums[start + k] += x;
            return;
        }
        let start = if len < Self::block(len) {
            start
        } else if 2 * Self::block(len + 1) * 12 > self.width * 8 {
            let start = self.densify(row);
            // The sum of the untouched weight is 0: 0 + x, as the dense sums add it.
            self.dense[start + class as usize] += x;
            return;
        } else {
            self.grow(row)
        };
        self.classes[start + len] = class;
        // As above: 0 + x.
        self.sums[start + len] = 0.0 + x;
        self.rows[row] = (start, len as u32 + 1);
    }

    /// The stored sums: the entries of the lists and the sums of the
    /// dense rows. O(rows).
    fn stored(&self) -> usize {
        self.rows.iter().map(|&(_, len)| if len == Self::DENSE { self.width } else { len as usize }).sum()
    }

    /// Calls `f(row, class, sum)` for every stored sum. O(stored sums).
    fn for_each(&self, mut f: impl FnMut(usize, usize, f64)) {
        for (r, &(start, len)) in self.rows.iter().enumerate() {
            if len == Self::DENSE {
                for (c, &u) in self.dense[start..start + self.width].iter().enumerate() {
                    f(r, c, u);
                }
                continue;
            }
            let len = len as usize;
            for (&c, &u) in self.classes[start..start + len].iter().zip(&self.sums[start..start + len]) {
                f(r, c as usize, u);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The nearest bfloat16 by search: of the two bfloat16 around `x`, the
    /// closer one, the even one on a tie.
    fn nearest(x: f32) -> u16 {
        let low = (x.to_bits() >> 16) as u16;
        let high = low + 1;
        let value = |b: u16| f64::from(f32::from_bits(u32::from(b) << 16));
        let (dl, dh) = ((f64::from(x) - value(low)).abs(), (value(high) - f64::from(x)).abs());
        if dl < dh || (dl == dh && low.is_multiple_of(2)) {
            low
        } else {
            high
        }
    }

    #[test]
    fn averaged_compact_is_the_rounded_average() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut a: Averaged = Averaged::zeros(4, 7);
        for _ in 0..300 {
            let features: Vec<u64> = (0..5).map(|_| rng.gen()).collect();
            a.update(&features, rng.gen_range(0..7), rng.gen_range(-3.0..3.0));
            a.tick();
        }
        let compact = a.averaged_compact();
        assert_eq!(compact, CompactWeights::new(&a.averaged()));
        assert!(compact.values().iter().filter(|&&w| w != 0).count() > 20);
    }

    /// The sparse sums against the dense ones (the reference): the same
    /// current weights and the same averages, bit for bit, from zero and
    /// from given weights, for rows that grow through every block size
    /// (blocks freed and reused), deltas of any sign and size, updates
    /// before the first instance; and a sum is stored for exactly the
    /// weights an update touched.
    #[test]
    fn sparse_sums_average_as_the_dense_ones() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for (bits, width, updates) in [(0, 1, 50), (0, 7, 200), (3, 100, 3000), (5, 3, 500), (6, 130, 4000)] {
            for start in [false, true] {
                let init: Vec<f32> = (0..(1usize << bits) * width)
                    .map(|_| if start { rng.gen_range(-5f32..5.0) } else { 0.0 })
                    .collect();
                let init = Weights::from_vec(bits, width, init).unwrap();
                let mut dense: Averaged = Averaged::from_weights(init.clone());
                let mut sparse = SparseAveraged::from_weights(init);
                let mut touched = std::collections::HashSet::new();
                for _ in 0..updates {
                    let features: Vec<u64> = (0..rng.gen_range(0..6)).map(|_| rng.gen()).collect();
                    let class = rng.gen_range(0..width);
                    let delta = match rng.gen_range(0..3) {
                        0 => 1.0,
                        1 => -1.0,
                        _ => rng.gen_range(-2.5f32..2.5),
                    };
                    dense.update(&features, class, delta);
                    sparse.update(&features, class, delta);
                    touched.extend(features.iter().map(|&f| row_of(f, bits, width) + class));
                    if rng.gen_bool(0.7) {
                        dense.tick();
                        sparse.tick();
                    }
                }
                let what = format!("2^{bits} × {width}, from given weights: {start}");
                assert!(sparse.stored() >= touched.len(), "{what}");
                let bits_of = |w: &Weights| w.w.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits_of(sparse.current()), bits_of(dense.current()), "{what}");
                assert_eq!(bits_of(&sparse.averaged()), bits_of(&dense.averaged()), "{what}");
                assert_eq!(sparse.averaged_compact(), dense.averaged_compact(), "{what}");
                assert!(dense.averaged() != *dense.current() || updates == 0, "{what}: the average is tested");
            }
        }
    }

    /// Every width (narrow rows, whole and partial vectors, several
    /// blocks), every offset, and rows at the table's end: the sums of
    /// `add_scores` equal those of adding row after row, bit for bit, in
    /// f32 and bfloat16.
    #[test]
    fn row_sums_equal_the_row_loop_for_every_width_and_offset() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for width in (1..=40).chain([63, 64, 65, 98, 127, 128, 129, 200, 300]) {
            let bits = 5;
            let values: Vec<f32> = (0..(1 << bits) * width).map(|_| rng.gen_range(-100f32..100.0)).collect();
            let table = Weights::from_vec(bits, width, values.clone()).unwrap();
            let compact = CompactWeights::new(&table);
            for _ in 0..20 {
                let offset = rng.gen_range(0..width);
                let len = rng.gen_range(1..=width - offset);
                let mut features: Vec<u64> = (0..rng.gen_range(0..150)).map(|_| rng.gen()).collect();
                features.push(u64::MAX); // the last row
                let start: Vec<f32> = (0..len).map(|_| rng.gen_range(-1f32..1.0)).collect();
                let (mut want, mut want_bf16) = (start.clone(), start.clone());
                for &f in &features {
                    let r = row_of(f, table.bits(), table.width()) + offset;
                    for k in 0..len {
                        want[k] += values[r + k];
                        want_bf16[k] += f32::from_bits(u32::from(compact.w[r + k]) << 16);
                    }
                }
                let mut got = start.clone();
                table.add_scores(&features, offset, &mut got);
                assert_eq!(got, want, "f32, width {width}, offset {offset}, len {len}");
                let mut got = start.clone();
                compact.add_scores(&features, offset, &mut got);
                assert_eq!(got, want_bf16, "bfloat16, width {width}, offset {offset}, len {len}");
                // Each path on its own, whatever this CPU would choose.
                let shape = (bits, width);
                let mut got = start.clone();
                add_rows(&table.w, shape, &features, offset, &mut got, f32::to_f32);
                assert_eq!(got, want, "row loop, width {width}");
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    let mut got = start.clone();
                    // SAFETY: the CPU has AVX2, checked just above.
                    unsafe { crate::parser::simd::add_rows_avx2(&table.w, shape, &features, offset, &mut got) };
                    assert_eq!(got, want, "AVX2, width {width}");
                    let mut got = start.clone();
                    // SAFETY: as above.
                    unsafe { crate::parser::simd::add_rows_avx2(&compact.w, shape, &features, offset, &mut got) };
                    assert_eq!(got, want_bf16, "AVX2 bfloat16, width {width}");
                }
            }
        }
    }

    #[test]
    fn compact_weights_round_to_nearest_and_add_the_same_rows() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let values: Vec<f32> = (0..16 * 5)
            .map(|i| match i % 4 {
                0 => rng.gen_range(-1e4f32..1e4),
                1 => rng.gen_range(-1f32..1.0),
                2 => f32::from_bits((rng.gen::<u32>() & 0xffff_0000) | 0x8000), // a tie
                _ => rng.gen_range(-1e-3f32..1e-3),
            })
            .map(|x| if x.is_finite() { x } else { 1.0 })
            .collect();
        let table = Weights::from_vec(4, 5, values.clone()).unwrap();
        let compact = CompactWeights::new(&table);
        for (&c, &x) in compact.w.iter().zip(&values) {
            assert_eq!(c, nearest(x), "{x}");
        }
        for _ in 0..100 {
            let features: Vec<u64> = (0..rng.gen_range(0..20)).map(|_| rng.gen()).collect();
            let mut got = [0.0f32; 3];
            compact.add_scores(&features, 2, &mut got);
            let mut want = [0.0f32; 3];
            for &f in &features {
                let r = row_of(f, table.bits(), table.width()) + 2;
                for (k, w) in want.iter_mut().enumerate() {
                    *w += f32::from_bits(u32::from(nearest(values[r + k])) << 16);
                }
            }
            assert_eq!(got, want);
        }
    }
}
