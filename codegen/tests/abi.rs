//! The ABI model read from the pinned cudarc's runtime bindings (located by `cargo metadata`),
//! checked against facts of the CUDA Runtime headers.

use std::sync::OnceLock;
use std::time::Instant;

use codegen::abi::{self, Abi, CType, RecordKind, TypedefKind};
use codegen::diag::Severity;
use codegen::ir::Release;

/// The ABI for `release`, read once per test binary.
fn abi_for(release: &str) -> &'static Abi {
    static CACHE: OnceLock<std::sync::Mutex<Vec<(String, &'static Abi)>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache
        .lock()
        .expect("no test panicked while holding the cache");
    if let Some((_, abi)) = cache.iter().find(|(r, _)| r == release) {
        return abi;
    }
    let rel = Release::parse(release).expect("test release parses");
    let source = abi::locate_cudarc_runtime(&abi::workspace_manifest()).expect("cudarc is located");
    let text = std::fs::read_to_string(&source.path).expect("cudarc's file reads");
    let start = Instant::now();
    let abi = abi::read_abi(&text, &source.path.display().to_string(), &rel);
    eprintln!(
        "read {} ({} lines) for {release} in {:.1} ms: {} functions, {} structs, {} unions, {} enums, {} typedefs, {} constants, {} diagnostics",
        source.path.display(),
        text.lines().count(),
        start.elapsed().as_secs_f64() * 1e3,
        abi.functions.len(),
        abi.struct_count(),
        abi.union_count(),
        abi.enums.len(),
        abi.typedefs.len(),
        abi.constants.len(),
        abi.diagnostics.len(),
    );
    let leaked: &'static Abi = Box::leak(Box::new(abi));
    cache.push((release.to_string(), leaked));
    leaked
}

fn param_list(abi: &Abi, name: &str) -> Vec<(String, String)> {
    let f = abi
        .functions
        .get(name)
        .unwrap_or_else(|| panic!("{name} is in the ABI"));
    f.params
        .iter()
        .map(|p| (p.name.clone(), p.ty.c_text.clone()))
        .collect()
}

#[test]
fn release_maps_to_cudarc_feature() {
    assert_eq!(abi::cudarc_feature(&Release(vec![13, 2])), "cuda-13020");
    assert_eq!(abi::cudarc_feature(&Release(vec![12, 4, 1])), "cuda-12040");
    assert_eq!(abi::cudarc_feature(&Release(vec![11])), "cuda-11000");
}

#[test]
fn cuda_malloc_params() {
    let abi = abi_for("13.2");
    assert_eq!(
        param_list(abi, "cudaMalloc"),
        [
            ("devPtr".to_string(), "void**".to_string()),
            ("size".to_string(), "size_t".to_string())
        ]
    );
    let f = &abi.functions["cudaMalloc"];
    assert_eq!(f.ret.c_text, "cudaError_t");
    assert_eq!(f.params[0].ty.c.pointer_depth(), 2);
    assert_eq!(f.params[0].ty.rust, "*mut *mut ::core::ffi::c_void");
}

#[test]
fn cuda_memcpy_2d_params_in_c_order() {
    let abi = abi_for("13.2");
    let names: Vec<String> = param_list(abi, "cudaMemcpy2D")
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        names,
        ["dst", "dpitch", "src", "spitch", "width", "height", "kind"]
    );
    let types: Vec<String> = param_list(abi, "cudaMemcpy2D")
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert_eq!(
        types,
        [
            "void*",
            "size_t",
            "const void*",
            "size_t",
            "size_t",
            "size_t",
            "cudaMemcpyKind"
        ]
    );
}

#[test]
fn cuda_error_values_and_alias() {
    let abi = abi_for("13.2");
    let e = abi
        .enum_named("cudaError_t")
        .expect("cudaError_t names an enum");
    assert_eq!(e.name, "cudaError");
    assert!(
        e.aliases.iter().any(|a| a == "cudaError_t"),
        "{:?}",
        e.aliases
    );
    assert_eq!(e.value("cudaSuccess"), Some(0));
    assert_eq!(e.value("cudaErrorInvalidValue"), Some(1));
    assert_eq!(e.value("cudaErrorMemoryAllocation"), Some(2));
    assert_eq!(e.value("cudaErrorUnknown"), Some(999));
    assert!(
        e.values.len() > 100,
        "cudaError has {} values",
        e.values.len()
    );
    let t = &abi.typedefs["cudaError_t"];
    assert!(t.via_use);
    assert_eq!(t.kind, TypedefKind::Alias);
}

#[test]
fn resource_desc_has_a_union_member() {
    let abi = abi_for("13.2");
    let r = &abi.records["cudaResourceDesc"];
    assert_eq!(r.kind, RecordKind::Struct);
    let names: Vec<&str> = r.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names[..2], ["resType", "res"]);
    let res_ty = r.fields[1].ty.c.base_name().expect("res has a named type");
    let u = &abi.records[res_ty];
    assert_eq!(u.kind, RecordKind::Union);
    assert_eq!(u.parent.as_deref(), Some("cudaResourceDesc"));
    assert!(r.nested.iter().any(|n| n == res_ty));
    // The union's members are themselves anonymous structs nested in it.
    assert!(u.fields.len() >= 4, "{:?}", u.fields);
    for f in &u.fields {
        let inner = f.ty.c.base_name().expect("member type is named");
        assert_eq!(
            abi.records[inner].parent.as_deref(),
            Some(res_ty),
            "{inner}"
        );
    }
}

#[test]
fn fixed_arrays_report_their_length() {
    let abi = abi_for("13.2");
    let prop = &abi.records["cudaDeviceProp"];
    let name = prop
        .fields
        .iter()
        .find(|f| f.name == "name")
        .expect("cudaDeviceProp.name");
    assert_eq!(name.ty.c_text, "char[256]");
    assert!(
        matches!(&name.ty.c, CType::Array { len: 256, of } if **of == CType::Primitive { name: "char".into() })
    );
    assert_eq!(prop.fields[0].name, "name");
    assert!(
        prop.fields.len() > 50,
        "cudaDeviceProp has {} fields",
        prop.fields.len()
    );
}

#[test]
fn handles_and_callbacks() {
    let abi = abi_for("13.2");
    let s = &abi.typedefs["cudaStream_t"];
    assert_eq!(s.kind, TypedefKind::Handle);
    assert_eq!(s.ty.c_text, "CUstream_st*");
    assert!(abi.records["CUstream_st"].opaque);
    let cb = &abi.typedefs["cudaHostFn_t"];
    assert_eq!(cb.kind, TypedefKind::Callback);
    match &cb.ty.c {
        CType::FnPtr {
            params,
            nullable: true,
            ..
        } => {
            assert_eq!(params.len(), 1);
            assert_eq!(params[0].name, "userData");
            assert_eq!(params[0].ty.c_text, "void*");
        }
        other => panic!("cudaHostFn_t is {other:?}"),
    }
    assert_eq!(
        abi.typedefs["cudaSurfaceObject_t"].ty.c_text,
        "unsigned long long"
    );
}

#[test]
fn constants_and_enum_aliases() {
    let abi = abi_for("13.2");
    assert_eq!(abi.constants["cudaHostAllocMapped"].value, 2);
    assert_eq!(abi.constants["CUDART_VERSION"].value, 13020);
    // `impl cudaMemLocationType { pub const cudaMemLocationTypeNone = ...Invalid; }`
    let e = &abi.enums["cudaMemLocationType"];
    let none = e
        .values
        .iter()
        .find(|v| v.name == "cudaMemLocationTypeNone")
        .expect("alias value");
    assert_eq!(none.alias_of.as_deref(), Some("cudaMemLocationTypeInvalid"));
    assert_eq!(Some(none.value), e.value("cudaMemLocationTypeInvalid"));
}

#[test]
fn items_gated_to_old_releases() {
    let new = abi_for("13.2");
    let old = abi_for("12.4");
    assert!(!new
        .constants
        .contains_key("cudaCooperativeLaunchMultiDeviceNoPostSync"));
    assert_eq!(
        old.constants["cudaCooperativeLaunchMultiDeviceNoPostSync"].value,
        2
    );
    // Removed in 13.0: cudaLaunchCooperativeKernelMultiDevice.
    assert!(old
        .functions
        .contains_key("cudaLaunchCooperativeKernelMultiDevice"));
    assert!(!new
        .functions
        .contains_key("cudaLaunchCooperativeKernelMultiDevice"));
    assert_eq!(old.constants["CUDART_VERSION"].value, 12040);
    // cudaDeviceProp changed between the two.
    assert_ne!(
        old.records["cudaDeviceProp"].fields.len(),
        new.records["cudaDeviceProp"].fields.len()
    );
}

#[test]
fn counts_are_non_trivial_and_stable() {
    let a = abi_for("13.2");
    let b = abi_for("13.3");
    for abi in [a, b] {
        println!(
            "{}: {} functions, {} structs, {} unions, {} enums, {} typedefs, {} constants",
            abi.origin,
            abi.functions.len(),
            abi.struct_count(),
            abi.union_count(),
            abi.enums.len(),
            abi.typedefs.len(),
            abi.constants.len()
        );
        assert!(
            abi.functions.len() > 300,
            "{} functions",
            abi.functions.len()
        );
        assert!(abi.struct_count() > 80);
        assert!(abi.union_count() > 10);
        assert!(abi.enums.len() > 80);
        assert!(abi.typedefs.len() > 30);
        assert!(abi.constants.len() > 60);
    }
    let lost: Vec<&String> = a
        .functions
        .keys()
        .filter(|f| !b.functions.contains_key(*f))
        .collect();
    assert!(
        lost.len() <= 5,
        "13.3 loses {} functions of 13.2: {lost:?}",
        lost.len()
    );
    assert!(b.functions.len() + 5 >= a.functions.len());
}

#[test]
fn the_source_is_read_without_errors() {
    let abi = abi_for("13.2");
    let errors: Vec<String> = abi
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let warnings: Vec<String> = abi
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.to_string())
        .collect();
    assert!(warnings.is_empty(), "{warnings:#?}");
    assert!(abi.known_features.iter().any(|f| f == "cuda-13030"));
    for d in &abi.diagnostics {
        assert!(d.line > 0, "{d}");
    }
}

#[test]
fn an_unknown_release_is_reported() {
    let source = abi::locate_cudarc_runtime(&abi::workspace_manifest()).expect("cudarc is located");
    let text = std::fs::read_to_string(&source.path).expect("cudarc's file reads");
    let abi = abi::read_abi(&text, "mod.rs", &Release(vec![99, 9]));
    assert!(abi
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error && d.message.contains("cuda-99090")));
}

#[test]
fn bad_input_gives_diagnostics_not_panics() {
    let text = "pub const A: u32 = 1;\nmacro_rules! m { () => {} }\n#[cfg(unix)]\npub const B: u32 = 2;\npub fn helper() {}\npub struct S(pub u8, pub u8);\n";
    let abi = abi::read_abi(text, "bad.rs", &Release(vec![13, 2]));
    assert_eq!(abi.constants.len(), 1);
    let lines: Vec<u32> = abi.diagnostics.iter().map(|d| d.line).collect();
    // macro (2), undecided cfg (4), helper fn (5), tuple struct (6), unknown release (1).
    for l in [1, 2, 4, 5, 6] {
        assert!(
            lines.contains(&l),
            "no diagnostic at line {l}: {:#?}",
            abi.diagnostics
        );
    }
    let broken = abi::read_abi("pub fn (", "broken.rs", &Release(vec![13, 2]));
    assert!(broken.functions.is_empty());
    assert!(broken.diagnostics.iter().any(|d| d.message.contains("syn")));
}

#[test]
fn json_round_trip() {
    let abi = abi_for("13.2");
    let json = serde_json::to_string(abi).expect("serialises");
    let back: Abi = serde_json::from_str(&json).expect("deserialises");
    assert_eq!(&back, abi);
}

#[test]
fn locate_errors_say_what_to_do() {
    let missing = abi::locate_cudarc_runtime(std::path::Path::new("/nonexistent/Cargo.toml"))
        .expect_err("no manifest there");
    assert!(
        matches!(missing, abi::LocateError::Metadata { .. }),
        "{missing:?}"
    );
    assert!(missing.to_string().contains("cargo metadata"), "{missing}");

    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("abi-no-cudarc");
    std::fs::create_dir_all(dir.join("src")).expect("temp dir");
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"no-cudarc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .expect("temp manifest");
    std::fs::write(dir.join("src/lib.rs"), "").expect("temp lib");
    let err = abi::locate_cudarc_runtime(&dir.join("Cargo.toml"))
        .expect_err("cudarc is not a dependency");
    assert!(
        matches!(err, abi::LocateError::CudarcMissing { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("xtask/Cargo.toml"), "{err}");
}

#[test]
fn newtype_enums_bitfields_and_foreign_blocks() {
    let text = r#"
#[repr(transparent)]
#[derive(Copy, Clone)]
pub struct cudaFlagThing(pub ::core::ffi::c_uint);
impl cudaFlagThing {
    pub const cudaFlagA: cudaFlagThing = cudaFlagThing(1);
    pub const cudaFlagB: cudaFlagThing = cudaFlagThing(0x10);
}
#[repr(C)]
pub struct withBits {
    pub a: ::core::ffi::c_int,
    pub _bitfield_align_1: [u32; 0],
    pub _bitfield_1: __BindgenBitfieldUnit<[u8; 4usize]>,
}
#[repr(C)]
pub struct __BindgenBitfieldUnit { _unused: [u8; 0] }
extern "C" {
    pub fn cudaThing(out: *mut *const ::core::ffi::c_char, n: usize) -> cudaFlagThing;
}
#[cfg(feature = "cuda-13020")]
pub const V: u32 = 1;
"#;
    let abi = abi::read_abi(text, "synthetic.rs", &Release(vec![13, 2]));
    let e = &abi.enums["cudaFlagThing"];
    assert!(e.newtype);
    assert_eq!(e.repr, "::core::ffi::c_uint");
    assert_eq!(e.value("cudaFlagA"), Some(1));
    assert_eq!(e.value("cudaFlagB"), Some(16));
    let r = &abi.records["withBits"];
    let unit = r
        .fields
        .iter()
        .find(|f| f.name == "_bitfield_1")
        .expect("bitfield unit kept");
    assert!(unit.bitfield_unit);
    assert_eq!(unit.ty.c_text, "uint8_t[4]");
    assert!(
        abi.diagnostics
            .iter()
            .any(|d| d.line == 13 && d.message.contains("bitfield")),
        "{:#?}",
        abi.diagnostics
    );
    let f = &abi.functions["cudaThing"];
    assert_eq!(f.params[0].ty.c_text, "const char**");
    assert_eq!(f.ret.c_text, "cudaFlagThing");
    assert_eq!(f.line, 18);
    assert_eq!(abi.constants["V"].line, 21);
}
