//! Whether a library file can be loaded by this process at all, and which symbols it defines,
//! read from its ELF headers and dynamic section before anything opens (`dlopen`s) it.
//! Dependency-free: the fields needed are read by offset, as the ELF specification (System V
//! ABI, chapter 4, and its GNU extensions) places them.
//!
//! A truncated file kills the process with `SIGBUS` inside the system loader, one built for
//! another architecture gets "No such file or directory" from it although the file exists,
//! and a file of the right size with one damaged program header (a segment's address) or
//! dynamic entry (a relocation entry size) crashes the loader or the program later. So the
//! ELF class, byte order and machine are compared with this process's, and every part of the
//! image the system loader and this crate rely on is checked: the loadable segments (inside
//! the file, in address order, not overlapping, offsets congruent with addresses), every other
//! segment inside the loaded image, the dynamic section (ended by `DT_NULL`; entry sizes as the
//! class states; every table it points to — strings, symbols, hash tables, relocations,
//! initialiser arrays, version definitions and needs — inside the file's loaded bytes; string
//! offsets inside the string table), every relocation's target inside the image, and every
//! defined symbol's address inside a segment (a function's inside an executable one). Section
//! headers (at the end of a file, the first thing a truncation loses) are not needed.
//!
//! What comes back is the table of symbols the library defines ([`Symbols`]): the loader
//! resolves a C function only to a function symbol of the library itself, never to data of
//! that name nor to a symbol of one of its dependencies. The loader checks a library here; the
//! generator's `coverage` command calls [`inspect`] to check a library before reading its
//! exports. Nothing here can tell whether the code of a well-formed library
//! is what it claims to be: that is why opening a library is `unsafe`.

/// Why a file cannot be loaded here.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum NotLoadable {
    NotElf(String),
    Foreign { built_for: String, host: String },
    Truncated(String),
    Damaged(String),
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
            NotLoadable::Damaged(why) => write!(
                f,
                "the file is damaged: {why}; the system loader would crash on it (copy or download it again)"
            ),
        }
    }
}

impl std::error::Error for NotLoadable {}

/// What kind of thing a defined symbol is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SymbolKind {
    /// `STT_FUNC` or `STT_GNU_IFUNC` in an executable segment: code that may be called.
    Function,
    /// `STT_OBJECT` (or `STT_COMMON`): data.
    Data,
    /// Anything else (`STT_NOTYPE`, `STT_TLS`, …).
    Other,
}

/// The symbols a library defines and exports (global or weak, default or protected
/// visibility, the default version), by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Symbols {
    /// Sorted by name; one entry per name (a function wins over other kinds).
    entries: Vec<(Box<[u8]>, SymbolKind)>,
}

impl Symbols {
    /// The kind of the symbol `name` the library defines, or `None` when it defines none.
    pub fn kind(&self, name: &[u8]) -> Option<SymbolKind> {
        self.entries
            .binary_search_by(|(n, _)| (**n).cmp(name))
            .ok()
            .map(|i| self.entries[i].1)
    }

    /// How many names the library defines.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the library defines no symbol.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Checks the library file at `path` (see [`inspect`]) and returns its symbols; the error is
/// the problem (the caller names the file).
pub fn inspect_library(path: &std::path::Path) -> Result<Symbols, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file".to_string());
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut image = FileImage {
        file,
        len: meta.len(),
    };
    inspect_image(&mut image).map_err(|why| why.to_string())
}

/// Checks the ELF image `data` (a whole library file) against this process, as
/// [`inspect`] does.
pub fn check(data: &[u8]) -> Result<(), NotLoadable> {
    inspect(data).map(|_| ())
}

/// Checks the ELF image `data` (a whole library file) against this process, and reads the
/// symbols it defines.
pub fn inspect(data: &[u8]) -> Result<Symbols, NotLoadable> {
    inspect_image(&mut SliceImage(data))
}

/// The most bytes one table may span (a CUDA runtime's largest is a few tens of KiB).
const MAX_TABLE: u64 = 64 << 20;

/// Where the bytes of an image come from: a file read by range, or bytes in memory.
trait Image {
    /// The image's length in bytes.
    fn len(&self) -> u64;
    /// The `n` bytes at offset `at` (the caller keeps them inside [`Image::len`]).
    fn read(&mut self, at: u64, n: u64) -> Result<Vec<u8>, NotLoadable>;
}

struct SliceImage<'a>(&'a [u8]);

impl Image for SliceImage<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn read(&mut self, at: u64, n: u64) -> Result<Vec<u8>, NotLoadable> {
        let range = usize::try_from(at)
            .ok()
            .and_then(|a| Some(a..a.checked_add(usize::try_from(n).ok()?)?));
        range
            .and_then(|r| self.0.get(r))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| NotLoadable::Truncated(format!("{n} bytes at {at} cannot be read")))
    }
}

struct FileImage {
    file: std::fs::File,
    len: u64,
}

impl Image for FileImage {
    fn len(&self) -> u64 {
        self.len
    }

    fn read(&mut self, at: u64, n: u64) -> Result<Vec<u8>, NotLoadable> {
        use std::io::{Read, Seek, SeekFrom};
        let unreadable = |e: std::io::Error| {
            NotLoadable::Truncated(format!("{n} bytes at {at} cannot be read ({e})"))
        };
        let size = usize::try_from(n).map_err(|_| {
            NotLoadable::Damaged(format!("a table of {n} bytes cannot be read here"))
        })?;
        self.file.seek(SeekFrom::Start(at)).map_err(unreadable)?;
        let mut buffer = vec![0; size];
        self.file.read_exact(&mut buffer).map_err(unreadable)?;
        Ok(buffer)
    }
}

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

    fn u8(self, at: u64) -> Option<u8> {
        self.bytes::<1>(at).map(|b| b[0])
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

/// `PT_LOAD`: a segment the loader maps from the file.
const PT_LOAD: u32 = 1;
/// `PT_DYNAMIC`: the dynamic section.
const PT_DYNAMIC: u32 = 2;
/// `PT_GNU_STACK`: the stack's flags (no address).
const PT_GNU_STACK: u32 = 0x6474_e551;
/// `PF_X`: an executable segment.
const PF_X: u32 = 1;
/// `PF_W`: a writable segment.
const PF_W: u32 = 2;

/// The relocation type that adds the load address (`R_*_RELATIVE`) on machines where one is
/// known: `DT_RELACOUNT` counts these at the start of the table.
fn relative_type(machine: u16) -> Option<u32> {
    Some(match machine {
        em::X86_64 | em::I386 => 8,
        em::AARCH64 => 1027,
        em::ARM => 23,
        em::PPC | em::PPC64 | em::SPARCV9 => 22,
        em::S390 => 12,
        em::RISCV | em::LOONGARCH => 3,
        _ => return None,
    })
}
/// `ET_DYN`: a shared object.
const ET_DYN: u16 = 3;

/// The dynamic tags read here (ELF specification; GNU extensions for the hash and versions).
mod dt {
    pub const NULL: u64 = 0;
    pub const NEEDED: u64 = 1;
    pub const PLTRELSZ: u64 = 2;
    pub const PLTGOT: u64 = 3;
    pub const HASH: u64 = 4;
    pub const STRTAB: u64 = 5;
    pub const SYMTAB: u64 = 6;
    pub const RELA: u64 = 7;
    pub const RELASZ: u64 = 8;
    pub const RELAENT: u64 = 9;
    pub const STRSZ: u64 = 10;
    pub const SYMENT: u64 = 11;
    pub const INIT: u64 = 12;
    pub const FINI: u64 = 13;
    pub const SONAME: u64 = 14;
    pub const RPATH: u64 = 15;
    pub const REL: u64 = 17;
    pub const RELSZ: u64 = 18;
    pub const RELENT: u64 = 19;
    pub const PLTREL: u64 = 20;
    pub const JMPREL: u64 = 23;
    pub const INIT_ARRAY: u64 = 25;
    pub const FINI_ARRAY: u64 = 26;
    pub const INIT_ARRAYSZ: u64 = 27;
    pub const FINI_ARRAYSZ: u64 = 28;
    pub const RUNPATH: u64 = 29;
    pub const PREINIT_ARRAY: u64 = 32;
    pub const PREINIT_ARRAYSZ: u64 = 33;
    pub const RELRSZ: u64 = 35;
    pub const RELR: u64 = 36;
    pub const RELRENT: u64 = 37;
    pub const GNU_HASH: u64 = 0x6fff_fef5;
    pub const VERSYM: u64 = 0x6fff_fff0;
    pub const VERDEF: u64 = 0x6fff_fffc;
    pub const VERDEFNUM: u64 = 0x6fff_fffd;
    pub const VERNEED: u64 = 0x6fff_fffe;
    pub const VERNEEDNUM: u64 = 0x6fff_ffff;
    pub const TEXTREL: u64 = 22;
    pub const FLAGS: u64 = 30;
    pub const RELACOUNT: u64 = 0x6fff_fff9;
    pub const RELCOUNT: u64 = 0x6fff_fffa;
    /// `DF_TEXTREL` in `DT_FLAGS`.
    pub const DF_TEXTREL: u64 = 4;
}

/// One program header.
#[derive(Clone, Copy, Debug)]
struct Segment {
    kind: u32,
    flags: u32,
    offset: u64,
    vaddr: u64,
    filesz: u64,
    memsz: u64,
    align: u64,
}

/// The loadable segments of an image, in address order, and the image's class.
struct Layout {
    loads: Vec<Segment>,
    wide: bool,
    little: bool,
    /// `e_machine`.
    machine: u16,
    /// One past the last byte of the file header and program header table, as an address
    /// (when the first loadable segment maps the file's start).
    headers_end: Option<u64>,
}

impl Layout {
    fn word(&self) -> u64 {
        if self.wide {
            8
        } else {
            4
        }
    }

    /// The loadable segment whose memory holds `[vaddr, vaddr + n)`.
    fn in_memory(&self, vaddr: u64, n: u64) -> Option<&Segment> {
        let end = vaddr.checked_add(n)?;
        self.loads
            .iter()
            .find(|s| vaddr >= s.vaddr && end <= s.vaddr + s.memsz)
    }

    /// Whether `[vaddr, vaddr + n)` lies in a writable loadable segment.
    fn writable(&self, vaddr: u64, n: u64) -> bool {
        self.in_memory(vaddr, n)
            .is_some_and(|s| s.flags & PF_W != 0)
    }

    /// Whether `vaddr` lies in an executable loadable segment, past the file's headers.
    fn code(&self, vaddr: u64) -> bool {
        self.in_memory(vaddr, 1)
            .is_some_and(|s| s.flags & PF_X != 0)
            && !matches!(self.headers_end, Some(end) if vaddr < end)
    }

    /// The file offset of `[vaddr, vaddr + n)`, when one loadable segment maps it all from
    /// the file.
    fn file_offset(&self, vaddr: u64, n: u64) -> Option<u64> {
        let end = vaddr.checked_add(n)?;
        self.loads
            .iter()
            .find(|s| vaddr >= s.vaddr && end <= s.vaddr + s.filesz)
            .map(|s| s.offset + (vaddr - s.vaddr))
    }

    /// The `n` bytes the image maps at `vaddr`, or why not (`what` names the table).
    fn table(
        &self,
        image: &mut dyn Image,
        vaddr: u64,
        n: u64,
        what: &str,
    ) -> Result<Vec<u8>, NotLoadable> {
        if n > MAX_TABLE {
            return Err(damaged(format!("its {what} would span {n} bytes")));
        }
        let at = self.file_offset(vaddr, n).ok_or_else(|| {
            damaged(format!(
                "its {what} ({n} bytes at address {vaddr:#x}) lies outside the loaded file"
            ))
        })?;
        image.read(at, n)
    }

    fn fields<'a>(&self, data: &'a [u8]) -> Fields<'a> {
        Fields {
            data,
            little: self.little,
        }
    }
}

fn damaged(why: String) -> NotLoadable {
    NotLoadable::Damaged(why)
}

/// Checks every part of `image` that loading it relies on and reads its symbols.
fn inspect_image(image: &mut dyn Image) -> Result<Symbols, NotLoadable> {
    let len = image.len();
    let head = image.read(0, len.min(64))?;
    let (wide, little) = ident(&head)?;
    let f = Fields {
        data: &head,
        little,
    };
    // (file header size, e_phoff, e_phentsize, e_phnum, program header size)
    let (header_size, phoff_at, phentsize_at, phnum_at, ph_size) = if wide {
        (64u64, 32, 54, 56, 56u64)
    } else {
        (52, 28, 42, 44, 32)
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
    if header(16) != ET_DYN {
        return Err(NotLoadable::NotElf(format!(
            "an ELF file of type {}, not a shared object",
            header(16)
        )));
    }
    let phoff = f.word(phoff_at, wide).unwrap_or(0);
    let phentsize = u64::from(header(phentsize_at));
    let phnum = u64::from(header(phnum_at));
    let unreadable = |why: &str| {
        NotLoadable::Truncated(format!(
            "its program headers cannot be read ({why}); the file has {} bytes",
            grouped(len)
        ))
    };
    if phnum == 0 {
        return Err(NotLoadable::NotElf("no program headers".to_string()));
    }
    if phentsize < ph_size {
        return Err(unreadable("entries are too small"));
    }
    let table_size = phnum * phentsize;
    match phoff.checked_add(table_size) {
        Some(end) if end <= len => {}
        _ => return Err(unreadable("the table lies past the end")),
    }
    let table = image.read(phoff, table_size)?;
    let ph = Fields {
        data: &table,
        little,
    };
    let segments: Vec<Segment> = (0..phnum)
        .map(|index| {
            let at = index * phentsize;
            let word = |wide_at: u64, narrow_at: u64| {
                ph.word(at + if wide { wide_at } else { narrow_at }, wide)
                    .unwrap_or(0)
            };
            Segment {
                kind: ph.u32(at).unwrap_or(0),
                flags: ph.u32(at + if wide { 4 } else { 24 }).unwrap_or(0),
                offset: word(8, 4),
                vaddr: word(16, 8),
                filesz: word(32, 16),
                memsz: word(40, 20),
                align: word(48, 28),
            }
        })
        .collect();
    let mut layout = loadable_segments(&segments, len, wide, little)?;
    layout.machine = machine;
    layout.headers_end = layout
        .loads
        .first()
        .filter(|l| l.offset == 0)
        .map(|l| l.vaddr.saturating_add(phoff.saturating_add(table_size)));
    let dynamic = dynamic_segment(&segments, &layout)?;
    let entries = image.read(dynamic.offset, dynamic.filesz)?;
    let tags = dynamic_entries(&layout, &entries)?;
    check_dynamic(image, &layout, &tags)
}

/// The class and byte order from the identification bytes.
fn ident(head: &[u8]) -> Result<(bool, bool), NotLoadable> {
    if head.len() < 16 || &head[..4] != b"\x7fELF" {
        return Err(NotLoadable::NotElf(
            "no ELF magic at the start of the file".to_string(),
        ));
    }
    let wide = match head[4] {
        1 => false,
        2 => true,
        other => return Err(NotLoadable::NotElf(format!("unknown ELF class {other}"))),
    };
    let little = match head[5] {
        1 => true,
        2 => false,
        other => {
            return Err(NotLoadable::NotElf(format!(
                "unknown ELF byte order {other}"
            )))
        }
    };
    Ok((wide, little))
}

/// The loadable segments, checked: inside the file (else truncated), then in address order,
/// not overlapping, file part no larger than memory part, offsets congruent with addresses
/// modulo a power-of-two alignment; every other segment with an address range inside one.
fn loadable_segments(
    segments: &[Segment],
    len: u64,
    wide: bool,
    little: bool,
) -> Result<Layout, NotLoadable> {
    let mut loads = Vec::new();
    for (index, s) in segments.iter().enumerate() {
        if s.kind != PT_LOAD {
            continue;
        }
        match s.offset.checked_add(s.filesz) {
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
        loads.push((index, *s));
    }
    if loads.is_empty() {
        return Err(NotLoadable::NotElf("no loadable segment".to_string()));
    }
    let mut end_of_previous: Option<u64> = None;
    for &(index, s) in &loads {
        let bad = |why: &str| damaged(format!("loadable segment {index} {why}"));
        if s.filesz > s.memsz {
            return Err(bad("holds more file bytes than memory"));
        }
        let end = s
            .vaddr
            .checked_add(s.memsz)
            .ok_or_else(|| bad("ends past the address space"))?;
        if s.align > 1 {
            if !s.align.is_power_of_two() {
                return Err(bad(&format!(
                    "has an alignment of {} (not a power of two)",
                    s.align
                )));
            }
            if s.offset % s.align != s.vaddr % s.align {
                return Err(bad(&format!(
                    "lies at address {:#x} but file offset {:#x}, which differ modulo its alignment {:#x}",
                    s.vaddr, s.offset, s.align
                )));
            }
        }
        if let Some(previous) = end_of_previous {
            if s.vaddr < previous {
                return Err(bad(&format!(
                    "starts at address {:#x}, below the end of the segment before it ({previous:#x}): loadable segments must be in address order and not overlap",
                    s.vaddr
                )));
            }
        }
        end_of_previous = Some(end);
    }
    let layout = Layout {
        loads: loads.into_iter().map(|(_, s)| s).collect(),
        wide,
        little,
        machine: 0,
        headers_end: None,
    };
    // Other segments (RELRO, TLS, notes, …) describe parts of the mapped span; RELRO may run
    // on to the next page boundary, across loadable segments.
    let span_start = layout.loads[0].vaddr;
    let span_end = end_of_previous.unwrap_or(0);
    for (index, s) in segments.iter().enumerate() {
        if s.kind == PT_LOAD || s.kind == PT_GNU_STACK || s.memsz == 0 {
            continue;
        }
        let inside = s
            .vaddr
            .checked_add(s.memsz)
            .is_some_and(|end| s.vaddr >= span_start && end <= span_end);
        if !inside {
            return Err(damaged(format!(
                "segment {index} (type {:#x}) at address {:#x} lies outside the loaded image",
                s.kind, s.vaddr
            )));
        }
    }
    Ok(layout)
}

/// The one `PT_DYNAMIC` segment, mapped from the file by a loadable segment at its own offset.
fn dynamic_segment(segments: &[Segment], layout: &Layout) -> Result<Segment, NotLoadable> {
    let mut found = segments.iter().filter(|s| s.kind == PT_DYNAMIC);
    let dynamic = *found
        .next()
        .ok_or_else(|| NotLoadable::NotElf("no dynamic section".to_string()))?;
    if found.next().is_some() {
        return Err(damaged("it has two dynamic sections".to_string()));
    }
    let entry = 2 * layout.word();
    if dynamic.filesz == 0 || dynamic.filesz % entry != 0 || dynamic.filesz > MAX_TABLE {
        return Err(damaged(format!(
            "its dynamic section has {} bytes, not a whole number of {entry}-byte entries",
            dynamic.filesz
        )));
    }
    if layout.file_offset(dynamic.vaddr, dynamic.filesz) != Some(dynamic.offset) {
        return Err(damaged(format!(
            "its dynamic section (address {:#x}, file offset {:#x}) is not where a loadable segment maps it",
            dynamic.vaddr, dynamic.offset
        )));
    }
    Ok(dynamic)
}

/// The dynamic entries up to `DT_NULL` (which must be there), as `(tag, value)`.
fn dynamic_entries(layout: &Layout, entries: &[u8]) -> Result<Vec<(u64, u64)>, NotLoadable> {
    let f = layout.fields(entries);
    let w = layout.word();
    let mut tags = Vec::new();
    let mut at = 0;
    while at + 2 * w <= entries.len() as u64 {
        let tag = f.word(at, layout.wide).unwrap_or(0);
        let value = f.word(at + w, layout.wide).unwrap_or(0);
        if tag == dt::NULL {
            return Ok(tags);
        }
        tags.push((tag, value));
        at += 2 * w;
    }
    Err(damaged(
        "its dynamic section does not end with DT_NULL".to_string(),
    ))
}

/// The value of the last entry with `tag` (the system loader keeps the last one).
fn value(tags: &[(u64, u64)], tag: u64) -> Option<u64> {
    tags.iter().rev().find(|(t, _)| *t == tag).map(|(_, v)| *v)
}

/// The dynamic string table.
struct Strings<'a>(&'a [u8]);

impl<'a> Strings<'a> {
    /// The NUL-terminated string at `offset`, or the damage (`what` names its user).
    fn at(&self, offset: u64, what: &str) -> Result<&'a [u8], NotLoadable> {
        let table = self.0;
        usize::try_from(offset)
            .ok()
            .and_then(|o| table.get(o..))
            .and_then(|rest| rest.iter().position(|&b| b == 0).map(|end| &rest[..end]))
            .ok_or_else(|| {
                damaged(format!(
                    "{what} names string {offset}, outside the {}-byte string table",
                    table.len()
                ))
            })
    }
}

/// The dynamic section's entry sizes, tables, strings, relocations and symbols, checked in
/// that order (the first damage found is the one reported).
fn check_dynamic(
    image: &mut dyn Image,
    layout: &Layout,
    tags: &[(u64, u64)],
) -> Result<Symbols, NotLoadable> {
    let sizes = entry_sizes(layout, tags)?;
    check_entry_points(layout, tags)?;
    let bytes = string_table(image, layout, tags)?;
    let strings = Strings(&bytes);
    let needed = needed_libraries(tags, &strings)?;
    let tables = address_tables(image, layout, tags, &sizes)?;
    let referenced = relocated_symbols(layout, tags, &tables)?;
    // Symbols: their number from a hash table, or as many as the relocations name (the hash
    // table covers those a lookup may find; relocations also name undefined ones before
    // them).
    let symtab = value(tags, dt::SYMTAB)
        .ok_or_else(|| NotLoadable::NotElf("no dynamic symbol table".to_string()))?;
    let hashed = hashed_symbols(image, layout, tags)?;
    let count = referenced
        .iter()
        .map(|&i| i + 1)
        .chain(std::iter::once(hashed))
        .max()
        .unwrap_or(hashed);
    let symbols = layout.table(
        image,
        symtab,
        count
            .checked_mul(sizes.sym)
            .ok_or_else(|| damaged(format!("it claims {count} symbols")))?,
        "symbol table",
    )?;
    check_symbol_names(layout, &symbols, sizes.sym, &referenced, &strings)?;
    let known_versions = check_versions(image, layout, tags, &strings, &needed)?;
    let versions = symbol_versions(image, layout, tags, count, &known_versions)?;
    read_symbols(layout, &symbols, versions.as_deref(), count, &strings)
}

/// The sizes of this class's table entries, in bytes.
struct EntrySizes {
    sym: u64,
    rela: u64,
    rel: u64,
    /// The PLT relocations' (`DT_PLTREL` says whether they are RELA or REL).
    pltrel: u64,
    /// An address's (initialiser arrays, RELR relocations).
    word: u64,
}

/// The entry sizes the dynamic section states are the class's.
fn entry_sizes(layout: &Layout, tags: &[(u64, u64)]) -> Result<EntrySizes, NotLoadable> {
    let word = layout.word();
    let (sym, rela, rel) = if layout.wide {
        (24, 24, 16)
    } else {
        (16, 12, 8)
    };
    for (tag, name, expected) in [
        (dt::RELAENT, "DT_RELAENT", rela),
        (dt::RELENT, "DT_RELENT", rel),
        (dt::SYMENT, "DT_SYMENT", sym),
        (dt::RELRENT, "DT_RELRENT", word),
    ] {
        if let Some(v) = value(tags, tag) {
            if v != expected {
                return Err(damaged(format!(
                    "its {name} is {v}, where entries of this class are {expected} bytes"
                )));
            }
        }
    }
    let pltrel = match value(tags, dt::PLTREL) {
        None | Some(dt::RELA) => rela,
        Some(dt::REL) => rel,
        Some(other) => return Err(damaged(format!("its DT_PLTREL is {other}"))),
    };
    Ok(EntrySizes {
        sym,
        rela,
        rel,
        pltrel,
        word,
    })
}

/// The initialiser and finaliser the loader calls are code, not the headers; the GOT, whose
/// first three words the loader writes, is writable.
fn check_entry_points(layout: &Layout, tags: &[(u64, u64)]) -> Result<(), NotLoadable> {
    for (tag, name) in [(dt::INIT, "DT_INIT"), (dt::FINI, "DT_FINI")] {
        if let Some(v) = value(tags, tag) {
            if !layout.code(v) {
                return Err(damaged(format!(
                    "its {name} address {v:#x} is not in an executable segment"
                )));
            }
        }
    }
    if let Some(v) = value(tags, dt::PLTGOT) {
        if !layout.writable(v, 3 * layout.word()) {
            return Err(damaged(format!(
                "its DT_PLTGOT address {v:#x} is not in a writable segment"
            )));
        }
    }
    Ok(())
}

/// The dynamic string table's bytes.
fn string_table(
    image: &mut dyn Image,
    layout: &Layout,
    tags: &[(u64, u64)],
) -> Result<Vec<u8>, NotLoadable> {
    let strtab = value(tags, dt::STRTAB)
        .ok_or_else(|| NotLoadable::NotElf("no dynamic string table".to_string()))?;
    let strsz = value(tags, dt::STRSZ).ok_or_else(|| damaged("it has no DT_STRSZ".to_string()))?;
    layout.table(image, strtab, strsz, "string table")
}

/// The names of the libraries the library needs (none empty), once every entry naming a
/// string (`DT_NEEDED`, `DT_SONAME`, `DT_RPATH`, `DT_RUNPATH`) is found to name one.
fn needed_libraries<'a>(
    tags: &[(u64, u64)],
    strings: &Strings<'a>,
) -> Result<Vec<&'a [u8]>, NotLoadable> {
    let mut needed = Vec::new();
    for (tag, name) in [
        (dt::NEEDED, "a DT_NEEDED entry"),
        (dt::SONAME, "its DT_SONAME"),
        (dt::RPATH, "its DT_RPATH"),
        (dt::RUNPATH, "its DT_RUNPATH"),
    ] {
        for &(_, v) in tags.iter().filter(|(t, _)| *t == tag) {
            let text = strings.at(v, name)?;
            if tag == dt::NEEDED {
                if text.is_empty() {
                    return Err(damaged("a DT_NEEDED entry names no library".to_string()));
                }
                needed.push(text);
            }
        }
    }
    Ok(needed)
}

/// The arrays of addresses the loader calls and the relocation tables, each inside the
/// loaded file and a whole number of entries.
struct AddressTables {
    /// The initialiser and finaliser arrays: `(address, bytes, name)`, not overlapping.
    arrays: Vec<(u64, u64, &'static str)>,
    /// The relocation tables: `(tag, entry size, bytes)`.
    relocations: Vec<(u64, u64, Vec<u8>)>,
}

/// Reads and checks the initialiser arrays and relocation tables the dynamic section names.
fn address_tables(
    image: &mut dyn Image,
    layout: &Layout,
    tags: &[(u64, u64)],
    sizes: &EntrySizes,
) -> Result<AddressTables, NotLoadable> {
    let w = sizes.word;
    let mut tables = AddressTables {
        arrays: Vec::new(),
        relocations: Vec::new(),
    };
    for (at, size, entry, name) in [
        (dt::INIT_ARRAY, dt::INIT_ARRAYSZ, w, "initialiser array"),
        (dt::FINI_ARRAY, dt::FINI_ARRAYSZ, w, "finaliser array"),
        (
            dt::PREINIT_ARRAY,
            dt::PREINIT_ARRAYSZ,
            w,
            "pre-initialiser array",
        ),
        (dt::RELA, dt::RELASZ, sizes.rela, "RELA relocations"),
        (dt::REL, dt::RELSZ, sizes.rel, "REL relocations"),
        (dt::JMPREL, dt::PLTRELSZ, sizes.pltrel, "PLT relocations"),
        (dt::RELR, dt::RELRSZ, w, "RELR relocations"),
    ] {
        let Some(address) = value(tags, at) else {
            continue;
        };
        let n = value(tags, size).ok_or_else(|| damaged(format!("its {name} have no size")))?;
        if n % entry != 0 {
            return Err(damaged(format!(
                "its {name} span {n} bytes, not a whole number of {entry}-byte entries"
            )));
        }
        let bytes = layout.table(image, address, n, name)?;
        if matches!(at, dt::INIT_ARRAY | dt::FINI_ARRAY | dt::PREINIT_ARRAY) {
            // The loader calls every entry: the arrays are distinct.
            for &(other, other_n, other_name) in &tables.arrays {
                if address < other + other_n && other < address + n {
                    return Err(damaged(format!("its {name} overlaps its {other_name}")));
                }
            }
            tables.arrays.push((address, n, name));
        } else {
            tables.relocations.push((at, entry, bytes));
        }
    }
    Ok(tables)
}

/// Checks every relocation table (targets inside writable memory unless the library declares
/// text relocations, the leading relative ones as many as `DT_RELACOUNT` / `DT_RELCOUNT`
/// says, relative ones filling the initialiser arrays pointing at code) and returns the
/// symbol indices the relocations name.
fn relocated_symbols(
    layout: &Layout,
    tags: &[(u64, u64)],
    tables: &AddressTables,
) -> Result<Vec<u64>, NotLoadable> {
    let text_relocations = value(tags, dt::TEXTREL).is_some()
        || value(tags, dt::FLAGS).is_some_and(|f| f & dt::DF_TEXTREL != 0);
    let mut referenced = Vec::new();
    for (tag, entry, bytes) in &tables.relocations {
        let relative_count = match *tag {
            dt::RELA => value(tags, dt::RELACOUNT),
            dt::REL => value(tags, dt::RELCOUNT),
            _ => None,
        };
        let found = check_relocations(
            layout,
            Relocations {
                tag: *tag,
                entry: *entry,
                bytes,
                text_relocations,
                relative_count,
                arrays: &tables.arrays,
            },
        )?;
        referenced.extend(found);
    }
    Ok(referenced)
}

/// The number of symbols the GNU or System V hash table covers (one is required).
fn hashed_symbols(
    image: &mut dyn Image,
    layout: &Layout,
    tags: &[(u64, u64)],
) -> Result<u64, NotLoadable> {
    match (value(tags, dt::GNU_HASH), value(tags, dt::HASH)) {
        (Some(gnu), _) => gnu_hash_symbols(image, layout, gnu),
        (None, Some(sysv)) => {
            let head = layout.table(image, sysv, 8, "hash table")?;
            let f = layout.fields(&head);
            let (buckets, chains) = (
                u64::from(f.u32(0).unwrap_or(0)),
                u64::from(f.u32(4).unwrap_or(0)),
            );
            layout.table(image, sysv, 8 + 4 * (buckets + chains), "hash table")?;
            Ok(chains)
        }
        (None, None) => Err(NotLoadable::NotElf("no symbol hash table".to_string())),
    }
}

/// A symbol a relocation names has a name (the loader looks it up by name).
fn check_symbol_names(
    layout: &Layout,
    symbols: &[u8],
    sym_size: u64,
    referenced: &[u64],
    strings: &Strings<'_>,
) -> Result<(), NotLoadable> {
    let f = layout.fields(symbols);
    for &index in referenced {
        let name = strings.at(u64::from(f.u32(index * sym_size).unwrap_or(0)), "a symbol")?;
        if name.is_empty() {
            return Err(damaged(format!(
                "a relocation names symbol {index}, which has no name"
            )));
        }
    }
    Ok(())
}

/// The symbol version table (`DT_VERSYM`), if any, every entry a version the library defines
/// or needs (`known`).
fn symbol_versions(
    image: &mut dyn Image,
    layout: &Layout,
    tags: &[(u64, u64)],
    count: u64,
    known: &[u16],
) -> Result<Option<Vec<u8>>, NotLoadable> {
    let Some(at) = value(tags, dt::VERSYM) else {
        return Ok(None);
    };
    let table = layout.table(image, at, count * 2, "symbol versions")?;
    let f = layout.fields(&table);
    for index in 0..count {
        let v = f.u16(2 * index).unwrap_or(0) & 0x7fff;
        if v > 1 && !known.contains(&v) {
            return Err(damaged(format!(
                "symbol {index} has version {v}, which the library neither defines nor needs"
            )));
        }
    }
    Ok(Some(table))
}

/// The number of symbols a GNU hash table at `at` covers (one past the last chain's end).
fn gnu_hash_symbols(image: &mut dyn Image, layout: &Layout, at: u64) -> Result<u64, NotLoadable> {
    let head = layout.table(image, at, 16, "GNU hash table")?;
    let f = layout.fields(&head);
    let buckets = u64::from(f.u32(0).unwrap_or(0));
    let first = u64::from(f.u32(4).unwrap_or(0));
    let bloom = u64::from(f.u32(8).unwrap_or(0));
    let start = 16 + bloom * layout.word();
    let table = layout.table(image, at, start + 4 * buckets, "GNU hash table")?;
    let f = layout.fields(&table);
    let last = (0..buckets)
        .map(|b| u64::from(f.u32(start + 4 * b).unwrap_or(0)))
        .max()
        .unwrap_or(0);
    if last == 0 {
        return Ok(first);
    }
    if last < first {
        return Err(damaged(format!(
            "its GNU hash table starts a chain at symbol {last}, below its first hashed symbol {first}"
        )));
    }
    // The chain of the highest bucket ends (low bit set) at the last symbol.
    let chains = at + start + 4 * buckets;
    let mut index = last;
    loop {
        let word = layout.table(image, chains + 4 * (index - first), 4, "GNU hash chain")?;
        if layout.fields(&word).u32(0).unwrap_or(1) & 1 == 1 {
            return Ok(index + 1);
        }
        index += 1;
        if index - first > MAX_TABLE / 4 {
            return Err(damaged("its GNU hash chain does not end".to_string()));
        }
    }
}

/// The version definitions and needs: every entry inside the file, every name a string, every
/// needed file one of the `needed` libraries. Returns the version indices they declare.
fn check_versions(
    image: &mut dyn Image,
    layout: &Layout,
    tags: &[(u64, u64)],
    strings: &Strings<'_>,
    needed: &[&[u8]],
) -> Result<Vec<u16>, NotLoadable> {
    let mut indices = Vec::new();
    for (table, number, what) in [
        (dt::VERDEF, dt::VERDEFNUM, "version definition"),
        (dt::VERNEED, dt::VERNEEDNUM, "version need"),
    ] {
        let Some(mut at) = value(tags, table) else {
            continue;
        };
        let defs = table == dt::VERDEF;
        let count =
            value(tags, number).ok_or_else(|| damaged(format!("its {what}s have no count")))?;
        // (entry size, offsets of: count, aux, next) and (aux size, offsets of: name, next).
        let (size, cnt_at, aux_at, next_at) = if defs {
            (20, 6, 12, 16)
        } else {
            (16, 2, 8, 12)
        };
        let (aux_size, name_at, aux_next_at) = if defs { (8, 0, 4) } else { (16, 8, 12) };
        let past = |k: u64| damaged(format!("{what} {k} points past the address space"));
        let mut seen = 0u64;
        for k in 0..count {
            let entry = layout.table(image, at, size, what)?;
            let f = layout.fields(&entry);
            if f.u16(0) != Some(1) {
                return Err(damaged(format!("{what} {k} has an unknown version")));
            }
            if defs {
                indices.push(f.u16(4).unwrap_or(0) & 0x7fff);
            } else {
                let file = strings.at(u64::from(f.u32(4).unwrap_or(0)), what)?;
                if !needed.contains(&file) {
                    return Err(damaged(format!(
                        "{what} {k} names {}, which is not a library it needs",
                        String::from_utf8_lossy(file)
                    )));
                }
            }
            let mut aux = at
                .checked_add(u64::from(f.u32(aux_at).unwrap_or(0)))
                .ok_or_else(|| past(k))?;
            for _ in 0..f.u16(cnt_at).unwrap_or(0) {
                seen += 1;
                if seen > 1 << 16 {
                    return Err(damaged(format!("its {what}s do not end")));
                }
                let a = layout.table(image, aux, aux_size, what)?;
                let af = layout.fields(&a);
                strings.at(u64::from(af.u32(name_at).unwrap_or(0)), what)?;
                if !defs {
                    indices.push(af.u16(6).unwrap_or(0) & 0x7fff);
                }
                aux = aux
                    .checked_add(u64::from(af.u32(aux_next_at).unwrap_or(0)))
                    .ok_or_else(|| past(k))?;
            }
            let next = u64::from(f.u32(next_at).unwrap_or(0));
            if next == 0 {
                if k + 1 < count {
                    return Err(damaged(format!(
                        "its {what}s end after {} of {count}",
                        k + 1
                    )));
                }
                break;
            }
            at = at.checked_add(next).ok_or_else(|| past(k))?;
        }
    }
    Ok(indices)
}

/// One relocation table and what its checks need.
struct Relocations<'a> {
    /// `DT_RELA`, `DT_REL`, `DT_JMPREL` or `DT_RELR`.
    tag: u64,
    entry: u64,
    bytes: &'a [u8],
    /// Whether the library declares relocations in non-writable segments.
    text_relocations: bool,
    /// `DT_RELACOUNT` / `DT_RELCOUNT` for this table.
    relative_count: Option<u64>,
    /// The initialiser and finaliser arrays: `(address, bytes, name)`.
    arrays: &'a [(u64, u64, &'a str)],
}

/// Every relocation of a table writes inside a writable segment (or any loaded one, with
/// text relocations); the first `relative_count` ones are relative; a relative one filling an
/// initialiser array points at code (where the table holds addends and the machine's relative
/// type is known). Returns the symbol indices the relocations name (the symbol table must hold
/// them).
fn check_relocations(layout: &Layout, r: Relocations<'_>) -> Result<Vec<u64>, NotLoadable> {
    let w = layout.word();
    let f = layout.fields(r.bytes);
    let target = |address: u64| {
        let fits = if r.text_relocations {
            layout.in_memory(address, w).is_some()
        } else {
            layout.writable(address, w)
        };
        if fits {
            Ok(())
        } else {
            Err(damaged(format!(
                "a relocation writes at address {address:#x}, outside every writable segment"
            )))
        }
    };
    let n = r.bytes.len() as u64 / r.entry;
    if r.tag == dt::RELR {
        // Addresses (even words) and bitmaps of the words after the last address (odd ones).
        let mut base = 0u64;
        for k in 0..n {
            let value = f.word(k * w, layout.wide).unwrap_or(0);
            if value & 1 == 0 {
                target(value)?;
                base = value.saturating_add(w);
            } else {
                let mut bits = value >> 1;
                let mut i = 0;
                while bits != 0 {
                    if bits & 1 == 1 {
                        target(base.saturating_add(i * w))?;
                    }
                    bits >>= 1;
                    i += 1;
                }
                base = base.saturating_add((8 * w - 1) * w);
            }
        }
        return Ok(Vec::new());
    }
    if let Some(count) = r.relative_count {
        if count > n {
            return Err(damaged(format!(
                "it counts {count} relative relocations in a table of {n}"
            )));
        }
    }
    let relative = relative_type(layout.machine);
    let has_addends = r.entry == 3 * w;
    let mut symbols = Vec::new();
    for k in 0..n {
        let offset = f.word(k * r.entry, layout.wide).unwrap_or(0);
        let info = f.word(k * r.entry + w, layout.wide).unwrap_or(0);
        let (symbol, kind) = if layout.wide {
            (info >> 32, (info & 0xffff_ffff) as u32)
        } else {
            (info >> 8, (info & 0xff) as u32)
        };
        target(offset)?;
        if symbol > 0 {
            symbols.push(symbol);
        }
        let Some(relative) = relative else {
            continue;
        };
        if r.relative_count.is_some_and(|count| k < count) && kind != relative {
            return Err(damaged(format!(
                "relocation {k} of the {} it counts as relative has type {kind}",
                r.relative_count.unwrap_or(0)
            )));
        }
        if kind == relative && has_addends {
            let addend = f.word(k * r.entry + 2 * w, layout.wide).unwrap_or(0);
            for &(at, size, name) in r.arrays {
                if offset >= at && offset < at + size && !layout.code(addend) {
                    return Err(damaged(format!(
                        "its {name} holds address {addend:#x}, which is not code"
                    )));
                }
            }
        }
    }
    symbols.sort_unstable();
    symbols.dedup();
    Ok(symbols)
}

/// The defined, exported symbols, each checked: name inside the string table, address inside
/// a segment (a function's inside an executable one).
fn read_symbols<'a>(
    layout: &Layout,
    symbols: &[u8],
    versions: Option<&[u8]>,
    count: u64,
    strings: &Strings<'a>,
) -> Result<Symbols, NotLoadable> {
    const STT_OBJECT: u8 = 1;
    const STT_FUNC: u8 = 2;
    const STT_COMMON: u8 = 5;
    const STT_TLS: u8 = 6;
    const STT_GNU_IFUNC: u8 = 10;
    const SHN_UNDEF: u16 = 0;
    const SHN_ABS: u16 = 0xfff1;
    let f = layout.fields(symbols);
    let (size, info_at, other_at, shndx_at, value_at) = if layout.wide {
        (24, 4, 5, 6, 8)
    } else {
        (16, 12, 13, 14, 4)
    };
    let mut entries: Vec<(Box<[u8]>, SymbolKind)> = Vec::new();
    for index in 1..count {
        let at = index * size;
        let name = strings.at(u64::from(f.u32(at).unwrap_or(0)), "a symbol")?;
        let info = f.u8(at + info_at).unwrap_or(0);
        let visibility = f.u8(at + other_at).unwrap_or(0) & 3;
        let section = f.u16(at + shndx_at).unwrap_or(0);
        let address = f.word(at + value_at, layout.wide).unwrap_or(0);
        let (binding, kind) = (info >> 4, info & 0xf);
        let hidden_version = versions
            .map(|v| layout.fields(v).u16(2 * index).unwrap_or(0) & 0x8000 != 0)
            .unwrap_or(false);
        let exported = matches!(binding, 1 | 2 | 10) // global, weak, GNU unique
            && matches!(visibility, 0 | 3) // default, protected
            && section != SHN_UNDEF
            && !hidden_version
            && !name.is_empty();
        if !exported {
            continue;
        }
        let symbol_kind = match kind {
            STT_FUNC | STT_GNU_IFUNC => SymbolKind::Function,
            STT_OBJECT | STT_COMMON => SymbolKind::Data,
            _ => SymbolKind::Other,
        };
        if section != SHN_ABS && kind != STT_TLS && symbol_kind != SymbolKind::Other {
            let segment = layout.in_memory(address, 1).ok_or_else(|| {
                damaged(format!(
                    "symbol `{}` lies at address {address:#x}, outside every loadable segment",
                    String::from_utf8_lossy(name)
                ))
            })?;
            if symbol_kind == SymbolKind::Function && segment.flags & PF_X == 0 {
                return Err(damaged(format!(
                    "function `{}` lies in a segment that is not executable",
                    String::from_utf8_lossy(name)
                )));
            }
        }
        entries.push((name.into(), symbol_kind));
    }
    entries.sort();
    // One entry per name; `Function` sorts first and wins.
    entries.dedup_by(|a, b| a.0 == b.0);
    Ok(Symbols { entries })
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
