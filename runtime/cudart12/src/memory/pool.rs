// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/pool.rs:
// edit the template, not this copy.

//! [`MemPool`]: the runtime's stream-ordered memory pools (`cudaMemPool_t`): a device's
//! default pool or one created here, with its release threshold, trimming, usage statistics
//! and a size limit.
//!
//! The limit is the pool's `maxSize` property, given when the pool is created
//! ([`MemPool::with_limit`]); CUDA then refuses allocations beyond it
//! (`cudaErrorMemoryAllocation`). (CUDA 13 can also read it back as
//! `cudaMemPoolAttrMaxPoolSize`; CUDA 12 cannot, so this type remembers it.)
//!
//! A pool is `Send` and `Sync`. A created pool is destroyed on drop; CUDA keeps it until
//! its outstanding allocations are freed. A device's default pool is never destroyed.

use std::ffi::c_void;

use super::buffer::DeviceBuffer;
use super::DeviceCopy;
use crate::device::Device;
use crate::error::{report_drop_error, status, Result};
use crate::stream::Stream;
use crate::sys;

/// A CUDA memory pool: a device's default pool (not destroyed on drop) or one created
/// here (destroyed on drop; CUDA keeps it until its outstanding allocations are freed).
///
/// The limit of [`MemPool::with_limit`] is the pool's `maxSize` property: CUDA refuses
/// allocations beyond it (`cudaErrorMemoryAllocation`). CUDA 13 can read it back as
/// `cudaMemPoolAttrMaxPoolSize`, CUDA 12 cannot, so this type remembers it
/// ([`MemPool::limit`]). `Send` and `Sync`.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{Device, MemPool, Stream};
/// let device = Device::get(0)?;
/// let pool = MemPool::with_limit(device, 1 << 30)?; // at most 1 GiB
/// pool.set_release_threshold(u64::MAX)?; // keep freed memory for reuse
/// let stream = device.stream(cudart12::StreamFlags::NON_BLOCKING)?;
/// let buf = pool.alloc::<f32>(1 << 20, &stream)?;
/// println!("{:?}", pool.stats()?);
/// # let _ = buf; Ok(()) }
/// ```
#[derive(Debug)]
pub struct MemPool {
    raw: sys::cudaMemPool_t,
    owned: bool,
    device: Device,
    limit: Option<usize>,
}

// SAFETY: memory pool handles may be used from any host thread.
unsafe impl Send for MemPool {}
// SAFETY: as above; methods take `&self` and only pass the handle to CUDA.
unsafe impl Sync for MemPool {}

/// A pool's usage, in bytes (the `cudaMemPoolAttr*Mem*` attributes).
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// let stats = cudart12::MemPool::device_default(cudart12::Device::get(0)?)?.stats()?;
/// println!("{} bytes in use, {} reserved", stats.used_current, stats.reserved_current);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemPoolStats {
    /// Memory the pool holds from the driver now.
    pub reserved_current: u64,
    /// The most it has held since the last reset.
    pub reserved_high: u64,
    /// Memory in allocations handed out now.
    pub used_current: u64,
    /// The most handed out since the last reset.
    pub used_high: u64,
}

impl MemPool {
    /// A new pool of pinned device memory on `device` with no limit beyond the device's.
    #[doc(alias = "cudaMemPoolCreate")]
    pub fn new(device: Device) -> Result<MemPool> {
        MemPool::create(device, 0)
    }

    /// A new pool on `device` that never holds more than `max_bytes` (the pool's `maxSize`
    /// property; allocations beyond it fail with `cudaErrorMemoryAllocation`).
    #[doc(alias = "cudaMemPoolCreate")]
    pub fn with_limit(device: Device, max_bytes: usize) -> Result<MemPool> {
        MemPool::create(device, max_bytes)
    }

    fn create(device: Device, max_size: usize) -> Result<MemPool> {
        let mut props = sys::cudaMemPoolProps {
            allocType: sys::cudaMemAllocationType::PINNED,
            handleTypes: sys::cudaMemAllocationHandleType::NONE,
            location: device_location(device.ordinal()),
            ..Default::default()
        };
        props.maxSize = max_size;
        let mut raw = sys::cudaMemPool_t::null();
        // SAFETY: the properties are a complete record; one handle is written.
        status(unsafe { sys::cudaMemPoolCreate(&mut raw, &props) })?;
        Ok(MemPool {
            raw,
            owned: true,
            device,
            limit: (max_size > 0).then_some(max_size),
        })
    }

    /// The device's default pool (`cudaDeviceGetDefaultMemPool`; CuPy's
    /// `get_default_memory_pool`), which `cudaMallocAsync` uses unless another pool was
    /// made current. Not destroyed on drop.
    #[doc(alias = "cudaDeviceGetDefaultMemPool")]
    pub fn device_default(device: Device) -> Result<MemPool> {
        let mut raw = sys::cudaMemPool_t::null();
        // SAFETY: one handle is written.
        status(unsafe { sys::cudaDeviceGetDefaultMemPool(&mut raw, device.ordinal()) })?;
        Ok(MemPool {
            raw,
            owned: false,
            device,
            limit: None,
        })
    }

    /// The pool `cudaMallocAsync` uses on `device` now (`cudaDeviceGetMemPool`). Not
    /// destroyed on drop.
    #[doc(alias = "cudaDeviceGetMemPool")]
    pub fn device_current(device: Device) -> Result<MemPool> {
        let mut raw = sys::cudaMemPool_t::null();
        // SAFETY: one handle is written.
        status(unsafe { sys::cudaDeviceGetMemPool(&mut raw, device.ordinal()) })?;
        Ok(MemPool {
            raw,
            owned: false,
            device,
            limit: None,
        })
    }

    /// Makes this the pool `cudaMallocAsync` (and so [`DeviceBuffer::new`]) uses on its
    /// device (`cudaDeviceSetMemPool`). Destroying it makes the device's default pool
    /// current again (CUDA does that).
    #[doc(alias = "cudaDeviceSetMemPool")]
    pub fn make_current(&self) -> Result<()> {
        // SAFETY: the handle is alive.
        status(unsafe { sys::cudaDeviceSetMemPool(self.device.ordinal(), self.raw) })
    }

    /// The raw handle; valid as long as this value exists.
    pub fn as_raw(&self) -> sys::cudaMemPool_t {
        self.raw
    }

    /// The pool's device.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The limit given at creation ([`MemPool::with_limit`]).
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// `len` elements from this pool on `stream` ([`DeviceBuffer::new_in`]).
    #[doc(alias = "cudaMallocFromPoolAsync")]
    pub fn alloc<T: DeviceCopy>(&self, len: usize, stream: &Stream) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::new_in(self, len, stream)
    }

    fn get_u64(&self, attr: sys::cudaMemPoolAttr) -> Result<u64> {
        let mut value: u64 = 0;
        // SAFETY: these attributes are `cuuint64_t`; the handle is alive.
        status(unsafe {
            sys::cudaMemPoolGetAttribute(self.raw, attr, (&mut value as *mut u64).cast::<c_void>())
        })?;
        Ok(value)
    }

    fn set_u64(&self, attr: sys::cudaMemPoolAttr, mut value: u64) -> Result<()> {
        // SAFETY: these attributes are `cuuint64_t`; the handle is alive.
        status(unsafe {
            sys::cudaMemPoolSetAttribute(self.raw, attr, (&mut value as *mut u64).cast::<c_void>())
        })
    }

    /// Bytes the pool keeps reserved at a synchronisation instead of returning them to
    /// the driver (`cudaMemPoolAttrReleaseThreshold`; 0 by default: everything unused is
    /// released at each synchronisation).
    #[doc(alias = "cudaMemPoolGetAttribute")]
    pub fn release_threshold(&self) -> Result<u64> {
        self.get_u64(sys::cudaMemPoolAttr::ATTR_RELEASE_THRESHOLD)
    }

    /// Sets the release threshold (`u64::MAX`: keep everything).
    #[doc(alias = "cudaMemPoolSetAttribute")]
    pub fn set_release_threshold(&self, bytes: u64) -> Result<()> {
        self.set_u64(sys::cudaMemPoolAttr::ATTR_RELEASE_THRESHOLD, bytes)
    }

    /// Releases reserved memory until at most `keep_bytes` remain reserved, without
    /// touching memory in use (`cudaMemPoolTrimTo`).
    #[doc(alias = "cudaMemPoolTrimTo")]
    pub fn trim_to(&self, keep_bytes: usize) -> Result<()> {
        // SAFETY: the handle is alive.
        status(unsafe { sys::cudaMemPoolTrimTo(self.raw, keep_bytes) })
    }

    /// Reserved and used bytes, current and high-water marks.
    #[doc(alias = "cudaMemPoolGetAttribute")]
    pub fn stats(&self) -> Result<MemPoolStats> {
        use sys::cudaMemPoolAttr as A;
        Ok(MemPoolStats {
            reserved_current: self.get_u64(A::ATTR_RESERVED_MEM_CURRENT)?,
            reserved_high: self.get_u64(A::ATTR_RESERVED_MEM_HIGH)?,
            used_current: self.get_u64(A::ATTR_USED_MEM_CURRENT)?,
            used_high: self.get_u64(A::ATTR_USED_MEM_HIGH)?,
        })
    }

    /// Bytes in allocations handed out now (`cudaMemPoolAttrUsedMemCurrent`).
    #[doc(alias = "cudaMemPoolGetAttribute")]
    pub fn used_mem(&self) -> Result<u64> {
        self.get_u64(sys::cudaMemPoolAttr::ATTR_USED_MEM_CURRENT)
    }

    /// Bytes held from the driver now (`cudaMemPoolAttrReservedMemCurrent`).
    #[doc(alias = "cudaMemPoolGetAttribute")]
    pub fn reserved_mem(&self) -> Result<u64> {
        self.get_u64(sys::cudaMemPoolAttr::ATTR_RESERVED_MEM_CURRENT)
    }

    /// Resets both high-water marks to the current values (CUDA accepts only 0 as the new
    /// value, meaning "now").
    #[doc(alias = "cudaMemPoolSetAttribute")]
    pub fn reset_high_watermarks(&self) -> Result<()> {
        self.set_u64(sys::cudaMemPoolAttr::ATTR_RESERVED_MEM_HIGH, 0)?;
        self.set_u64(sys::cudaMemPoolAttr::ATTR_USED_MEM_HIGH, 0)
    }

    /// Lets `peer`'s kernels and copies read and write this pool's memory (`access = true`)
    /// or not (`cudaMemPoolSetAccess`): peer access for stream-ordered memory.
    /// [`Device::enable_peer_access`](crate::Device::enable_peer_access) does this for the
    /// peer's default and current pools; a pool created here needs it called. The pool's own
    /// device always has access.
    #[doc(alias = "cudaMemPoolSetAccess")]
    pub fn set_access(&self, peer: Device, access: bool) -> Result<()> {
        let desc = sys::cudaMemAccessDesc {
            location: device_location(peer.ordinal()),
            flags: if access {
                sys::cudaMemAccessFlags::READ_WRITE
            } else {
                sys::cudaMemAccessFlags::NONE
            },
        };
        // SAFETY: one descriptor is read; the pool is alive.
        status(unsafe { sys::cudaMemPoolSetAccess(self.as_raw(), &desc, 1) })
    }

    /// Whether `device`'s kernels and copies may read and write this pool's memory
    /// (`cudaMemPoolGetAccess`: read-write access).
    #[doc(alias = "cudaMemPoolGetAccess")]
    pub fn access(&self, device: Device) -> Result<bool> {
        let mut location = device_location(device.ordinal());
        let mut flags = sys::cudaMemAccessFlags::NONE;
        // SAFETY: one flag value is written; one location is read; the pool is alive.
        status(unsafe { sys::cudaMemPoolGetAccess(&mut flags, self.raw, &mut location) })?;
        Ok(flags == sys::cudaMemAccessFlags::READ_WRITE)
    }

    /// Destroys a created pool now and returns the error, where dropping would report it
    /// to the hook. Does nothing for a default pool.
    #[doc(alias = "cudaMemPoolDestroy")]
    pub fn close(self) -> Result<()> {
        let me = std::mem::ManuallyDrop::new(self);
        me.destroy()
    }

    fn destroy(&self) -> Result<()> {
        if !self.owned {
            return Ok(());
        }
        // SAFETY: owned pool, destroyed once; CUDA defers the release while allocations
        // from it are outstanding.
        status(unsafe { sys::cudaMemPoolDestroy(self.raw) })
    }
}

impl Drop for MemPool {
    fn drop(&mut self) {
        if let Err(e) = self.destroy() {
            report_drop_error("memory pool", &e);
        }
    }
}

/// A `cudaMemLocation` naming device `ordinal`. The record is `{ type; id }` up to CUDA 13.2
/// and `{ type; union { id; … } }` from 13.4 on: both put the `int id` right after the 4-byte
/// location type, which is how it is written here, so that the crate builds for either.
fn device_location(ordinal: i32) -> sys::cudaMemLocation {
    const _: () = assert!(
        core::mem::size_of::<sys::cudaMemLocation>() == 8
            && core::mem::size_of::<sys::cudaMemLocationType>() == 4
    );
    let mut location = sys::cudaMemLocation {
        type_: sys::cudaMemLocationType::DEVICE,
        ..Default::default()
    };
    // SAFETY: the record is 8 bytes (checked above) with the C `int id` at byte 4 in every
    // release's layout; the write stays inside the record and `id` has no invalid values.
    unsafe {
        (&mut location as *mut sys::cudaMemLocation)
            .cast::<u8>()
            .add(4)
            .cast::<i32>()
            .write_unaligned(ordinal);
    }
    location
}
