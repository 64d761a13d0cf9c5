//! What must happen later, on a thread of the crate's own: objects dropped inside a CUDA
//! callback (where no CUDA call is allowed) and frees that cannot run yet (the memory's home
//! stream is being captured; an executable graph's launches have not completed), retried
//! until they can; and running Rust code called from C without letting a panic cross.
//!
//! Not here: deciding what to release or when it may go ([`super::Life`], [`super::holdings`]).

use std::any::Any;
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::error::{report_drop_error, Error, Result};

/// Something to drop on the release thread.
pub(crate) type Later = Box<dyn Any + Send>;

/// A release that could not run yet: called again on the release thread until it returns
/// `true`.
pub(crate) type Retry = Box<dyn FnMut() -> bool + Send>;

enum Message {
    Drop(Later),
    Retry(Retry),
}

/// Drops `item` on the release thread (for what a CUDA callback thread hands over).
pub(crate) fn release_later(item: Later) {
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

/// Runs a Rust closure called from C (a callback, or the release thread's work), catching a
/// panic: unwinding must not cross into C. The payload is dropped inside a catch too, and a
/// payload whose own drop panics is forgotten, so nothing unwinds out of this function.
pub(crate) fn run_caught(what: &'static str, f: impl FnOnce()) {
    if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        let message = crate::error::panic_message(&*payload);
        report_drop_error(what, &Error::CallbackPanicked(message));
        drop_payload(payload);
    }
}

/// Drops a panic payload without letting its `Drop` unwind: a payload that panics while
/// dropped is caught, and that second payload is forgotten.
fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(second) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(payload))) {
        std::mem::forget(second);
    }
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
                                run_caught("released object", move || drop(item))
                            }
                            Ok(Message::Retry(job)) => pending.push(job),
                            Err(RecvTimeoutError::Timeout) => {}
                            Err(RecvTimeoutError::Disconnected) => break,
                        }
                        pending.retain_mut(|job| {
                            let mut done = true;
                            run_caught("deferred release", || done = job());
                            !done
                        });
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

    #[test]
    fn a_payload_that_panics_when_dropped_does_not_escape() {
        struct Bomb;
        impl Drop for Bomb {
            fn drop(&mut self) {
                panic!("the payload's own drop panics");
            }
        }
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        // Without the catch around the payload's drop this unwinds out of `run_caught`
        // (in an `extern "C"` trampoline: an abort).
        let escaped = std::panic::catch_unwind(|| {
            run_caught("test", || std::panic::panic_any(Bomb));
        });
        std::panic::set_hook(hook);
        assert!(escaped.is_ok(), "the payload's panic escaped run_caught");
    }
}
