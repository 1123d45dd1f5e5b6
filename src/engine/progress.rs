//! Progress of one long [`Parser::parse`](super::Parser::parse), reported to
//! a callback that the caller installs for the current thread around the
//! work ([`with_progress`]), so that every wrapper of the engine (the
//! projectivizers, the counters, the grammar oracles) reports it without
//! carrying the callback through its own API.
//!
//! The unit of work is one split point of one cell: filling the cells of
//! width w over n + 1 terminals costs (n + 1 − w) · w of them, so
//! `total` = Σ_w (n + 1 − w) · w = n (n + 1) (n + 2) / 6 and the fraction
//! done follows the time spent. The callback is called once per width,
//! after it: O(n) calls per parse.

use std::cell::RefCell;
use std::rc::Rc;

/// What the engine calls: `(done, total)` units of work of the current parse.
pub type Progress = Rc<dyn Fn(u64, u64)>;

thread_local! {
    static HOOK: RefCell<Option<Progress>> = const { RefCell::new(None) };
}

/// Runs `work` with `report` receiving the progress of every engine parse
/// this thread runs meanwhile; the previous callback (if any) is back
/// afterwards, also when `work` panics. O(1) besides `work`.
pub fn with_progress<R>(report: impl Fn(u64, u64) + 'static, work: impl FnOnce() -> R) -> R {
    struct Restore(Option<Progress>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            HOOK.with(|h| *h.borrow_mut() = previous);
        }
    }
    let previous = HOOK.with(|h| h.borrow_mut().replace(Rc::new(report)));
    let _restore = Restore(previous);
    work()
}

/// The callback installed for this thread, if any. O(1).
pub(super) fn current() -> Option<Progress> {
    HOOK.with(|h| h.borrow().clone())
}

/// The units of work of a parse over `size` terminals: Σ_{w=1}^{size−1} (size − w) · w.
pub(super) fn total(size: usize) -> u64 {
    let n = size as u64;
    n.saturating_sub(1) * n * (n + 1) / 6
}
