//! The crate's one error type: loader failures (library not found, symbol missing),
//! nvJitLink status codes (`nvJitLinkResult`), and a failed link with nvJitLink's error log.
//!
//! This module does not load anything and does not know the list of nvJitLink status codes:
//! the name of a code comes from the generated table (`sys::errors`; nvJitLink has no
//! function naming its codes). It never panics.

/// What a fallible function of this crate returns.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong when loading or calling nvJitLink.
///
/// No function of this crate panics or aborts on a missing library, a missing symbol or a
/// failing nvJitLink call: each of those is one of these variants.
///
/// `Debug` prints the same text as `Display`, so that `fn main() -> Result<()>` shows a
/// readable message rather than the variant's fields.
///
/// ```no_run
/// use @CRATE@::{Error, InputKind, LinkOptions, Linker};
/// let mut linker = Linker::new(&LinkOptions::new("sm_80"))?;
/// linker.add(InputKind::Ptx, b".version 8.0\n.target sm_80\n garbage", "bad.ptx")?;
/// match linker.complete() {
///     Ok(linked) => println!("{} bytes of cubin", linked.cubin()?.len()),
///     Err(Error::Link { log, .. }) => eprintln!("the linker says:\n{log}"),
///     Err(Error::LibraryNotFound { tried }) => eprintln!("no nvJitLink ({} places tried)", tried.len()),
///     Err(other) => eprintln!("{other}"),
/// }
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No nvJitLink library could be opened. `tried` lists every candidate (a path or a name
    /// given to the system loader) with the reason it failed, in search order.
    LibraryNotFound {
        /// `(candidate, why it failed)`, in the order they were tried.
        tried: Vec<(String, String)>,
    },
    /// The library was opened but does not export `symbol` (it is usually an older nvJitLink
    /// than the function needs).
    SymbolNotFound {
        /// The C name that was looked up.
        symbol: String,
        /// The library it was looked up in (path or loader name, as opened).
        library: String,
        /// The loaded library's `nvJitLinkVersion` as `1000 * major + 10 * minor` (e.g.
        /// `13020`), when it could be read.
        version: Option<i32>,
    },
    /// The function is newer than the loaded nvJitLink: its first release (from the headers of
    /// every minor release of the major) is later than the library's `nvJitLinkVersion`. Nothing
    /// was called.
    NotInRuntime {
        /// The C function (`nvJitLinkGetLinkedLTOIR`).
        function: String,
        /// The first release that declares it.
        since: crate::version::CudaVersion,
        /// The loaded nvJitLink's version.
        loaded: crate::version::CudaVersion,
    },
    /// An argument this crate checks before calling nvJitLink was refused: a string with an
    /// interior NUL, more headers or options than a C `int` counts. Nothing was sent to nvJitLink.
    InvalidArgument(String),
    /// A call through this crate was made inside the crate-private callback scope of the
    /// loader this crate shares with the runtime's crates (nvJitLink forbids nvJitLink calls from its
    /// flow callback). Nothing was sent to nvJitLink.
    InCallback {
        /// The C function that was called (`nvJitLinkComplete`).
        function: String,
    },
    /// An nvJitLink call returned a status other than `NVJITLINK_SUCCESS`.
    NvJitLink {
        /// The raw `nvJitLinkResult` value.
        code: i32,
        /// The C name of the code (`NVJITLINK_ERROR_INVALID_INPUT`), when known.
        name: Option<&'static str>,
    },
    /// Creating a linker, adding an input or completing the link failed: nvJitLink's status
    /// and its error log, which names the input and what is wrong with it.
    Link {
        /// What failed: `nvJitLinkCreate`, `nvJitLinkAddData` of an input (with its name), or
        /// `nvJitLinkComplete`.
        step: String,
        /// The raw `nvJitLinkResult` (`NVJITLINK_ERROR_PTX_COMPILE`,
        /// `NVJITLINK_ERROR_UNRECOGNIZED_OPTION`, …).
        code: i32,
        /// The C name of the code, when known.
        name: Option<&'static str>,
        /// nvJitLink's error log (empty when it wrote none, or it could not be read).
        log: String,
    },
}

// Written out rather than derived (`thiserror`): a derive macro would put `syn` and its
// companions in front of this crate in every build from clean.
impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::LibraryNotFound { tried } => f.write_str(&render_not_found(tried)),
            Error::SymbolNotFound {
                symbol,
                library,
                version,
            } => write!(
                f,
                "symbol `{symbol}` is not exported by the nvJitLink library {library} ({}); it \
                 needs a newer nvJitLink (point {} at one) or a fallback",
                render_version(*version),
                crate::library::PATH_VAR,
            ),
            Error::NotInRuntime {
                function,
                since,
                loaded,
            } => write!(
                f,
                "{function} needs nvJitLink of CUDA {since}; the loaded nvJitLink is {loaded}"
            ),
            Error::InvalidArgument(why) => write!(f, "invalid argument: {why}"),
            Error::InCallback { function } => write!(
                f,
                "{function} was called from inside an nvJitLink callback, where nvJitLink forbids nvJitLink calls"
            ),
            Error::NvJitLink { code, name } => f.write_str(&render_code(*code, *name)),
            Error::Link {
                step,
                code,
                name,
                log,
            } => {
                write!(f, "{step} failed ({})", render_code(*code, *name))?;
                let log = log.trim_end();
                if log.is_empty() {
                    f.write_str("; nvJitLink wrote no log")
                } else {
                    write!(f, ":\n{log}")
                }
            }
        }
    }
}

impl std::error::Error for Error {}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl Error {
    /// The error for an `nvJitLinkResult` status `code`, with its name when known (from the
    /// generated table). The
    /// code is kept as is, also when neither knows it.
    pub fn from_code(code: i32) -> Error {
        Error::NvJitLink {
            code,
            name: describe(code),
        }
    }

    /// [`Error::from_code`] out of line, so that [`check`]'s success path stays a compare and
    /// a branch wherever it is inlined.
    #[cold]
    #[inline(never)]
    fn from_failed(code: i32) -> Error {
        Error::from_code(code)
    }

    /// The raw `nvJitLinkResult` of an [`Error::NvJitLink`] or an [`Error::Link`]; `None`
    /// for the others.
    pub fn nvjitlink_code(&self) -> Option<i32> {
        match self {
            Error::NvJitLink { code, .. } | Error::Link { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// nvJitLink's error log of an [`Error::Link`].
    pub fn log(&self) -> Option<&str> {
        match self {
            Error::Link { log, .. } => Some(log),
            _ => None,
        }
    }
}

/// Turns an `nvJitLinkResult` status into a `Result`: `0` (`NVJITLINK_SUCCESS`) is `Ok(())`, any
/// other value is [`Error::NvJitLink`].
#[inline]
pub fn check(code: i32) -> Result<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(Error::from_failed(code))
    }
}

impl crate::sys::nvJitLinkResult {
    /// This status as a `Result`: `Ok(())` for `NVJITLINK_SUCCESS`, any other value
    /// [`Error::NvJitLink`] (what [`check`] makes of it). For the status a raw call returns:
    /// `unsafe { sys::nvJitLinkComplete(handle) }?.result()?`.
    #[inline]
    pub fn result(self) -> Result<()> {
        check(self.as_raw() as i32)
    }
}

/// `NVJITLINK_ERROR_INVALID_INPUT`, as the typed layer reports an argument it refuses before the
/// call (lists of different lengths for one count, a length the C count type cannot hold).
#[cold]
pub(crate) fn invalid_value() -> Error {
    Error::from_code(crate::sys::nvJitLinkResult::ERROR_INVALID_INPUT.as_raw() as i32)
}

/// The one length the lists given for a C count parameter share (`None`: a list left out),
/// as the count's C type; 0 when every list is left out. Lists of different lengths, or a
/// length the type cannot hold, are [`invalid_value`].
#[inline]
pub(crate) fn shared_len<T: TryFrom<usize>>(lens: &[Option<usize>]) -> Result<T> {
    let mut n = None;
    for &len in lens.iter().flatten() {
        match n {
            Some(m) if m != len => return Err(invalid_value()),
            _ => n = Some(len),
        }
    }
    T::try_from(n.unwrap_or(0)).map_err(|_| invalid_value())
}

/// The name of an `nvJitLinkResult` code from the generated table of the codes the header
/// declares (`sys::errors`), or `None` when unknown.
pub(crate) fn describe(code: i32) -> Option<&'static str> {
    crate::sys::errors::error_info(i64::from(code)).map(|(name, _)| name)
}

impl From<cuda_loader::Error> for Error {
    /// The loader's error as this crate's, variant for variant.
    fn from(e: cuda_loader::Error) -> Error {
        match e {
            cuda_loader::Error::LibraryNotFound { tried } => Error::LibraryNotFound { tried },
            cuda_loader::Error::SymbolNotFound {
                symbol,
                library,
                version,
            } => Error::SymbolNotFound {
                symbol,
                library,
                version,
            },
            cuda_loader::Error::NotInRuntime {
                function,
                since,
                loaded,
            } => Error::NotInRuntime {
                function,
                since: crate::version::CudaVersion::from_raw(since),
                loaded: crate::version::CudaVersion::from_raw(loaded),
            },
            cuda_loader::Error::InCallback { function } => Error::InCallback { function },
        }
    }
}

/// `13020` → `nvJitLink 13.2 (13020)`.
pub(crate) fn render_version(version: Option<i32>) -> String {
    match version {
        Some(v) => format!("nvJitLink {}.{} ({v})", v / 1000, (v % 1000) / 10),
        None => "version unknown".to_string(),
    }
}

fn render_code(code: i32, name: Option<&str>) -> String {
    match name {
        Some(n) => format!("nvJitLink error {code} ({n})"),
        None => format!("nvJitLink error {code}"),
    }
}

fn render_not_found(tried: &[(String, String)]) -> String {
    let mut s = String::from("the nvJitLink library (libnvJitLink) could not be loaded");
    if tried.is_empty() {
        s.push_str("; no candidate was tried");
    } else {
        s.push_str("; tried:");
        for (what, why) in tried {
            s.push_str(&format!("\n  - {what}: {why}"));
        }
    }
    s.push_str(&format!(
        "\nSet {} to the libnvJitLink file (or the folder holding it), or install nvJitLink of \
         this crate's major release (the CUDA Toolkit, or NVIDIA's `nvidia-nvjitlink` wheel \
         from PyPI).",
        crate::library::PATH_VAR
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_maps_zero_to_ok_and_keeps_other_codes() {
        assert_eq!(check(0), Ok(()));
        let e = check(12345).unwrap_err();
        assert_eq!(e.nvjitlink_code(), Some(12345));
        assert!(e.to_string().contains("12345"), "{e}");
    }

    #[test]
    fn known_codes_are_named_from_the_header() {
        let e = Error::from_code(3);
        assert_eq!(
            e.to_string(),
            "nvJitLink error 3 (NVJITLINK_ERROR_INVALID_INPUT)"
        );
        assert_eq!(invalid_value().nvjitlink_code(), Some(3));
    }

    #[test]
    fn not_found_lists_every_candidate_and_says_what_to_do() {
        let e = Error::LibraryNotFound {
            tried: vec![("/a/libnvJitLink.so.13".into(), "no such file".into())],
        };
        let text = e.to_string();
        assert!(
            text.contains("/a/libnvJitLink.so.13: no such file"),
            "{text}"
        );
        assert!(text.contains("NVJITLINK_PATH"), "{text}");
        assert_eq!(format!("{e:?}"), text);
    }

    #[test]
    fn a_link_error_shows_its_log() {
        let e = Error::Link {
            step: "nvJitLinkComplete".into(),
            code: 4,
            name: Some("NVJITLINK_ERROR_PTX_COMPILE"),
            log: "ptxas fatal   : Unresolved extern function 'f'\n".into(),
        };
        assert_eq!(
            e.to_string(),
            "nvJitLinkComplete failed (nvJitLink error 4 (NVJITLINK_ERROR_PTX_COMPILE)):\nptxas fatal   : Unresolved extern function 'f'"
        );
        assert_eq!(e.nvjitlink_code(), Some(4));
        assert!(e.log().is_some_and(|l| l.contains("Unresolved")));
        let quiet = Error::Link {
            step: "nvJitLinkComplete".into(),
            code: 6,
            name: None,
            log: String::new(),
        };
        assert!(
            quiet.to_string().ends_with("nvJitLink wrote no log"),
            "{quiet}"
        );
    }

    #[test]
    fn a_function_newer_than_the_library_names_both_releases() {
        use crate::version::CudaVersion;
        let e = Error::NotInRuntime {
            function: "nvJitLinkGetLinkedLTOIR".into(),
            since: CudaVersion::new(13, 1),
            loaded: CudaVersion::from_raw(13000),
        };
        assert_eq!(
            e.to_string(),
            "nvJitLinkGetLinkedLTOIR needs nvJitLink of CUDA 13.1; the loaded nvJitLink is 13.0"
        );
    }

    #[test]
    fn shared_lengths_must_agree_and_fit() {
        assert_eq!(shared_len::<i32>(&[Some(2), None, Some(2)]), Ok(2));
        assert_eq!(shared_len::<i32>(&[None]), Ok(0));
        assert!(shared_len::<i32>(&[Some(1), Some(2)]).is_err());
        assert!(shared_len::<u8>(&[Some(300)]).is_err());
    }
}
