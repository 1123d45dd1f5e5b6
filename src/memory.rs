//! A limit on the memory of one computation, checked before allocating.
//!
//! The engine's chart takes O(n²) cells for n + 1 terminals and the
//! quadratic oracle's memo O(k²) for a stack of k + 1 nodes: a 60,000-word
//! sentence would need tens of gigabytes, and a failed allocation aborts the
//! process. Every allocation that grows with the input or a parameter
//! estimates what it will need first and returns [`TooMuchMemory`] beyond
//! the process-wide limit ([`set_max_memory`], default
//! [`DEFAULT_MAX_MEMORY`]): the chart, the count memo, the oracles' memos
//! and tables, the preference weights with the chart
//! ([`PreferringProjectivizer`](crate::projectivize::PreferringProjectivizer)),
//! the parser's tables in training and when a model file is read
//! ([`check_tables`](crate::parser::perceptron::check_tables)). The command
//! line sets the limit with `--max-memory`.

use std::sync::atomic::{AtomicU64, Ordering};

/// The default limit: 8 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = 8 << 30;

static MAX_MEMORY: AtomicU64 = AtomicU64::new(DEFAULT_MAX_MEMORY);

/// Sets the process-wide limit, in bytes, on the memory of one computation
/// (one engine chart, one oracle memo). Affects calls that start afterwards.
pub fn set_max_memory(bytes: u64) {
    MAX_MEMORY.store(bytes, Ordering::Relaxed);
}

/// The current limit, in bytes.
pub fn max_memory() -> u64 {
    MAX_MEMORY.load(Ordering::Relaxed)
}

/// A computation that would need more memory than the limit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{what} would need about {} of memory, more than the limit of {} (raise it with --max-memory, or tabula::memory::set_max_memory)",
    human(*needed),
    human(*limit)
)]
pub struct TooMuchMemory {
    /// What was refused, e.g. "the chart for 60001 terminals".
    pub what: String,
    /// The estimate in bytes (`u64::MAX`: more than 2⁶⁴).
    pub needed: u64,
    /// The limit in bytes.
    pub limit: u64,
}

/// Checks an estimate of `cells` cells of `cell_bytes` bytes each against
/// the limit; `what` (built only on failure) names the computation.
pub fn check(cells: Option<usize>, cell_bytes: usize, what: impl FnOnce() -> String) -> Result<(), TooMuchMemory> {
    let needed = cells.and_then(|c| c.checked_mul(cell_bytes)).and_then(|b| u64::try_from(b).ok()).unwrap_or(u64::MAX);
    let limit = max_memory();
    if needed > limit {
        return Err(TooMuchMemory { what: what(), needed, limit });
    }
    Ok(())
}

/// `n` bytes in the largest binary unit that keeps it ≥ 1, e.g. `26.8 GiB`.
pub fn human(n: u64) -> String {
    if n == u64::MAX {
        return "more than 16 EiB".into();
    }
    const UNITS: [&str; 7] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Parses a size such as `8G`, `500M`, `64k`, `1.5GiB` or `1000000` (bytes);
/// units are binary (k = 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 =
        num.parse().map_err(|_| format!("not a size: `{s}` (expected e.g. 8G, 500M or a number of bytes)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("unknown unit in `{s}` (use K, M, G or T)")),
    };
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(format!("size too large: `{s}`"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("8G"), Ok(8 << 30));
        assert_eq!(parse_size("500M"), Ok(500 << 20));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("8X").is_err());
        assert!(parse_size("").is_err());
        assert_eq!(human(28_800_960_008), "26.8 GiB");
        assert_eq!(human(512), "512 bytes");
    }
}
