//! What the loader needs to know about one C library: its file names, the variable that names
//! it, its wheels' folders, how it reports its version, and the major release the crate that
//! loads it is built for. A generated crate states these as one `static` [`Spec`] (in its
//! `src/library.rs`); nothing else here names a library.

use std::ffi::CStr;

/// The facts about one C library of one CUDA major release.
#[derive(Debug)]
pub struct Spec {
    /// The crate that loads it, for messages (`cudart13`).
    pub crate_name: &'static str,
    /// What the library is, in messages (`CUDA runtime`: "not a CUDA runtime library").
    pub kind: &'static str,
    /// The environment variable naming the library file, or a folder holding it
    /// (`CUDART_PATH`).
    pub path_var: &'static str,
    /// The CUDA major release the crate is built for (`13`).
    pub major: u32,
    /// The CUDA release the crate was generated from (`13.5`), for messages.
    pub release: &'static str,
    /// The names given to the system loader on Linux and other Unix systems, in order
    /// (`libcudart.so.13`, then `libcudart.so`); also the file names looked for in a folder.
    pub unix_names: &'static [&'static str],
    /// The DLL names given to the system loader on Windows (`cudart64_13.dll`).
    pub windows_names: &'static [&'static str],
    /// How the library's DLLs of the major start (`cudart64_13`), lower case: any such DLL in
    /// a folder is a candidate.
    pub windows_prefix: &'static str,
    /// The folders under `site-packages/nvidia/` of NVIDIA's wheels of the library, in order
    /// (`cu13`, the folder every CUDA 13 wheel shares, then CUDA 12's `cuda_runtime`).
    pub wheel_dirs: &'static [&'static str],
    /// What to point [`Spec::path_var`] at, in the message refusing a library of another
    /// major (`a CUDA 13 runtime`).
    pub of_major: &'static str,
    /// The function the library identifies itself by, called once right after opening.
    pub version: VersionQuery,
    /// How a status the library returns reads in a message (`CUDA error 35
    /// (cudaErrorInsufficientDriver): …`), for a failing [`Spec::version`].
    pub describe_status: fn(i32) -> String,
}

/// How a library reports its version; each returns a status whose zero is success.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum VersionQuery {
    /// `int f(int *version)` writing `1000 * major + 10 * minor` (`cudaRuntimeGetVersion`).
    Combined(&'static CStr),
    /// `int f(int *major, int *minor)` (`nvrtcVersion`).
    MajorMinor(&'static CStr),
}

impl VersionQuery {
    /// The C function's name.
    pub fn name(self) -> &'static CStr {
        match self {
            VersionQuery::Combined(name) | VersionQuery::MajorMinor(name) => name,
        }
    }
}

impl Spec {
    /// The names given to the system loader on this platform, in order.
    pub fn system_names(&self) -> &'static [&'static str] {
        if cfg!(windows) {
            self.windows_names
        } else {
            self.unix_names
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The CUDA 13 runtime's facts, as `cudart13` states them.
    pub(crate) static CUDART13: Spec = Spec {
        crate_name: "cudart13",
        kind: "CUDA runtime",
        path_var: "CUDART_PATH",
        major: 13,
        release: "13.5",
        unix_names: &["libcudart.so.13", "libcudart.so"],
        windows_names: &["cudart64_13.dll"],
        windows_prefix: "cudart64_13",
        wheel_dirs: &["cu13", "cuda_runtime"],
        of_major: "a CUDA 13 runtime",
        version: VersionQuery::Combined(c"cudaRuntimeGetVersion"),
        describe_status: |code| format!("status {code}"),
    };

    #[test]
    fn system_names_are_the_platforms() {
        let names = CUDART13.system_names();
        assert_eq!(names[0].contains(".dll"), cfg!(windows));
        assert_eq!(CUDART13.version.name(), c"cudaRuntimeGetVersion");
    }
}
