// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/pinned_slice.rs:
// edit the template, not this copy.

//! Parts of a [`PinnedBuffer`]: [`PinnedSlice`] (shared) and [`PinnedSliceMut`] (exclusive),
//! made by [`PinnedBuffer::slice`], [`slice_mut`](PinnedBuffer::slice_mut),
//! [`split_at_mut`](PinnedBuffer::split_at_mut), [`chunks`](PinnedBuffer::chunks) and
//! [`chunks_mut`](PinnedBuffer::chunks_mut), and the traits through which copies take a whole
//! buffer or a part ([`AsPinnedSlice`], [`AsPinnedSliceMut`]).
//!
//! A part is a source or destination of asynchronous copies with the guarantees of the whole
//! buffer (see the [safety model](super#safety-model)): the buffer records, per stream, the
//! byte range each copy used, so that a part's host view waits only for the copies of bytes
//! it overlaps, and a view of the whole buffer, a free and a re-pool wait for all of them.
//! The borrow checker does the rest: a copy into a part needs it exclusively, so no host view
//! of it is alive meanwhile, and parts from `chunks_mut` or `split_at_mut` never overlap.
//!
//! Not here: the buffer, its allocation and its pool (`pinned`).

use std::marker::PhantomData;
use std::ops::RangeBounds;
use std::ptr::NonNull;

use super::pinned_block::{PinnedBlock, PinnedMut, PinnedRef};
#[cfg(doc)]
use super::PinnedBuffer;
use super::{bounds, DeviceCopy};
use crate::error::{Error, Result};
use crate::lifetime::{self, Access, Bytes, Part};
use crate::stream::Stream;

/// A shared part of a [`PinnedBuffer`]: a source of asynchronous copies
/// ([`DeviceBuffer::copy_from_pinned_async`](super::DeviceBuffer::copy_from_pinned_async))
/// and of host reads ([`as_slice`](PinnedSlice::as_slice), which waits for the copies that
/// write its elements).
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{DeviceBuffer, PinnedBuffer, Stream};
/// let stream = Stream::non_blocking()?;
/// let host = PinnedBuffer::<u8>::from_slice(b"hello, world")?;
/// let mut dev = DeviceBuffer::<u8>::new(5, &stream)?;
/// dev.copy_from_pinned_async(&host.slice(7..)?, &stream)?;
/// assert_eq!(dev.to_vec()?, b"world");
/// # Ok(()) }
/// ```
pub struct PinnedSlice<'a, T: DeviceCopy> {
    ptr: NonNull<T>,
    len: usize,
    block: &'a PinnedBlock,
    /// The first element's byte offset in the block.
    offset: usize,
    _data: PhantomData<&'a [T]>,
}

/// An exclusive part of a [`PinnedBuffer`]: a source or destination of asynchronous copies
/// ([`DeviceBuffer::copy_to_pinned_async`](super::DeviceBuffer::copy_to_pinned_async)) and
/// of host reads and writes through views that wait for the copies of its elements.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{DeviceBuffer, PinnedBuffer, Stream};
/// let stream = Stream::non_blocking()?;
/// let dev = DeviceBuffer::from_slice(&[1u32, 2, 3, 4], &stream)?;
/// let mut host = PinnedBuffer::<u32>::new(8)?;
/// let (mut low, mut high) = host.split_at_mut(4)?;
/// dev.copy_to_pinned_async(&mut high, &stream)?;
/// low.as_mut_slice()?.fill(9); // the copy writes `high` only: no wait
/// assert_eq!(&*high.as_slice()?, &[1, 2, 3, 4]); // waits for the copy
/// # Ok(()) }
/// ```
pub struct PinnedSliceMut<'a, T: DeviceCopy> {
    ptr: NonNull<T>,
    len: usize,
    block: &'a PinnedBlock,
    offset: usize,
    _data: PhantomData<&'a mut [T]>,
}

// SAFETY: like `&[T]`: shared access to `Sync` elements; the bookkeeping is behind a mutex.
unsafe impl<T: DeviceCopy + Sync> Send for PinnedSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy + Sync> Sync for PinnedSlice<'_, T> {}
// SAFETY: like `&mut [T]`.
unsafe impl<T: DeviceCopy + Send> Send for PinnedSliceMut<'_, T> {}
// SAFETY: like `&mut [T]`.
unsafe impl<T: DeviceCopy + Sync> Sync for PinnedSliceMut<'_, T> {}

/// Pinned memory that asynchronous copies can read: [`PinnedBuffer`], [`PinnedSlice`],
/// [`PinnedSliceMut`].
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::memory::AsPinnedSlice;
/// use cudart12::{DeviceCopy, PinnedBuffer};
/// fn total(mem: &impl AsPinnedSlice<u32>) -> cudart12::Result<u64> {
///     Ok(mem.as_pinned_slice().as_slice()?.iter().map(|v| u64::from(*v)).sum())
/// }
/// let host = PinnedBuffer::from_slice(&[1u32, 2, 3, 4])?;
/// assert_eq!(total(&host)?, 10);
/// assert_eq!(total(&host.slice(2..)?)?, 7);
/// # Ok(()) }
/// ```
pub trait AsPinnedSlice<T: DeviceCopy> {
    /// The whole memory as a shared part.
    fn as_pinned_slice(&self) -> PinnedSlice<'_, T>;
}

/// Pinned memory that asynchronous copies can write: [`PinnedBuffer`], [`PinnedSliceMut`].
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::memory::AsPinnedSliceMut;
/// use cudart12::PinnedBuffer;
/// fn ones(mem: &mut impl AsPinnedSliceMut<u8>) -> cudart12::Result<()> {
///     mem.as_pinned_slice_mut().as_mut_slice()?.fill(1);
///     Ok(())
/// }
/// let mut host = PinnedBuffer::<u8>::new(64)?;
/// ones(&mut host)?;
/// ones(&mut host.slice_mut(..8)?)?;
/// # Ok(()) }
/// ```
pub trait AsPinnedSliceMut<T: DeviceCopy>: AsPinnedSlice<T> {
    /// The whole memory as an exclusive part.
    fn as_pinned_slice_mut(&mut self) -> PinnedSliceMut<'_, T>;
}

/// The error for a range or chunk length that does not fit.
fn out_of_bounds(what: &str, len: usize) -> Error {
    Error::InvalidArgument(format!("{what} is out of bounds of {len} elements"))
}

/// What both kinds of part have: their elements, their bytes in the block, their views and
/// asynchronous use.
macro_rules! part_methods {
    () => {
        /// The number of elements.
        pub fn len(&self) -> usize {
            self.len
        }

        /// Whether there are no elements.
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }

        /// The host address of the first element.
        pub fn as_ptr(&self) -> *const T {
            self.ptr.as_ptr()
        }

        /// The part's bytes in its block.
        fn range(&self) -> Bytes {
            (
                self.offset,
                self.offset + self.len * std::mem::size_of::<T>(),
            )
        }

        /// This part as an operation uses it (the gate's **use**).
        pub(crate) fn part(&self, access: Access) -> Part<'_> {
            Part {
                life: &self.block.life,
                range: self.range(),
                access,
            }
        }

        /// A view of the elements for reading, once the copies that write them have
        /// finished; the error of a failed wait is returned (and no view).
        #[doc(alias = "cudaEventSynchronize")]
        pub fn as_slice(&self) -> Result<PinnedRef<'_, T>> {
            let view = self.block.host_access(Access::Read, self.range())?;
            Ok(PinnedRef {
                // SAFETY: `len` initialised elements that no copy writes while the view
                // lives (copies that write need the part exclusively; graph launches are
                // refused meanwhile).
                slice: unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) },
                _view: view,
            })
        }

        /// The elements copied into a `Vec` (after waiting, as [`as_slice`](Self::as_slice)).
        pub fn to_vec(&self) -> Result<Vec<T>> {
            Ok(self.as_slice()?.to_vec())
        }

        /// Enqueues an asynchronous copy with `copy` (given the host address) on `stream`
        /// with `device` current, and records what it does with this part and `others`.
        pub(crate) fn use_async(
            &self,
            stream: &Stream,
            access: Access,
            device: i32,
            other: Option<Part<'_>>,
            copy: impl FnOnce(*mut std::ffi::c_void) -> Result<()>,
        ) -> Result<()> {
            if self.len == 0 || std::mem::size_of::<T>() == 0 {
                return Ok(());
            }
            let host = self.ptr.as_ptr().cast::<std::ffi::c_void>();
            let parts = [Some(self.part(access)), other];
            lifetime::enqueue_with(stream.queue(), device, parts.into_iter().flatten(), || {
                copy(host)
            })
        }
    };
}

impl<'a, T: DeviceCopy> PinnedSlice<'a, T> {
    /// # Safety
    /// `ptr` is `len` elements of `block`, `offset` bytes into it, shared for `'a`.
    pub(crate) unsafe fn new(
        ptr: NonNull<T>,
        len: usize,
        block: &'a PinnedBlock,
        offset: usize,
    ) -> PinnedSlice<'a, T> {
        PinnedSlice {
            ptr,
            len,
            block,
            offset,
            _data: PhantomData,
        }
    }

    part_methods!();

    /// The block's record in the gate (what a graph holds to keep the memory alive).
    pub(crate) fn life(&self) -> &'a crate::lifetime::Life {
        &self.block.life
    }

    /// The view of the whole part (see [`PinnedBuffer::as_slice`]).
    pub(crate) fn host_view(self) -> Result<PinnedRef<'a, T>> {
        let view = self.block.host_access(Access::Read, self.range())?;
        Ok(PinnedRef {
            // SAFETY: as in `as_slice`, for the part's lifetime.
            slice: unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) },
            _view: view,
        })
    }

    /// The elements of `range` of this part; [`Error::InvalidArgument`] when the range is
    /// out of bounds.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<PinnedSlice<'_, T>> {
        self.reborrow().sub(range)
    }

    fn reborrow(&self) -> PinnedSlice<'_, T> {
        // SAFETY: the same elements, shared for a shorter borrow.
        unsafe { PinnedSlice::new(self.ptr, self.len, self.block, self.offset) }
    }

    /// The elements of `range`, for as long as this part.
    pub(crate) fn sub(self, range: impl RangeBounds<usize>) -> Result<PinnedSlice<'a, T>> {
        let (start, end) =
            bounds(range, self.len).ok_or_else(|| out_of_bounds("the range", self.len))?;
        // SAFETY: elements `start..end` of this part, in bounds.
        Ok(unsafe {
            PinnedSlice::new(
                self.ptr.add(start),
                end - start,
                self.block,
                self.offset + start * std::mem::size_of::<T>(),
            )
        })
    }

    /// Chunks of `chunk_len` elements, for as long as this part.
    pub(crate) fn into_chunks(
        self,
        chunk_len: usize,
    ) -> Result<impl ExactSizeIterator<Item = PinnedSlice<'a, T>>> {
        let n = chunk_count(self.len, chunk_len)?;
        Ok((0..n).map(move |i| {
            let (start, len) = chunk(i, chunk_len, self.len);
            // SAFETY: elements `start..start + len` of this part, in bounds.
            unsafe {
                PinnedSlice::new(
                    self.ptr.add(start),
                    len,
                    self.block,
                    self.offset + start * std::mem::size_of::<T>(),
                )
            }
        }))
    }
}

impl<T: DeviceCopy> Clone for PinnedSlice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: DeviceCopy> Copy for PinnedSlice<'_, T> {}

impl<'a, T: DeviceCopy> PinnedSliceMut<'a, T> {
    /// # Safety
    /// `ptr` is `len` elements of `block`, `offset` bytes into it, borrowed exclusively for
    /// `'a`.
    pub(crate) unsafe fn new(
        ptr: NonNull<T>,
        len: usize,
        block: &'a PinnedBlock,
        offset: usize,
    ) -> PinnedSliceMut<'a, T> {
        PinnedSliceMut {
            ptr,
            len,
            block,
            offset,
            _data: PhantomData,
        }
    }

    part_methods!();

    /// A view of the elements for writing, once every copy that uses them has finished.
    #[doc(alias = "cudaEventSynchronize")]
    pub fn as_mut_slice(&mut self) -> Result<PinnedMut<'_, T>> {
        self.reborrow_mut().into_host_view_mut()
    }

    /// The writable view of the whole part, for as long as it (see
    /// [`PinnedBuffer::as_mut_slice`]).
    pub(crate) fn into_host_view_mut(self) -> Result<PinnedMut<'a, T>> {
        let view = self.block.host_access(Access::Write, self.range())?;
        Ok(PinnedMut {
            // SAFETY: the part's elements, borrowed exclusively; no copy reads or writes
            // them meanwhile (every one was waited for; new ones need the part).
            slice: unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) },
            _view: view,
        })
    }

    /// Copies `src` (same length) in (after waiting, as
    /// [`as_mut_slice`](Self::as_mut_slice)).
    pub fn copy_from_slice(&mut self, src: &[T]) -> Result<()> {
        if src.len() != self.len {
            return Err(super::length_mismatch(
                "copy_from_slice",
                self.len,
                src.len(),
            ));
        }
        self.as_mut_slice()?.copy_from_slice(src);
        Ok(())
    }

    fn reborrow_mut(&mut self) -> PinnedSliceMut<'_, T> {
        // SAFETY: the same elements, borrowed exclusively for a shorter time.
        unsafe { PinnedSliceMut::new(self.ptr, self.len, self.block, self.offset) }
    }

    /// The elements of `range` of this part; [`Error::InvalidArgument`] when the range is
    /// out of bounds.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<PinnedSliceMut<'_, T>> {
        self.reborrow_mut().into_sub(range)
    }

    /// The elements of `range`, for as long as this part.
    pub(crate) fn into_sub(self, range: impl RangeBounds<usize>) -> Result<PinnedSliceMut<'a, T>> {
        let (start, end) =
            bounds(range, self.len).ok_or_else(|| out_of_bounds("the range", self.len))?;
        // SAFETY: elements `start..end` of this part, in bounds; `self` is consumed.
        Ok(unsafe {
            PinnedSliceMut::new(
                self.ptr.add(start),
                end - start,
                self.block,
                self.offset + start * std::mem::size_of::<T>(),
            )
        })
    }

    /// Two disjoint parts, `[0, mid)` and `[mid, len)`; [`Error::InvalidArgument`] when
    /// `mid > len`.
    pub fn split_at_mut(
        &mut self,
        mid: usize,
    ) -> Result<(PinnedSliceMut<'_, T>, PinnedSliceMut<'_, T>)> {
        self.reborrow_mut().into_split_at(mid)
    }

    /// [`split_at_mut`](Self::split_at_mut), for as long as this part.
    pub(crate) fn into_split_at(
        self,
        mid: usize,
    ) -> Result<(PinnedSliceMut<'a, T>, PinnedSliceMut<'a, T>)> {
        if mid > self.len {
            return Err(out_of_bounds(&format!("the split point {mid}"), self.len));
        }
        let size = std::mem::size_of::<T>();
        // SAFETY: two disjoint ranges of this part, which is consumed.
        Ok(unsafe {
            (
                PinnedSliceMut::new(self.ptr, mid, self.block, self.offset),
                PinnedSliceMut::new(
                    self.ptr.add(mid),
                    self.len - mid,
                    self.block,
                    self.offset + mid * size,
                ),
            )
        })
    }

    /// Disjoint chunks of `chunk_len` elements; [`Error::InvalidArgument`] for
    /// `chunk_len == 0`.
    pub fn chunks_mut(
        &mut self,
        chunk_len: usize,
    ) -> Result<impl ExactSizeIterator<Item = PinnedSliceMut<'_, T>>> {
        self.reborrow_mut().into_chunks_mut(chunk_len)
    }

    /// [`chunks_mut`](Self::chunks_mut), for as long as this part.
    pub(crate) fn into_chunks_mut(
        self,
        chunk_len: usize,
    ) -> Result<impl ExactSizeIterator<Item = PinnedSliceMut<'a, T>>> {
        let n = chunk_count(self.len, chunk_len)?;
        let (ptr, len, block, offset) = (self.ptr, self.len, self.block, self.offset);
        Ok((0..n).map(move |i| {
            let (start, part_len) = chunk(i, chunk_len, len);
            // SAFETY: chunk `i` of this part: disjoint from every other chunk, in bounds;
            // the part is consumed, so each chunk is borrowed exclusively.
            unsafe {
                PinnedSliceMut::new(
                    ptr.add(start),
                    part_len,
                    block,
                    offset + start * std::mem::size_of::<T>(),
                )
            }
        }))
    }
}

/// How many chunks of `chunk_len` elements `len` elements make; refuses `chunk_len == 0`.
pub(crate) fn chunk_count(len: usize, chunk_len: usize) -> Result<usize> {
    if chunk_len == 0 {
        return Err(Error::InvalidArgument("chunks of 0 elements".into()));
    }
    Ok(len.div_ceil(chunk_len))
}

/// The first element and length of chunk `i`.
pub(crate) fn chunk(i: usize, chunk_len: usize, len: usize) -> (usize, usize) {
    let start = i * chunk_len;
    (start, chunk_len.min(len - start))
}

impl<T: DeviceCopy> AsPinnedSlice<T> for PinnedSlice<'_, T> {
    fn as_pinned_slice(&self) -> PinnedSlice<'_, T> {
        self.reborrow()
    }
}

impl<T: DeviceCopy> AsPinnedSlice<T> for PinnedSliceMut<'_, T> {
    fn as_pinned_slice(&self) -> PinnedSlice<'_, T> {
        // SAFETY: the same elements, shared for the borrow of `self`.
        unsafe { PinnedSlice::new(self.ptr, self.len, self.block, self.offset) }
    }
}

impl<T: DeviceCopy> AsPinnedSliceMut<T> for PinnedSliceMut<'_, T> {
    fn as_pinned_slice_mut(&mut self) -> PinnedSliceMut<'_, T> {
        self.reborrow_mut()
    }
}

impl<T: DeviceCopy> std::fmt::Debug for PinnedSlice<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedSlice")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

impl<T: DeviceCopy> std::fmt::Debug for PinnedSliceMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedSliceMut")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::pinned::tests::FakeHost;
    use crate::memory::PinnedBuffer;
    use std::sync::Arc;

    #[test]
    fn chunks_cover_the_buffer_without_overlap() {
        assert_eq!(chunk_count(10, 4).unwrap(), 3);
        assert_eq!(chunk(2, 4, 10), (8, 2));
        assert_eq!(chunk_count(0, 4).unwrap(), 0);
        assert!(chunk_count(4, 0).is_err());
        let fake = Arc::new(FakeHost::default());
        let mut b = PinnedBuffer::<u32>::with_allocator(fake, 10).expect("buffer");
        let mut seen = Vec::new();
        for (i, mut c) in b.chunks_mut(4).expect("chunks").enumerate() {
            seen.push((c.offset, c.len()));
            c.as_mut_slice().expect("view").fill(i as u32);
        }
        assert_eq!(seen, [(0, 4), (16, 4), (32, 2)]);
        assert_eq!(b.to_vec().expect("view"), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2]);
        let parts: Vec<_> = b.chunks(3).expect("chunks").map(|c| c.len()).collect();
        assert_eq!(parts, [3, 3, 3, 1]);
    }

    #[test]
    fn parts_are_checked_like_slices() {
        let fake = Arc::new(FakeHost::default());
        let mut b = PinnedBuffer::<u16>::with_allocator(fake, 8).expect("buffer");
        b.copy_from_slice(&[0, 1, 2, 3, 4, 5, 6, 7]).expect("copy");
        assert_eq!(
            b.slice(2..5).expect("in bounds").to_vec().unwrap(),
            [2, 3, 4]
        );
        assert_eq!(
            b.slice(2..5).unwrap().slice(1..).unwrap().to_vec().unwrap(),
            [3, 4]
        );
        assert!(matches!(b.slice(7..9), Err(Error::InvalidArgument(_))));
        assert!(matches!(b.split_at_mut(9), Err(Error::InvalidArgument(_))));
        let (mut low, mut high) = b.split_at_mut(3).expect("split");
        assert_eq!((low.range(), high.range()), ((0, 6), (6, 16)));
        low.copy_from_slice(&[9, 9, 9]).expect("low");
        assert!(high.copy_from_slice(&[1]).is_err(), "length mismatch");
        assert_eq!(high.slice_mut(..2).unwrap().to_vec().unwrap(), [3, 4]);
        assert_eq!(b.to_vec().unwrap(), [9, 9, 9, 3, 4, 5, 6, 7]);
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<PinnedSlice<'static, f32>>();
        assert_send_sync::<PinnedSliceMut<'static, f32>>();
    }
}
