// Copied by `cargo xtask codegen` from the generator's codegen/template/src/elf.rs:
// edit the template, not this copy.

//! Whether a library file can be loaded by this process at all, read from its ELF headers
//! with the `object` crate before anything opens (`dlopen`s) it.
//!
//! A truncated file kills the process with `SIGBUS` inside the system loader, and one built
//! for another architecture gets "No such file or directory" from it although the file
//! exists. So the ELF class, byte order and machine are compared with this process's, and
//! every loadable segment must lie inside the file. Only the file header and the program
//! headers are read; section headers (at the end of a file, the first thing a truncation
//! loses) are not needed. The crate's loader checks a library given by path here; the
//! generator's `coverage` command compiles this same file to check a library before reading
//! its exports.

use object::elf;
use object::read::elf::{FileHeader, ProgramHeader};
use object::{Endian, Endianness, FileKind};

/// Why a file cannot be loaded here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[allow(missing_docs)]
pub enum NotLoadable {
    #[error("not an ELF shared library ({0})")]
    NotElf(String),
    #[error("built for {built_for}, this process is {host}")]
    Foreign { built_for: String, host: String },
    #[error("the file is truncated: {0}; copy or download it again")]
    Truncated(String),
}

/// How much of a file [`check_library`] reads: the headers of any real library lie well
/// inside it (a larger file is judged on this much and its length).
const HEAD: u64 = 1 << 20;

/// Checks the library file at `path` (see [`check`]), reading at most its first [`HEAD`]
/// bytes. The error names the problem, in words for the user (the caller names the file).
#[allow(dead_code)] // the generator's `coverage` reads the bytes itself and calls `check`
pub(crate) fn check_library(path: &std::path::Path) -> Result<(), String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read it: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file".to_string());
    }
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(HEAD).read_to_end(&mut head))
        .map_err(|e| format!("cannot read it: {e}"))?;
    check_head(&head, meta.len()).map_err(|why| why.to_string())
}

/// Checks the ELF headers of `data` (a whole library file) against this process.
#[allow(dead_code)] // the crate's loader reads a file's head through `check_library`
pub fn check(data: &[u8]) -> Result<(), NotLoadable> {
    check_head(data, data.len() as u64)
}

/// [`check`] on the first bytes of a file of `len` bytes.
fn check_head(data: &[u8], len: u64) -> Result<(), NotLoadable> {
    match FileKind::parse(data) {
        Ok(FileKind::Elf64) => check_elf::<elf::FileHeader64<Endianness>>(data, len),
        Ok(FileKind::Elf32) => check_elf::<elf::FileHeader32<Endianness>>(data, len),
        Ok(other) => Err(NotLoadable::NotElf(format!("a {other:?} file"))),
        Err(e) => Err(NotLoadable::NotElf(e.to_string())),
    }
}

fn check_elf<H: FileHeader<Endian = Endianness>>(data: &[u8], len: u64) -> Result<(), NotLoadable> {
    let header = H::parse(data).map_err(|e| {
        NotLoadable::Truncated(format!(
            "its ELF header cannot be read ({e}); the file has {} bytes",
            grouped(len)
        ))
    })?;
    let endian = header
        .endian()
        .map_err(|e| NotLoadable::NotElf(e.to_string()))?;
    let wide = header.is_class_64();
    if wide != cfg!(target_pointer_width = "64") {
        return Err(NotLoadable::Foreign {
            built_for: format!("{}-bit processes", if wide { 64 } else { 32 }),
            host: format!("{}-bit", if wide { 32 } else { 64 }),
        });
    }
    if endian.is_little_endian() != cfg!(target_endian = "little") {
        let name = |little: bool| {
            if little {
                "little-endian"
            } else {
                "big-endian"
            }
        };
        return Err(NotLoadable::Foreign {
            built_for: format!("{} processes", name(endian.is_little_endian())),
            host: name(cfg!(target_endian = "little")).to_string(),
        });
    }
    let machine = header.e_machine(endian);
    if let Some(host) = host_machine() {
        if machine != host {
            return Err(NotLoadable::Foreign {
                built_for: machine_name(machine),
                host: machine_name(host),
            });
        }
    }
    let phdrs = header.program_headers(endian, data).map_err(|e| {
        if (data.len() as u64) < len {
            NotLoadable::NotElf(format!(
                "its program headers do not lie in its first {} bytes ({e})",
                grouped(data.len() as u64)
            ))
        } else {
            NotLoadable::Truncated(format!(
                "its program headers cannot be read ({e}); the file has {} bytes",
                grouped(len)
            ))
        }
    })?;
    for (index, ph) in phdrs.iter().enumerate() {
        if ph.p_type(endian) != elf::PT_LOAD {
            continue;
        }
        let offset: u64 = ph.p_offset(endian).into();
        let size: u64 = ph.p_filesz(endian).into();
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

/// `e_machine` of the architecture this process runs on, where known.
fn host_machine() -> Option<u16> {
    Some(match std::env::consts::ARCH {
        "x86" => elf::EM_386,
        "x86_64" => elf::EM_X86_64,
        "arm" => elf::EM_ARM,
        "aarch64" => elf::EM_AARCH64,
        "powerpc" => elf::EM_PPC,
        "powerpc64" => elf::EM_PPC64,
        "s390x" => elf::EM_S390,
        "mips" | "mips64" => elf::EM_MIPS,
        "sparc64" => elf::EM_SPARCV9,
        "riscv32" | "riscv64" => elf::EM_RISCV,
        "loongarch64" => elf::EM_LOONGARCH,
        _ => return None,
    })
}

fn machine_name(machine: u16) -> String {
    match machine {
        elf::EM_386 => "x86 (32-bit)".into(),
        elf::EM_X86_64 => "x86-64".into(),
        elf::EM_ARM => "ARM (32-bit)".into(),
        elf::EM_AARCH64 => "AArch64".into(),
        elf::EM_PPC => "PowerPC".into(),
        elf::EM_PPC64 => "PowerPC64".into(),
        elf::EM_S390 => "s390x".into(),
        elf::EM_MIPS => "MIPS".into(),
        elf::EM_SPARCV9 => "SPARC64".into(),
        elf::EM_RISCV => "RISC-V".into(),
        elf::EM_LOONGARCH => "LoongArch".into(),
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
