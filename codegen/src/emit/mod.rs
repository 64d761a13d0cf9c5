//! Rendering the bindings model as the generated files of the crate. Every decision (what is
//! bound, flag groups, parameter roles, names, skip reasons) was made in [`crate::bind`]:
//! this module only turns the finished model into formatted Rust.
//!
//! Output is split by category, as `ash` does: [`types`] (records, handles, callbacks,
//! aliases), [`enums`] (newtype enums and the error table), [`flags`] (bitflags types and
//! constants), [`functions`] (raw functions), [`typed`] (the typed layer). [`package`] makes
//! them a complete crate (`Cargo.toml`, `lib.rs`, the template's hand-written files);
//! [`files`] formats and writes or checks them; [`docs`] and [`names`] are shared by all, and
//! [`fill`] builds syntax trees from parsed templates.
//! [`probe`] writes the crate's audit tables (layouts for the C++ probe, symbol and error-name
//! lists).

pub mod docs;
pub mod enums;
pub mod files;
pub mod fill;
pub mod flags;
pub mod functions;
pub mod names;
pub mod package;
pub mod probe;
pub mod typed;
pub mod types;

use proc_macro2::TokenStream;
use quote::quote;

use crate::bind::Bindings;
use docs::DocProblems;
use files::{preamble, EmitError, GeneratedFile};
use names::Names;

/// What [`generate`] produced.
#[derive(Debug)]
pub struct Output {
    /// Every file of the crate, by path relative to the crate folder.
    pub files: Vec<GeneratedFile>,
    /// Markdown problems found in generated comments (`item: problem`).
    pub doc_problems: Vec<String>,
}

/// One share of a generated file's items: big files are built and formatted in parts, on
/// as many threads as the machine has, and the parts' text joined in order (prettyplease
/// prints a file item after item, so the result is the same as one whole file's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// Which part (from 0).
    pub index: usize,
    /// How many parts the file has.
    pub count: usize,
}

impl Part {
    /// This part's range of a list of `len` items (contiguous, in order).
    pub fn range(self, len: usize) -> std::ops::Range<usize> {
        let count = self.count.max(1);
        (self.index * len / count)..((self.index + 1) * len / count)
    }

    /// Whether this is the first part (which holds the file's head).
    pub fn is_first(self) -> bool {
        self.index == 0
    }

    /// Whether this is the last part (which holds what follows the file's items).
    pub fn is_last(self) -> bool {
        self.index + 1 >= self.count
    }
}

/// What a part's builder hands back: tokens for syn to parse, or (for the files made mostly
/// of items of a few shapes: enums, raw functions, records, audit tables, the typed layer) the
/// syntax tree itself, built from parsed templates.
enum Code {
    Tokens(TokenStream),
    Syntax(Result<syn::File, syn::Error>),
}

/// How one part of a generated Rust file is built (its head included in the first part).
type Build<'a> = Box<dyn Fn(Part, &mut DocProblems) -> Code + Sync + 'a>;

/// A [`Build`] that writes tokens.
fn tokens<'a>(f: impl Fn(Part, &mut DocProblems) -> TokenStream + Sync + 'a) -> Build<'a> {
    Box::new(move |part, p| Code::Tokens(f(part, p)))
}

/// One generated Rust file: its name, how many parts it is built in, about how much work a
/// part is (to start the biggest first, so that the threads end together), and the builder.
struct Job<'a> {
    name: &'static str,
    parts: usize,
    cost: usize,
    build: Build<'a>,
}

/// The head of a raw-layer file.
fn sys_head() -> TokenStream {
    quote! {
        #![allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused_imports, clippy::all, clippy::pedantic)]
        use super::*;
    }
}

/// A raw-layer file's part built as syntax: the head (in the first part only), then `items`.
fn syntax(part: Part, items: Result<Vec<syn::Item>, syn::Error>) -> Code {
    let head = if part.is_first() {
        sys_head()
    } else {
        TokenStream::new()
    };
    Code::Syntax(syn::parse2::<syn::File>(head).and_then(|mut file| {
        file.items.extend(items?);
        Ok(file)
    }))
}

/// Every generated Rust file of the crate, in the order they are listed; the biggest are
/// built in parts. `cost` is about the CPU time of one part in milliseconds, as measured on the
/// 13.2 crate (2026-11-24, release build): only the order it gives matters (the costliest
/// parts start first).
fn jobs<'a>(
    b: &'a Bindings,
    names: &'a Names,
    pkg: &'a package::Package,
    tables: &'a probe::Tables,
) -> Vec<Job<'a>> {
    vec![
        Job {
            name: "src/sys/enums.rs",
            parts: 2,
            cost: 8,
            build: Box::new(move |part, p| {
                syntax(
                    part,
                    enums::emit(&b.enums[part.range(b.enums.len())], names, p),
                )
            }),
        },
        Job {
            name: "src/sys/types.rs",
            parts: 2,
            cost: 4,
            build: Box::new(move |part, p| {
                syntax(part, types::emit(&b.records, &b.typedefs, part, names, p))
            }),
        },
        Job {
            name: "src/sys/functions.rs",
            parts: 2,
            cost: 4,
            build: Box::new(move |part, p| {
                let list = &b.functions[part.range(b.functions.len())];
                syntax(part, functions::emit(list, names, p))
            }),
        },
        Job {
            name: "src/sys/errors.rs",
            parts: 1,
            cost: 3,
            build: Box::new(move |part, _| {
                syntax(
                    part,
                    enums::emit_error_table(&b.enums, b.library.status_type()),
                )
            }),
        },
        Job {
            name: "src/sys/flags.rs",
            parts: 1,
            cost: 3,
            build: Box::new(move |part, p| {
                syntax(part, flags::emit(&b.flag_groups, &b.constants, names, p))
            }),
        },
        Job {
            name: "src/sys/constants.rs",
            parts: 1,
            cost: 1,
            build: Box::new(move |part, p| {
                syntax(part, flags::emit_constants(&b.constants, names, p))
            }),
        },
        Job {
            name: "src/api.rs",
            parts: 6,
            cost: 10,
            build: Box::new(move |part, p| {
                Code::Syntax(
                    typed::emit(&b.functions, part, names, p).and_then(|mut file| {
                        if part.is_last() {
                            let mut rest = typed::constructors(&b.constructors, names, p);
                            rest.extend(typed::attributes(b, names));
                            file.items.extend(syn::parse2::<syn::File>(rest)?.items);
                        }
                        Ok(file)
                    }),
                )
            }),
        },
        Job {
            name: "src/sys/since.rs",
            parts: 1,
            cost: 0,
            build: tokens(move |_, _| since_table(b)),
        },
        Job {
            name: "src/sys/mod.rs",
            parts: 1,
            cost: 0,
            build: tokens(move |_, _| sys_module(pkg, b.library)),
        },
        Job {
            name: "tests/audit/tables.rs",
            parts: 1,
            cost: 6,
            build: Box::new(move |_, _| Code::Syntax(audit_tables(b, pkg, tables))),
        },
    ]
}

/// `src/sys/since.rs`: the first release of each function that not every runtime of the
/// major has, for `function_since` and `has_function` (the raw functions carry the same
/// number in their `dynamic_call!`).
fn since_table(b: &Bindings) -> TokenStream {
    let mut rows: Vec<(&str, i32)> = b
        .functions
        .iter()
        .filter_map(|f| {
            let v = f.since.as_ref()?.runtime_version();
            (v > 0).then_some((f.name.as_str(), v))
        })
        .collect();
    rows.sort_unstable();
    rows.dedup_by(|a, b| a.0 == b.0);
    let names = rows.iter().map(|(n, _)| *n);
    let versions = rows
        .iter()
        .map(|(_, v)| proc_macro2::Literal::i32_unsuffixed(*v));
    quote! {
        //! The first release of each C function that not every runtime of this major has
        //! (`1000 * major + 10 * minor`), sorted by name, from the ABI snapshots of every minor
        //! release (`cargo xtask timeline` shows the same dates).

        /// `(C name, first runtime version)`, sorted by name.
        pub(crate) static FUNCTIONS: &[(&str, i32)] = &[#((#names, #versions)),*];
    }
}

/// `src/sys/mod.rs`: the raw layer's modules and the crate's release.
fn sys_module(pkg: &package::Package, lib: crate::library::Library) -> TokenStream {
    let release = pkg.release.as_str();
    let major = pkg.major;
    let library = format!(
        " Its major: the {} this crate opens is `{}.so.{major}`.",
        lib.what(),
        lib.file_stem()
    );
    // The modules below take the C scalar types from here (`use super::*`).
    let ffi = names::ffi_imports();
    quote! {
        //! The raw layer: every type, constant and function the documentation describes and
        //! the ABI declares, under its C name.
        #![allow(unused_imports)]

        /// The CUDA release these bindings were generated for.
        pub const CUDA_RELEASE: &str = #release;
        #[doc = #library]
        pub const CUDA_MAJOR: u32 = #major;

        #ffi

        pub(crate) mod constants;
        pub(crate) mod errors;
        pub(crate) mod enums;
        pub(crate) mod flags;
        mod functions;
        pub(crate) mod since;
        pub(crate) mod types;
        pub use constants::*;
        pub use enums::*;
        pub use flags::*;
        pub use functions::*;
        pub use types::*;
    }
}

/// `tests/audit/tables.rs`: what the audit test compares, for this crate's release.
fn audit_tables(
    b: &Bindings,
    pkg: &package::Package,
    tables: &probe::Tables,
) -> Result<syn::File, syn::Error> {
    let krate = names::ident(&pkg.name.replace('-', "_"));
    let (include_var, lib_var) = pkg.audit_vars();
    let symbols = probe::symbols_table(b, b.library.status_type())?;
    let header = b.library.api_headers().first().copied().unwrap_or_default();
    let include_doc =
        format!(" The variable naming the release's include folder (holding `{header}`).");
    let lib_doc = format!(
        " The variable naming the release's `{}` file.",
        b.library.file_stem()
    );
    let mut file: syn::File = syn::parse2(quote! {
        //! What the audit test compares, for this crate's release.
        #![allow(dead_code)]

        /// The crate under audit.
        pub use ::#krate as krate;

        #[doc = #include_doc]
        pub const INCLUDE_VAR: &str = #include_var;
        #[doc = #lib_doc]
        pub const LIB_VAR: &str = #lib_var;
    })?;
    file.items.extend(probe::rust_table(tables)?);
    file.items.extend(symbols);
    Ok(file)
}

/// Renders every generated file of `b`. `inputs` names the documents (with releases) for the
/// preamble.
pub fn generate(
    b: &Bindings,
    pkg: &package::Package,
    inputs: &[String],
) -> Result<Output, EmitError> {
    // The crate's hand-written files are copied on a thread of their own, while this one
    // builds the generated files.
    std::thread::scope(|scope| {
        let template = scope.spawn(|| hand_written(pkg, inputs, &b.abi_source));
        let mut out = generate_bound(b, pkg, inputs)?;
        let template = template
            .join()
            .map_err(|_| panicked("the crate's hand-written files"))??;
        out.files.extend(template);
        Ok(out)
    })
}

/// The crate's files that do not depend on the bindings: `Cargo.toml`, `src/lib.rs` and the
/// template's hand-written files (what [`generate`] adds to [`generate_bound`]'s), for a
/// crate of `pkg` from `inputs` (the documents, for the preamble) and the ABI source `abi`.
/// A run makes them on a spare thread while it binds.
pub fn hand_written(
    pkg: &package::Package,
    inputs: &[String],
    abi: &str,
) -> Result<Vec<GeneratedFile>, EmitError> {
    package::files(pkg, &preamble(inputs, abi), abi)
}

/// The error for a thread of the emitter that panicked while making `what`.
fn panicked(what: &str) -> EmitError {
    EmitError::Syntax {
        file: what.into(),
        message: "making it panicked (a bug: please report it)".into(),
    }
}

/// The files [`generate`] renders from the bindings `b` (all but [`hand_written`]'s).
pub fn generate_bound(
    b: &Bindings,
    pkg: &package::Package,
    inputs: &[String],
) -> Result<Output, EmitError> {
    let pre = &preamble(inputs, &b.abi_source);
    let mut span = crate::clock::Span::start();
    // The audit tables on a thread of their own while this one names every item.
    let (names, tables) = std::thread::scope(|scope| {
        let tables = scope.spawn(|| probe::tables(b));
        let names = Names::for_bindings(b);
        (names, tables.join())
    });
    let tables = tables.map_err(|_| panicked("the audit tables"))?;
    span.end("emit: names and audit tables");
    let jobs = jobs(b, &names, pkg, &tables);
    // Every part of every file, the costliest first so that the threads end together.
    let mut pieces: Vec<(usize, Part)> = jobs
        .iter()
        .enumerate()
        .flat_map(|(j, job)| {
            (0..job.parts).map(move |index| {
                (
                    j,
                    Part {
                        index,
                        count: job.parts,
                    },
                )
            })
        })
        .collect();
    pieces.sort_by_key(|(j, _)| std::cmp::Reverse(jobs[*j].cost));
    let timed = std::env::var_os("CODEGEN_TIMES").is_some();
    let rendered = crate::parallel::map(&pieces, |&(j, part)| {
        let mut problems = DocProblems::default();
        let name = jobs[j].name;
        let watch = crate::clock::Stopwatch::start();
        let from = crate::clock::run_ms();
        let code = (jobs[j].build)(part, &mut problems);
        let built = watch.elapsed();
        let file = match code {
            Code::Tokens(tokens) => files::parse_body(name, tokens)?,
            Code::Syntax(file) => file.map_err(|e| EmitError::Syntax {
                file: name.to_string(),
                message: e.to_string(),
            })?,
        };
        let parsed = watch.elapsed();
        let body = files::print_body(name, &file)?;
        if timed {
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
            eprintln!(
                "codegen time: {name} part {} of {}: build {:.1} ms, parse {:.1} ms, print {:.1} ms (CPU), at {from:.1}–{:.1} ms",
                part.index + 1,
                part.count,
                ms(built),
                ms(parsed - built),
                ms(watch.elapsed() - parsed),
                crate::clock::run_ms(),
            );
        }
        Ok::<_, EmitError>((body, problems.0))
    });
    span.end("emit: every part of every file");
    let mut bodies: Vec<Vec<(Part, String, Vec<String>)>> =
        jobs.iter().map(|_| Vec::new()).collect();
    for (r, &(j, part)) in rendered.into_iter().zip(&pieces) {
        let (body, problems) = r.map_err(|_| panicked(jobs[j].name))??;
        bodies[j].push((part, body, problems));
    }
    let mut files = Vec::new();
    let mut doc_problems = Vec::new();
    for (job, mut parts) in jobs.iter().zip(bodies) {
        parts.sort_by_key(|(part, _, _)| part.index);
        let len = pre.len() + 1 + parts.iter().map(|(_, body, _)| body.len()).sum::<usize>();
        let mut contents = String::with_capacity(len);
        contents.push_str(pre);
        contents.push('\n');
        for (_, body, problems) in parts {
            contents.push_str(&body);
            doc_problems.extend(problems);
        }
        files.push(GeneratedFile {
            name: job.name.to_string(),
            contents,
        });
    }
    files.push(GeneratedFile {
        name: "tests/audit/layout_probe.cpp".into(),
        contents: probe::cpp_source(pre, &tables, b.library),
    });
    let stand_ins = b.library.needs_platform_stand_ins();
    for (path, text) in crate::abi::stubs::platform_stand_ins().filter(|_| stand_ins) {
        files.push(GeneratedFile {
            name: format!("tests/audit/include/{path}"),
            contents: text.to_string(),
        });
    }
    Ok(Output {
        files,
        doc_problems,
    })
}
