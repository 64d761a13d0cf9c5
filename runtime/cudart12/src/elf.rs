// Copied by `cargo xtask codegen` from the generator's codegen/template/src/elf.rs:
// edit the template, not this copy.

//! Whether a library file can be loaded by this process at all, read from its ELF headers
//! before anything opens (`dlopen`s) it. Dependency-free: the few fields needed are read by
//! offset, as the ELF specification (System V ABI, chapter 4) places them.
//!
//! A truncated file kills the process with `SIGBUS` inside the system loader, and one built
//! for another architecture gets "No such file or directory" from it although the file
//! exists. So the ELF class, byte order and machine are compared with this process's, and
//! every loadable segment must lie inside the file. Only the file header and the program
//! headers are read; section headers (at the end of a file, the first thing a truncation
//! loses) are not needed. The crate's loader checks a library given by path here; the
//! generator's `coverage` command compiles this same file to check a library before reading
//! its exports.

/// Why a file cannot be loaded here.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum NotLoadable {
    NotElf(String),
    Foreign { built_for: String, host: String },
    Truncated(String),
}

impl std::fmt::Display for NotLoadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotLoadable::NotElf(why) => write!(f, "not an ELF shared library ({why})"),
            NotLoadable::Foreign { built_for, host } => {
                write!(f, "built for {built_for}, this process is {host}")
            }
            NotLoadable::Truncated(why) => {
                write!(f, "the file is truncated: {why}; copy or download it again")
            }
        }
    }
}

impl std::error::Error for NotLoadable {}

/// Checks the library file at `path` (see [`check`]); the error is the problem (the caller
/// names the file).
#[allow(dead_code)] // the generator's `coverage` reads the bytes itself and calls `check`
pub(crate) fn check_library(path: &std::path::Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file".to_string());
    }
    // The headers of any real library lie in its first MiB; the file's length is what the
    // segments are compared with, so a large file is not read whole.
    let mut head = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(
            std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?,
            1 << 20,
        ),
        &mut head,
    )
    .map_err(|e| format!("cannot read: {e}"))?;
    check_head(&head, meta.len()).map_err(|why| why.to_string())
}

/// `PT_LOAD`: a segment the loader maps from the file.
const PT_LOAD: u32 = 1;

/// Reads unsigned fields of one byte order at byte offsets, `None` past the end.
#[derive(Clone, Copy)]
struct Fields<'a> {
    data: &'a [u8],
    little: bool,
}

impl Fields<'_> {
    fn bytes<const N: usize>(self, at: u64) -> Option<[u8; N]> {
        let at = usize::try_from(at).ok()?;
        self.data.get(at..at.checked_add(N)?)?.try_into().ok()
    }

    fn u16(self, at: u64) -> Option<u16> {
        let b = self.bytes::<2>(at)?;
        Some(if self.little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        })
    }

    fn u32(self, at: u64) -> Option<u32> {
        let b = self.bytes::<4>(at)?;
        Some(if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    fn u64(self, at: u64) -> Option<u64> {
        let b = self.bytes::<8>(at)?;
        Some(if self.little {
            u64::from_le_bytes(b)
        } else {
            u64::from_be_bytes(b)
        })
    }

    /// A word of the file's class: 8 bytes for ELF64, 4 for ELF32.
    fn word(self, at: u64, wide: bool) -> Option<u64> {
        if wide {
            self.u64(at)
        } else {
            self.u32(at).map(u64::from)
        }
    }
}

/// Checks the ELF headers of `data` (a whole library file) against this process.
#[allow(dead_code)] // the crate's loader reads a file's head through `check_library`
pub fn check(data: &[u8]) -> Result<(), NotLoadable> {
    check_head(data, data.len() as u64)
}

/// [`check`] on the first bytes of a file of `len` bytes (its program header table must lie
/// in them).
fn check_head(data: &[u8], len: u64) -> Result<(), NotLoadable> {
    if data.len() < 16 || &data[..4] != b"\x7fELF" {
        return Err(NotLoadable::NotElf(
            "no ELF magic at the start of the file".to_string(),
        ));
    }
    let wide = match data[4] {
        1 => false,
        2 => true,
        other => return Err(NotLoadable::NotElf(format!("unknown ELF class {other}"))),
    };
    let little = match data[5] {
        1 => true,
        2 => false,
        other => {
            return Err(NotLoadable::NotElf(format!(
                "unknown ELF byte order {other}"
            )))
        }
    };
    let f = Fields { data, little };
    // (file header size, e_phoff, e_phentsize, e_phnum, program header size, p_offset, p_filesz)
    let (header_size, phoff_at, phentsize_at, phnum_at, ph_size, offset_at, filesz_at) = if wide {
        (64u64, 32, 54, 56, 56u64, 8, 32)
    } else {
        (52, 28, 42, 44, 32, 4, 16)
    };
    if len < header_size {
        return Err(NotLoadable::Truncated(format!(
            "its ELF header cannot be read ({header_size} bytes needed); the file has {} bytes",
            grouped(len)
        )));
    }
    if wide != cfg!(target_pointer_width = "64") {
        return Err(NotLoadable::Foreign {
            built_for: format!("{}-bit processes", if wide { 64 } else { 32 }),
            host: format!("{}-bit", if wide { 32 } else { 64 }),
        });
    }
    if little != cfg!(target_endian = "little") {
        let name = |little: bool| {
            if little {
                "little-endian"
            } else {
                "big-endian"
            }
        };
        return Err(NotLoadable::Foreign {
            built_for: format!("{} processes", name(little)),
            host: name(cfg!(target_endian = "little")).to_string(),
        });
    }
    let header = |at: u64| f.u16(at).unwrap_or(0);
    let machine = header(18);
    if let Some(host) = host_machine() {
        if machine != host {
            return Err(NotLoadable::Foreign {
                built_for: machine_name(machine),
                host: machine_name(host),
            });
        }
    }
    let phoff = f.word(phoff_at, wide).unwrap_or(0);
    let phentsize = u64::from(header(phentsize_at));
    let phnum = u64::from(header(phnum_at));
    if phnum == 0 {
        return Ok(());
    }
    let table_end = phnum
        .checked_mul(phentsize)
        .and_then(|n| n.checked_add(phoff));
    let unreadable = |why: &str| {
        NotLoadable::Truncated(format!(
            "its program headers cannot be read ({why}); the file has {} bytes",
            grouped(len)
        ))
    };
    if phentsize < ph_size {
        return Err(unreadable("entries are too small"));
    }
    match table_end {
        Some(end) if end <= data.len() as u64 => {}
        Some(end) if end <= len => {
            return Err(NotLoadable::NotElf(format!(
                "its program headers end at byte {}, past the first {} bytes read",
                grouped(end),
                grouped(data.len() as u64)
            )))
        }
        _ => return Err(unreadable("the table lies past the end")),
    }
    for index in 0..phnum {
        let at = phoff + index * phentsize;
        let field = |offset: u64| f.word(at + offset, wide).unwrap_or(0);
        if f.u32(at).unwrap_or(0) != PT_LOAD {
            continue;
        }
        let (offset, size) = (field(offset_at), field(filesz_at));
        match offset.checked_add(size) {
            Some(end) if end <= len => {}
            Some(end) => {
                return Err(NotLoadable::Truncated(format!(
                    "segment {index} ends at byte {} but the file has {} bytes",
                    grouped(end),
                    grouped(len)
                )))
            }
            None => {
                return Err(NotLoadable::NotElf(format!(
                    "segment {index} has an impossible size"
                )))
            }
        }
    }
    Ok(())
}

/// The `e_machine` values named here (ELF specification and its processor supplements).
mod em {
    pub const I386: u16 = 3;
    pub const MIPS: u16 = 8;
    pub const PPC: u16 = 20;
    pub const PPC64: u16 = 21;
    pub const S390: u16 = 22;
    pub const ARM: u16 = 40;
    pub const SPARCV9: u16 = 43;
    pub const X86_64: u16 = 62;
    pub const AARCH64: u16 = 183;
    pub const RISCV: u16 = 243;
    pub const LOONGARCH: u16 = 258;
}

/// `e_machine` of the architecture this process runs on, where known.
fn host_machine() -> Option<u16> {
    Some(match std::env::consts::ARCH {
        "x86" => em::I386,
        "x86_64" => em::X86_64,
        "arm" => em::ARM,
        "aarch64" => em::AARCH64,
        "powerpc" => em::PPC,
        "powerpc64" => em::PPC64,
        "s390x" => em::S390,
        "mips" | "mips64" => em::MIPS,
        "sparc64" => em::SPARCV9,
        "riscv32" | "riscv64" => em::RISCV,
        "loongarch64" => em::LOONGARCH,
        _ => return None,
    })
}

fn machine_name(machine: u16) -> String {
    match machine {
        em::I386 => "x86 (32-bit)".into(),
        em::X86_64 => "x86-64".into(),
        em::ARM => "ARM (32-bit)".into(),
        em::AARCH64 => "AArch64".into(),
        em::PPC => "PowerPC".into(),
        em::PPC64 => "PowerPC64".into(),
        em::S390 => "s390x".into(),
        em::MIPS => "MIPS".into(),
        em::SPARCV9 => "SPARC64".into(),
        em::RISCV => "RISC-V".into(),
        em::LOONGARCH => "LoongArch".into(),
        other => format!("ELF machine {other}"),
    }
}

/// `1234567` → `1,234,567`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        #[allow(clippy::manual_is_multiple_of)] // the crate's minimum Rust predates it
        let boundary = (digits.len() - i) % 3 == 0;
        if i > 0 && boundary {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(grouped(4096), "4,096");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(12), "12");
    }

    #[test]
    fn short_or_foreign_bytes_are_named() {
        assert!(matches!(check(b"hello"), Err(NotLoadable::NotElf(_))));
        let mut header = [0u8; 64];
        header[..4].copy_from_slice(b"\x7fELF");
        header[4] = 2;
        header[5] = 1;
        for cut in 0..header.len() {
            assert!(check(&header[..cut]).is_err(), "cut at {cut}");
        }
    }
}
