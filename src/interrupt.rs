//! Interrupting long computations from outside: the Python module calls
//! [`interrupt`] when Ctrl-C arrives while a training or a batch runs with
//! the interpreter's lock released, and the loops over sentences check
//! their [`Watch`] between sentences and stop. A computation started after
//! the interrupt is not affected (each watch compares a generation count).
//! The command line does not use it: its Ctrl-C handler ends the process.

use std::sync::atomic::{AtomicU64, Ordering};

static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Interrupts every computation whose [`Watch`] started before this call.
pub fn interrupt() {
    GENERATION.fetch_add(1, Ordering::SeqCst);
}

/// What a computation checks between sentences: whether [`interrupt`] was
/// called since it started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watch(u64);

impl Watch {
    /// A watch starting now.
    pub fn start() -> Watch {
        Watch(GENERATION.load(Ordering::SeqCst))
    }

    /// Whether [`interrupt`] was called since the watch started. O(1).
    #[inline]
    pub fn interrupted(self) -> bool {
        GENERATION.load(Ordering::Relaxed) != self.0
    }
}

impl Default for Watch {
    fn default() -> Self {
        Watch::start()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_sees_only_later_interrupts() {
        let before = Watch::start();
        assert!(!before.interrupted());
        interrupt();
        assert!(before.interrupted());
        assert!(!Watch::start().interrupted());
    }
}
