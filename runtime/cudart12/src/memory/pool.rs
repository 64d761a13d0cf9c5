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

use crate::device::Device;
use crate::error::{report_drop_error, status, Result};
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
        MemPool::create_with(device, max_size, sys::cudaMemAllocationHandleType::NONE)
    }

    /// A pool of `device` holding at most `max_size` bytes (0: no limit) whose memory can be
    /// exported as `handles`.
    pub(super) fn create_with(
        device: Device,
        max_size: usize,
        handles: sys::cudaMemAllocationHandleType,
    ) -> Result<MemPool> {
        let mut props = sys::cudaMemPoolProps {
            allocType: sys::cudaMemAllocationType::PINNED,
            handleTypes: handles,
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

    /// Owns pool `raw` of `device` (destroyed on drop).
    pub(super) fn owning(raw: sys::cudaMemPool_t, device: Device) -> MemPool {
        MemPool {
            raw,
            owned: true,
            device,
            limit: None,
        }
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

    /// Makes this the pool `cudaMallocAsync` (and so [`DeviceBuffer::new`](crate::DeviceBuffer::new)) uses on its
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
/// A device's memory access to its peers' pools and its graph memory: the parts of [`Device`]
/// that are about memory pools.
impl Device {
    /// Lets this device's kernels and copies access `peer`'s memory: memory from
    /// `cudaMalloc` (`cudaDeviceEnablePeerAccess` with this device current) and the
    /// stream-ordered memory of `peer`'s default pool and of the pool `peer` allocates from
    /// now (`cudaMemPoolSetAccess`), which is where every [`DeviceBuffer`] of `peer` comes
    /// from unless another pool or allocator was chosen. Copies between the two devices'
    /// buffers then go directly over NVLink or PCIe instead of through the host, and
    /// kernels of this device may read and write `peer`'s buffers. Pools created with
    /// [`MemPool::new`] are not changed: give them access with [`MemPool::set_access`].
    /// Access that is already enabled is not an error here.
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::{Device, DeviceBuffer, Stream, StreamFlags};
    /// let (d0, d1) = (Device::get(0)?, Device::get(1)?);
    /// d0.enable_peer_access(d1)?;
    /// let (s0, s1) = (d0.stream(StreamFlags::NON_BLOCKING)?, d1.stream(StreamFlags::NON_BLOCKING)?);
    /// let src = DeviceBuffer::from_slice(&[1u32, 2, 3], &s1)?;
    /// let mut dst = DeviceBuffer::<u32>::new(3, &s0)?;
    /// dst.copy_from_device(&src, &s0)?; // device 0 reads device 1's buffer directly
    /// assert_eq!(dst.to_vec()?, [1, 2, 3]);
    /// # Ok(()) }
    /// ```
    ///
    /// [`DeviceBuffer`]: crate::DeviceBuffer
    /// [`MemPool::new`]: crate::MemPool::new
    /// [`MemPool::set_access`]: crate::MemPool::set_access
    #[doc(alias = "cudaDeviceEnablePeerAccess")]
    #[doc(alias = "cudaMemPoolSetAccess")]
    pub fn enable_peer_access(self, peer: Device) -> Result<()> {
        {
            let _guard = self.guard()?;
            // SAFETY: value-only call; flags must be 0.
            match status(unsafe { sys::cudaDeviceEnablePeerAccess(peer.ordinal(), 0) }) {
                Err(e) if e.cuda_code() == Some(PEER_ACCESS_ALREADY_ENABLED) => {}
                other => other?,
            }
        }
        for pool in peer_pools(peer)? {
            pool.set_access(self, true)?;
        }
        Ok(())
    }

    /// Stops this device's access to `peer`'s memory: `cudaDeviceDisablePeerAccess`, and
    /// the access [`enable_peer_access`](Device::enable_peer_access) gave to `peer`'s
    /// default and current pools (`cudaMemPoolSetAccess`). Access that was not enabled is
    /// not an error here.
    #[doc(alias = "cudaDeviceDisablePeerAccess")]
    #[doc(alias = "cudaMemPoolSetAccess")]
    pub fn disable_peer_access(self, peer: Device) -> Result<()> {
        for pool in peer_pools(peer)? {
            pool.set_access(self, false)?;
        }
        let _guard = self.guard()?;
        // SAFETY: value-only call.
        match status(unsafe { sys::cudaDeviceDisablePeerAccess(peer.ordinal()) }) {
            Err(e) if e.cuda_code() == Some(PEER_ACCESS_NOT_ENABLED) => Ok(()),
            other => other,
        }
    }

    /// The graph memory pool's usage on this device (`cudaDeviceGetGraphMemAttribute`):
    /// memory that graphs with allocation nodes (buffers allocated in a captured stream)
    /// hold, which no [`MemPool`] reports.
    #[doc(alias = "cudaDeviceGetGraphMemAttribute")]
    pub fn graph_mem_stats(self) -> Result<MemPoolStats> {
        use sys::cudaGraphMemAttributeType as A;
        let get = |attr| -> Result<u64> {
            let mut value: u64 = 0;
            // SAFETY: these attributes are `cuuint64_t`; one value is written.
            status(unsafe {
                sys::cudaDeviceGetGraphMemAttribute(
                    self.ordinal(),
                    attr,
                    (&mut value as *mut u64).cast(),
                )
            })?;
            Ok(value)
        };
        Ok(MemPoolStats {
            reserved_current: get(A::RESERVED_MEM_CURRENT)?,
            reserved_high: get(A::RESERVED_MEM_HIGH)?,
            used_current: get(A::USED_MEM_CURRENT)?,
            used_high: get(A::USED_MEM_HIGH)?,
        })
    }

    /// Resets the graph memory pool's high-water marks to the current values
    /// (`cudaDeviceSetGraphMemAttribute`; CUDA accepts only 0, meaning "now").
    #[doc(alias = "cudaDeviceSetGraphMemAttribute")]
    pub fn reset_graph_mem_high_watermarks(self) -> Result<()> {
        use sys::cudaGraphMemAttributeType as A;
        for attr in [A::USED_MEM_HIGH, A::RESERVED_MEM_HIGH] {
            let mut zero: u64 = 0;
            // SAFETY: these attributes are `cuuint64_t`; one value is read.
            status(unsafe {
                sys::cudaDeviceSetGraphMemAttribute(
                    self.ordinal(),
                    attr,
                    (&mut zero as *mut u64).cast(),
                )
            })?;
        }
        Ok(())
    }

    /// Returns the memory the graph memory pool holds but no graph uses to the OS
    /// (`cudaDeviceGraphMemTrim`).
    #[doc(alias = "cudaDeviceGraphMemTrim")]
    pub fn graph_mem_trim(self) -> Result<()> {
        // SAFETY: a value-only call.
        status(unsafe { sys::cudaDeviceGraphMemTrim(self.ordinal()) })
    }
}

/// `cudaErrorPeerAccessAlreadyEnabled`.
const PEER_ACCESS_ALREADY_ENABLED: i32 = 704;
/// `cudaErrorPeerAccessNotEnabled`.
const PEER_ACCESS_NOT_ENABLED: i32 = 705;

/// `peer`'s default pool and, when another was made current, its current pool: the pools
/// peer access is granted on (see [`Device::enable_peer_access`]); none on a device without
/// memory pools.
fn peer_pools(peer: Device) -> Result<Vec<MemPool>> {
    if peer.attribute(crate::device::DeviceAttribute::MEMORY_POOLS_SUPPORTED)? == 0 {
        return Ok(Vec::new());
    }
    let default = MemPool::device_default(peer)?;
    let current = MemPool::device_current(peer)?;
    if current.as_raw() == default.as_raw() {
        Ok(vec![default])
    } else {
        Ok(vec![default, current])
    }
}
