//! Why a library or one of its functions is not there: [`Error`]. Each generated crate turns it
//! into its own error type (`From<cuda_loader::Error>`), variant for variant.

/// Why the loader has no library or no function to give. Not `#[non_exhaustive]`: a crate
/// that converts it maps every variant, and a new one is a breaking change it must follow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// No library could be opened. `tried` lists every candidate (a path or a name given to
    /// the system loader) with the reason it failed, in search order.
    LibraryNotFound {
        /// `(candidate, why it failed)`, in the order they were tried.
        tried: Vec<(String, String)>,
    },
    /// The library was opened but does not define the function `symbol`.
    SymbolNotFound {
        /// The C name that was looked up.
        symbol: String,
        /// The library it was looked up in (path or loader name, as opened).
        library: String,
        /// The library's version (`13020`), when it could be read.
        version: Option<i32>,
    },
    /// The function's first release (`since`, `1000 * major + 10 * minor`) is newer than the
    /// loaded library's (`loaded`); nothing was called.
    NotInRuntime {
        /// The C function (`cudaFoo`).
        function: String,
        /// The first release that declares it.
        since: i32,
        /// The loaded library's version.
        loaded: i32,
    },
    /// The call was made inside a callback scope ([`crate::callback`]), where the library
    /// forbids calls into it; nothing was called.
    InCallback {
        /// The C function that was called.
        function: String,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::LibraryNotFound { tried } => {
                write!(
                    f,
                    "the library could not be loaded ({} candidates tried)",
                    tried.len()
                )
            }
            Error::SymbolNotFound {
                symbol, library, ..
            } => {
                write!(f, "{library} does not define {symbol}")
            }
            Error::NotInRuntime {
                function,
                since,
                loaded,
            } => write!(
                f,
                "{function} needs {}, the loaded library is {}",
                render_version(Some(*since)),
                render_version(Some(*loaded))
            ),
            Error::InCallback { function } => {
                write!(f, "{function} was called from inside a callback")
            }
        }
    }
}

impl std::error::Error for Error {}

/// `13020` → `CUDA 13.2 (13020)`; `None` → `runtime version unknown`.
pub fn render_version(version: Option<i32>) -> String {
    match version {
        Some(v) => format!("CUDA {}.{} ({v})", v / 1000, (v % 1000) / 10),
        None => "runtime version unknown".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_render_as_releases() {
        assert_eq!(render_version(Some(13020)), "CUDA 13.2 (13020)");
        assert_eq!(render_version(None), "runtime version unknown");
        let e = Error::NotInRuntime {
            function: "cudaFoo".into(),
            since: 13040,
            loaded: 13020,
        };
        assert!(e.to_string().contains("CUDA 13.4"), "{e}");
    }
}
