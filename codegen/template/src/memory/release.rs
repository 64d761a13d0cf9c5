//! What must be released later, on a thread of the crate's own: objects dropped inside a CUDA
//! callback (where no CUDA call is allowed), what an executable graph kept once its launches
//! have completed, and frees that cannot be enqueued yet (the memory's home stream is being
//! captured), retried until they can.
//!
//! Not here: deciding what a graph must keep ([`crate::graph`] and the memory types do).

use std::any::Any;
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::error::{Error, Result};

/// Something to drop on the release thread.
pub(crate) type Kept = Box<dyn Any + Send>;

/// A free (or other release) that could not run yet: called again on the release thread
/// until it returns `true`.
pub(crate) type Retry = Box<dyn FnMut() -> bool + Send>;

enum Message {
    Drop(Kept),
    Retry(Retry),
}

/// Drops `item` on the release thread (for what a CUDA callback thread hands over).
pub(crate) fn release_later(item: Kept) {
    match sender() {
        Ok(tx) => {
            if let Err(unsent) = send(tx, Message::Drop(item)) {
                // The thread is gone (process exit): leak rather than call CUDA here.
                std::mem::forget(unsent);
            }
        }
        Err(_) => std::mem::forget(item),
    }
}

/// Runs `job` on the release thread, again every few milliseconds until it returns `true`.
/// When the thread cannot run, the job is dropped unrun (its memory leaks: failing closed).
pub(crate) fn retry_later(job: Retry) {
    if let Ok(tx) = sender() {
        if let Err(unsent) = send(tx, Message::Retry(job)) {
            std::mem::forget(unsent);
        }
    } else {
        std::mem::forget(job);
    }
}

fn send(tx: &Mutex<Sender<Message>>, m: Message) -> std::result::Result<(), Message> {
    tx.lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(m)
        .map_err(|e| e.0)
}

/// Held by the release thread while it works; taken for good when the process exits.
static RUNNING: Mutex<()> = Mutex::new(());

extern "C" {
    fn atexit(f: extern "C" fn()) -> std::ffi::c_int;
}

/// At exit, waits for the release thread's current work and stops it there: the runtime
/// tears itself down after this (its own exit handlers were registered earlier), and a free
/// racing that teardown can crash the process. What is left is released with the process.
fn stop_at_exit() {
    extern "C" fn stop() {
        std::mem::forget(RUNNING.lock().unwrap_or_else(|e| e.into_inner()));
    }
    // SAFETY: registers a handler that takes a lock and returns.
    unsafe { atexit(stop) };
}

/// The release thread's sender, starting the thread on first use.
fn sender() -> Result<&'static Mutex<Sender<Message>>> {
    static THREAD: OnceLock<std::result::Result<Mutex<Sender<Message>>, String>> = OnceLock::new();
    THREAD
        .get_or_init(|| {
            let (tx, rx) = channel::<Message>();
            std::thread::Builder::new()
                .name("cudart-release".into())
                .spawn(move || {
                    let mut pending: Vec<Retry> = Vec::new();
                    loop {
                        let next = if pending.is_empty() {
                            rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
                        } else {
                            rx.recv_timeout(Duration::from_millis(5))
                        };
                        // Nothing runs once the process is exiting (see `stop_at_exit`).
                        let _running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
                        match next {
                            Ok(Message::Drop(item)) => {
                                crate::stream::run_caught("released object", move || drop(item))
                            }
                            Ok(Message::Retry(job)) => pending.push(job),
                            Err(RecvTimeoutError::Timeout) => {}
                            Err(RecvTimeoutError::Disconnected) => break,
                        }
                        pending.retain_mut(|job| !job());
                    }
                })
                .map(|_| {
                    stop_at_exit();
                    Mutex::new(tx)
                })
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| Error::InvalidArgument(format!("cannot start the release thread: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;

    fn eventually(what: &str, f: impl Fn() -> bool) {
        for _ in 0..400 {
            if f() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("{what} did not happen on the release thread");
    }

    #[test]
    fn the_release_thread_drops_what_it_is_handed() {
        struct Flag(Arc<AtomicBool>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let dropped = Arc::new(AtomicBool::new(false));
        release_later(Box::new(Flag(dropped.clone())));
        eventually("the drop", || dropped.load(Ordering::SeqCst));
    }

    #[test]
    fn retries_run_until_they_succeed() {
        let tries = Arc::new(AtomicUsize::new(0));
        let seen = tries.clone();
        retry_later(Box::new(move || seen.fetch_add(1, Ordering::SeqCst) >= 2));
        eventually("three tries", || tries.load(Ordering::SeqCst) == 3);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(tries.load(Ordering::SeqCst), 3, "no try after success");
    }
}
