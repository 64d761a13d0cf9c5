// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/managed.rs:
// edit the template, not this copy.

//! [`ManagedBuffer<T>`]: unified (managed) memory from `cudaMallocManaged`, reachable from
//! the host and every device at the same address, migrated by the driver on demand.
//!
//! The host reaches the buffer through [`ManagedBuffer::as_slice`] /
//! [`ManagedBuffer::as_mut_slice`], and it is passed to kernels as an argument. Kernel
//! launches are `unsafe` in this crate; their contract includes that the host does not
//! touch memory a running kernel uses, which for managed memory means: synchronise before
//! reading results on the host. On a device without concurrent managed access
//! (`cudaDevAttrConcurrentManagedAccess` = 0: before Pascal, Windows, some virtualised
//! GPUs) the host may not touch *any* managed memory while *any* kernel runs on it (the
//! access faults): there the safe views are refused, and [`ManagedBuffer::as_slice_unchecked`]
//! is the `unsafe` way. There are no device views of managed memory (an asynchronous copy
//! into it could outlive the borrow); use `as_device_ptr` with the raw layer for that.
//! Prefetching and advice (`cudaMemPrefetchAsync`, `cudaMemAdvise`) differ between CUDA 12
//! and 13 and are left to [`crate::api`].

use std::ffi::{c_int, c_void};
use std::ptr::NonNull;
use std::sync::OnceLock;

use super::{bytes_of, DeviceCopy, DevicePtr};
use crate::error::{status, Error, Result};
use crate::lifetime::{Kind, Life, Release};
use crate::sys;

/// `len` values of `T` in managed memory, freed with `cudaFree` when dropped (which waits
/// for the device). `Send`/`Sync` when `T` is.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::ManagedBuffer;
/// let mut values = ManagedBuffer::<f32>::from_slice(&[1.0, 2.0, 3.0])?;
/// values.as_mut_slice()?[0] = 10.0; // the host writes in place (checked for device access)
/// // … a kernel reads and writes `values` …
/// println!("{:?}", values.as_slice()?);
/// # Ok(()) }
/// ```
pub struct ManagedBuffer<T: DeviceCopy> {
    ptr: NonNull<T>,
    len: usize,
    /// The gate's record: kernels use managed memory without records, so the free waits for
    /// every device; a capture that uses it makes the graph hold it.
    life: Life,
}

// SAFETY: the buffer owns its elements, like `Vec<T>`.
unsafe impl<T: DeviceCopy + Send> Send for ManagedBuffer<T> {}
// SAFETY: like `Vec<T>`.
unsafe impl<T: DeviceCopy + Sync> Sync for ManagedBuffer<T> {}

impl<T: DeviceCopy> ManagedBuffer<T> {
    /// `len` zeroed elements attached globally (`cudaMallocManaged(.., cudaMemAttachGlobal)`),
    /// zeroed from the host.
    #[doc(alias = "cudaMallocManaged")]
    #[doc(alias = "cudaMemset")]
    pub fn new(len: usize) -> Result<ManagedBuffer<T>> {
        let bytes = bytes_of::<T>(len)?;
        if bytes == 0 {
            return Ok(ManagedBuffer {
                ptr: NonNull::dangling(),
                len: 0,
                life: Life::new("managed buffer", Kind::Everywhere, None),
            });
        }
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: one pointer is written.
        status(unsafe {
            sys::cudaMallocManaged(&mut ptr, bytes, sys::MemAttachFlags::GLOBAL.bits() as _)
        })?;
        let life = Life::new("managed buffer", Kind::Everywhere, Some(managed_free(ptr)));
        let ptr = NonNull::new(ptr.cast::<T>()).ok_or_else(|| Error::from_code(2))?;
        let buffer = ManagedBuffer { ptr, len, life };
        if host_access_allowed().is_ok() {
            // SAFETY: `bytes` bytes of managed memory, host-accessible (every device has
            // concurrent managed access); zero bits are a valid `T`.
            unsafe { ptr.as_ptr().cast::<u8>().write_bytes(0, bytes) };
        } else {
            // The host may not touch it while any kernel runs: zeroed by the device.
            // SAFETY: `bytes` bytes of managed memory.
            status(unsafe { sys::cudaMemset(ptr.as_ptr().cast(), 0, bytes) })?;
            crate::lifetime::wait_stream(sys::cudaStream_t(1 as *mut _))?;
        }
        Ok(buffer)
    }

    /// A managed copy of `src` (copied by `cudaMemcpy`, so that it works on devices whose
    /// managed memory the host may not touch while kernels run).
    #[doc(alias = "cudaMallocManaged")]
    #[doc(alias = "cudaMemcpy")]
    pub fn from_slice(src: &[T]) -> Result<ManagedBuffer<T>> {
        let b = Self::new(src.len())?;
        if b.len > 0 {
            // SAFETY: `src` and the buffer both hold `len` elements; `cudaMemcpy` has read
            // `src` when it returns.
            status(unsafe {
                sys::cudaMemcpy(
                    b.ptr.as_ptr().cast(),
                    src.as_ptr().cast(),
                    std::mem::size_of_val(src),
                    sys::cudaMemcpyKind::DEFAULT,
                )
            })?;
        }
        Ok(b)
    }

    /// The elements, on the host. Refused ([`Error::InvalidArgument`]) when a device lacks
    /// concurrent managed access (see the [memory module](crate::memory)).
    pub fn as_slice(&self) -> Result<&[T]> {
        host_access_allowed()?;
        // SAFETY: `len` initialised elements; host access cannot fault on these devices;
        // no kernel writes them meanwhile (the launch contract).
        Ok(unsafe { self.as_slice_unchecked() })
    }

    /// The elements, mutably, on the host (refused as [`as_slice`](Self::as_slice)).
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        host_access_allowed()?;
        // SAFETY: as above, exclusively borrowed.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) })
    }

    /// The elements, on the host, without the device check.
    ///
    /// # Safety
    /// No kernel runs on a device without concurrent managed access while the slice is
    /// used, and no kernel writes the elements meanwhile.
    pub unsafe fn as_slice_unchecked(&self) -> &[T] {
        // SAFETY: `len` initialised elements; the caller's promise about kernels.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The unified address (the same on the host and on devices).
    pub fn as_device_ptr(&self) -> DevicePtr {
        DevicePtr::from_raw(self.ptr.as_ptr().cast())
    }

    #[inline]
    pub(crate) fn arg_ptr(&self) -> *mut c_void {
        std::ptr::addr_of!(self.ptr).cast_mut().cast()
    }

    /// Frees the memory now (once every device has finished its work, as dropping does) and
    /// returns the error, where dropping would report it to the hook. While a graph holds the
    /// memory (a captured launch used it), it is freed when the graph lets go.
    #[doc(alias = "cudaFree")]
    pub fn close(self) -> Result<()> {
        self.life.close()
    }

    /// The allocation's record in the gate, for a kernel launch's bookkeeping.
    #[inline]
    pub(crate) fn life(&self) -> &Life {
        &self.life
    }
}

fn host_access_allowed() -> Result<()> {
    static MISSING: OnceLock<std::result::Result<Option<c_int>, Error>> = OnceLock::new();
    let missing = MISSING.get_or_init(|| {
        let mut n: c_int = 0;
        // SAFETY: one int is written.
        status(unsafe { sys::cudaGetDeviceCount(&mut n) })?;
        for d in 0..n {
            let mut v: c_int = 0;
            // SAFETY: one int is written.
            status(unsafe {
                sys::cudaDeviceGetAttribute(
                    &mut v,
                    sys::cudaDeviceAttr::CONCURRENT_MANAGED_ACCESS,
                    d,
                )
            })?;
            if v == 0 {
                return Ok(Some(d));
            }
        }
        Ok(None)
    });
    match missing {
        Ok(None) => Ok(()),
        Ok(Some(d)) => Err(Error::InvalidArgument(format!(
            "device {d} has no concurrent managed access: a host access to managed memory \
             while any kernel runs there faults; use ManagedBuffer::as_slice_unchecked \
             after synchronising"
        ))),
        Err(e) => Err(e.clone()),
    }
}

impl<T: DeviceCopy + std::fmt::Debug> std::fmt::Debug for ManagedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManagedBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

/// The gate's release of an owned managed allocation: `cudaFree`.
fn managed_free(ptr: *mut c_void) -> Release {
    let addr = ptr as usize;
    // SAFETY: the gate calls this once, once every device has finished its work with the
    // allocation, which nothing else frees.
    Box::new(move || status(unsafe { sys::cudaFree(addr as *mut c_void) }))
}
