// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/buffer.rs:
// edit the template, not this copy.

//! [`DeviceBuffer<T>`], owned device memory freed on its stream, and the borrowed views
//! [`DeviceSlice`] / [`DeviceSliceMut`] of a range of it; copies between them and host
//! slices or pinned buffers, blocking and asynchronous; memset.
//!
//! Ranges are checked: a sub-slice out of bounds is `None` (as `slice::get`), a copy whose
//! lengths differ is [`Error::InvalidArgument`](crate::Error::InvalidArgument); nothing here
//! panics.

use std::ffi::{c_int, c_void};
use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};
use std::sync::Arc;

use super::allocator::{self, DeviceAllocator};
use super::pinned::PinnedBuffer;
use super::pool::MemPool;
use super::{bytes_of, length_mismatch, DeviceCopy, DevicePtr};
use crate::error::{report_drop_error, status, Result};
use crate::stream::Stream;
use crate::sys;
use crate::sys::cudaMemcpyKind as Kind;

/// Owned device memory holding `len` values of `T`.
///
/// Allocated in stream order on a [`Stream`] (`cudaMallocAsync`, the device's current
/// memory pool) unless an allocator was set with
/// [`set_allocator`](super::set_allocator) / [`using_allocator`](super::using_allocator) or
/// given to [`DeviceBuffer::with_allocator`]; freed in stream order on the same stream when
/// dropped (`cudaFreeAsync`), which never blocks and never panics (a failure goes to the
/// hook of [`set_drop_error_hook`](crate::error::set_drop_error_hook); [`close`] returns it).
/// The buffer keeps its stream alive.
///
/// Fresh memory holds unspecified bytes (any bit pattern is a valid `T`, see
/// [`DeviceCopy`]); [`DeviceBuffer::zeroed`] clears it.
///
/// `Send` and `Sync` when `T` is: the host only passes its address to CUDA.
///
/// [`close`]: DeviceBuffer::close
pub struct DeviceBuffer<T: DeviceCopy> {
    ptr: *mut T,
    len: usize,
    stream: Stream,
    allocator: Option<Arc<dyn DeviceAllocator>>,
}

// SAFETY: the buffer owns device memory the host never dereferences; its stream is
// `Send + Sync`; the allocator is `Send + Sync` by its trait bound.
unsafe impl<T: DeviceCopy + Send> Send for DeviceBuffer<T> {}
// SAFETY: `&DeviceBuffer` only reads the address and enqueues reads of the memory.
unsafe impl<T: DeviceCopy + Sync> Sync for DeviceBuffer<T> {}

/// A borrowed view of `len` values of device memory (of a [`DeviceBuffer`], or foreign
/// memory through [`DeviceSlice::from_raw_parts`]), with the stream its blocking copies run
/// on.
#[derive(Clone, Copy)]
pub struct DeviceSlice<'a, T: DeviceCopy> {
    ptr: *mut T,
    len: usize,
    stream: &'a Stream,
    _data: PhantomData<&'a [T]>,
}

/// A borrowed mutable view of `len` values of device memory.
pub struct DeviceSliceMut<'a, T: DeviceCopy> {
    ptr: *mut T,
    len: usize,
    stream: &'a Stream,
    _data: PhantomData<&'a mut [T]>,
}

// SAFETY: views hold a device address and a `&Stream` (`Sync`).
unsafe impl<T: DeviceCopy + Sync> Send for DeviceSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy + Sync> Sync for DeviceSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy + Send> Send for DeviceSliceMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy + Sync> Sync for DeviceSliceMut<'_, T> {}

/// Device memory that can be read: [`DeviceBuffer`], [`DeviceSlice`], [`DeviceSliceMut`].
pub trait AsDeviceSlice<T: DeviceCopy> {
    /// A view of the whole memory.
    fn as_device_slice(&self) -> DeviceSlice<'_, T>;
}

/// Device memory that can be written: [`DeviceBuffer`], [`DeviceSliceMut`].
pub trait AsDeviceSliceMut<T: DeviceCopy>: AsDeviceSlice<T> {
    /// A mutable view of the whole memory.
    fn as_device_slice_mut(&mut self) -> DeviceSliceMut<'_, T>;
}

/// `(start, end)` of `range` within `0..len`, or `None` when it is out of bounds or
/// decreasing.
pub(crate) fn bounds(range: impl RangeBounds<usize>, len: usize) -> Option<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1)?,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    (start <= end && end <= len).then_some((start, end))
}

/// `cudaMemcpyAsync` of `bytes` bytes (nothing for 0).
///
/// # Safety
/// `dst` and `src` are valid for `bytes` bytes of the kind's sides until the stream reaches
/// the copy.
#[inline]
unsafe fn memcpy_async(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: Kind,
    stream: &Stream,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    // SAFETY: the caller's promise.
    status(unsafe { sys::cudaMemcpyAsync(dst, src, bytes, kind, stream.as_raw()) })
}

/// The methods every readable device memory type has (inherent, so no trait import).
macro_rules! read_methods {
    () => {
        /// The number of elements.
        #[inline]
        pub fn len(&self) -> usize {
            self.len
        }

        /// Whether there are no elements.
        #[inline]
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }

        /// The size in bytes.
        #[inline]
        pub fn size_bytes(&self) -> usize {
            self.len * std::mem::size_of::<T>()
        }

        /// The device address of the first element.
        #[inline]
        pub fn as_device_ptr(&self) -> DevicePtr {
            DevicePtr::from_raw(self.ptr.cast())
        }

        /// The stream that blocking copies of this memory run on (the owning buffer's).
        #[inline]
        pub fn stream(&self) -> &Stream {
            &self.stream
        }

        /// A view of elements `range`, or `None` when the range is out of bounds.
        pub fn slice(&self, range: impl RangeBounds<usize>) -> Option<DeviceSlice<'_, T>> {
            let (start, end) = bounds(range, self.len)?;
            Some(DeviceSlice {
                ptr: self.ptr.wrapping_add(start),
                len: end - start,
                stream: &self.stream,
                _data: PhantomData,
            })
        }

        /// Copies everything into `dst` (same length) and waits for the copy: it is
        /// enqueued on [`stream`](Self::stream), after the work already there.
        pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
            if dst.len() != self.len {
                return Err(length_mismatch("copy_to_host", self.len, dst.len()));
            }
            if self.size_bytes() == 0 {
                return Ok(());
            }
            // SAFETY: `dst` is borrowed until the stream has been synchronised below; the
            // source is `len` elements of device memory.
            unsafe {
                memcpy_async(
                    dst.as_mut_ptr().cast(),
                    self.ptr.cast(),
                    self.size_bytes(),
                    Kind::DEVICE_TO_HOST,
                    &self.stream,
                )?
            };
            self.stream.synchronize()
        }

        /// The elements as a `Vec` (a blocking copy, as [`copy_to_host`](Self::copy_to_host)).
        pub fn to_vec(&self) -> Result<Vec<T>> {
            let mut out: Vec<T> = Vec::with_capacity(self.len);
            if self.size_bytes() == 0 {
                // SAFETY: no elements, or zero-sized ones, which need no initialisation.
                unsafe { out.set_len(self.len) };
                return Ok(out);
            }
            // SAFETY: the spare capacity holds `len` elements and is written in full by the
            // copy before `set_len`, after the stream has been synchronised.
            unsafe {
                memcpy_async(
                    out.as_mut_ptr().cast(),
                    self.ptr.cast(),
                    self.size_bytes(),
                    Kind::DEVICE_TO_HOST,
                    &self.stream,
                )?;
                self.stream.synchronize()?;
                out.set_len(self.len);
            }
            Ok(out)
        }

        /// Enqueues a copy of everything into `dst` on `stream` and returns at once.
        ///
        /// # Safety
        /// `dst` must stay alive, and must not be read or written by the host, until
        /// `stream` has executed the copy (synchronise the stream or an event recorded after
        /// it); a graph capturing the copy writes `dst` again at each launch. Prefer
        /// [`copy_to_pinned_async`](Self::copy_to_pinned_async), which is safe.
        pub unsafe fn copy_to_host_async(&self, dst: &mut [T], stream: &Stream) -> Result<()> {
            if dst.len() != self.len {
                return Err(length_mismatch("copy_to_host_async", self.len, dst.len()));
            }
            // SAFETY: the caller keeps `dst` valid until the copy has run.
            unsafe {
                memcpy_async(
                    dst.as_mut_ptr().cast(),
                    self.ptr.cast(),
                    self.size_bytes(),
                    Kind::DEVICE_TO_HOST,
                    stream,
                )
            }
        }

        /// Enqueues a copy of everything into the pinned buffer `dst` on `stream` and
        /// returns at once; `dst` waits for the copy before the host reads it (see
        /// [`PinnedBuffer`]). Can be captured into a graph.
        pub fn copy_to_pinned_async(
            &self,
            dst: &mut PinnedBuffer<T>,
            stream: &Stream,
        ) -> Result<()> {
            if dst.len() != self.len {
                return Err(length_mismatch("copy_to_pinned_async", self.len, dst.len()));
            }
            let (src, bytes) = (self.ptr.cast::<c_void>(), self.size_bytes());
            dst.use_async(stream, |host| {
                // SAFETY: the pinned buffer stays alive and untouched by the host until the
                // copy has run (it waits on its event, and a capturing graph keeps it).
                unsafe { memcpy_async(host, src, bytes, Kind::DEVICE_TO_HOST, stream) }
            })
        }
    };
}

/// The methods every writable device memory type has.
macro_rules! write_methods {
    () => {
        /// A mutable view of elements `range`, or `None` when the range is out of bounds.
        pub fn slice_mut(
            &mut self,
            range: impl RangeBounds<usize>,
        ) -> Option<DeviceSliceMut<'_, T>> {
            let (start, end) = bounds(range, self.len)?;
            Some(DeviceSliceMut {
                ptr: self.ptr.wrapping_add(start),
                len: end - start,
                stream: &self.stream,
                _data: PhantomData,
            })
        }

        /// Two disjoint mutable views, `[0, mid)` and `[mid, len)`, or `None` when
        /// `mid > len`.
        pub fn split_at_mut(
            &mut self,
            mid: usize,
        ) -> Option<(DeviceSliceMut<'_, T>, DeviceSliceMut<'_, T>)> {
            if mid > self.len {
                return None;
            }
            let view = |ptr: *mut T, len| DeviceSliceMut {
                ptr,
                len,
                stream: &self.stream,
                _data: PhantomData,
            };
            Some((
                view(self.ptr, mid),
                view(self.ptr.wrapping_add(mid), self.len - mid),
            ))
        }

        /// Copies `src` (same length) here and waits for the copy, which is enqueued on
        /// [`stream`](Self::stream).
        pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
            if src.len() != self.len {
                return Err(length_mismatch("copy_from_host", self.len, src.len()));
            }
            if self.size_bytes() == 0 {
                return Ok(());
            }
            // SAFETY: `src` is borrowed until the stream has been synchronised below.
            unsafe {
                memcpy_async(
                    self.ptr.cast(),
                    src.as_ptr().cast(),
                    self.size_bytes(),
                    Kind::HOST_TO_DEVICE,
                    &self.stream,
                )?
            };
            self.stream.synchronize()
        }

        /// Enqueues a copy of `src` here on `stream` and returns at once.
        ///
        /// # Safety
        /// `src` must stay alive, and must not be written by the host, until `stream` has
        /// executed the copy; a graph capturing the copy reads `src` again at each launch.
        /// Prefer [`copy_from_pinned_async`](Self::copy_from_pinned_async), which is safe.
        pub unsafe fn copy_from_host_async(&mut self, src: &[T], stream: &Stream) -> Result<()> {
            if src.len() != self.len {
                return Err(length_mismatch("copy_from_host_async", self.len, src.len()));
            }
            // SAFETY: the caller keeps `src` valid until the copy has run.
            unsafe {
                memcpy_async(
                    self.ptr.cast(),
                    src.as_ptr().cast(),
                    self.size_bytes(),
                    Kind::HOST_TO_DEVICE,
                    stream,
                )
            }
        }

        /// Enqueues a copy of the pinned buffer `src` here on `stream` and returns at once;
        /// `src` waits for the copy before the host writes it or frees it (see
        /// [`PinnedBuffer`]). Can be captured into a graph.
        pub fn copy_from_pinned_async(
            &mut self,
            src: &PinnedBuffer<T>,
            stream: &Stream,
        ) -> Result<()> {
            if src.len() != self.len {
                return Err(length_mismatch(
                    "copy_from_pinned_async",
                    self.len,
                    src.len(),
                ));
            }
            let (dst, bytes) = (self.ptr.cast::<c_void>(), self.size_bytes());
            src.use_async(stream, |host| {
                // SAFETY: the pinned buffer stays alive and unwritten by the host until the
                // copy has run (it waits on its event, and a capturing graph keeps it).
                unsafe { memcpy_async(dst, host, bytes, Kind::HOST_TO_DEVICE, stream) }
            })
        }

        /// Enqueues a device-to-device copy of `src` (same length) here on `stream`.
        pub fn copy_from_device(
            &mut self,
            src: &impl AsDeviceSlice<T>,
            stream: &Stream,
        ) -> Result<()> {
            let src = src.as_device_slice();
            if src.len() != self.len {
                return Err(length_mismatch("copy_from_device", self.len, src.len()));
            }
            // SAFETY: both sides are device memory of `len` elements.
            unsafe {
                memcpy_async(
                    self.ptr.cast(),
                    src.ptr.cast(),
                    self.size_bytes(),
                    Kind::DEVICE_TO_DEVICE,
                    stream,
                )
            }
        }

        /// Enqueues setting every byte to `value` on `stream` (`cudaMemsetAsync`).
        pub fn memset(&mut self, value: u8, stream: &Stream) -> Result<()> {
            let bytes = self.size_bytes();
            if bytes == 0 {
                return Ok(());
            }
            // SAFETY: `bytes` bytes of device memory.
            status(unsafe {
                sys::cudaMemsetAsync(self.ptr.cast(), c_int::from(value), bytes, stream.as_raw())
            })
        }

        /// Enqueues setting every element to zero bits on `stream`.
        pub fn fill_zero(&mut self, stream: &Stream) -> Result<()> {
            self.memset(0, stream)
        }
    };
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// `len` elements on `stream`'s device, in stream order (see the type's documentation
    /// for which allocator is used). Contents unspecified.
    pub fn new(len: usize, stream: &Stream) -> Result<DeviceBuffer<T>> {
        match allocator::active() {
            None => Self::alloc_runtime(len, stream, None),
            Some(a) => Self::with_allocator(a, len, stream),
        }
    }

    /// `len` zeroed elements: [`new`](Self::new), then a `cudaMemsetAsync` on `stream`.
    pub fn zeroed(len: usize, stream: &Stream) -> Result<DeviceBuffer<T>> {
        let mut b = Self::new(len, stream)?;
        b.fill_zero(stream)?;
        Ok(b)
    }

    /// A buffer holding a copy of `src` (blocking: returns once the copy is done).
    pub fn from_slice(src: &[T], stream: &Stream) -> Result<DeviceBuffer<T>> {
        let mut b = Self::new(src.len(), stream)?;
        b.copy_from_host(src)?;
        Ok(b)
    }

    /// `len` elements from `pool`, in stream order (`cudaMallocFromPoolAsync`).
    pub fn new_in(pool: &MemPool, len: usize, stream: &Stream) -> Result<DeviceBuffer<T>> {
        Self::alloc_runtime(len, stream, Some(pool))
    }

    fn alloc_runtime(len: usize, stream: &Stream, pool: Option<&MemPool>) -> Result<Self> {
        let bytes = bytes_of::<T>(len)?;
        let mut ptr: *mut c_void = std::ptr::null_mut();
        if bytes > 0 {
            // SAFETY: one pointer is written; the stream (and pool) handles are alive.
            status(unsafe {
                match pool {
                    None => sys::cudaMallocAsync(&mut ptr, bytes, stream.as_raw()),
                    Some(p) => {
                        sys::cudaMallocFromPoolAsync(&mut ptr, bytes, p.as_raw(), stream.as_raw())
                    }
                }
            })?;
        }
        Ok(DeviceBuffer {
            ptr: ptr.cast(),
            len,
            stream: stream.clone(),
            allocator: None,
        })
    }

    /// `len` elements from `allocator`, which also frees them.
    pub fn with_allocator(
        allocator: Arc<dyn DeviceAllocator>,
        len: usize,
        stream: &Stream,
    ) -> Result<DeviceBuffer<T>> {
        let bytes = bytes_of::<T>(len)?;
        let ptr = if bytes > 0 {
            allocator.alloc(bytes, stream)?
        } else {
            DevicePtr::null()
        };
        Ok(DeviceBuffer {
            ptr: ptr.as_raw().cast(),
            len,
            stream: stream.clone(),
            allocator: Some(allocator),
        })
    }

    /// Takes ownership of `len` elements at `ptr`, to be freed with `cudaFreeAsync` on
    /// `stream`.
    ///
    /// # Safety
    /// `ptr` is a stream-ordered allocation (`cudaMallocAsync` / `cudaMallocFromPoolAsync`)
    /// of at least `len` elements, usable on `stream`, that nothing else frees.
    pub unsafe fn from_raw_parts(ptr: DevicePtr, len: usize, stream: &Stream) -> DeviceBuffer<T> {
        DeviceBuffer {
            ptr: ptr.as_raw().cast(),
            len,
            stream: stream.clone(),
            allocator: None,
        }
    }

    /// Gives up ownership: the memory is no longer freed on drop. Returns its address and
    /// length.
    pub fn into_raw_parts(self) -> (DevicePtr, usize) {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: the fields are read once and `me` is never dropped; the stream and the
        // allocator are released here.
        let (_stream, _alloc) =
            unsafe { (std::ptr::read(&me.stream), std::ptr::read(&me.allocator)) };
        (DevicePtr::from_raw(me.ptr.cast()), me.len)
    }

    /// A new buffer with the same contents (allocated and copied on the buffer's stream).
    pub fn try_clone(&self) -> Result<DeviceBuffer<T>> {
        let mut copy = Self::new(self.len, &self.stream)?;
        copy.copy_from_device(self, &self.stream)?;
        Ok(copy)
    }

    /// A view of the whole buffer.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        self.as_device_slice()
    }

    /// A mutable view of the whole buffer.
    pub fn as_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        self.as_device_slice_mut()
    }

    /// Frees the memory now (enqueued on the buffer's stream) and returns the error, where
    /// dropping would report it to the hook.
    pub fn close(self) -> Result<()> {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: the fields are moved out once and `me` is never dropped.
        let (stream, allocator) =
            unsafe { (std::ptr::read(&me.stream), std::ptr::read(&me.allocator)) };
        free(
            me.ptr.cast(),
            me.len * std::mem::size_of::<T>(),
            &stream,
            allocator.as_deref(),
        )
    }

    /// The address of the pointer field: what a kernel argument list points to.
    #[inline]
    pub(crate) fn arg_ptr(&self) -> *mut c_void {
        std::ptr::addr_of!(self.ptr).cast_mut().cast()
    }

    read_methods!();
    write_methods!();
}

fn free(
    ptr: *mut c_void,
    bytes: usize,
    stream: &Stream,
    allocator: Option<&dyn DeviceAllocator>,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    match allocator {
        // SAFETY: the buffer owned this stream-ordered allocation; freed once.
        None => status(unsafe { sys::cudaFreeAsync(ptr, stream.as_raw()) }),
        // SAFETY: the allocation came from this allocator, with this size and stream.
        Some(a) => unsafe { a.free(DevicePtr::from_raw(ptr), bytes, stream) },
    }
}

impl<T: DeviceCopy> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        let bytes = self.len * std::mem::size_of::<T>();
        if let Err(e) = free(
            self.ptr.cast(),
            bytes,
            &self.stream,
            self.allocator.as_deref(),
        ) {
            report_drop_error("device buffer", &e);
        }
    }
}

impl<T: DeviceCopy> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("stream", &self.stream.as_raw())
            .field("custom_allocator", &self.allocator.is_some())
            .finish()
    }
}

impl<'a, T: DeviceCopy> DeviceSlice<'a, T> {
    /// A view of `len` elements of foreign device memory at `ptr` (CuPy's
    /// `UnownedMemory`), whose blocking copies run on `stream`.
    ///
    /// # Safety
    /// `ptr` is device (or managed) memory holding `len` elements of `T`, alive for `'a`.
    pub unsafe fn from_raw_parts(
        ptr: DevicePtr,
        len: usize,
        stream: &'a Stream,
    ) -> DeviceSlice<'a, T> {
        DeviceSlice {
            ptr: ptr.as_raw().cast(),
            len,
            stream,
            _data: PhantomData,
        }
    }

    #[inline]
    pub(crate) fn arg_ptr(&self) -> *mut c_void {
        std::ptr::addr_of!(self.ptr).cast_mut().cast()
    }

    read_methods!();
}

impl<'a, T: DeviceCopy> DeviceSliceMut<'a, T> {
    /// A mutable view of `len` elements of foreign device memory at `ptr`.
    ///
    /// # Safety
    /// As [`DeviceSlice::from_raw_parts`], and nothing else writes the memory during `'a`.
    pub unsafe fn from_raw_parts(
        ptr: DevicePtr,
        len: usize,
        stream: &'a Stream,
    ) -> DeviceSliceMut<'a, T> {
        DeviceSliceMut {
            ptr: ptr.as_raw().cast(),
            len,
            stream,
            _data: PhantomData,
        }
    }

    #[inline]
    pub(crate) fn arg_ptr(&self) -> *mut c_void {
        std::ptr::addr_of!(self.ptr).cast_mut().cast()
    }

    read_methods!();
    write_methods!();
}

impl<T: DeviceCopy> AsDeviceSlice<T> for DeviceBuffer<T> {
    fn as_device_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice {
            ptr: self.ptr,
            len: self.len,
            stream: &self.stream,
            _data: PhantomData,
        }
    }
}

impl<T: DeviceCopy> AsDeviceSliceMut<T> for DeviceBuffer<T> {
    fn as_device_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        DeviceSliceMut {
            ptr: self.ptr,
            len: self.len,
            stream: &self.stream,
            _data: PhantomData,
        }
    }
}

impl<T: DeviceCopy> AsDeviceSlice<T> for DeviceSlice<'_, T> {
    fn as_device_slice(&self) -> DeviceSlice<'_, T> {
        *self
    }
}

impl<T: DeviceCopy> AsDeviceSlice<T> for DeviceSliceMut<'_, T> {
    fn as_device_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice {
            ptr: self.ptr,
            len: self.len,
            stream: self.stream,
            _data: PhantomData,
        }
    }
}

impl<T: DeviceCopy> AsDeviceSliceMut<T> for DeviceSliceMut<'_, T> {
    fn as_device_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        DeviceSliceMut {
            ptr: self.ptr,
            len: self.len,
            stream: self.stream,
            _data: PhantomData,
        }
    }
}

impl<T: DeviceCopy> std::fmt::Debug for DeviceSlice<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceSlice")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

impl<T: DeviceCopy> std::fmt::Debug for DeviceSliceMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceSliceMut")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked_like_slice_get() {
        assert_eq!(bounds(.., 10), Some((0, 10)));
        assert_eq!(bounds(2..5, 10), Some((2, 5)));
        assert_eq!(bounds(2..=5, 10), Some((2, 6)));
        assert_eq!(bounds(10.., 10), Some((10, 10)));
        assert_eq!(bounds(11.., 10), None);
        assert_eq!(bounds(..11, 10), None);
        let (high, low) = (5, 2);
        assert_eq!(bounds(high..low, 10), None);
        assert_eq!(bounds(..=usize::MAX, 10), None);
        assert_eq!(
            bounds((Bound::Excluded(usize::MAX), Bound::Unbounded), 10),
            None
        );
    }

    #[test]
    fn buffers_and_views_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<DeviceBuffer<f32>>();
        assert_send_sync::<DeviceSlice<'static, u8>>();
        assert_send_sync::<DeviceSliceMut<'static, [u32; 4]>>();
    }

    #[test]
    fn empty_buffers_allocate_nothing_and_views_are_bounded() {
        // No CUDA call is made for zero elements, so this works without a GPU.
        let stream = Stream::legacy();
        let mut b = DeviceBuffer::<u32>::new(0, &stream).expect("empty buffer");
        assert!(b.is_empty());
        assert!(b.slice(0..0).is_some());
        assert!(b.slice(0..1).is_none());
        assert!(b.slice_mut(1..).is_none());
        assert!(b.split_at_mut(0).is_some() && b.split_at_mut(1).is_none());
        assert_eq!(b.to_vec().expect("nothing to copy"), Vec::<u32>::new());
        let err = b.copy_from_host(&[1]).expect_err("length mismatch");
        assert!(matches!(err, crate::Error::InvalidArgument(_)), "{err}");
        b.close().expect("nothing to free");
    }
}
