//! One helper for the generator's data parallelism: a function over a list on a few scoped
//! threads, results in the list's order ([`map`]; [`map_mut`] where the function changes
//! the items). Used to read a crate's documents, to give functions their roles, and to build
//! and format the generated files. Values that are not `Send` (token streams) stay on the thread
//! that made them: callers hand in shared, read-only data and get plain data back.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` over `items` on up to `available_parallelism` threads (the calling one included),
/// taking items in order as threads free up; results in `items`' order, each `Err` with the
/// panic's payload where `f` panicked.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
) -> Vec<std::thread::Result<R>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, items.len().max(1));
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item)));
            done.push((i, r));
        }
    };
    let mut slots: Vec<Option<std::thread::Result<R>>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut done = work();
        for h in helpers {
            // `work` catches every panic of `f`, so a helper itself does not panic.
            done.extend(h.join().unwrap_or_default());
        }
        for (i, r) in done {
            slots[i] = Some(r);
        }
    });
    slots
        .into_iter()
        .map(|s| s.unwrap_or_else(|| Err(Box::new("a worker thread stopped"))))
        .collect()
}

/// `f` over each item of `items`, which it may change, on up to `available_parallelism`
/// threads (the calling one included), each taking a contiguous share of the list; results in
/// `items`' order, each `Err` with the panic's payload where `f` panicked.
pub fn map_mut<T: Send, R: Send>(
    items: &mut [T],
    f: impl Fn(&mut T) -> R + Sync,
) -> Vec<std::thread::Result<R>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, items.len().max(1));
    let share = items.len().div_ceil(threads).max(1);
    let work = |chunk: &mut [T]| -> Vec<std::thread::Result<R>> {
        chunk
            .iter_mut()
            .map(|item| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item))))
            .collect()
    };
    std::thread::scope(|scope| {
        let mut chunks = items.chunks_mut(share);
        let first = chunks.next();
        let helpers: Vec<_> = chunks.map(|c| scope.spawn(|| work(c))).collect();
        let mut out = first.map(work).unwrap_or_default();
        for h in helpers {
            // `work` catches every panic of `f`, so a helper itself does not panic.
            out.extend(h.join().unwrap_or_default());
        }
        out
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_order_and_panics_are_kept_apart() {
        let items: Vec<u32> = (0..50).collect();
        let out = super::map(&items, |&i| {
            assert!(i != 7, "seven");
            i * 2
        });
        assert_eq!(out.len(), 50);
        for (i, r) in out.iter().enumerate() {
            match r {
                Ok(v) => assert_eq!(*v, i as u32 * 2),
                Err(_) => assert_eq!(i, 7),
            }
        }
        assert!(out[7].is_err());
    }

    #[test]
    fn map_mut_changes_every_item_and_keeps_the_order() {
        for len in [0usize, 1, 2, 3, 50] {
            let mut items: Vec<u32> = (0..len as u32).collect();
            let out = super::map_mut(&mut items, |i| {
                *i += 100;
                assert!(*i != 107, "seven");
                *i * 2
            });
            assert_eq!(out.len(), len);
            for (k, r) in out.iter().enumerate() {
                assert_eq!(items[k], k as u32 + 100);
                match r {
                    Ok(v) => assert_eq!(*v, (k as u32 + 100) * 2),
                    Err(_) => assert_eq!(k, 7),
                }
            }
        }
    }
}
