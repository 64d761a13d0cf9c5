//! `src/options.rs` of an NVRTC crate: one typed builder method of `CompileOptions` per
//! compile option that `nvrtc.h` documents (its "Supported Compile Options" group), with the
//! option's documented meaning as rustdoc. A flag (`--use_fast_math`) takes nothing, a
//! `{true|false}` option takes a `bool`, any other option takes its value as text.
//!
//! Options whose method the hand-written `CompileOptions` already has (`include_path`, `std`)
//! are left out; the rest of the builder is in the template's `program.rs`.

use proc_macro2::TokenStream;
use quote::quote;

use super::docs;
use super::names::ident;

/// How an option takes its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// `--name`.
    Flag,
    /// `--name={true|false}`.
    Bool,
    /// `--name=<value>` or `--name={a|b}`.
    Value,
}

/// One documented compile option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOption {
    /// The long name, dashes included (`--gpu-architecture`).
    pub name: String,
    /// As the documentation writes it (`--gpu-architecture=<arch>`).
    pub spelled: String,
    /// The short name (`-arch`), if given.
    pub short: Option<String>,
    pub arg: Arg,
    /// The description, one paragraph a line.
    pub doc: String,
}

/// Methods the hand-written builder has under the same name.
const HAND_WRITTEN: [&str; 10] = [
    "arch",
    "define",
    "include_path",
    "std",
    "fast_math",
    "lto",
    "line_info",
    "option",
    "new",
    "as_slice",
];

/// `text` without Doxygen and Markdown code marks (`\c`, backticks, `\<`, `\>`).
fn plain(text: &str) -> String {
    text.replace("\\c ", "")
        .replace("<c>", "")
        .replace("</c>", "")
        .replace("\\<", "<")
        .replace("\\>", ">")
        .replace('`', "")
}

/// Whether a line (trimmed) is a list item naming an option: `- --name…`.
fn option_head(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))?;
    let rest = rest.trim_start();
    rest.starts_with("--").then_some(rest)
}

/// The options a group's text documents, in order, merged by name (the documentation lists
/// some twice: `--dopt on` and `--dopt=on`).
pub fn parse(text: &str) -> Vec<CompileOption> {
    let text = plain(text);
    let mut out: Vec<CompileOption> = Vec::new();
    let mut current: Option<(usize, CompileOption)> = None;
    let finish = |cur: Option<(usize, CompileOption)>, out: &mut Vec<CompileOption>| {
        if let Some((_, mut o)) = cur {
            o.doc = o.doc.trim().to_string();
            if let Some(prev) = out.iter_mut().find(|p| p.name == o.name) {
                if prev.doc.is_empty() {
                    prev.doc = o.doc;
                }
                if prev.arg == Arg::Flag && o.arg != Arg::Flag {
                    prev.arg = o.arg;
                    prev.spelled = o.spelled;
                }
            } else {
                out.push(o);
            }
        }
    };
    for raw in text.lines() {
        let indent = raw.len() - raw.trim_start().len();
        let line = raw.trim();
        if let Some(head) = option_head(line) {
            finish(current.take(), &mut out);
            current = Some((indent, head_option(head)));
            continue;
        }
        let Some((at, o)) = current.as_mut() else {
            continue;
        };
        // A list item as shallow as the option's ends it (the next category).
        if (line.starts_with("- ") || line.starts_with("* ")) && indent <= *at {
            finish(current.take(), &mut out);
            continue;
        }
        if line.is_empty() {
            if !o.doc.ends_with("\n\n") && !o.doc.is_empty() {
                o.doc.push_str("\n\n");
            }
        } else {
            if !o.doc.is_empty() && !o.doc.ends_with('\n') {
                o.doc.push(' ');
            }
            o.doc.push_str(line.trim_end_matches("\\n"));
        }
    }
    finish(current.take(), &mut out);
    out
}

/// The option of a head `--name=<arg> (-short)`.
fn head_option(head: &str) -> CompileOption {
    let (spelled, short) = match head.find(" (-") {
        Some(i) => {
            let short = head[i + 2..].trim_end_matches(')').trim().to_string();
            (head[..i].trim().to_string(), Some(short))
        }
        None => (head.trim().to_string(), None),
    };
    let end = spelled.find(['=', ' ']).unwrap_or(spelled.len());
    let name = spelled[..end].to_string();
    let rest = spelled[end..].trim_start_matches([' ', '=']);
    let arg = if rest.is_empty() {
        Arg::Flag
    } else if rest.replace(' ', "") == "{true|false}" {
        Arg::Bool
    } else {
        Arg::Value
    };
    CompileOption {
        name,
        spelled,
        short: short.filter(|s| s.starts_with('-')),
        arg,
        doc: String::new(),
    }
}

/// The Rust method name of an option: `--gpu-architecture` → `gpu_architecture`,
/// `--Ofast-compile` → `ofast_compile`.
pub fn method_name(name: &str) -> String {
    name.trim_start_matches('-')
        .replace(['-', '.'], "_")
        .to_ascii_lowercase()
}

/// The file's items: `impl CompileOptions` with a method per option (none when the release's
/// header documents none).
pub fn emit(group_text: &str, krate: &str) -> Result<syn::File, syn::Error> {
    let options = parse(group_text);
    let mut methods = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for o in &options {
        let method = method_name(&o.name);
        if method.is_empty()
            || HAND_WRITTEN.contains(&method.as_str())
            || !seen.insert(method.clone())
        {
            continue;
        }
        let m = ident(&method);
        let name = &o.name;
        let short = o
            .short
            .as_ref()
            .map(|s| format!(" (`{s}`)"))
            .unwrap_or_default();
        let meaning = if o.doc.is_empty() {
            "Not described by the documentation.".to_string()
        } else {
            escape(&o.doc)
        };
        let md = format!("`{}`{short}: {meaning}", o.spelled);
        let doc = docs::attrs(&md);
        methods.push(match o.arg {
            Arg::Flag => quote! {
                #doc
                #[doc(alias = #name)]
                pub fn #m(self) -> CompileOptions {
                    self.option(#name)
                }
            },
            Arg::Bool => {
                let fmt = format!("{name}={{on}}");
                quote! {
                    #doc
                    #[doc(alias = #name)]
                    pub fn #m(self, on: bool) -> CompileOptions {
                        self.option(format!(#fmt))
                    }
                }
            }
            Arg::Value => {
                let fmt = format!("{name}={{value}}");
                quote! {
                    #doc
                    #[doc(alias = #name)]
                    pub fn #m(self, value: &str) -> CompileOptions {
                        self.option(format!(#fmt))
                    }
                }
            }
        });
    }
    let example = format!(
        "```\nuse {krate}::CompileOptions;\nlet o = CompileOptions::new().relocatable_device_code(true).maxrregcount(\"64\");\nassert_eq!(o.as_slice(), [\"--relocatable-device-code=true\", \"--maxrregcount=64\"]);\n```"
    );
    let example = docs::attrs(&example);
    let tokens: TokenStream = quote! {
        //! Generated: one builder method of [`CompileOptions`] per compile option that
        //! `nvrtc.h` documents ("Supported Compile Options"), with its documented meaning.

        use crate::program::CompileOptions;

        /// Every documented NVRTC compile option (generated from `nvrtc.h`).
        ///
        #example
        impl CompileOptions {
            #(#methods)*
        }
    };
    syn::parse2(tokens)
}

/// Text safe as Markdown prose: `<`, `>`, `[`, `]`, `*`, `_` and `|` escaped or kept out of
/// HTML and link syntax.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '[' | ']' | '*' | '_' | '|' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r" * The valid compiler options are:
 *
 *   - Compilation targets
 *     - \c --gpu-architecture=\<arch\> (\c -arch)
 *
 *       Specify the name of the class of GPU architectures.\n
 *       - Valid <c>\<arch\></c>s:
 *         - \c compute_75
 *       - Default: \c compute_75
 *   - Separate compilation / whole-program compilation
 *     - \c --device-c (\c -dc)
 *
 *       Generate relocatable code.
 *     - \c --relocatable-device-code={true|false} (\c -rdc)
 *
 *       Enable (disable) the generation of relocatable device code.
 *       - Default: \c false
 *   - Code generation
 *     - \c --dopt \c on (\c -dopt)
 *
 *     - \c --dopt=on
 *
 *       Enable device code optimization.
";

    fn sample() -> String {
        SAMPLE
            .lines()
            .map(|l| l.trim_start().trim_start_matches('*'))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn options_are_read_with_their_argument_kind_and_meaning() {
        let o = parse(&sample());
        let names: Vec<&str> = o.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "--gpu-architecture",
                "--device-c",
                "--relocatable-device-code",
                "--dopt"
            ]
        );
        assert_eq!(o[0].arg, Arg::Value);
        assert_eq!(o[0].short.as_deref(), Some("-arch"));
        assert!(o[0].doc.starts_with("Specify the name"), "{:?}", o[0].doc);
        assert!(o[0].doc.contains("Default: compute_75"), "{:?}", o[0].doc);
        assert_eq!(o[1].arg, Arg::Flag);
        assert_eq!(o[2].arg, Arg::Bool);
        assert_eq!(o[3].doc, "Enable device code optimization.");
        assert_eq!(method_name("--Ofast-compile"), "ofast_compile");
    }

    #[test]
    fn the_file_has_a_method_per_option() {
        let file = emit(&sample(), "nvrtc13").expect("parses");
        let text = prettyplease::unparse(&file);
        for m in [
            "fn gpu_architecture(self, value: &str)",
            "fn device_c(self)",
            "fn relocatable_device_code(self, on: bool)",
            "fn dopt(self, value: &str)",
        ] {
            assert!(text.contains(m), "{m} in\n{text}");
        }
    }
}
