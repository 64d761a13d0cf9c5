//! [`GraphBuffer`]: a graph's own device memory, allocated inside a capture (a graph memory
//! node) and freed inside it (a free node). Its memory exists only while a launch of the
//! graph runs between those nodes, so only work captured into the same capture may use it:
//! the gate refuses any other use (the host's, another stream's outside the capture, another
//! graph's nodes), and the borrow of the capture makes the free come before the capture's
//! end.
//!
//! Not here: device memory that outlives graphs ([`super::DeviceBuffer`]).

use std::ffi::c_void;
use std::marker::PhantomData;

use super::buffer::Mem;
use super::{bytes_of, AsDeviceSlice, AsDeviceSliceMut, DeviceCopy, DevicePtr};
use super::{DeviceSlice, DeviceSliceMut};
use crate::error::{status, Error, Result};
use crate::lifetime::capture::{capture_graph, Capture};
use crate::lifetime::current::{current_ordinal, with_device};
use crate::lifetime::{Home, Kind, Life, Release};
use crate::stream::Stream;
use crate::sys;

/// Device memory of a graph's own: `len` values of `T` allocated by the capture that makes
/// the graph ([`CaptureGuard::alloc`](crate::graph::CaptureGuard::alloc)), usable only by
/// work captured into that capture, and freed in the graph when dropped. Each launch of the
/// graph allocates it anew; its contents at the start of a launch are unspecified.
///
/// Work on the captured stream, or on a stream joined to the capture, may use it (copies,
/// memsets, kernel arguments); anything else is refused with an error and nothing is
/// enqueued: a blocking copy, work on a stream outside the capture, a node of another graph.
/// The buffer borrows the capture, so it is dropped (and its free node captured) before the
/// capture ends:
///
/// ```compile_fail,E0505
/// # fn f(stream: &@CRATE@::Stream) -> @CRATE@::Result<()> {
/// let capture = stream.begin_capture(@CRATE@::CaptureMode::THREAD_LOCAL)?;
/// let scratch = capture.alloc::<f32>(1024)?;
/// let graph = capture.end()?; // the buffer still borrows the capture
/// drop(scratch);
/// # Ok(()) }
/// ```
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::{CaptureMode, DeviceBuffer, Stream};
/// let stream = Stream::non_blocking()?;
/// let input = DeviceBuffer::<u32>::zeroed(256, &stream)?;
/// let mut output = DeviceBuffer::<u32>::new(256, &stream)?;
/// let capture = stream.begin_capture(CaptureMode::THREAD_LOCAL)?;
/// let mut scratch = capture.alloc::<u32>(256)?; // a graph memory node
/// scratch.as_slice_mut().copy_from_device(&input, capture.stream())?;
/// output.copy_from_device(&scratch, capture.stream())?;
/// drop(scratch); // a free node
/// let graph = capture.end()?;
/// graph.instantiate()?.launch(&stream)?;
/// # Ok(()) }
/// ```
pub struct GraphBuffer<'c, T: DeviceCopy> {
    ptr: *mut T,
    len: usize,
    stream: &'c Stream,
    device: i32,
    life: Life,
    _data: PhantomData<T>,
}

// SAFETY: device memory the host never dereferences; the bookkeeping is the gate's.
unsafe impl<T: DeviceCopy + Send> Send for GraphBuffer<'_, T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy + Sync> Sync for GraphBuffer<'_, T> {}

impl<'c, T: DeviceCopy> GraphBuffer<'c, T> {
    /// Allocates in the capture going on on `stream`; an error when there is none.
    pub(crate) fn new(stream: &'c Stream, len: usize) -> Result<GraphBuffer<'c, T>> {
        let bytes = bytes_of::<T>(len)?;
        let queue = stream.queue();
        let device = match stream.ordinal() {
            Some(d) => d,
            None => current_ordinal()?,
        };
        let _gate = queue.gate_shared();
        with_device(device, || {
            let Capture::Into(graph, capture) = capture_graph(queue.raw())? else {
                return Err(Error::InvalidArgument(
                    "a graph buffer is allocated in a capture going on".into(),
                ));
            };
            let kind = Kind::Graph {
                home: Home::new(queue, device),
                graph: graph.0 as usize,
                capture,
            };
            let mut ptr: *mut c_void = std::ptr::null_mut();
            let release: Option<Release> = if bytes == 0 {
                None
            } else {
                // SAFETY: one pointer is written; captured as a graph memory node.
                status(unsafe { sys::cudaMallocAsync(&mut ptr, bytes, queue.raw()) })?;
                let (at, on) = (ptr as usize, queue.raw().0 as usize);
                // SAFETY: the graph allocation, freed once, in its capture, after its uses.
                Some(Box::new(move || {
                    status(unsafe {
                        sys::cudaFreeAsync(at as *mut c_void, sys::cudaStream_t(on as *mut _))
                    })
                }))
            };
            Ok(GraphBuffer {
                ptr: ptr.cast(),
                len,
                stream,
                device,
                life: Life::new("graph buffer", kind, release),
                _data: PhantomData,
            })
        })
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address of the first element (valid only inside the graph's launches).
    pub fn as_device_ptr(&self) -> DevicePtr {
        DevicePtr::from_raw(self.ptr.cast())
    }

    /// A view of the memory, for copies out of it captured into the same capture.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        self.as_device_slice()
    }

    /// A mutable view of the memory, for copies and memsets into it captured into the same
    /// capture.
    pub fn as_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        self.as_device_slice_mut()
    }

    fn mem(&self) -> Mem<'_> {
        Mem {
            stream: self.stream,
            device: Some(self.device),
            alloc: Some(&self.life),
        }
    }

    /// The allocation's record in the gate, for a kernel launch's bookkeeping.
    pub(crate) fn life(&self) -> &Life {
        &self.life
    }

    /// The address of the pointer field: what a kernel argument list points to.
    pub(crate) fn arg_ptr(&self) -> *mut c_void {
        std::ptr::addr_of!(self.ptr).cast_mut().cast()
    }
}

impl<T: DeviceCopy> AsDeviceSlice<T> for GraphBuffer<'_, T> {
    fn as_device_slice(&self) -> DeviceSlice<'_, T> {
        // SAFETY: `len` elements of the graph allocation, which the gate lets only work of
        // its capture use, and frees after that work.
        unsafe { DeviceSlice::from_tracked(self.ptr, self.len, self.mem()) }
    }
}

impl<T: DeviceCopy> AsDeviceSliceMut<T> for GraphBuffer<'_, T> {
    fn as_device_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        // SAFETY: as above, borrowed exclusively.
        unsafe { DeviceSliceMut::from_tracked(self.ptr, self.len, self.mem()) }
    }
}

impl<T: DeviceCopy> std::fmt::Debug for GraphBuffer<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}
