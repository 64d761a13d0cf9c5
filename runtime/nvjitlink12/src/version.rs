// Copied by `cargo xtask codegen` from the generator's codegen/template/src/version.rs:
// edit the template, not this copy.

//! CUDA release numbers: the version the loaded runtime reports, and the release of CUDA
//! 12 each function of this crate first appeared in.
//!
//! One crate serves every minor release of CUDA 12: it is generated from the newest
//! (12.9), and each item's documentation says the first release that declares it ("Available
//! since CUDA 12.4", or "In every CUDA 12.x release"), from the headers of every minor
//! release. A function newer than the loaded runtime returns [`Error::NotInRuntime`] without
//! calling anything; [`runtime_version`] and [`function_since`] let a caller choose a fallback
//! first. This module only reads numbers: the check itself is made once per function, where
//! the loader resolves it ([`LazySymbol`](crate::LazySymbol)).
//!
//! [`Error::NotInRuntime`]: crate::Error::NotInRuntime

use crate::error::Result;

/// A CUDA release as the runtime reports it: `1000 * major + 10 * minor` (13.2 is `13020`).
/// Ordered by release; `Display` prints `13.2`.
///
/// ```no_run
/// # fn main() -> nvjitlink12::Result<()> {
/// use nvjitlink12::version::{function_since, runtime_version, CudaVersion};
/// let loaded = runtime_version()?;
/// match function_since("cudaDeviceGetExecutionCtx") {
///     Some(since) if since > loaded => println!("needs CUDA {since}; the runtime is {loaded}"),
///     _ => println!("available with CUDA {loaded}"),
/// }
/// assert_eq!(CudaVersion::new(13, 2).as_raw(), 13020);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CudaVersion(i32);

impl CudaVersion {
    /// The version `raw` (`13020`), as `cudaRuntimeGetVersion` writes it.
    pub const fn from_raw(raw: i32) -> CudaVersion {
        CudaVersion(raw)
    }

    /// The version `major.minor`.
    pub const fn new(major: i32, minor: i32) -> CudaVersion {
        CudaVersion(major * 1000 + minor * 10)
    }

    /// The raw number (`13020`).
    pub const fn as_raw(self) -> i32 {
        self.0
    }

    /// The major release (`13`).
    pub const fn major(self) -> i32 {
        self.0 / 1000
    }

    /// The minor release (`2`).
    pub const fn minor(self) -> i32 {
        (self.0 % 1000) / 10
    }
}

impl std::fmt::Display for CudaVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major(), self.minor())
    }
}

/// The version of the CUDA runtime this crate loaded (loading it on the first call), as its
/// `cudaRuntimeGetVersion` reported it when it was opened: always a CUDA 12 release.
/// [`Error::LibraryNotFound`](crate::Error::LibraryNotFound) when none loads.
pub fn runtime_version() -> Result<CudaVersion> {
    crate::loader::Library::get().map(|lib| CudaVersion(lib.runtime_version()))
}

/// The first CUDA 12 release that declares the C function `name` (`"cudaFoo"`), when that
/// is newer than the oldest release this crate's marks were compared over; `None` for a
/// function every CUDA 12 runtime compared has, and for a name this crate does not bind.
/// Compare it with [`runtime_version`] to choose a fallback before calling.
pub fn function_since(name: &str) -> Option<CudaVersion> {
    cuda_loader::version::function_since(crate::sys::since::FUNCTIONS, name).map(CudaVersion)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_print_and_order_as_releases() {
        let v = CudaVersion::from_raw(13020);
        assert_eq!((v.major(), v.minor()), (13, 2));
        assert_eq!(v.to_string(), "13.2");
        assert_eq!(CudaVersion::new(13, 2), v);
        assert!(CudaVersion::new(13, 10) > CudaVersion::new(13, 4));
        assert_eq!(CudaVersion::new(12, 9).as_raw(), 12090);
    }

    #[test]
    fn the_table_is_sorted_and_of_this_major() {
        let table = crate::sys::since::FUNCTIONS;
        for pair in table.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} / {}", pair[0].0, pair[1].0);
        }
        for (name, since) in table {
            assert_eq!(
                CudaVersion(*since).major(),
                crate::sys::CUDA_MAJOR as i32,
                "{name}"
            );
            assert_eq!(function_since(name), Some(CudaVersion(*since)));
        }
        assert_eq!(function_since("cudaNoSuchFunction"), None);
    }
}
