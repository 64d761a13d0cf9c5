// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/managed.rs:
// edit the template, not this copy.

//! [`ManagedBuffer<T>`]: unified (managed) memory from `cudaMallocManaged`, reachable from
//! the host and every device at the same address, migrated by the driver on demand.
//!
//! The buffer dereferences to `[T]` on the host and is passed to kernels as an argument.
//! Kernel launches are `unsafe` in this crate; their contract includes that the host does
//! not touch memory a running kernel uses, which for managed memory means: synchronise
//! before reading results on the host. There are no device views of managed memory (an
//! asynchronous copy into it could outlive the borrow); use `as_device_ptr` with the raw
//! layer for that. Prefetching and advice (`cudaMemPrefetchAsync`, `cudaMemAdvise`) differ
//! between CUDA 12 and 13 and are left to [`crate::api`].

use std::ffi::c_void;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use super::{bytes_of, DeviceCopy, DevicePtr};
use crate::error::{report_drop_error, status, Error, Result};
use crate::sys;

/// `len` values of `T` in managed memory, freed with `cudaFree` when dropped (which waits
/// for the device). `Send`/`Sync` when `T` is.
pub struct ManagedBuffer<T: DeviceCopy> {
    ptr: NonNull<T>,
    len: usize,
}

// SAFETY: the buffer owns its elements, like `Vec<T>`.
unsafe impl<T: DeviceCopy + Send> Send for ManagedBuffer<T> {}
// SAFETY: like `Vec<T>`.
unsafe impl<T: DeviceCopy + Sync> Sync for ManagedBuffer<T> {}

impl<T: DeviceCopy> ManagedBuffer<T> {
    /// `len` zeroed elements attached globally (`cudaMallocManaged(.., cudaMemAttachGlobal)`),
    /// zeroed from the host.
    pub fn new(len: usize) -> Result<ManagedBuffer<T>> {
        let bytes = bytes_of::<T>(len)?;
        if bytes == 0 {
            return Ok(ManagedBuffer {
                ptr: NonNull::dangling(),
                len: 0,
            });
        }
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: one pointer is written.
        status(unsafe {
            sys::cudaMallocManaged(&mut ptr, bytes, sys::MemAttachFlags::GLOBAL.bits() as _)
        })?;
        let ptr = NonNull::new(ptr.cast::<T>()).ok_or_else(|| Error::from_code(2))?;
        // SAFETY: `bytes` bytes of managed memory, host-accessible, not yet used by any
        // device; zero bits are a valid `T`.
        unsafe { ptr.as_ptr().cast::<u8>().write_bytes(0, bytes) };
        Ok(ManagedBuffer { ptr, len })
    }

    /// A managed copy of `src`.
    pub fn from_slice(src: &[T]) -> Result<ManagedBuffer<T>> {
        let mut b = Self::new(src.len())?;
        b.copy_from_slice(src);
        Ok(b)
    }

    /// The unified address (the same on the host and on devices).
    pub fn as_device_ptr(&self) -> DevicePtr {
        DevicePtr::from_raw(self.ptr.as_ptr().cast())
    }

    #[inline]
    pub(crate) fn arg_ptr(&self) -> *mut c_void {
        std::ptr::addr_of!(self.ptr).cast_mut().cast()
    }

    /// Frees the memory now and returns the error, where dropping would report it to the
    /// hook.
    pub fn close(self) -> Result<()> {
        let me = std::mem::ManuallyDrop::new(self);
        me.free()
    }

    fn free(&self) -> Result<()> {
        if self.len == 0 || std::mem::size_of::<T>() == 0 {
            return Ok(());
        }
        // SAFETY: owned managed allocation, freed once.
        status(unsafe { sys::cudaFree(self.ptr.as_ptr().cast()) })
    }
}

impl<T: DeviceCopy> Deref for ManagedBuffer<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised elements; no device work uses them (the launch
        // contract).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceCopy> DerefMut for ManagedBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, exclusively borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceCopy> Drop for ManagedBuffer<T> {
    fn drop(&mut self) {
        if let Err(e) = self.free() {
            report_drop_error("managed buffer", &e);
        }
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
