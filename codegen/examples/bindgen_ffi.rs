//! bindgen alone, as a project binding the CUDA runtime would run it: `cuda_runtime_api.h` of
//! one release (from NVIDIA's wheels, `cargo xtask fetch-wheel`) into Rust FFI declarations,
//! every `cuda*` function, type and constant, without documentation comments, formatted with
//! prettyplease, written to a file. It is the reference `scripts/codegen-vs-bindgen.sh` times
//! `cargo xtask codegen --check` against; codegen's own ABI reading lives in
//! `codegen::abi::headers` and is not used here.
//!
//! ```text
//! LIBCLANG_PATH=target/libclang/libclang.so \
//!   target/release/examples/bindgen_ffi OUT.rs INCLUDE_DIR...
//! ```
//!
//! The C library's headers are codegen's small in-memory stand-ins (`codegen::abi::stubs`), as
//! the pip `libclang` has no system headers.
use std::process::ExitCode;

use codegen::abi::stubs;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((out, dirs)) = args.split_first() else {
        eprintln!("usage: bindgen_ffi OUT.rs INCLUDE_DIR...   (LIBCLANG_PATH names libclang)");
        return ExitCode::FAILURE;
    };
    if let Err(e) = clang_sys::load() {
        eprintln!("bindgen_ffi: cannot load libclang (set LIBCLANG_PATH): {e}");
        return ExitCode::FAILURE;
    }
    let mut b = bindgen::Builder::default().header_contents(
        &format!("{}/ffi.h", stubs::VIRTUAL_ROOT),
        "#include <cuda_runtime_api.h>\n",
    );
    // The stand-ins after the main file are `-include`d; their include guards make that harmless.
    for (path, text) in stubs::unsaved_files(codegen::library::Library::Cudart)
        .iter()
        .skip(1)
    {
        b = b.header_contents(path, text);
    }
    let generated = b
        .clang_args(stubs::clang_args())
        .clang_args(dirs.iter().map(|d| format!("-I{d}")))
        .detect_include_paths(false)
        .formatter(bindgen::Formatter::Prettyplease)
        .allowlist_function("^cuda.*")
        .allowlist_type("^cuda.*")
        .allowlist_var("^cuda.*")
        .generate_comments(false)
        .generate();
    match generated {
        Ok(bindings) => match bindings.write_to_file(out) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("bindgen_ffi: writing {out}: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("bindgen_ffi: {e}");
            ExitCode::FAILURE
        }
    }
}
