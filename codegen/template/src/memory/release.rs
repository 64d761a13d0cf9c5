//! What must be released later, on a thread of the crate's own: objects a graph owns
//! through a CUDA user object (memory its nodes use, host-node closures), whose destructor
//! CUDA runs on a thread of its own where no CUDA call is allowed; and frees that cannot
//! be enqueued yet (the memory's home stream is being captured), retried until they can.
//!
//! Not here: deciding what a graph must keep (the memory types and [`crate::graph`] do).

use std::any::Any;
use std::ffi::{c_uint, c_void};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::error::{status, Error, Result};
use crate::sys;

/// `cudaUserObjectNoDestructorSync`, the flag CUDA requires for user objects.
const USER_OBJECT_NO_DESTRUCTOR_SYNC: c_uint = 1;
/// `cudaGraphUserObjectMove`: the graph takes over the caller's reference.
const GRAPH_USER_OBJECT_MOVE: c_uint = 1;

/// Something a graph keeps alive (dropped on the release thread once CUDA lets it go).
pub(crate) type Kept = Box<dyn Any + Send>;

/// A free (or other release) that could not run yet: called again on the release thread
/// until it returns `true`.
pub(crate) type Retry = Box<dyn FnMut() -> bool + Send>;

enum Message {
    Drop(Kept),
    Retry(Retry),
}

/// Makes `graph` own `item` through a CUDA user object: it lives as long as the graph and
/// every executable graph, clone and parent graph made from it, and every launch of those
/// (CUDA releases a user object after the launches that use it completed). On failure
/// `item` is dropped here and the error returned.
pub(crate) fn keep_in_graph(graph: sys::cudaGraph_t, item: Kept) -> Result<()> {
    // Start the thread that releases what user objects owned, before CUDA may need it.
    sender()?;
    let data: *mut Kept = Box::into_raw(Box::new(item));
    let mut object = sys::cudaUserObject_t::null();
    // SAFETY: `release_kept` matches `cudaHostFn_t`; on success the object owns `data`.
    let created = status(unsafe {
        sys::cudaUserObjectCreate(
            &mut object,
            data.cast(),
            Some(release_kept),
            1,
            USER_OBJECT_NO_DESTRUCTOR_SYNC,
        )
    });
    if let Err(e) = created {
        // SAFETY: `data` was not taken by CUDA; released once, here.
        drop(unsafe { Box::from_raw(data) });
        return Err(e);
    }
    // SAFETY: the graph and the object are alive; the graph takes over our reference.
    let retained =
        status(unsafe { sys::cudaGraphRetainUserObject(graph, object, 1, GRAPH_USER_OBJECT_MOVE) });
    if retained.is_err() {
        // SAFETY: our reference was not moved: releasing it runs the destructor (which
        // hands `data` to the release thread).
        let _ = unsafe { sys::cudaUserObjectRelease(object, 1) };
    }
    retained
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

/// The user object destructor: hands the item to the release thread, because dropping it
/// may call CUDA (memory frees itself), which a user object destructor must not.
unsafe extern "C" fn release_kept(data: *mut c_void) {
    // SAFETY: `data` is the leaked `Box<Kept>` the user object owned; released once.
    let item: Box<Kept> = unsafe { Box::from_raw(data.cast::<Kept>()) };
    crate::loader::callback_scope(|| release_later(*item));
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
                        match next {
                            Ok(Message::Drop(item)) => {
                                crate::stream::run_caught("graph-owned object", move || drop(item))
                            }
                            Ok(Message::Retry(job)) => pending.push(job),
                            Err(RecvTimeoutError::Timeout) => {}
                            Err(RecvTimeoutError::Disconnected) => break,
                        }
                        pending.retain_mut(|job| !job());
                    }
                })
                .map(|_| Mutex::new(tx))
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
    fn the_release_thread_drops_what_a_destructor_hands_over() {
        struct Flag(Arc<AtomicBool>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let dropped = Arc::new(AtomicBool::new(false));
        let data = Box::into_raw(Box::new(Box::new(Flag(dropped.clone())) as Kept));
        // SAFETY: a leaked `Box<Kept>`, released once.
        unsafe { release_kept(data.cast()) };
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
