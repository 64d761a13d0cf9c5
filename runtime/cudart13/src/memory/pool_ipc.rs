// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/pool_ipc.rs:
// edit the template, not this copy.

//! Memory pools shared between processes: a pool created exportable
//! ([`MemPool::new_shareable`], POSIX file descriptor handles), the file descriptor another
//! process imports it from ([`MemPool::export_fd`], [`MemPool::import_fd`]), and allocations
//! of it shared by pointer ([`MemPool::export_pointer`] → [`PoolPointerExport`], 64 bytes and
//! a size to send any way → [`MemPool::import_pointer`], a [`DeviceBuffer`] in the importing
//! process).
//!
//! An imported buffer ends through the gate like any device buffer: its free
//! (`cudaFreeAsync` on its home stream, which for an imported pointer gives the import up) is
//! ordered after every stream of this process that used it. What the crate cannot check is
//! the other process: importing a pointer is `unsafe`, with the promise that the exporter
//! keeps the allocation until every importer has dropped its buffer, and that the exporter's
//! allocation had completed before the export (CUDA: freeing it earlier, or using it before,
//! is undefined behaviour). Ordering work between processes is an interprocess event's job
//! ([`Event::interprocess`](crate::Event::interprocess)).
//!
//! Not here: sending the file descriptor (a Unix socket with `SCM_RIGHTS`, or inheritance by a
//! child process, as its standard input for example), pools that are not shareable
//! ([`MemPool::new`]).

use std::ffi::{c_int, c_void};
#[cfg(unix)]
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::Arc;

use super::allocator::DeviceAllocator;
use super::buffer::DeviceBuffer;
use super::pool::MemPool;
use super::{DeviceCopy, DevicePtr};
use crate::device::Device;
use crate::error::{status, Error, Result};
use crate::stream::Stream;
use crate::sys;

/// An allocation of a shareable pool as another process imports it: the 64 bytes of a
/// `cudaMemPoolPtrExportData` and the allocation's size, 72 bytes in all
/// ([`to_bytes`](PoolPointerExport::to_bytes)). See [`MemPool::new_shareable`] for the
/// whole exchange.
///
/// ```
/// use cudart13::memory::PoolPointerExport;
/// let export = PoolPointerExport::from_bytes([1; 72]);
/// assert_eq!(PoolPointerExport::from_bytes(export.to_bytes()), export);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[doc(alias = "cudaMemPoolPtrExportData")]
pub struct PoolPointerExport {
    raw: [u8; 64],
    bytes: u64,
}

impl std::fmt::Debug for PoolPointerExport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PoolPointerExport(")?;
        for b in &self.raw[..8] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "…, {} bytes)", self.bytes)
    }
}

impl PoolPointerExport {
    /// The 72 bytes (the export data, then the size, little-endian), to send.
    pub fn to_bytes(self) -> [u8; 72] {
        let mut out = [0u8; 72];
        out[..64].copy_from_slice(&self.raw);
        out[64..].copy_from_slice(&self.bytes.to_le_bytes());
        out
    }

    /// The export from the bytes of [`to_bytes`](PoolPointerExport::to_bytes).
    pub fn from_bytes(bytes: [u8; 72]) -> PoolPointerExport {
        let mut raw = [0u8; 64];
        raw.copy_from_slice(&bytes[..64]);
        let mut size = [0u8; 8];
        size.copy_from_slice(&bytes[64..]);
        PoolPointerExport {
            raw,
            bytes: u64::from_le_bytes(size),
        }
    }

    /// The allocation's size in bytes.
    pub fn size_bytes(&self) -> u64 {
        self.bytes
    }
}

impl MemPool {
    /// A new pool on `device` whose memory other processes can import: created with POSIX
    /// file descriptor handles (`cudaMemPoolCreate`,
    /// `cudaMemHandleTypePosixFileDescriptor`).
    ///
    /// ```no_run
    /// # fn main() -> cudart13::Result<()> {
    /// use std::os::fd::AsFd;
    /// use cudart13::{Device, MemPool, Stream};
    /// let device = Device::get(0)?;
    /// let stream = Stream::non_blocking()?;
    /// let pool = MemPool::new_shareable(device)?;
    /// let fd = pool.export_fd()?; // hand to the other process (a Unix socket, or inherited)
    /// let buf = pool.alloc::<u32>(1024, &stream)?;
    /// stream.synchronize()?; // the allocation is complete before another process uses it
    /// let export = pool.export_pointer(&buf)?; // 72 bytes to send: `export.to_bytes()`
    /// // In the other process, with the file descriptor received as `fd`:
    /// let imported = MemPool::import_fd(fd.as_fd(), device)?;
    /// // SAFETY: the exporter keeps `buf` allocated until this buffer is dropped.
    /// let shared = unsafe { imported.import_pointer::<u32>(export, &stream)? };
    /// # let _ = shared; Ok(()) }
    /// ```
    #[doc(alias = "cudaMemPoolCreate")]
    #[doc(alias = "cudaMemHandleTypePosixFileDescriptor")]
    pub fn new_shareable(device: Device) -> Result<MemPool> {
        MemPool::create_with(
            device,
            0,
            sys::cudaMemAllocationHandleType::POSIX_FILE_DESCRIPTOR,
        )
    }

    /// A file descriptor another process imports this pool from
    /// (`cudaMemPoolExportToShareableHandle`); the pool must be
    /// [shareable](MemPool::new_shareable) (otherwise CUDA's error). Closed when dropped.
    #[cfg(unix)]
    #[doc(alias = "cudaMemPoolExportToShareableHandle")]
    pub fn export_fd(&self) -> Result<OwnedFd> {
        let mut fd: c_int = -1;
        // SAFETY: a POSIX handle is one `int`, written here.
        status(unsafe {
            sys::cudaMemPoolExportToShareableHandle(
                (&mut fd as *mut c_int).cast::<c_void>(),
                self.as_raw(),
                sys::cudaMemAllocationHandleType::POSIX_FILE_DESCRIPTOR,
                0,
            )
        })?;
        if fd < 0 {
            return Err(Error::InvalidArgument(
                "cudaMemPoolExportToShareableHandle returned no file descriptor".into(),
            ));
        }
        // SAFETY: a new descriptor CUDA opened for the caller, owned from here on.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// The pool another process exported as `fd` ([`MemPool::export_fd`];
    /// `cudaMemPoolImportFromShareableHandle`), on `device`. Allocations cannot be made from
    /// an imported pool, only [imported](MemPool::import_pointer); dropping it destroys the
    /// import (CUDA keeps it while imported buffers are outstanding).
    #[cfg(unix)]
    #[doc(alias = "cudaMemPoolImportFromShareableHandle")]
    pub fn import_fd(fd: BorrowedFd<'_>, device: Device) -> Result<MemPool> {
        // CUDA takes the descriptor's number as the handle pointer and refuses a null one:
        // descriptor 0 (standard input, as a child inherits it) is imported from a duplicate.
        let duplicate;
        let fd = if fd.as_raw_fd() == 0 {
            duplicate = fd.try_clone_to_owned().map_err(|e| {
                Error::InvalidArgument(format!("duplicating file descriptor 0: {e}"))
            })?;
            duplicate.as_fd()
        } else {
            fd
        };
        let mut raw = sys::cudaMemPool_t::null();
        let handle = fd.as_raw_fd() as isize as *mut c_void;
        crate::lifetime::current::with_device(device.ordinal(), || {
            // SAFETY: a POSIX handle is passed as the descriptor's value; one pool is
            // written. CUDA duplicates what it needs: `fd` stays the caller's.
            status(unsafe {
                sys::cudaMemPoolImportFromShareableHandle(
                    &mut raw,
                    handle,
                    sys::cudaMemAllocationHandleType::POSIX_FILE_DESCRIPTOR,
                    0,
                )
            })
        })?;
        Ok(MemPool::owning(raw, device))
    }

    /// The export data another process imports `buf` with (`cudaMemPoolExportPointer`):
    /// `buf` must come from this pool, a [shareable](MemPool::new_shareable) one. Export
    /// after the allocation has completed (synchronise its stream).
    #[doc(alias = "cudaMemPoolExportPointer")]
    pub fn export_pointer<T: DeviceCopy>(
        &self,
        buf: &DeviceBuffer<T>,
    ) -> Result<PoolPointerExport> {
        if buf.is_empty() {
            return Err(Error::InvalidArgument(
                "an empty buffer has no memory to share".into(),
            ));
        }
        let mut data = sys::cudaMemPoolPtrExportData::default();
        // SAFETY: the buffer's memory is alive; one 64-byte record is written.
        status(unsafe { sys::cudaMemPoolExportPointer(&mut data, buf.as_device_ptr().as_raw()) })?;
        Ok(PoolPointerExport {
            raw: data.reserved,
            bytes: buf.size_bytes() as u64,
        })
    }

    /// The allocation `export` names, imported from this (imported) pool as a buffer of
    /// `T` whose home is `stream` (`cudaMemPoolImportPointer`). A size that is not a whole
    /// number of `T` is [`Error::InvalidArgument`]. Dropping the buffer gives the import up
    /// (`cudaFreeAsync` on `stream`) after every stream of this process that used it.
    ///
    /// # Safety
    /// `export` was made by [`MemPool::export_pointer`] in another process for an
    /// allocation of the pool this one was imported from; that allocation had completed
    /// before the export, and the exporter keeps it allocated until the returned buffer has
    /// been dropped here and its free has run.
    #[doc(alias = "cudaMemPoolImportPointer")]
    pub unsafe fn import_pointer<T: DeviceCopy>(
        &self,
        export: PoolPointerExport,
        stream: &Stream,
    ) -> Result<DeviceBuffer<T>> {
        let size = std::mem::size_of::<T>();
        let bytes = usize::try_from(export.bytes)
            .ok()
            .filter(|b| size != 0 && b % size == 0)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "an exported allocation of {} bytes is not a whole number of {size}-byte \
                     elements",
                    export.bytes
                ))
            })?;
        let import: Arc<dyn DeviceAllocator> = Arc::new(PoolImport {
            pool: self.as_raw().0 as usize,
            data: export.raw,
        });
        DeviceBuffer::with_allocator(import, bytes / size, stream)
    }
}

/// The "allocator" of one imported allocation: `alloc` imports it, `free` gives it up in
/// stream order.
struct PoolImport {
    pool: usize,
    data: [u8; 64],
}

// SAFETY: `alloc` returns the imported allocation (device memory of the exported size, usable
// on every stream of its device, by the caller's promise to `import_pointer`); `free` ends
// the import in stream order, after the work ordered before it.
unsafe impl DeviceAllocator for PoolImport {
    fn alloc(&self, _bytes: usize, _stream: &Stream) -> Result<DevicePtr> {
        let mut data = sys::cudaMemPoolPtrExportData {
            reserved: self.data,
        };
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: one pointer is written; the pool handle is the importer's (alive: CUDA
        // refuses a destroyed one).
        status(unsafe {
            sys::cudaMemPoolImportPointer(&mut ptr, sys::cudaMemPool_t(self.pool as _), &mut data)
        })?;
        Ok(DevicePtr::from_raw(ptr))
    }

    unsafe fn free(&self, ptr: DevicePtr, _bytes: usize, stream: &Stream) -> Result<()> {
        // SAFETY: an imported pointer, given up once, after every use (the caller's promise).
        status(unsafe { sys::cudaFreeAsync(ptr.as_raw(), stream.as_raw()) })
    }
}
