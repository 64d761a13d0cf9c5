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

/// [`map`] with the items started largest first by `size` (the longest tasks do not start
/// last and leave one thread working alone at the end); results in `items`' order.
pub fn map_largest_first<T: Sync, R: Send>(
    items: &[T],
    size: impl Fn(&T) -> u64,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<std::thread::Result<R>> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(size(&items[i])));
    let done = map(&order, |&i| f(&items[i]));
    let mut slots: Vec<Option<std::thread::Result<R>>> = (0..items.len()).map(|_| None).collect();
    for (&i, r) in order.iter().zip(done) {
        slots[i] = Some(r);
    }
    slots
        .into_iter()
        .map(|s| s.unwrap_or_else(|| Err(Box::new("a worker thread stopped"))))
        .collect()
}

/// `f` over each item of `items`, which it may change, on up to `available_parallelism`
/// threads (the calling one included), which take short runs of the list as they free up (so
/// that a run of costly items does not keep one thread busy while the other waits); results
/// in `items`' order, each `Err` with the panic's payload where `f` panicked.
pub fn map_mut<T: Send, R: Send>(
    items: &mut [T],
    f: impl Fn(&mut T) -> R + Sync,
) -> Vec<std::thread::Result<R>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, items.len().max(1));
    // Eight runs per thread: short enough to even out, long enough that taking one is cheap.
    let run = items.len().div_ceil(threads * 8).max(1);
    let queue = std::sync::Mutex::new(items.chunks_mut(run).enumerate());
    let work = || {
        let mut done = Vec::new();
        loop {
            let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
            let Some((k, chunk)) = next else {
                return done;
            };
            let out: Vec<std::thread::Result<R>> = chunk
                .iter_mut()
                .map(|item| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item))))
                .collect();
            done.push((k, out));
        }
    };
    let mut runs = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut done = work();
        for h in helpers {
            // `work` catches every panic of `f`, so a helper itself does not panic.
            done.extend(h.join().unwrap_or_default());
        }
        done
    });
    runs.sort_by_key(|(k, _)| *k);
    runs.into_iter().flat_map(|(_, out)| out).collect()
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
    fn largest_first_keeps_the_order_of_the_results() {
        let items: Vec<u64> = vec![3, 50, 7, 50, 1, 20];
        let out = super::map_largest_first(&items, |&i| i, |&i| i + 1);
        let got: Vec<u64> = out.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(got, vec![4, 51, 8, 51, 2, 21]);
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
