//! The typed layer (`cudart13::api`) against the real `libcudart.so.13` of NVIDIA's wheel, on a
//! machine without a GPU (`cargo xtask test` sets `CUDART_WHEEL_LIB`).
//!
//! The typed functions use the global library, found through `CUDART_PATH`; every test sets
//! it to the wheel's library before its first call (the same value, so the order of the
//! tests does not matter). The missing-function case runs in a child process whose
//! `CUDART_PATH` names a stand-in library built here with `cc`, which exports only
//! `cudaRuntimeGetVersion` — an honest model of an older runtime lacking a newer function.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Once;

use cudart13::api;
use cudart13::sys::cudaError_t;
use cudart13::Error;

fn wheel_lib() -> PathBuf {
    match std::env::var_os("CUDART_WHEEL_LIB") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => panic!(
            "CUDART_WHEEL_LIB is not set: run `cargo xtask test`, or run `cargo xtask \
             fetch-wheel` and set CUDART_WHEEL_LIB to the libcudart.so.13 path it prints"
        ),
    }
}

/// Points the global library at the wheel's (unless this is the stand-in child).
fn use_wheel() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("CUDART_RT_TYPED_CHILD").is_none() {
            std::env::set_var("CUDART_PATH", wheel_lib());
        }
    });
}

#[test]
fn runtime_version_through_the_typed_api() {
    use_wheel();
    let v = api::runtime_get_version().expect("runtime_get_version");
    assert_eq!(v / 1000, 13, "cudaRuntimeGetVersion gave {v}");
    let lib = cudart13::Library::get().expect("global library");
    assert_eq!(lib.runtime_version(), v);
    assert_eq!(std::path::Path::new(lib.path()), wheel_lib());
}

/// Every `cudaError_t` constant the crate knows, by scanning the value range the C enum uses.
fn known_errors() -> Vec<cudaError_t> {
    (0..=10_000u32)
        .map(cudaError_t::from_raw)
        .filter(|e| e.name().is_some())
        .collect()
}

#[test]
fn error_names_and_strings_for_every_error_constant() {
    use_wheel();
    let all = known_errors();
    assert!(all.len() > 100, "only {} error constants", all.len());
    let unrecognized = api::get_error_string(cudaError_t::from_raw(9_999))
        .expect("get_error_string")
        .to_owned();
    let mut mismatched = Vec::new();
    for e in &all {
        let expected = e.name().unwrap_or_default();
        let name = api::get_error_name(*e).expect("get_error_name");
        if name.to_str() != Ok(expected) {
            mismatched.push(format!("{expected}: library says {name:?}"));
        }
        let text = api::get_error_string(*e).expect("get_error_string");
        if text.to_bytes().is_empty() || *text == *unrecognized {
            mismatched.push(format!("{expected}: no description ({text:?})"));
        }
        // The crate's error carries the same name.
        let err = Error::from_code(e.as_raw() as i32);
        if e.as_raw() != 0 && !err.to_string().contains(expected) {
            mismatched.push(format!("{expected}: Error displays as {err}"));
        }
    }
    assert!(mismatched.is_empty(), "{}", mismatched.join("\n"));
}

#[test]
fn device_count_is_the_specific_cuda_error() {
    use_wheel();
    match api::get_device_count() {
        Err(Error::Cuda { code, name, .. }) => {
            assert!(
                code == cudaError_t::ERROR_INSUFFICIENT_DRIVER.as_raw() as i32
                    || code == cudaError_t::ERROR_NO_DEVICE.as_raw() as i32,
                "unexpected code {code} ({name:?})"
            );
            assert_eq!(name, cudaError_t::from_raw(code as u32).name());
        }
        other => panic!("expected a CUDA error without a GPU, got {other:?}"),
    }
}

#[test]
fn set_device_out_of_range_is_an_error_not_a_panic() {
    use_wheel();
    let err = api::set_device(1_000_000).expect_err("device 1000000 accepted");
    assert!(err.cuda_code().is_some(), "{err}");
}

/// Run by `a_function_the_library_lacks_is_the_loaders_error` with `CUDART_PATH` naming
/// the stand-in library.
#[test]
#[ignore = "run in a child process by a_function_the_library_lacks_is_the_loaders_error"]
fn child_typed_call_of_a_missing_function() {
    assert!(std::env::var_os("CUDART_RT_TYPED_CHILD").is_some());
    // The stand-in is a runtime as far as the loader can tell: it answers the version.
    assert_eq!(api::runtime_get_version().ok(), Some(13_000));
    match api::get_device_count() {
        Err(Error::SymbolNotFound {
            symbol,
            library,
            version,
        }) => {
            assert_eq!(symbol, "cudaGetDeviceCount");
            assert!(library.ends_with("libcudart_standin.so"), "{library}");
            assert_eq!(version, Some(13_000));
        }
        other => panic!("expected SymbolNotFound, got {other:?}"),
    }
}

#[test]
fn a_function_the_library_lacks_is_the_loaders_error() {
    let dir = std::env::temp_dir().join(format!("cudart-rt-typed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let src = dir.join("standin.c");
    let lib = dir.join("libcudart_standin.so");
    std::fs::write(
        &src,
        "int cudaRuntimeGetVersion(int *v) { *v = 13000; return 0; }\n",
    )
    .expect("write C source");
    let cc = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .output()
        .expect("running cc (a C compiler is needed to build the stand-in library)");
    assert!(
        cc.status.success(),
        "cc failed: {}",
        String::from_utf8_lossy(&cc.stderr)
    );
    workspace_tests::child::run("typed_cpu::child_typed_call_of_a_missing_function", |cmd| {
        cmd.env("CUDART_RT_TYPED_CHILD", "1")
            .env("CUDART_PATH", &lib);
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// The typed layer's additions that need no GPU: constants typed from C macros, the inline
/// helpers, const handles, record accessors, attribute values, and the two-call and list
/// wrappers failing with an error (no device) rather than panicking.
#[test]
fn typed_constants_records_and_list_wrappers_without_a_gpu() {
    use api::{
        cudaArray_const_t, cudaArray_t, cudaDevResource, cudaDeviceProp, cudaGraphNodeParams,
        cudaGraph_t, cudaLaunchAttributeID, cudaMemPoolAttr, cudaStream_t, MemPoolAttrValue,
    };
    use_wheel();
    // C macros, typed: stream handles, device ordinals, attribute ids.
    let legacy: cudaStream_t = api::cudaStreamLegacy;
    assert_eq!(legacy.0 as usize, 1);
    assert_eq!(api::cudaStreamPerThread.0 as usize, 2);
    let cpu: i32 = api::cudaCpuDeviceId;
    assert_eq!((cpu, api::cudaInvalidDeviceId), (-1, -2));
    let id: cudaLaunchAttributeID = api::cudaStreamAttributePriority;
    assert_eq!(id, cudaLaunchAttributeID::PRIORITY);
    assert_eq!(
        api::cudaKernelNodeAttributeAccessPolicyWindow,
        cudaLaunchAttributeID::ACCESS_POLICY_WINDOW
    );
    // The headers' inline helpers.
    let e = api::make_cuda_extent(4, 5, 6);
    assert_eq!((e.width, e.height, e.depth), (4, 5, 6));
    // A handle converts to its const form without a cast.
    let a = cudaArray_t(8usize as *mut _);
    let c: cudaArray_const_t = a.into();
    assert_eq!(c.0 as usize, 8);
    // Records: Debug, string fields, named union members.
    let mut prop = cudaDeviceProp::default();
    assert_eq!(prop.name_str(), Some(""));
    prop.name[..3].copy_from_slice(&[b'G' as _, b'P' as _, b'U' as _]);
    assert_eq!(prop.name_str(), Some("GPU"));
    prop.name.fill(b'x' as _);
    assert_eq!(prop.name_cstr(), None, "no NUL: no string");
    assert!(format!("{:?}", api::make_cuda_pos(1, 2, 3)).contains("y: 2"));
    let mut params = cudaGraphNodeParams::default();
    params.set_graph(api::cudaChildGraphNodeParams {
        graph: cudaGraph_t(16usize as *mut _),
        ..Default::default()
    });
    // SAFETY: `graph` is the member just written.
    assert_eq!(unsafe { params.graph() }.graph.0 as usize, 16);
    assert_eq!(
        MemPoolAttrValue::AttrReleaseThreshold(9).attr(),
        cudaMemPoolAttr::ATTR_RELEASE_THRESHOLD
    );
    // No device: the wrappers report the CUDA error.
    let err = api::device_get_graph_mem_attribute_typed(
        0,
        api::cudaGraphMemAttributeType::USED_MEM_CURRENT,
    )
    .expect_err("no device");
    assert!(err.cuda_code().is_some(), "{err}");
    // SAFETY: with no device the runtime rejects the null resource before using it.
    let split =
        unsafe { api::dev_sm_resource_split_by_count(Some(&cudaDevResource::default()), 0, 1) };
    assert!(split.expect_err("no device").cuda_code().is_some());
}
