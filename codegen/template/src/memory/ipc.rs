//! Device memory shared between processes (CUDA IPC, `cudaIpcGetMemHandle` /
//! `cudaIpcOpenMemHandle`): buffers another process can open
//! ([`DeviceBuffer::new_shareable`]), the handle that names one ([`IpcMemHandle`], plain
//! bytes to send any way: a pipe, a socket, a file), and the buffer the other process opens
//! from it ([`IpcMemHandle::open`]), an owned [`DeviceBuffer`] in both processes.
//!
//! The runtime shares only memory from `cudaMalloc`, not stream-ordered memory: a shareable
//! buffer is allocated with `cudaMalloc` (not in stream order) and freed with `cudaFree`
//! after the host has waited for the work that uses it. An opened buffer unmaps the memory
//! (`cudaIpcCloseMemHandle`) the same way: its free is ordered after every stream that used
//! it, then the host waits and unmaps, so no work of this process touches the memory after
//! it is gone here. What the crate cannot check is the other process: opening a handle is
//! `unsafe`, with the promise that the exporter keeps the memory allocated until every
//! importer has dropped its buffer (CUDA: freeing exported memory before the importers have
//! closed it is undefined behaviour). Ordering work between the processes is an interprocess
//! event's job ([`Event::interprocess`](crate::Event::interprocess)).
//!
//! Not here: interprocess events ([`crate::event`]), shareable memory pools and their
//! allocations ([`MemPool::new_shareable`](super::MemPool::new_shareable)).

use std::ffi::{c_uint, c_void};
use std::sync::{Arc, OnceLock};

use super::allocator::DeviceAllocator;
use super::buffer::DeviceBuffer;
use super::{DeviceCopy, DevicePtr};
use crate::error::{status, Error, Result};
use crate::lifetime;
use crate::stream::Stream;
use crate::sys;

/// A handle naming a shareable device buffer of another process: the 64 bytes of a
/// `cudaIpcMemHandle_t` and the buffer's size, 72 bytes in all
/// ([`to_bytes`](IpcMemHandle::to_bytes)).
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::{DeviceBuffer, IpcMemHandle, Stream};
/// // Exporting process:
/// let stream = Stream::non_blocking()?;
/// let shared = DeviceBuffer::from_slice_shareable(&[1.0f32, 2.0, 3.0], &stream)?;
/// let bytes: [u8; 72] = shared.ipc_handle()?.to_bytes(); // send to the other process
/// // Importing process:
/// let handle = IpcMemHandle::from_bytes(bytes);
/// // SAFETY: the exporter keeps `shared` alive until this buffer is dropped.
/// let remote: DeviceBuffer<f32> = unsafe { handle.open(&stream)? };
/// assert_eq!(remote.to_vec()?, [1.0, 2.0, 3.0]);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpcMemHandle {
    raw: [u8; 64],
    bytes: u64,
}

impl std::fmt::Debug for IpcMemHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IpcMemHandle(")?;
        for b in &self.raw[..8] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "…, {} bytes)", self.bytes)
    }
}

impl IpcMemHandle {
    /// The handle's 72 bytes (the CUDA handle, then the size, little-endian), to send to
    /// another process.
    pub fn to_bytes(self) -> [u8; 72] {
        let mut out = [0u8; 72];
        out[..64].copy_from_slice(&self.raw);
        out[64..].copy_from_slice(&self.bytes.to_le_bytes());
        out
    }

    /// A handle from the bytes of [`to_bytes`](IpcMemHandle::to_bytes).
    pub fn from_bytes(bytes: [u8; 72]) -> IpcMemHandle {
        let mut raw = [0u8; 64];
        raw.copy_from_slice(&bytes[..64]);
        let mut size = [0u8; 8];
        size.copy_from_slice(&bytes[64..]);
        IpcMemHandle {
            raw,
            bytes: u64::from_le_bytes(size),
        }
    }

    /// The size of the exported buffer, in bytes.
    pub fn size_bytes(&self) -> u64 {
        self.bytes
    }

    /// Maps the exported memory into this process, on `stream`'s device (or the current
    /// device, for a default stream), as a buffer of `size_bytes / size_of::<T>()`
    /// elements whose home is `stream` (`cudaIpcOpenMemHandle` with
    /// `cudaIpcMemLazyEnablePeerAccess`). A size that is not a whole number of `T` is
    /// [`Error::InvalidArgument`]. Dropping the buffer unmaps the memory
    /// (`cudaIpcCloseMemHandle`) once every stream that used it here has passed that work
    /// (the drop waits for it on the host).
    ///
    /// # Safety
    /// The bytes are a handle that [`DeviceBuffer::ipc_handle`] made in another process
    /// (or `cudaIpcGetMemHandle` and that memory's size), and the exporting process keeps
    /// that memory allocated until the returned buffer has been dropped here.
    #[doc(alias = "cudaIpcOpenMemHandle")]
    pub unsafe fn open<T: DeviceCopy>(self, stream: &Stream) -> Result<DeviceBuffer<T>> {
        let size = std::mem::size_of::<T>();
        let bytes = usize::try_from(self.bytes)
            .ok()
            .filter(|b| size != 0 && b % size == 0)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "an exported buffer of {} bytes is not a whole number of {size}-byte elements",
                    self.bytes
                ))
            })?;
        let mapping: Arc<dyn DeviceAllocator> = Arc::new(IpcMapping { handle: self.raw });
        DeviceBuffer::with_allocator(mapping, bytes / size, stream)
    }
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// `len` elements of device memory that another process can open
    /// ([`ipc_handle`](Self::ipc_handle)): from `cudaMalloc` on `stream`'s device (the
    /// runtime shares no stream-ordered memory), contents unspecified. Dropping it waits on
    /// the host for the streams that used it, then frees it (`cudaFree`).
    #[doc(alias = "cudaMalloc")]
    pub fn new_shareable(len: usize, stream: &Stream) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::with_allocator(malloc(), len, stream)
    }

    /// A shareable buffer ([`new_shareable`](Self::new_shareable)) holding a copy of `src`
    /// (a blocking copy).
    #[doc(alias = "cudaMalloc")]
    pub fn from_slice_shareable(src: &[T], stream: &Stream) -> Result<DeviceBuffer<T>> {
        let mut b = DeviceBuffer::new_shareable(src.len(), stream)?;
        b.copy_from_host(src)?;
        Ok(b)
    }

    /// The handle another process opens this buffer with ([`IpcMemHandle::open`]):
    /// `cudaIpcGetMemHandle` and the buffer's size. Only buffers from
    /// [`new_shareable`](Self::new_shareable) (or other `cudaMalloc` memory) can be shared:
    /// CUDA refuses stream-ordered memory (an error, nothing shared).
    #[doc(alias = "cudaIpcGetMemHandle")]
    pub fn ipc_handle(&self) -> Result<IpcMemHandle> {
        if self.is_empty() {
            return Err(Error::InvalidArgument(
                "an empty buffer has no memory to share".into(),
            ));
        }
        let mut raw = sys::cudaIpcMemHandle_t::default();
        let ptr = self.as_device_ptr().as_raw();
        // With the buffer's device current: the runtime of CUDA 13.0 (driver 580) crashes
        // when another device, whose context was never used, is current.
        crate::lifetime::current::with_device(self.device().ordinal(), || {
            lifetime::relaxed(|| {
                // SAFETY: the buffer's memory is alive; one 64-byte record is written.
                status(unsafe { sys::cudaIpcGetMemHandle(&mut raw, ptr) })
            })
        })?;
        Ok(IpcMemHandle {
            raw: raw.reserved.map(|b| b as u8),
            bytes: self.size_bytes() as u64,
        })
    }
}

/// The shared `cudaMalloc` allocator of shareable buffers.
fn malloc() -> Arc<dyn DeviceAllocator> {
    static MALLOC: OnceLock<Arc<dyn DeviceAllocator>> = OnceLock::new();
    MALLOC.get_or_init(|| Arc::new(Malloc)).clone()
}

/// `cudaMalloc` / `cudaFree` after the host waited for the free's stream (which the buffer
/// ordered after every other stream that used the memory).
struct Malloc;

// SAFETY: `cudaMalloc` returns device memory of `bytes` bytes, 256-byte aligned, usable on
// every stream of its device; `free` frees it only once the work ordered before it is done.
unsafe impl DeviceAllocator for Malloc {
    fn alloc(&self, bytes: usize, stream: &Stream) -> Result<DevicePtr> {
        let mut ptr: *mut c_void = std::ptr::null_mut();
        let device = match stream.ordinal() {
            Some(d) => d,
            None => crate::lifetime::current::current_ordinal()?,
        };
        crate::lifetime::current::with_device(device, || {
            // SAFETY: one pointer is written.
            status(unsafe { sys::cudaMalloc(&mut ptr, bytes) })
        })?;
        Ok(DevicePtr::from_raw(ptr))
    }

    unsafe fn free(&self, ptr: DevicePtr, _bytes: usize, stream: &Stream) -> Result<()> {
        // `cudaFree` is not stream-ordered: the host waits for the stream first (failing
        // closed: a failed wait is an error, and the buffer leaks the memory).
        lifetime::wait_stream(stream.as_raw())?;
        // SAFETY: memory from `cudaMalloc`, freed once, after every use (the caller's
        // promise orders them before `stream`, which is done).
        status(unsafe { sys::cudaFree(ptr.as_raw()) })
    }
}

/// Memory of another process mapped here (`cudaIpcOpenMemHandle`), unmapped
/// (`cudaIpcCloseMemHandle`) after the host waited for the free's stream.
struct IpcMapping {
    handle: [u8; 64],
}

// SAFETY: the mapping is device memory of at least `bytes` bytes (the opener's promise),
// usable on every stream of the device it was opened on; `free` unmaps it only once the work
// ordered before it is done.
unsafe impl DeviceAllocator for IpcMapping {
    fn alloc(&self, _bytes: usize, stream: &Stream) -> Result<DevicePtr> {
        let raw = sys::cudaIpcMemHandle_t {
            reserved: self.handle.map(|b| b as _),
        };
        let mut ptr: *mut c_void = std::ptr::null_mut();
        let device = match stream.ordinal() {
            Some(d) => d,
            None => crate::lifetime::current::current_ordinal()?,
        };
        crate::lifetime::current::with_device(device, || {
            lifetime::relaxed(|| {
                // SAFETY: one pointer is written; the handle's origin is the opener's promise.
                status(unsafe {
                    sys::cudaIpcOpenMemHandle(
                        &mut ptr,
                        raw,
                        sys::cudaIpcMemLazyEnablePeerAccess as c_uint,
                    )
                })
            })
        })?;
        Ok(DevicePtr::from_raw(ptr))
    }

    unsafe fn free(&self, ptr: DevicePtr, _bytes: usize, stream: &Stream) -> Result<()> {
        lifetime::wait_stream(stream.as_raw())?;
        // SAFETY: a mapping from `cudaIpcOpenMemHandle`, closed once, after every use here.
        status(unsafe { sys::cudaIpcCloseMemHandle(ptr.as_raw()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_their_bytes_and_size() {
        let mut raw = [0u8; 64];
        raw[0] = 0x5a;
        let h = IpcMemHandle { raw, bytes: 4096 };
        let back = IpcMemHandle::from_bytes(h.to_bytes());
        assert_eq!(back, h);
        assert_eq!(back.size_bytes(), 4096);
        assert_eq!(&h.to_bytes()[64..], &4096u64.to_le_bytes());
        assert!(format!("{h:?}").contains("4096 bytes"));
    }

    #[test]
    fn a_size_that_is_no_whole_number_of_elements_is_refused() {
        let h = IpcMemHandle {
            raw: [0; 64],
            bytes: 6,
        };
        // SAFETY: refused before CUDA is called.
        let r = unsafe { h.open::<u32>(&Stream::legacy()) };
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    }
}
