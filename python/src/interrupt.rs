//! Ctrl-C during a long call. Python runs its signal handlers
//! (`PyErr_CheckSignals`) only on the main thread, with the interpreter's
//! lock held, so the calling thread has to check while the work runs
//! without the lock. Two ways:
//!
//! - [`interruptible`]: the work runs on a scoped thread, and the calling
//!   thread takes the lock every 100 ms to check; on a signal, the
//!   handler's exception (KeyboardInterrupt) is raised once the work has
//!   stopped: it checks `tabula::interrupt` between sentences, so within a
//!   sentence's time. For long calls (training, a file).
//! - [`Signals`]: the work runs on the calling thread and, between items,
//!   takes the lock back at most every 100 ms to check. For calls that are
//!   usually short (a step of a minibatch), where a thread started and
//!   woken per call would cost more than the work.

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the calling thread looks for a signal.
const PERIOD: Duration = Duration::from_millis(100);

/// Runs `work` with the GIL released, honouring Ctrl-C (see the module
/// documentation); `work` gets the watch to check between sentences. An
/// interrupt during the call (this one's or another call's) raises
/// KeyboardInterrupt: what `work` returned may be cut short. A panic in
/// `work` is resumed on this thread.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(tabula::interrupt::Watch) -> T + Send,
) -> PyResult<T> {
    let watch = tabula::interrupt::Watch::start();
    py.detach(|| {
        // `done` is set before the worker wakes the caller: the worker's
        // thread may still be running then, and a caller that waited for
        // it to end would sleep a whole period after every call.
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let caller = std::thread::current();
            let done = &done;
            let worker = scope.spawn(move || {
                let result = work(watch);
                done.store(true, Ordering::Release);
                caller.unpark();
                result
            });
            let mut raised = None;
            while !done.load(Ordering::Acquire) {
                std::thread::park_timeout(PERIOD);
                if raised.is_none() && !done.load(Ordering::Acquire) {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        tabula::interrupt::interrupt();
                        raised = Some(e);
                    }
                }
            }
            let result = worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            match raised {
                Some(e) => Err(e),
                None if watch.interrupted() => Err(PyKeyboardInterrupt::new_err("interrupted")),
                None => Ok(result),
            }
        })
    })
}

/// Ctrl-C for work done on the calling thread with the interpreter's lock
/// released, item after item: [`Signals::interrupted`], asked between
/// items, takes the lock back at most every 100 ms to run Python's signal
/// handlers (see the module documentation).
pub(crate) struct Signals {
    last: Instant,
    raised: Option<PyErr>,
}

impl Signals {
    pub(crate) fn new() -> Signals {
        Signals { last: Instant::now(), raised: None }
    }

    /// Whether a signal handler raised (now or before): the work stops.
    pub(crate) fn interrupted(&mut self) -> bool {
        if self.raised.is_none() && self.last.elapsed() >= PERIOD {
            self.last = Instant::now();
            self.raised = Python::attach(|py| py.check_signals()).err();
        }
        self.raised.is_some()
    }

    /// The handler's exception, if one was raised.
    pub(crate) fn result(self) -> PyResult<()> {
        self.raised.map_or(Ok(()), Err)
    }
}

/// `f(index, item)` of every item with the GIL released, on rayon's
/// threads (one after the other when the pool has one thread), Ctrl-C
/// honoured between items ([`interruptible`]): KeyboardInterrupt, and the
/// items not yet started are not run.
pub(crate) fn map_interruptible<I: Sync, T: Send>(
    py: Python<'_>,
    items: &[I],
    f: impl Fn(usize, &I) -> T + Sync,
) -> PyResult<Vec<T>> {
    let results: Vec<Option<T>> = interruptible(py, |watch| {
        let one = |(i, item): (usize, &I)| (!watch.interrupted()).then(|| f(i, item));
        if rayon::current_num_threads() == 1 {
            items.iter().enumerate().map(one).collect()
        } else {
            items.par_iter().enumerate().map(one).collect()
        }
    })?;
    all_run(results)
}

/// The results of an interruptible map (None: an item not run after an
/// interrupt), or KeyboardInterrupt if any was not run.
pub(crate) fn all_run<T>(results: Vec<Option<T>>) -> PyResult<Vec<T>> {
    results.into_iter().collect::<Option<Vec<T>>>().ok_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))
}
