//! Ctrl-C during a long call: the work runs on a scoped thread with the
//! interpreter's lock released, while the calling thread takes the lock
//! every 100 ms to let Python run its signal handlers
//! (`PyErr_CheckSignals`). On a signal, the handler's exception
//! (KeyboardInterrupt) is raised once the work has stopped: it checks
//! `tabula::interrupt` between sentences, so within a sentence's time.

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use rayon::prelude::*;
use std::time::Duration;

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
        std::thread::scope(|scope| {
            let caller = std::thread::current();
            let worker = scope.spawn(move || {
                let result = work(watch);
                caller.unpark();
                result
            });
            let mut raised = None;
            while !worker.is_finished() {
                std::thread::park_timeout(Duration::from_millis(100));
                if raised.is_none() && !worker.is_finished() {
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
