//! One helper for the generator's data parallelism: a function over a list on a few scoped
//! threads, results in the list's order ([`map`], [`map_largest_first`]). Used to read a
//! crate's documents.

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
}
