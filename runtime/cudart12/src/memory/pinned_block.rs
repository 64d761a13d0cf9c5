// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/pinned_block.rs:
// edit the template, not this copy.

//! The bottom of pinned memory: a block ([`PinnedBlock`]: the allocation and its record in the
//! gate) and the host views of it ([`PinnedRef`], [`PinnedMut`]), which wait for the copies
//! they conflict with and hold back graph launches while they live.
//!
//! Not here: buffers and pools ([`super::pinned`]), parts of buffers ([`super::pinned_slice`]).

use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use super::DeviceCopy;
use crate::error::Result;
use crate::lifetime::{Access, Bytes, Kind, Life, Release, View};

/// One pinned allocation: its address and size, and its record in the gate (shared with the
/// graphs that hold it; the last reference frees the block or returns it to its pool).
pub(crate) struct PinnedBlock {
    ptr: NonNull<u8>,
    bytes: usize,
    pub(crate) life: Life,
}

// SAFETY: the block owns its memory; its record is the gate's (`Send + Sync`).
unsafe impl Send for PinnedBlock {}
// SAFETY: shared access reads the address and synchronises through the gate and CUDA.
unsafe impl Sync for PinnedBlock {}

impl PinnedBlock {
    /// A block of `bytes` bytes at `ptr`, ended by `release` (`None`: nothing allocated).
    pub(crate) fn new(ptr: NonNull<u8>, bytes: usize, release: Option<Release>) -> PinnedBlock {
        PinnedBlock {
            ptr,
            bytes,
            life: Life::new("pinned buffer", Kind::Host, release),
        }
    }

    /// The block's address.
    pub(crate) fn ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// The block's size in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// **host**: waits for the work a host access of this kind to `range` conflicts with;
    /// while the view lives, launches of graphs holding the block are refused.
    pub(crate) fn host_access(&self, access: Access, range: Bytes) -> Result<View> {
        self.life.host(access, range)
    }
}

/// A host view of a [`PinnedBuffer`](super::PinnedBuffer) for reading ([`PinnedBuffer::as_slice`](super::PinnedBuffer::as_slice)): no copy
/// writes the memory while it is alive.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{DeviceBuffer, PinnedBuffer, Stream};
/// let stream = Stream::non_blocking()?;
/// let dev = DeviceBuffer::from_slice(&[1.5f32; 8], &stream)?;
/// let mut host = PinnedBuffer::<f32>::new(8)?;
/// dev.copy_to_pinned_async(&mut host, &stream)?;
/// let view = host.as_slice()?; // waits for the copy; no copy may write `host` while it lives
/// println!("{}", view.iter().sum::<f32>());
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct PinnedRef<'a, T: DeviceCopy> {
    pub(crate) slice: &'a [T],
    pub(crate) _view: View,
}

/// A host view of a [`PinnedBuffer`](super::PinnedBuffer) for writing ([`PinnedBuffer::as_mut_slice`](super::PinnedBuffer::as_mut_slice)): no copy
/// reads or writes the memory while it is alive.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{DeviceBuffer, PinnedBuffer, Stream};
/// let stream = Stream::non_blocking()?;
/// let mut host = PinnedBuffer::<u32>::new(8)?;
/// let mut dev = DeviceBuffer::<u32>::new(8, &stream)?;
/// for round in 0..3 {
///     host.as_mut_slice()?.fill(round); // waits until the previous upload has read `host`
///     dev.copy_from_pinned_async(&host, &stream)?;
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct PinnedMut<'a, T: DeviceCopy> {
    pub(crate) slice: &'a mut [T],
    pub(crate) _view: View,
}

impl<T: DeviceCopy> Deref for PinnedRef<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.slice
    }
}

impl<T: DeviceCopy> Deref for PinnedMut<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.slice
    }
}

impl<T: DeviceCopy> DerefMut for PinnedMut<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.slice
    }
}
