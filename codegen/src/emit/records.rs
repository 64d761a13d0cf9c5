//! `src/records.rs` of a runtime crate: the safe layer's [`DeviceProperties`] record with
//! every field of the release's `cudaDeviceProp`, `KernelAttributes` with every field of
//! `cudaFuncAttributes`, and [`DeviceAttributes`] with one getter per
//! member of `cudaDeviceAttr`, each documented with the field's or member's documented meaning.
//! Both come from the bindings model, so a release that adds a field or an attribute adds it
//! here with no code change. Field types are the C ones made Rust (`char[N]` → `String` or
//! bytes, `cudaUUID_t` → `Uuid`, an `int` the documentation describes as a yes/no → `bool`).
//!
//! Not here: `Device::properties` and the `Uuid` type (hand-written in the template's
//! `device.rs`, which re-exports these items).
//!
//! [`DeviceProperties`]: https://docs.rs/cudart13/latest/cudart13/device/struct.DeviceProperties.html
//! [`DeviceAttributes`]: https://docs.rs/cudart13/latest/cudart13/device/struct.DeviceAttributes.html

use proc_macro2::TokenStream;
use quote::quote;

use super::docs::{self, DocProblems};
use super::names::{ident, Names};
use crate::abi::CType;
use crate::bind::Bindings;

/// The record and the enum the file is made from.
const PROP_RECORD: &str = "cudaDeviceProp";
const ATTR_ENUM: &str = "cudaDeviceAttr";

/// The snake-case Rust name of a camel-case C field name: `maxTexture1DMipmap` →
/// `max_texture_1d_mipmap`, `ECCEnabled` → `ecc_enabled`, `l2CacheSize` → `l2_cache_size`,
/// `pciBusID` → `pci_bus_id`.
pub fn snake_name(c: &str) -> String {
    let chars: Vec<char> = c.chars().collect();
    let mut out = String::with_capacity(c.len() + 8);
    let mut word_len = 0usize;
    for (i, &ch) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let split = match prev {
            None => false,
            Some(p) if ch.is_ascii_digit() => p.is_ascii_alphabetic() && word_len > 1,
            Some(p) if ch.is_ascii_uppercase() => {
                p.is_ascii_lowercase()
                    || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()))
                    || (p.is_ascii_digit() && next.is_some_and(|n| n.is_ascii_lowercase()))
            }
            _ => false,
        };
        if split && !out.ends_with('_') {
            out.push('_');
            word_len = 0;
        }
        out.push(ch.to_ascii_lowercase());
        word_len += 1;
    }
    out
}

/// Whether an `int` whose documentation reads `doc` holds a yes/no answer: the sentence says
/// what the device supports, can do or is ("Device supports …", "1 if …, 0 otherwise",
/// "Indicates device supports …", "… is supported on the device").
pub fn is_yes_no(doc: &str) -> bool {
    let d = doc.trim_start_matches(['`', '*']).trim();
    let starts = [
        "Device supports",
        "Device can",
        "Device is ",
        "Device has",
        "Device shares",
        "Device accesses",
        "Indicates device",
        "Indicates if",
        "Indicates whether",
        "Host can",
        "Link between",
        "1 if",
        "Whether",
    ];
    starts.iter().any(|s| d.starts_with(s))
        || d.contains("0 otherwise")
        || d.contains(" is supported on the device")
        || d.starts_with("External timeline semaphore interop is supported")
}

/// How a field of `cudaDeviceProp` is carried into the safe record.
enum Conv {
    /// `char[N]` holding text: a `String` up to the first NUL.
    Text,
    /// `char[N]` holding bytes: `[u8; N]`.
    Bytes(u64),
    /// `cudaUUID_t`: the template's `Uuid`.
    Uuid,
    /// A yes/no `int`: `bool`.
    Bool,
    /// A scalar kept as its Rust scalar.
    Scalar(TokenStream),
    /// An array of scalars, kept as `[T; N]`.
    Array(TokenStream, u64),
    /// A C enum: the raw layer's newtype.
    Enum(TokenStream),
}

/// The Rust scalar of a C scalar name, if it is one this record uses.
fn scalar(name: &str) -> Option<TokenStream> {
    Some(match name {
        "int" => quote! { i32 },
        "unsigned int" => quote! { u32 },
        "size_t" => quote! { usize },
        "long" | "long long" => quote! { i64 },
        "unsigned long" | "unsigned long long" => quote! { u64 },
        "char" => quote! { i8 },
        "unsigned char" => quote! { u8 },
        _ => return None,
    })
}

/// How field `c_name` of C type `ty`, documented as `doc`, is carried; `None` for a type this
/// file does not convert (reported by the caller's test, never silently: see `emit`).
fn conversion(b: &Bindings, c_name: &str, ty: &CType, doc: &str) -> Option<Conv> {
    match ty {
        CType::Named { name } if b.enums.iter().any(|e| &e.name == name) => {
            let id = ident(name);
            Some(Conv::Enum(quote! { sys::#id }))
        }
        CType::Primitive { name } if name == "int" && is_yes_no(doc) => Some(Conv::Bool),
        CType::Primitive { name } => scalar(name).map(Conv::Scalar),
        CType::Named { name } if name.starts_with("cudaUUID") || name == "CUuuid_st" => {
            Some(Conv::Uuid)
        }
        CType::Array { of, len } => match &**of {
            CType::Primitive { name } if name == "char" => Some(if c_name == "name" {
                Conv::Text
            } else {
                Conv::Bytes(*len)
            }),
            CType::Primitive { name } => scalar(name).map(|t| Conv::Array(t, *len)),
            _ => None,
        },
        _ => None,
    }
}

/// A safe record to generate from a C record: its Rust name, and the head of its docs.
struct SafeRecord {
    c_name: &'static str,
    rust_name: &'static str,
    doc: &'static str,
}

/// The safe records of the file: [`DeviceProperties`](SafeRecord) from `cudaDeviceProp` and
/// `KernelAttributes` from `cudaFuncAttributes`.
const SAFE_RECORDS: [SafeRecord; 2] = [
    SafeRecord {
        c_name: PROP_RECORD,
        rust_name: "DeviceProperties",
        doc: "A device's properties: every field of this release's `cudaDeviceProp` \
              ([`Device::properties`]), with the meaning the documentation gives it. \
              `Display` prints one field a line.\n\n\
              ```no_run\n\
              # fn main() -> @CRATE@::Result<()> {\n\
              let props = @CRATE@::Device::get(0)?.properties()?;\n\
              println!(\"{} (sm_{}), {} SMs\", props.name, props.arch(), props.multi_processor_count);\n\
              println!(\"{props}\");\n\
              # Ok(()) }\n\
              ```",
    },
    SafeRecord {
        c_name: "cudaFuncAttributes",
        rust_name: "KernelAttributes",
        doc: "A kernel's attributes on a device: every field of this release's \
              `cudaFuncAttributes` ([`Kernel::attributes`](crate::Kernel::attributes)), with \
              the meaning the documentation gives it. `Display` prints one field a line.\n\n\
              ```no_run\n\
              # fn main() -> @CRATE@::Result<()> {\n\
              # let kernel = @CRATE@::Module::from_file(\"kernels.cubin\")?.kernel(\"kernel\")?;\n\
              let attrs = kernel.attributes()?;\n\
              println!(\"{} registers, at most {} threads a block\", attrs.num_regs, attrs.max_threads_per_block);\n\
              # Ok(()) }\n\
              ```",
    },
];

/// One safe record: the struct with a field per C field (reserved ones left out),
/// `from_raw`, and `Display`.
fn safe_record(
    b: &Bindings,
    spec: &SafeRecord,
    names: &Names,
    problems: &mut DocProblems,
) -> Option<TokenStream> {
    let record = b.records.iter().find(|r| r.name == spec.c_name)?;
    let c_record = spec.c_name;
    let raw = ident(&record.name);
    let rust_ty = ident(spec.rust_name);
    let mut fields = Vec::new();
    let mut inits = Vec::new();
    let mut shows = Vec::new();
    for f in &record.abi.fields {
        if f.name.starts_with("reserved") || f.bitfield_unit {
            continue;
        }
        let text = record
            .field_docs
            .iter()
            .find(|(n, _)| n == &f.name)
            .map(|(_, d)| d.as_str())
            .unwrap_or("");
        let Some(conv) = conversion(b, &f.name, &f.ty.c, text) else {
            problems.0.push(format!(
                "{c_record}.{}: a field type the safe {} does not convert",
                f.name, spec.rust_name
            ));
            continue;
        };
        let c = ident(&f.name);
        let rust = snake_name(&f.name);
        let r = ident(&rust);
        let md = docs::markdown(text, names, &format!("{c_record}.{}", f.name), problems);
        let md = format!(
            "{}\n\n`{c_record}::{}`.",
            if md.trim().is_empty() {
                "Not described by the documentation.".to_string()
            } else {
                md
            },
            f.name
        );
        let doc = docs::attrs(&md);
        let c_field = format!("{c_record}::{}", f.name);
        let (ty, init) = match conv {
            Conv::Text => (quote! { String }, quote! { text(&raw.#c) }),
            Conv::Bytes(n) => {
                let n = proc_macro2::Literal::u64_unsuffixed(n);
                (quote! { [u8; #n] }, quote! { raw.#c.map(|b| b as u8) })
            }
            Conv::Uuid => (
                quote! { crate::device::Uuid },
                quote! { crate::device::Uuid::from_bytes(raw.#c.bytes.map(|b| b as u8)) },
            ),
            Conv::Bool => (quote! { bool }, quote! { raw.#c != 0 }),
            Conv::Scalar(t) | Conv::Enum(t) => (t, quote! { raw.#c }),
            Conv::Array(t, n) => {
                let n = proc_macro2::Literal::u64_unsuffixed(n);
                (quote! { [#t; #n] }, quote! { raw.#c })
            }
        };
        fields.push(quote! {
            #doc
            #[doc(alias = #c_field)]
            pub #r: #ty,
        });
        inits.push(quote! { #r: #init, });
        shows.push(quote! { writeln!(f, "{:<48} {:?}", #rust, self.#r)?; });
    }
    let doc = docs::attrs(spec.doc);
    let from_doc = format!("The safe record of a raw `{c_record}`.");
    Some(quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, Eq)]
        #[non_exhaustive]
        #[doc(alias = #c_record)]
        pub struct #rust_ty {
            #(#fields)*
        }

        impl #rust_ty {
            #[doc = #from_doc]
            pub fn from_raw(raw: &sys::#raw) -> #rust_ty {
                #rust_ty { #(#inits)* }
            }
        }

        impl ::core::fmt::Display for #rust_ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #(#shows)*
                Ok(())
            }
        }
    })
}

/// The file's items, or nothing when the bindings have no `cudaDeviceProp` (another library).
pub fn emit(
    b: &Bindings,
    krate: &str,
    names: &Names,
    problems: &mut DocProblems,
) -> Result<Option<syn::File>, syn::Error> {
    if !b.records.iter().any(|r| r.name == PROP_RECORD) {
        return Ok(None);
    }
    let records: Vec<TokenStream> = SAFE_RECORDS
        .iter()
        .filter_map(|spec| safe_record(b, spec, names, problems))
        .collect();
    let accessors = attribute_getters(b, names, problems);
    let tokens = quote! {
        //! Generated: safe records of C records (a device's properties, every field of
        //! `cudaDeviceProp`; a kernel's attributes, every field of `cudaFuncAttributes`) and a
        //! device's attributes (every member of `cudaDeviceAttr`), each documented with its
        //! documented meaning. [`crate::device`] and [`crate::kernel`] re-export them.

        use crate::device::Device;
        use crate::sys;

        /// The text of a `char` array up to its first NUL (all of it without one).
        fn text(chars: &[::core::ffi::c_char]) -> String {
            let bytes: Vec<u8> = chars.iter().take_while(|c| **c != 0).map(|c| *c as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        }

        #(#records)*

        #accessors
    };
    let body = tokens
        .to_string()
        .replace("@CRATE@", &krate.replace('-', "_"));
    syn::parse_str(&body).map(Some)
}

/// `DeviceAttributes`: one getter per member of `cudaDeviceAttr` (aliases and the `MAX`
/// sentinel left out).
fn attribute_getters(b: &Bindings, names: &Names, problems: &mut DocProblems) -> TokenStream {
    let Some(e) = b.enums.iter().find(|e| e.name == ATTR_ENUM) else {
        return quote! {};
    };
    let ty = ident(&e.name);
    let mut getters = Vec::new();
    for (v, r) in e.abi.values.iter().zip(&e.member_names) {
        if v.alias_of.is_some() || r == "MAX" || r.starts_with("RESERVED") {
            continue;
        }
        let text = e
            .member_docs
            .iter()
            .find(|(n, _)| n == &v.name)
            .map(|(_, d)| d.as_str())
            .unwrap_or("");
        let md = docs::markdown(text, names, &v.name, problems);
        let md = if md.trim().is_empty() {
            "Not described by the documentation.".to_string()
        } else {
            md
        };
        let yes_no = is_yes_no(text);
        let md = format!(
            "{md}\n\n[`{0}::{r}`](crate::sys::{0}::{r}) through `cudaDeviceGetAttribute`{1}.",
            e.name,
            if yes_no { ", as a yes/no" } else { "" }
        );
        let doc = docs::attrs(&md);
        let name = ident(&r.to_ascii_lowercase());
        let member = ident(r);
        let c_name = &v.name;
        getters.push(if yes_no {
            quote! {
                #doc
                #[doc(alias = #c_name)]
                pub fn #name(&self) -> crate::Result<bool> {
                    Ok(self.0.attribute(sys::#ty::#member)? != 0)
                }
            }
        } else {
            quote! {
                #doc
                #[doc(alias = #c_name)]
                pub fn #name(&self) -> crate::Result<i32> {
                    self.0.attribute(sys::#ty::#member)
                }
            }
        });
    }
    quote! {
        /// Every attribute of a device (`cudaDeviceAttr`), one getter each, with the meaning the
        /// documentation gives it ([`Device::attributes`]). Each getter calls
        /// `cudaDeviceGetAttribute`; yes/no attributes are `bool`.
        ///
        /// ```no_run
        /// # fn main() -> @CRATE@::Result<()> {
        /// let attrs = @CRATE@::Device::get(0)?.attributes();
        /// println!("{} threads per block", attrs.max_threads_per_block()?);
        /// println!("cooperative launch: {}", attrs.cooperative_launch()?);
        /// # Ok(()) }
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[doc(alias = "cudaDeviceAttr")]
        pub struct DeviceAttributes(pub(crate) Device);

        impl DeviceAttributes {
            /// The device these attributes are read from.
            pub fn device(&self) -> Device {
                self.0
            }
            #(#getters)*
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_names() {
        for (c, r) in [
            ("maxTexture1DMipmap", "max_texture_1d_mipmap"),
            ("ECCEnabled", "ecc_enabled"),
            ("l2CacheSize", "l2_cache_size"),
            ("pciBusID", "pci_bus_id"),
            ("maxTexture2DLinear", "max_texture_2d_linear"),
            ("multiProcessorCount", "multi_processor_count"),
            (
                "gpuDirectRDMAFlushWritesOptions",
                "gpu_direct_rdma_flush_writes_options",
            ),
            ("uuid", "uuid"),
            ("name", "name"),
        ] {
            assert_eq!(snake_name(c), r, "{c}");
        }
    }

    #[test]
    fn yes_no_sentences() {
        assert!(is_yes_no("Device supports stream priorities"));
        assert!(is_yes_no(
            "1 if the device supports GPUDirect RDMA APIs, 0 otherwise"
        ));
        assert!(!is_yes_no("Maximum number of threads per block"));
        assert!(!is_yes_no("Number of asynchronous engines"));
    }
}
