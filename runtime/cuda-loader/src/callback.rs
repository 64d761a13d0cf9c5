//! Refusing calls made inside a callback the library runs (CUDA forbids CUDA calls in a host
//! function, a stream callback, a user-object destructor): each crate keeps one thread-local
//! [`State`] and runs its callbacks' bodies in [`scope`]; every [`LazySymbol`] it resolves
//! reads [`State::calls_allowed`] on the call path.
//!
//! The test costs no instruction of its own: the mask is all ones outside a scope and zero
//! inside, and [`LazySymbol::get`] tests the cached address *and* the mask in one `test`
//! (with a thread-local operand, on x86-64), as it would test the address alone for null.
//!
//! [`LazySymbol`]: crate::LazySymbol
//! [`LazySymbol::get`]: crate::LazySymbol::get

use std::cell::Cell;
use std::thread::LocalKey;

/// One thread's callback state for one crate: how deep in scopes, and the mask.
#[derive(Debug)]
pub struct State {
    /// How many callbacks this thread is running inside (nested scopes count).
    depth: Cell<u32>,
    /// All ones outside callbacks, zero inside.
    allowed: Cell<usize>,
}

impl State {
    /// Outside every callback.
    pub const fn new() -> State {
        State {
            depth: Cell::new(0),
            allowed: Cell::new(usize::MAX),
        }
    }

    /// All ones outside [`scope`], zero inside.
    #[inline(always)]
    pub fn calls_allowed(&self) -> usize {
        self.allowed.get()
    }

    /// Whether this thread is inside [`scope`].
    #[inline(always)]
    pub fn in_callback(&self) -> bool {
        self.allowed.get() == 0
    }
}

impl Default for State {
    fn default() -> State {
        State::new()
    }
}

/// Runs `f` as the body of a callback: every call through a [`LazySymbol`] tested against
/// `key`'s mask returns [`Error::InCallback`] without calling C. Scopes nest; the scope ends
/// when `f` returns or unwinds.
///
/// [`LazySymbol`]: crate::LazySymbol
/// [`Error::InCallback`]: crate::Error::InCallback
pub fn scope<R>(key: &'static LocalKey<State>, f: impl FnOnce() -> R) -> R {
    struct Leave(&'static LocalKey<State>);
    impl Drop for Leave {
        fn drop(&mut self) {
            self.0.with(|s| {
                s.depth.set(s.depth.get().saturating_sub(1));
                if s.depth.get() == 0 {
                    s.allowed.set(usize::MAX);
                }
            });
        }
    }
    key.with(|s| {
        s.depth.set(s.depth.get().saturating_add(1));
        s.allowed.set(0);
    });
    let _leave = Leave(key);
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static STATE: State = const { State::new() };
    }

    #[test]
    fn scopes_nest_and_survive_a_panic() {
        assert!(!STATE.with(State::in_callback));
        scope(&STATE, || {
            assert_eq!(STATE.with(State::calls_allowed), 0);
            let caught = std::panic::catch_unwind(|| scope(&STATE, || panic!("in a callback")));
            assert!(caught.is_err());
            assert!(STATE.with(State::in_callback));
        });
        assert_eq!(STATE.with(State::calls_allowed), usize::MAX);
        let other = std::thread::spawn(|| scope(&STATE, || STATE.with(State::in_callback)));
        assert!(other.join().expect("no panic"));
    }
}
