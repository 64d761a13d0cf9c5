//! A small, careful look at a library file before it is given to the system loader.
//!
//! `dlopen` maps the file's loadable segments and touches them: a truncated file (a copy cut
//! short, a download that stopped) makes the process die of `SIGBUS` inside the loader, and a
//! library built for another architecture is answered with "No such file or directory"
//! although the file exists. So before opening a file by path, [`check_library`] reads the ELF
//! header and the program headers only, with every offset bounds-checked, and names what is
//! wrong: not an ELF file, the wrong class (32/64-bit), byte order or machine for this
//! process, not a shared object, or a loadable segment that ends past the end of the file.
//!
//! It reads at most the 64-byte header and the program header table; it never maps or runs
//! anything, and it does not judge whether the library is a CUDA runtime. Linux only (the
//! module is compiled on Linux); a name given to the system loader is not checked, since which
//! file the loader picks is the loader's business.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// ELF identification: `\x7fELF`.
const MAGIC: &[u8; 4] = b"\x7fELF";
/// `e_type` of a shared object (also position-independent executables).
const ET_DYN: u16 = 3;
/// `p_type` of a loadable segment.
const PT_LOAD: u32 = 1;
/// `e_phnum` value meaning "the real count is in section header 0's `sh_info`".
const PN_XNUM: u16 = 0xffff;

/// Checks that the file at `path` is an ELF shared object this process can load, reading only
/// its headers. The error says what is wrong, in words meant for the user.
pub(crate) fn check_library(path: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read it: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file".to_string());
    }
    let mut file = File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    check_headers(&mut file, meta.len())
}

/// The checks of [`check_library`] on an open file of `len` bytes.
fn check_headers<R: Read + Seek>(file: &mut R, len: u64) -> Result<(), String> {
    let mut ident = [0u8; 16];
    if len < ident.len() as u64 {
        return Err(format!(
            "not an ELF shared library: the file has only {} bytes",
            len
        ));
    }
    read_at(file, 0, &mut ident)?;
    if &ident[..4] != MAGIC {
        return Err(
            "not an ELF shared library (the file does not start with the ELF magic bytes)"
                .to_string(),
        );
    }
    let wide = match ident[4] {
        1 => false,
        2 => true,
        other => return Err(format!("not a valid ELF file: unknown class {other}")),
    };
    let little = match ident[5] {
        1 => true,
        2 => false,
        other => return Err(format!("not a valid ELF file: unknown byte order {other}")),
    };
    let here_wide = cfg!(target_pointer_width = "64");
    if wide != here_wide {
        return Err(format!(
            "built for {}-bit processes, this process is {}-bit",
            if wide { 64 } else { 32 },
            if here_wide { 64 } else { 32 }
        ));
    }
    let here_little = cfg!(target_endian = "little");
    if little != here_little {
        return Err(format!(
            "built for {} processes, this process is {}",
            endian_name(little),
            endian_name(here_little)
        ));
    }
    let header_len: u64 = if wide { 64 } else { 52 };
    if len < header_len {
        return Err(truncated(format!(
            "the ELF header needs {} bytes but the file has {}",
            group(header_len),
            group(len)
        )));
    }
    let mut raw = [0u8; 64];
    let header = &mut raw[..header_len as usize];
    read_at(file, 0, header)?;
    let h = Fields {
        bytes: header,
        little,
    };
    let e_type = h.u16(16);
    let machine = h.u16(18);
    if let Some(here) = host_machine() {
        if machine != here {
            return Err(format!(
                "built for {}, this process is {}",
                machine_name(machine),
                machine_name(here)
            ));
        }
    }
    if e_type != ET_DYN {
        return Err(format!(
            "not a shared library (ELF type {})",
            type_name(e_type)
        ));
    }
    let (phoff, phentsize, phnum) = if wide {
        (h.u64(32), h.u16(54), h.u16(56))
    } else {
        (u64::from(h.u32(28)), h.u16(42), h.u16(44))
    };
    let phnum = if phnum == PN_XNUM {
        extended_phnum(file, len, &h, wide)?
    } else {
        u64::from(phnum)
    };
    let min_entry: u16 = if wide { 56 } else { 32 };
    if phnum == 0 {
        return Err("not a loadable library: it has no program headers".to_string());
    }
    if phentsize < min_entry {
        return Err(format!(
            "not a valid ELF file: program header entries of {phentsize} bytes (at least {min_entry} expected)"
        ));
    }
    let table_len = phnum * u64::from(phentsize);
    let table_end = phoff.saturating_add(table_len);
    if table_end > len {
        return Err(truncated(format!(
            "the program headers end at byte {} but the file has {} bytes",
            group(table_end),
            group(len)
        )));
    }
    // Bounded by the file's size (checked above).
    let mut table = vec![
        0u8;
        usize::try_from(table_len)
            .map_err(|_| "program header table too large".to_string())?
    ];
    read_at(file, phoff, &mut table)?;
    let mut loads = 0;
    for (index, entry) in table.chunks_exact(usize::from(phentsize)).enumerate() {
        let p = Fields {
            bytes: entry,
            little,
        };
        if p.u32(0) != PT_LOAD {
            continue;
        }
        loads += 1;
        let (offset, size) = if wide {
            (p.u64(8), p.u64(32))
        } else {
            (u64::from(p.u32(4)), u64::from(p.u32(16)))
        };
        let Some(end) = offset.checked_add(size) else {
            return Err(format!(
                "not a valid ELF file: segment {index} has an impossible size"
            ));
        };
        if end > len {
            return Err(truncated(format!(
                "segment {index} ends at byte {} but the file has {} bytes",
                group(end),
                group(len)
            )));
        }
    }
    if loads == 0 {
        return Err("not a loadable library: it has no loadable segment".to_string());
    }
    Ok(())
}

/// The program header count of a file with more than 65,534 of them: `sh_info` of section
/// header 0.
fn extended_phnum<R: Read + Seek>(
    file: &mut R,
    len: u64,
    h: &Fields<'_>,
    wide: bool,
) -> Result<u64, String> {
    let (shoff, entry, info_at) = if wide {
        (h.u64(40), 64u64, 44u64)
    } else {
        (u64::from(h.u32(32)), 40u64, 28u64)
    };
    if shoff.checked_add(entry).is_none_or(|end| end > len) {
        return Err(truncated(format!(
            "the first section header (which holds the program header count) lies past the end of the file ({} bytes)",
            group(len)
        )));
    }
    let mut info = [0u8; 4];
    read_at(file, shoff + info_at, &mut info)?;
    Ok(u64::from(
        Fields {
            bytes: &info,
            little: h.little,
        }
        .u32(0),
    ))
}

fn truncated(what: String) -> String {
    format!("the file is truncated: {what}; copy or download it again")
}

fn read_at<R: Read + Seek>(file: &mut R, at: u64, buf: &mut [u8]) -> Result<(), String> {
    file.seek(SeekFrom::Start(at))
        .and_then(|_| file.read_exact(buf))
        .map_err(|e| format!("cannot read its headers: {e}"))
}

/// Little- or big-endian integers at offsets of a byte slice whose length was checked.
struct Fields<'a> {
    bytes: &'a [u8],
    little: bool,
}

impl Fields<'_> {
    fn take<const N: usize>(&self, at: usize) -> [u8; N] {
        let mut out = [0u8; N];
        if let Some(src) = self.bytes.get(at..at + N) {
            out.copy_from_slice(src);
        }
        out
    }

    fn u16(&self, at: usize) -> u16 {
        let b = self.take::<2>(at);
        if self.little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        }
    }

    fn u32(&self, at: usize) -> u32 {
        let b = self.take::<4>(at);
        if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    }

    fn u64(&self, at: usize) -> u64 {
        let b = self.take::<8>(at);
        if self.little {
            u64::from_le_bytes(b)
        } else {
            u64::from_be_bytes(b)
        }
    }
}

/// `e_machine` of the architecture this process runs on, where known.
fn host_machine() -> Option<u16> {
    Some(match std::env::consts::ARCH {
        "x86" => 3,
        "x86_64" => 62,
        "arm" => 40,
        "aarch64" => 183,
        "powerpc" => 20,
        "powerpc64" => 21,
        "s390x" => 22,
        "mips" | "mips64" => 8,
        "sparc64" => 43,
        "riscv32" | "riscv64" => 243,
        "loongarch64" => 258,
        _ => return None,
    })
}

fn machine_name(machine: u16) -> String {
    match machine {
        3 => "x86 (32-bit)".into(),
        8 => "MIPS".into(),
        20 => "PowerPC".into(),
        21 => "PowerPC64".into(),
        22 => "s390x".into(),
        40 => "ARM (32-bit)".into(),
        43 => "SPARC64".into(),
        62 => "x86-64".into(),
        183 => "AArch64".into(),
        243 => "RISC-V".into(),
        258 => "LoongArch".into(),
        other => format!("ELF machine {other}"),
    }
}

fn type_name(e_type: u16) -> String {
    match e_type {
        1 => "REL: an object file".into(),
        2 => "EXEC: a program".into(),
        4 => "CORE: a core dump".into(),
        other => other.to_string(),
    }
}

fn endian_name(little: bool) -> &'static str {
    if little {
        "little-endian"
    } else {
        "big-endian"
    }
}

/// `1234567` → `1,234,567`.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// A minimal 64-bit little-endian shared object header for this host with one `PT_LOAD`
    /// segment of `filesz` bytes at offset 0.
    fn image(machine: u16, filesz: u64) -> Vec<u8> {
        let mut b = vec![0u8; 64 + 56];
        b[..4].copy_from_slice(MAGIC);
        b[4] = 2;
        b[5] = 1;
        b[6] = 1;
        b[16..18].copy_from_slice(&ET_DYN.to_le_bytes());
        b[18..20].copy_from_slice(&machine.to_le_bytes());
        b[32..40].copy_from_slice(&64u64.to_le_bytes());
        b[54..56].copy_from_slice(&56u16.to_le_bytes());
        b[56..58].copy_from_slice(&1u16.to_le_bytes());
        b[64..68].copy_from_slice(&PT_LOAD.to_le_bytes());
        b[64 + 32..64 + 40].copy_from_slice(&filesz.to_le_bytes());
        b
    }

    fn check(bytes: &[u8]) -> Result<(), String> {
        check_headers(&mut Cursor::new(bytes), bytes.len() as u64)
    }

    #[test]
    fn groups_digits() {
        assert_eq!(group(0), "0");
        assert_eq!(group(4096), "4,096");
        assert_eq!(group(1_234_567), "1,234,567");
    }

    #[cfg(all(target_arch = "x86_64", target_endian = "little"))]
    #[test]
    fn names_each_problem() {
        assert_eq!(check(&image(62, 120)), Ok(()));
        let err = check(&image(183, 120)).unwrap_err();
        assert_eq!(err, "built for AArch64, this process is x86-64");
        let err = check(&image(62, 1_234_567)).unwrap_err();
        assert!(
            err.contains("segment 0 ends at byte 1,234,567 but the file has 120 bytes"),
            "{err}"
        );
        let err = check(&image(62, 120)[..100]).unwrap_err();
        assert!(err.contains("program headers end at byte 120"), "{err}");
        assert!(check(b"GNU ld script").unwrap_err().contains("not an ELF"));
        assert!(check(b"short").unwrap_err().contains("only 5 bytes"));
        let mut exec = image(62, 120);
        exec[16] = 2;
        assert!(check(&exec).unwrap_err().contains("not a shared library"));
        let mut narrow = image(62, 120);
        narrow[4] = 1;
        assert_eq!(
            check(&narrow).unwrap_err(),
            "built for 32-bit processes, this process is 64-bit"
        );
        let mut overflow = image(62, 120);
        overflow[64 + 8..64 + 16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(check(&overflow).unwrap_err().contains("impossible size"));
    }

    #[test]
    fn every_prefix_of_a_header_is_an_error_not_a_panic() {
        let full = image(host_machine().unwrap_or(62), 120);
        for cut in 0..full.len() {
            assert!(check(&full[..cut]).is_err(), "cut at {cut}");
        }
    }
}
