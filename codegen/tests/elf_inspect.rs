//! The ELF check the generated crates' loader and `coverage` share
//! (`runtime/cuda-loader/src/elf.rs`, here as `codegen::coverage::loadable`): every shared library
//! this process maps passes it and its functions are functions; the red team's same-size
//! damages are refused by name; truncations and random damage never panic and take time
//! linear in the file.

use codegen::coverage::loadable::{check, inspect, NotLoadable, SymbolKind};

use crate::mapped_library::mapped_shared_libraries;

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[test]
fn libraries_this_process_maps_pass_and_their_functions_are_functions() {
    let libs = mapped_shared_libraries();
    assert!(!libs.is_empty(), "no shared library is mapped");
    let mut malloc = false;
    for lib in &libs {
        let data = std::fs::read(lib).expect("a mapped library reads");
        let symbols = inspect(&data).unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
        if symbols.kind(b"malloc") == Some(SymbolKind::Function) {
            malloc = true;
        }
    }
    assert!(malloc, "no mapped library defines malloc: {libs:?}");
    if let Some(wheel) = std::env::var_os("CUDART_WHEEL_LIB").filter(|v| !v.is_empty()) {
        let data = std::fs::read(&wheel).expect("the wheel's library reads");
        let symbols = inspect(&data).expect("the wheel's library passes");
        assert_eq!(symbols.kind(b"cudaMalloc"), Some(SymbolKind::Function));
        assert_eq!(
            symbols.kind(b"cudaRuntimeGetVersion"),
            Some(SymbolKind::Function)
        );
        // Imports are not definitions.
        assert_eq!(symbols.kind(b"malloc"), None);
        assert!(symbols.len() > 300, "{} symbols", symbols.len());
    }
}

/// A small mapped library, for mutation.
fn small_library() -> Vec<u8> {
    mapped_shared_libraries()
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|d| inspect(d).is_ok())
        .min_by_key(Vec::len)
        .expect("a mapped library that passes")
}

#[cfg(all(
    target_os = "linux",
    target_pointer_width = "64",
    target_endian = "little"
))]
#[test]
fn the_red_teams_damages_are_named() {
    let data = small_library();
    let u32_at = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().unwrap());
    let phoff = u64_at(32) as usize;
    let phnum = u16::from_le_bytes([data[56], data[57]]) as usize;
    let headers: Vec<usize> = (0..phnum).map(|i| phoff + 56 * i).collect();
    // The second loadable segment moved to 1 TiB.
    let second = headers
        .iter()
        .copied()
        .filter(|&h| u32_at(h) == 1)
        .nth(1)
        .unwrap();
    let mut moved = data.clone();
    moved[second + 16..second + 24].copy_from_slice(&(1u64 << 40).to_le_bytes());
    match check(&moved) {
        Err(NotLoadable::Damaged(why)) => assert!(why.contains("loadable segment"), "{why}"),
        other => panic!("a moved segment: {other:?}"),
    }
    // Each entry size of the dynamic section off by one.
    let dynamic = headers.iter().copied().find(|&h| u32_at(h) == 2).unwrap();
    let (offset, size) = (u64_at(dynamic + 8) as usize, u64_at(dynamic + 32) as usize);
    let mut found = 0;
    for at in (offset..offset + size).step_by(16) {
        let tag = u64_at(at);
        if matches!(tag, 9 | 11) {
            found += 1;
            let mut bad = data.clone();
            bad[at + 8..at + 16].copy_from_slice(&(u64_at(at + 8) + 1).to_le_bytes());
            match check(&bad) {
                Err(NotLoadable::Damaged(why)) => {
                    assert!(why.contains("entries of this class"), "{why}")
                }
                other => panic!("tag {tag}: {other:?}"),
            }
        }
        if tag == 5 {
            // The string table moved past the image.
            let mut bad = data.clone();
            bad[at + 8..at + 16].copy_from_slice(&(1u64 << 41).to_le_bytes());
            assert!(matches!(check(&bad), Err(NotLoadable::Damaged(_))));
        }
    }
    assert!(found > 0, "no DT_SYMENT or DT_RELAENT");
}

#[cfg(all(
    target_os = "linux",
    target_pointer_width = "64",
    target_endian = "little"
))]
#[test]
fn damaged_dynamic_values_that_crashed_the_loader_are_named() {
    // The kinds of one-value damage that still crashed programs once the entry sizes and
    // segments were checked (a random run of 400 same-size damages of libcudart.so.13).
    /// A dynamic tag, how its value is damaged, and what the refusal says.
    type Damage = (u64, fn(u64) -> u64, &'static str);
    let damages: [Damage; 6] = [
        (0x6fff_fff9, |v| v + 8, "relative"), // DT_RELACOUNT
        (3, |_| 1, "DT_PLTGOT"),              // the GOT in a read-only segment
        (1, |_| 0, "names no library"),       // DT_NEEDED ""
        (0x6fff_fff0, |_| 0, "neither defines nor needs"), // DT_VERSYM on the ELF header
        (12, |_| 0, "not in an executable segment"), // DT_INIT on the ELF header
        (26, |v| v - 8, "overlaps"),          // DT_FINI_ARRAY into DT_INIT_ARRAY
    ];
    let mut applied = 0;
    for data in mapped_shared_libraries()
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
    {
        if inspect(&data).is_err() {
            continue;
        }
        let u64_at = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().unwrap());
        let phoff = u64_at(32) as usize;
        let phnum = u16::from_le_bytes([data[56], data[57]]) as usize;
        let Some(dynamic) = (0..phnum)
            .map(|i| phoff + 56 * i)
            .find(|&h| u32::from_le_bytes(data[h..h + 4].try_into().unwrap()) == 2)
        else {
            continue;
        };
        let (offset, size) = (u64_at(dynamic + 8) as usize, u64_at(dynamic + 32) as usize);
        for (tag, change, expected) in damages {
            let Some(at) = (offset..offset + size)
                .step_by(16)
                .find(|&a| u64_at(a) == tag)
            else {
                continue;
            };
            // Moving the finaliser array back overlaps the initialiser array only where the
            // linker put it right after (GNU ld does, lld does not).
            let tag_value = |t: u64| {
                (offset..offset + size)
                    .step_by(16)
                    .find(|&a| u64_at(a) == t)
                    .map(|a| u64_at(a + 8))
            };
            if tag == 26 {
                let adjacent = match (tag_value(25), tag_value(27)) {
                    (Some(init), Some(n)) => init + n == u64_at(at + 8),
                    _ => false,
                };
                if !adjacent {
                    continue;
                }
            }
            let mut bad = data.clone();
            bad[at + 8..at + 16].copy_from_slice(&change(u64_at(at + 8)).to_le_bytes());
            match check(&bad) {
                Err(NotLoadable::Damaged(why)) => {
                    assert!(why.contains(expected), "tag {tag:#x}: {why}");
                    applied += 1;
                }
                other => panic!("tag {tag:#x}: {other:?}"),
            }
        }
    }
    assert!(applied >= 5, "only {applied} damages applied");
}

#[test]
fn cuts_and_random_damage_never_panic_and_stay_linear() {
    let data = small_library();
    // Every cut on a coarse grid, and every byte of the headers: refused while it loses bytes
    // a loadable segment maps (section headers and other unmapped tails may go).
    let loaded_end = loaded_end(&data);
    let step = (data.len() / 512).max(1);
    for cut in (0..data.len()).step_by(step).chain(0..256.min(data.len())) {
        let result = check(&data[..cut]);
        assert!(
            result.is_err() || cut >= loaded_end,
            "cut at {cut}: {result:?}"
        );
    }
    // Random damage (a fixed seed: the same run every time): a byte, a word, a zeroed run.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let start = std::time::Instant::now();
    let (mut refused, mut passed) = (0, 0);
    for round in 0..600 {
        let mut bad = data.clone();
        // Most rounds damage the parts the check reads: headers and the first pages.
        let span = if round % 3 == 0 {
            bad.len()
        } else {
            bad.len().min(16 << 10)
        };
        let at = (next() as usize) % span;
        match round % 3 {
            0 => bad[at] = next() as u8,
            1 => {
                let end = (at + 8).min(bad.len());
                bad[at..end].copy_from_slice(&next().to_le_bytes()[..end - at]);
            }
            _ => {
                let end = (at + 64).min(bad.len());
                bad[at..end].fill(0);
            }
        }
        match check(&bad) {
            Ok(()) => passed += 1,
            Err(_) => refused += 1,
        }
    }
    println!("600 random damages: {refused} refused, {passed} passed");
    assert!(refused > 0);
    // Each check reads the tables once: 600 of them take well under a second per MiB.
    let per_mib = start.elapsed().as_secs_f64() / (600.0 * data.len() as f64 / (1 << 20) as f64);
    assert!(per_mib < 1.0, "{per_mib:.3} s per MiB");
}

/// One past the last byte a loadable segment maps (ELF64 little-endian; the whole file
/// otherwise).
fn loaded_end(data: &[u8]) -> usize {
    if data.len() < 64 || data[4] != 2 || data[5] != 1 {
        return data.len();
    }
    let u64_at = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().unwrap()) as usize;
    let phoff = u64_at(32);
    let phnum = u16::from_le_bytes([data[56], data[57]]) as usize;
    (0..phnum)
        .map(|i| phoff + 56 * i)
        .filter(|&h| u32::from_le_bytes(data[h..h + 4].try_into().unwrap()) == 1)
        .map(|h| u64_at(h + 8) + u64_at(h + 32))
        .max()
        .unwrap_or(data.len())
}
