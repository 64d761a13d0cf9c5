//! The generator's allocator: mimalloc, called through its plain entry points (`mi_malloc`,
//! `mi_realloc`) wherever the alignment asked for is one every mimalloc block has (a
//! machine word), as the standard library's system allocator does with `malloc`. The
//! `mimalloc` crate's own `GlobalAlloc` goes through the aligned entry points for every
//! allocation, which check the alignment again on each of the generator's hundreds of
//! thousands of small allocations.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// Every block mimalloc hands out is aligned to at least a machine word.
const WORD: usize = std::mem::size_of::<usize>();

/// mimalloc, with the word-aligned requests taken through its plain entry points.
pub struct Mimalloc;

/// A new block for `layout` from `plain` (size) where a word's alignment is enough, else from
/// `aligned` (size, alignment).
///
/// # Safety
///
/// `plain` and `aligned` are mimalloc's entry points of one kind (`mi_malloc` and
/// `mi_malloc_aligned`, or `mi_zalloc` and `mi_zalloc_aligned`).
#[inline]
unsafe fn new_block(
    layout: Layout,
    plain: unsafe extern "C" fn(usize) -> *mut c_void,
    aligned: unsafe extern "C" fn(usize, usize) -> *mut c_void,
) -> *mut u8 {
    if layout.align() <= WORD {
        // SAFETY: every mimalloc block is word-aligned.
        unsafe { plain(layout.size()).cast() }
    } else {
        // SAFETY: mimalloc's aligned entry point for any power-of-two alignment.
        unsafe { aligned(layout.size(), layout.align()).cast() }
    }
}

// SAFETY: each method hands the request to mimalloc's entry point for it: the plain ones only
// where `layout.align()` is at most a word, which every mimalloc block satisfies; the aligned
// ones otherwise. mimalloc returns null on failure, as `GlobalAlloc` requires.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe { new_block(layout, mi::mi_malloc, mi::mi_malloc_aligned) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe { new_block(layout, mi::mi_zalloc, mi::mi_zalloc_aligned) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator, so from mimalloc.
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: `ptr` came from this allocator; see the impl.
            unsafe { mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast() }
        } else {
            // SAFETY: `ptr` came from this allocator; see the impl.
            unsafe { mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast() }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_have_the_alignment_asked_for_and_keep_their_bytes_when_grown() {
        let a = Mimalloc;
        for align in [1, 2, 8, 16, 64, 4096] {
            for size in [1, 7, 24, 100, 5000] {
                let layout = Layout::from_size_align(size, align).expect("a valid layout");
                // SAFETY: `layout` has a non-zero size; every block is freed with its layout.
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "alloc {size} aligned {align}");
                    p.write_bytes(0xA5, size);
                    let q = a.realloc(p, layout, size * 3);
                    assert_eq!(q as usize % align, 0, "realloc {size} aligned {align}");
                    assert!((0..size).all(|i| *q.add(i) == 0xA5));
                    a.dealloc(q, Layout::from_size_align(size * 3, align).expect("valid"));
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0, "zeroed {size} aligned {align}");
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
