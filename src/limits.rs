//! Bounds on the parameters that set how long a run takes or how many
//! threads it starts, checked the same way by the command line and the
//! Python module: training for more than [`MAX_EPOCHS`] epochs, or a pool
//! of more than [`max_threads`] threads, is refused with a message rather
//! than running for ever or failing while the threads start.

/// The most epochs a training run takes (`--epochs`, `epochs=`): far more
/// than any treebank needs (the perceptron converges in tens).
pub const MAX_EPOCHS: u64 = 1000;

/// Checks a number of epochs: at most [`MAX_EPOCHS`] (0 is left to the
/// trainers, which refuse it: nothing would be trained).
pub fn check_epochs(epochs: u64) -> Result<(), String> {
    if epochs > MAX_EPOCHS {
        return Err(format!("{epochs} epochs is more than the limit of {MAX_EPOCHS}"));
    }
    Ok(())
}

/// The most threads a pool may have: 4 per core of this machine
/// ([`std::thread::available_parallelism`]; 4 if unknown).
pub fn max_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from).saturating_mul(4)
}

/// Checks a number of threads: at least 1 and at most [`max_threads`].
pub fn check_threads(threads: u64) -> Result<(), String> {
    if threads == 0 {
        return Err("at least one thread".to_owned());
    }
    let max = max_threads();
    if threads > max as u64 {
        return Err(format!(
            "{threads} threads is more than 4 per core of this machine ({max}): more would only wait on one another"
        ));
    }
    Ok(())
}

/// A `clap` value parser for `--epochs` ([`check_epochs`]).
pub fn parse_epochs<T: TryFrom<u64>>(s: &str) -> Result<T, String> {
    let e: u64 = s.trim().parse().map_err(|e| format!("`{s}`: {e}"))?;
    check_epochs(e)?;
    T::try_from(e).map_err(|_| format!("`{s}`: too large"))
}

/// A `clap` value parser for `--threads` ([`check_threads`]).
pub fn parse_threads<T: TryFrom<u64>>(s: &str) -> Result<T, String> {
    let t: u64 = s.trim().parse().map_err(|e| format!("`{s}`: {e}"))?;
    check_threads(t)?;
    T::try_from(t).map_err(|_| format!("`{s}`: too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs_and_threads_are_bounded() {
        assert!(check_epochs(1).is_ok());
        assert!(check_epochs(MAX_EPOCHS).is_ok());
        assert!(check_epochs(MAX_EPOCHS + 1).unwrap_err().contains("limit of 1000"));
        assert!(parse_epochs::<usize>("18446744073709551615").is_err());
        assert!(parse_epochs::<usize>("99999999999999999999").is_err());
        assert!(check_threads(0).is_err());
        assert!(check_threads(1).is_ok());
        assert!(check_threads(max_threads() as u64).is_ok());
        assert!(check_threads(max_threads() as u64 + 1).unwrap_err().contains("4 per core"));
        assert_eq!(parse_threads::<u32>("1"), Ok(1));
        assert!(parse_threads::<u32>("100000000").unwrap_err().contains("4 per core"));
    }
}
