//! The peer projects' runtime tests, ported to the typed layer (`cudart13::api`) only.
//!
//! Sources (read, then rewritten in Rust; one test here per test there, named after it):
//! - cuda-python `cuda_bindings/tests/test_cudart.py` (`cudart_*`, `cuda_*` tests below),
//! - cuda-python `cuda_bindings/tests/cython/test_ccudart.pyx` (`ccudart_*`),
//! - cuda-python `cuda_bindings/tests/test_graphics_apis.py` (`graphics_*`): the headless part;
//!   `test_cuda_gl_register_image_smoketest` needs a current OpenGL context (pyglet window or
//!   EGL pbuffer) and is not ported,
//! - CuPy `tests/cupy_tests/cuda_tests/test_runtime.py` (`cupy_*`); `test_assumed_runtime_version`
//!   compares with NVRTC's version, which this crate does not bind, so it checks the runtime
//!   version against the crate's release instead.
//!
//! Tests that need a GPU are ignored off the GPU machine (`#[ignore = "needs a GPU: …"]`); the
//! few that only build records run everywhere (`cudart_make_api`'s and two others' record parts
//! are tests of their own). A module of the `gpu` binary (see [`crate`]).

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};

use cudart13::api::{self, *};
use cudart13::Error;

/// Makes device 0 current (the GPU tests are ignored off the GPU machine).
fn gpu() {
    api::set_device(0).expect("cudaSetDevice(0)");
}

fn code(c: cudaError_t) -> Option<i32> {
    Some(c.as_raw() as i32)
}

fn code_of(e: &Error) -> Option<i32> {
    e.cuda_code()
}

/// The device attribute, 0 when the query fails.
fn attribute(a: cudaDeviceAttr) -> i32 {
    api::device_get_attribute(a, 0).unwrap_or(0)
}

fn driver_at_least(version: i32) -> bool {
    api::driver_get_version().is_ok_and(|v| v >= version)
}

/// An 8-bit unsigned channel description, as most peer tests make one.
fn u8_desc() -> cudaChannelFormatDesc {
    let desc = api::create_channel_desc(8, 0, 0, 0, cudaChannelFormatKind::UNSIGNED).expect("desc");
    assert_eq!((desc.x, desc.y, desc.z, desc.w), (8, 0, 0, 0));
    assert_eq!(desc.f, cudaChannelFormatKind::UNSIGNED);
    desc
}

fn host(len: usize, value: u8) -> Vec<u8> {
    vec![value; len]
}

fn vptr(v: &mut [u8]) -> *mut c_void {
    v.as_mut_ptr().cast()
}

fn cptr(v: &[u8]) -> *const c_void {
    v.as_ptr().cast()
}

const SIZE: usize = 1024;

// ---------------------------------------------------------------- test_cudart.py

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_memcpy() {
    gpu();
    let d = api::malloc(SIZE).expect("malloc");
    let h1 = host(SIZE, 1);
    let mut h2 = host(SIZE, 2);
    assert_ne!(h1, h2);
    // SAFETY: `d` holds SIZE bytes; the host buffers hold SIZE bytes each.
    unsafe {
        api::memcpy(d, cptr(&h1), SIZE, cudaMemcpyKind::HOST_TO_DEVICE).expect("h1 to d");
        api::memcpy(vptr(&mut h2), d, SIZE, cudaMemcpyKind::DEVICE_TO_HOST).expect("d to h2");
        api::free(d).expect("free");
    }
    assert_eq!(h1, h2);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_host_register() {
    gpu();
    // Two overlapping ranges of one host buffer, as the peer test registers them.
    let page = 80usize;
    let mut buffer = host(page * 3, 1);
    let base = buffer.as_mut_ptr();
    let size = 16 * page / 8;
    let flags = HostRegisterFlags::PORTABLE | HostRegisterFlags::MAPPED;
    // SAFETY: both ranges lie inside `buffer`, which outlives the registrations.
    unsafe {
        let addr0 = base.cast::<c_void>();
        let addr1 = base.add(8 * page / 8).cast::<c_void>();
        api::host_register(addr0, size, flags).expect("register 0");
        let err = api::host_register(addr1, size, flags).expect_err("overlap");
        assert_eq!(
            code_of(&err),
            code(cudaError_t::ERROR_HOST_MEMORY_ALREADY_REGISTERED),
            "{err}"
        );
        let err = api::host_unregister(addr1).expect_err("not registered");
        assert_eq!(
            code_of(&err),
            code(cudaError_t::ERROR_INVALID_VALUE),
            "{err}"
        );
        api::host_unregister(addr0).expect("unregister 0");
    }
}

#[test]
fn cudart_class_reference() {
    // Records nest by value: a copy is a copy, a field of a field is writable in place.
    let (offset, width, height, depth) = (1u64, 4usize, 5usize, 6usize);
    let extent = api::make_cuda_extent(width, height, depth);
    let format = cudaChannelFormatDesc {
        x: 8,
        y: 0,
        z: 0,
        w: 0,
        f: cudaChannelFormatKind::SIGNED,
    };
    let mut desc = cudaExternalMemoryMipmappedArrayDesc {
        offset,
        formatDesc: format,
        extent,
        flags: 0,
        numLevels: 1,
        ..Default::default()
    };
    desc.extent.width = width + 1;
    desc.extent.height = height + 1;
    desc.extent.depth = depth + 1;
    assert_eq!(
        (desc.extent.width, desc.extent.height, desc.extent.depth),
        (5, 6, 7)
    );
    desc.formatDesc.x = 20;
    desc.formatDesc.y = 21;
    desc.formatDesc.z = 22;
    desc.formatDesc.w = 23;
    desc.formatDesc.f = cudaChannelFormatKind::FLOAT;
    assert_eq!(
        (
            desc.formatDesc.x,
            desc.formatDesc.y,
            desc.formatDesc.z,
            desc.formatDesc.w
        ),
        (20, 21, 22, 23)
    );
    assert_eq!(desc.formatDesc.f, cudaChannelFormatKind::FLOAT);
    desc.extent = extent;
    assert_eq!(
        (desc.extent.width, desc.extent.height, desc.extent.depth),
        (width, height, depth)
    );
    desc.formatDesc = format;
    assert_eq!(desc.formatDesc.x, 8);
    assert_eq!(desc.formatDesc.f, cudaChannelFormatKind::SIGNED);
    assert_eq!(desc.offset, offset);
    // Debug shows the nested fields.
    let shown = format!("{desc:?}");
    assert!(
        shown.contains("formatDesc") && shown.contains("cudaChannelFormatKindSigned"),
        "{shown}"
    );
}

/// The signal parameters the peer test builds (fence value 7, key 9, given flags).
fn signal_params(flags: u32) -> cudaExternalSemaphoreSignalParams {
    let mut p = cudaExternalSemaphoreSignalParams::default();
    p.params.fence.value = 7;
    p.params.nvSciSync.fence = 999usize as *mut c_void;
    p.params.keyedMutex.key = 9;
    p.flags = flags;
    p
}

/// The record part of `cudart_class_inline` and `cudart_get_device_properties`, which need a
/// GPU for the rest: it runs everywhere.
#[test]
fn semaphore_node_params_build_everywhere() {
    semaphore_node_params();
}

fn semaphore_node_params() {
    let mut sems = [
        cudaExternalSemaphore_t::null(),
        cudaExternalSemaphore_t(123usize as *mut _),
        cudaExternalSemaphore_t(999usize as *mut _),
    ];
    let a1 = signal_params(1);
    let mut a3 = signal_params(3);
    let node = cudaExternalSemaphoreSignalNodeParams {
        extSemArray: sems.as_mut_ptr(),
        paramsArray: &a1,
        numExtSems: 3,
    };
    // Setting is by value: changing `a3` afterwards changes nothing the node holds.
    a3.params.fence.value = 4;
    a3.flags = 4;
    // SAFETY: `paramsArray` points at `a1`, alive here.
    let first = unsafe { *node.paramsArray };
    assert_eq!(first.params.fence.value, 7);
    assert_eq!(first.params.keyedMutex.key, 9);
    assert_eq!(first.flags, 1);
    assert_eq!(a3.flags, 4);
    assert_eq!(node.numExtSems, 3);
    // SAFETY: `extSemArray` points at the three handles of `sems`.
    let third = unsafe { *node.extSemArray.add(2) };
    assert_eq!(third.0 as usize, 999);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_class_inline() {
    semaphore_node_params();
    gpu();
    if attribute(cudaDeviceAttr::SPARSE_CUDA_ARRAY_SUPPORTED) == 0 {
        println!("skipped: no sparse CUDA arrays on device 0");
        return;
    }
    let extent = api::make_cuda_extent(1000, 500, 0);
    let desc = cudaChannelFormatDesc {
        x: 32,
        y: 32,
        z: 32,
        w: 32,
        f: cudaChannelFormatKind::FLOAT,
    };
    let levels = 1 + (extent.width.max(extent.height) as f64).log2() as u32;
    let mipmap = api::malloc_mipmapped_array(&desc, extent, levels, ArrayFlags::SPARSE)
        .expect("sparse mipmapped array");
    // SAFETY: `mipmap` is live until freed below.
    unsafe {
        let mut sparse = api::mipmapped_array_get_sparse_properties(mipmap).expect("sparse");
        assert_eq!(
            (
                sparse.tileExtent.width,
                sparse.tileExtent.height,
                sparse.tileExtent.depth
            ),
            (64, 64, 1)
        );
        let mut other = cudaArraySparseProperties::default();
        other.tileExtent.width = 15;
        other.tileExtent.height = 16;
        other.tileExtent.depth = 17;
        sparse.tileExtent = other.tileExtent;
        assert_eq!(
            (
                sparse.tileExtent.width,
                sparse.tileExtent.height,
                sparse.tileExtent.depth
            ),
            (15, 16, 17)
        );
        assert_eq!(sparse.miptailFirstLevel, 3);
        assert_eq!(sparse.miptailSize, 196_608);
        assert_eq!(sparse.flags, 0);
        api::free_mipmapped_array(mipmap).expect("free");
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_graphs() {
    gpu();
    let graph = api::graph_create(0).expect("graph");
    // SAFETY: the graph and its nodes are live until the graph is destroyed.
    unsafe {
        let n0 = api::graph_add_empty_node(graph, &[]).expect("node 0");
        let n1 = api::graph_add_empty_node(graph, &[n0]).expect("node 1");
        let n2 = api::graph_add_empty_node(graph, &[n0, n1]).expect("node 2");
        let nodes = api::graph_get_nodes(graph).expect("nodes");
        assert_eq!(nodes.len(), 3);
        for n in [n0, n1, n2] {
            assert!(nodes.contains(&n));
        }
        api::graph_destroy(graph).expect("destroy");
    }
    // The special stream handles are documented constants, typed as streams.
    assert_eq!(cudaStreamLegacy.0 as usize, 1);
    assert_eq!(cudaStreamPerThread.0 as usize, 2);
    // SAFETY: the special handles are valid streams for synchronisation.
    unsafe {
        api::stream_synchronize(cudaStreamLegacy).expect("legacy stream");
        api::stream_synchronize(cudaStreamPerThread).expect("per-thread stream");
    }
    let s = api::stream_create_with_flags(StreamFlags::NON_BLOCKING).expect("stream");
    // SAFETY: `s` is live until destroyed.
    unsafe {
        assert_eq!(
            api::stream_get_flags(s).expect("flags"),
            StreamFlags::NON_BLOCKING
        );
        api::stream_destroy(s).expect("destroy");
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_list_access() {
    gpu();
    let mut prop = api::get_device_properties(0).expect("properties");
    let name = prop
        .name_str()
        .expect("NUL-terminated UTF-8 name")
        .to_string();
    assert!(!name.is_empty());
    // Pad the name with spaces to the array's length but one (keeping the NUL).
    for c in prop.name.iter_mut().skip(name.len()).take(255 - name.len()) {
        *c = b' ' as _;
    }
    prop.name[255] = 0;
    let padded = prop.name_str().expect("padded name");
    assert_eq!(padded.len(), 255);
    assert!(padded.starts_with(&name));
}

#[test]
fn cudart_class_setters() {
    let mut dim = dim3 { x: 0, y: 0, z: 0 };
    dim.x = 1;
    dim.y = 2;
    dim.z = 3;
    assert_eq!((dim.x, dim.y, dim.z), (1, 2, 3));
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_both_type() {
    gpu();
    let exchange = |m: cudaStreamCaptureMode| {
        let mut mode = m;
        api::thread_exchange_stream_capture_mode(&mut mode).expect("exchange");
        mode
    };
    exchange(cudaStreamCaptureMode::GLOBAL);
    assert_eq!(
        exchange(cudaStreamCaptureMode::RELAXED),
        cudaStreamCaptureMode::GLOBAL
    );
    assert_eq!(
        exchange(cudaStreamCaptureMode::THREAD_LOCAL),
        cudaStreamCaptureMode::RELAXED
    );
    assert_eq!(
        exchange(cudaStreamCaptureMode::GLOBAL),
        cudaStreamCaptureMode::THREAD_LOCAL
    );
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_get_device_properties() {
    semaphore_node_params();
    gpu();
    let prop = api::get_device_properties(0).expect("properties");
    // The fields the peer test lists exist (this compiles) and hold device values.
    let _ = (
        prop.luid,
        prop.luidDeviceNodeMask,
        prop.sharedMemPerBlock,
        prop.regsPerBlock,
        prop.memPitch,
        prop.maxThreadsDim,
        prop.maxGridSize,
        prop.totalConstMem,
        prop.textureAlignment,
        prop.texturePitchAlignment,
        prop.integrated,
        prop.canMapHostMemory,
        prop.maxTexture1D,
        prop.maxTexture1DMipmap,
        prop.maxTexture2D,
        prop.maxTexture2DMipmap,
        prop.maxTexture2DLinear,
        prop.maxTexture2DGather,
        prop.maxTexture3D,
        prop.maxTexture3DAlt,
        prop.maxTextureCubemap,
        prop.maxTexture1DLayered,
        prop.maxTexture2DLayered,
        prop.maxTextureCubemapLayered,
    );
    let _ = (
        prop.maxSurface1D,
        prop.maxSurface2D,
        prop.maxSurface3D,
        prop.maxSurface1DLayered,
        prop.maxSurface2DLayered,
        prop.maxSurfaceCubemap,
        prop.maxSurfaceCubemapLayered,
        prop.surfaceAlignment,
        prop.concurrentKernels,
        prop.ECCEnabled,
        prop.pciBusID,
        prop.pciDeviceID,
        prop.pciDomainID,
        prop.tccDriver,
        prop.asyncEngineCount,
        prop.unifiedAddressing,
        prop.memoryBusWidth,
        prop.l2CacheSize,
        prop.persistingL2CacheMaxSize,
        prop.maxThreadsPerMultiProcessor,
        prop.streamPrioritiesSupported,
        prop.globalL1CacheSupported,
        prop.localL1CacheSupported,
        prop.sharedMemPerMultiprocessor,
    );
    let _ = (
        prop.regsPerMultiprocessor,
        prop.managedMemory,
        prop.isMultiGpuBoard,
        prop.multiGpuBoardGroupID,
        prop.hostNativeAtomicSupported,
        prop.pageableMemoryAccess,
        prop.concurrentManagedAccess,
        prop.computePreemptionSupported,
        prop.canUseHostPointerForRegisteredMem,
        prop.cooperativeLaunch,
        prop.sharedMemPerBlockOptin,
        prop.pageableMemoryAccessUsesHostPageTables,
        prop.directManagedMemAccessFromHost,
        prop.maxBlocksPerMultiProcessor,
        prop.accessPolicyMaxWindowSize,
        prop.reservedSharedMemPerBlock,
        prop.hostRegisterSupported,
        prop.sparseCudaArraySupported,
        prop.hostRegisterReadOnlySupported,
        prop.timelineSemaphoreInteropSupported,
        prop.memoryPoolsSupported,
        prop.gpuDirectRDMASupported,
        prop.gpuDirectRDMAFlushWritesOptions,
        prop.gpuDirectRDMAWritesOrdering,
    );
    let _ = (
        prop.memoryPoolSupportedHandleTypes,
        prop.deferredMappingCudaArraySupported,
        prop.ipcEventSupported,
        prop.clusterLaunch,
        prop.unifiedFunctionPointers,
        prop.deviceNumaConfig,
        prop.deviceNumaId,
        prop.mpsEnabled,
        prop.hostNumaId,
        prop.gpuPciDeviceID,
        prop.gpuPciSubsystemID,
        prop.hostNumaMultinodeIpcSupported,
    );
    assert!(!prop.name_str().expect("name").is_empty());
    assert!(prop.uuid.bytes.iter().any(|b| *b != 0), "{:?}", prop.uuid);
    assert!(prop.warpSize == 32 && prop.maxThreadsPerBlock >= 1024);
    assert!(prop.totalGlobalMem > 0 && prop.multiProcessorCount > 0);
    assert!(prop.major >= 7, "sm_{}{}", prop.major, prop.minor);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_mem_pool_attr() {
    gpu();
    if !driver_at_least(11030) || attribute(cudaDeviceAttr::MEMORY_POOLS_SUPPORTED) == 0 {
        println!("skipped: no memory pools");
        return;
    }
    let props = cudaMemPoolProps {
        allocType: cudaMemAllocationType::PINNED,
        location: device0(),
        ..Default::default()
    };
    // SAFETY: the pool is live until destroyed.
    unsafe {
        let pool = api::mem_pool_create(&props).expect("pool");
        let get = |a: cudaMemPoolAttr| api::mem_pool_get_attribute_typed(pool, a).expect("get");
        let reuse = [
            cudaMemPoolAttr::REUSE_FOLLOW_EVENT_DEPENDENCIES,
            cudaMemPoolAttr::REUSE_ALLOW_OPPORTUNISTIC,
            cudaMemPoolAttr::REUSE_ALLOW_INTERNAL_DEPENDENCIES,
        ];
        // Each value comes back with the type the documentation states for its attribute.
        for a in reuse {
            let v = get(a);
            assert_eq!(v.attr(), a);
            assert!(
                matches!(
                    v,
                    MemPoolAttrValue::ReuseFollowEventDependencies(0 | 1)
                        | MemPoolAttrValue::ReuseAllowOpportunistic(0 | 1)
                        | MemPoolAttrValue::ReuseAllowInternalDependencies(0 | 1)
                ),
                "{v:?}"
            );
        }
        for a in [
            cudaMemPoolAttr::ATTR_RELEASE_THRESHOLD,
            cudaMemPoolAttr::ATTR_RESERVED_MEM_CURRENT,
            cudaMemPoolAttr::ATTR_RESERVED_MEM_HIGH,
            cudaMemPoolAttr::ATTR_USED_MEM_CURRENT,
            cudaMemPoolAttr::ATTR_USED_MEM_HIGH,
        ] {
            assert_eq!(get(a).attr(), a);
        }
        api::mem_pool_set_attribute_typed(pool, MemPoolAttrValue::ReuseFollowEventDependencies(0))
            .expect("set");
        api::mem_pool_set_attribute_typed(pool, MemPoolAttrValue::ReuseAllowOpportunistic(0))
            .expect("set");
        api::mem_pool_set_attribute_typed(
            pool,
            MemPoolAttrValue::ReuseAllowInternalDependencies(0),
        )
        .expect("set");
        api::mem_pool_set_attribute_typed(pool, MemPoolAttrValue::AttrReleaseThreshold(9))
            .expect("set threshold");
        assert_eq!(
            get(cudaMemPoolAttr::REUSE_FOLLOW_EVENT_DEPENDENCIES),
            MemPoolAttrValue::ReuseFollowEventDependencies(0)
        );
        assert_eq!(
            get(cudaMemPoolAttr::REUSE_ALLOW_OPPORTUNISTIC),
            MemPoolAttrValue::ReuseAllowOpportunistic(0)
        );
        assert_eq!(
            get(cudaMemPoolAttr::REUSE_ALLOW_INTERNAL_DEPENDENCIES),
            MemPoolAttrValue::ReuseAllowInternalDependencies(0)
        );
        assert_eq!(
            get(cudaMemPoolAttr::ATTR_RELEASE_THRESHOLD),
            MemPoolAttrValue::AttrReleaseThreshold(9)
        );
        // The raw `void*` form agrees with the typed one.
        let mut raw: u64 = 0;
        api::mem_pool_get_attribute(
            pool,
            cudaMemPoolAttr::ATTR_RELEASE_THRESHOLD,
            std::ptr::from_mut(&mut raw).cast(),
        )
        .expect("raw get");
        assert_eq!(raw, 9);
        api::mem_pool_destroy(pool).expect("destroy");
    }
}

#[test]
fn cudart_make_api() {
    let p = api::make_cuda_pitched_ptr(std::ptr::dangling_mut::<c_void>(), 2, 3, 4);
    assert_eq!(
        (p.ptr, p.pitch, p.xsize, p.ysize),
        (std::ptr::dangling_mut::<c_void>(), 2, 3, 4)
    );
    let pos = api::make_cuda_pos(1, 2, 3);
    assert_eq!((pos.x, pos.y, pos.z), (1, 2, 3));
    let e = api::make_cuda_extent(1, 2, 3);
    assert_eq!((e.width, e.height, e.depth), (1, 2, 3));
}

/// The GPU part of `cudart_make_api`: a channel description made by the runtime.
#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_make_api_channel_desc() {
    gpu();
    let desc = api::create_channel_desc(32, 0, 0, 0, cudaChannelFormatKind::FLOAT).expect("desc");
    assert_eq!((desc.x, desc.y, desc.z, desc.w), (32, 0, 0, 0));
    assert_eq!(desc.f, cudaChannelFormatKind::FLOAT);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_stream_get_capture_info() {
    gpu();
    let stream = api::stream_create().expect("stream");
    // SAFETY: `stream` is live until destroyed; the captured graph is destroyed.
    unsafe {
        let (status, _, _, deps, edges) = api::stream_get_capture_info(stream).expect("info");
        assert_eq!(status, cudaStreamCaptureStatus::NONE);
        assert!(deps.is_empty() && edges.is_empty());
        api::stream_begin_capture(stream, cudaStreamCaptureMode::GLOBAL).expect("begin");
        let (status, id, graph, deps, _) = api::stream_get_capture_info(stream).expect("info");
        assert_eq!(status, cudaStreamCaptureStatus::ACTIVE);
        assert!(id > 0 && !graph.is_null());
        assert!(
            deps.is_empty(),
            "{} dependencies before any work",
            deps.len()
        );
        let captured = api::stream_end_capture(stream).expect("end");
        assert!(!captured.is_null());
        api::graph_destroy(captured).expect("destroy graph");
        api::stream_destroy(stream).expect("destroy");
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_array_get_info() {
    gpu();
    let desc = u8_desc();
    let (width, height) = (10, 0);
    let in_flags = ArrayFlags::empty();
    let arr = api::malloc_array(&desc, width, height, in_flags).expect("array");
    // SAFETY: `arr` is live until freed.
    unsafe {
        let (out, extent, out_flags) = api::array_get_info(arr).expect("info");
        assert_eq!((out.x, out.y, out.z, out.w, out.f), (8, 0, 0, 0, desc.f));
        assert_eq!((extent.width, extent.height), (width, height));
        assert_eq!(out_flags, in_flags);
        api::free_array(arr).expect("free");
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_memcpy2d_to_array() {
    gpu();
    let h1 = host(SIZE, 1);
    let mut h2 = host(SIZE, 2);
    let arr = api::malloc_array(&u8_desc(), SIZE, 0, ArrayFlags::empty()).expect("array");
    // SAFETY: the array holds SIZE bytes in one row; the host buffers hold SIZE bytes.
    unsafe {
        let k = cudaMemcpyKind::HOST_TO_DEVICE;
        api::memcpy2d_to_array(arr, 0, 0, cptr(&h1), SIZE, SIZE, 1, k).expect("to array");
        let k = cudaMemcpyKind::DEVICE_TO_HOST;
        api::memcpy2d_from_array(vptr(&mut h2), SIZE, arr.into(), 0, 0, SIZE, 1, k)
            .expect("from array");
        api::free_array(arr).expect("free");
    }
    assert_eq!(h1, h2);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_memcpy2d_to_array_dtod() {
    gpu();
    let d1 = api::malloc(SIZE).expect("d1");
    let d2 = api::malloc(SIZE).expect("d2");
    let h1 = host(SIZE, 1);
    let mut h2 = host(SIZE, 2);
    let arr = api::malloc_array(&u8_desc(), SIZE, 0, ArrayFlags::empty()).expect("array");
    // SAFETY: every buffer and the array hold SIZE bytes.
    unsafe {
        let dd = cudaMemcpyKind::DEVICE_TO_DEVICE;
        api::memcpy(d1, cptr(&h1), SIZE, cudaMemcpyKind::HOST_TO_DEVICE).expect("h1 to d1");
        api::memcpy2d_to_array(arr, 0, 0, d1, SIZE, SIZE, 1, dd).expect("d1 to arr");
        // Zeroed first: compute-sanitizer's initcheck does not count a copy out of a CUDA
        // array as initialising `d2` (the data check below shows the copy wrote it).
        api::memset(d2, 0, SIZE).expect("zero d2");
        api::memcpy2d_from_array(d2, SIZE, arr.into(), 0, 0, SIZE, 1, dd).expect("arr to d2");
        api::memcpy(vptr(&mut h2), d2, SIZE, cudaMemcpyKind::DEVICE_TO_HOST).expect("d2 to h2");
        api::free_array(arr).expect("free array");
        api::free(d2).expect("free d2");
        api::free(d1).expect("free d1");
    }
    assert_eq!(h1, h2);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_memcpy2d_array_to_array() {
    gpu();
    let h1 = host(SIZE, 1);
    let mut h2 = host(SIZE, 2);
    let desc = u8_desc();
    let a1 = api::malloc_array(&desc, SIZE, 0, ArrayFlags::empty()).expect("a1");
    let a2 = api::malloc_array(&desc, SIZE, 0, ArrayFlags::empty()).expect("a2");
    // SAFETY: both arrays and both host buffers hold SIZE bytes.
    unsafe {
        let hd = cudaMemcpyKind::HOST_TO_DEVICE;
        let dd = cudaMemcpyKind::DEVICE_TO_DEVICE;
        let dh = cudaMemcpyKind::DEVICE_TO_HOST;
        api::memcpy2d_to_array(a1, 0, 0, cptr(&h1), SIZE, SIZE, 1, hd).expect("h1 to a1");
        api::memcpy2d_array_to_array(a2, 0, 0, a1.into(), 0, 0, SIZE, 1, dd).expect("a1 to a2");
        api::memcpy2d_from_array(vptr(&mut h2), SIZE, a2.into(), 0, 0, SIZE, 1, dh)
            .expect("a2 to h2");
        api::free_array(a2).expect("free a2");
        api::free_array(a1).expect("free a1");
    }
    assert_eq!(h1, h2);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_memcpy_array_to_array() {
    gpu();
    let h1 = host(SIZE, 1);
    let mut h2 = host(SIZE, 2);
    let desc = u8_desc();
    let a1 = api::malloc_array(&desc, SIZE, 0, ArrayFlags::empty()).expect("a1");
    let a2 = api::malloc_array(&desc, SIZE, 0, ArrayFlags::empty()).expect("a2");
    // SAFETY: both arrays and both host buffers hold SIZE bytes.
    unsafe {
        let hd = cudaMemcpyKind::HOST_TO_DEVICE;
        let dd = cudaMemcpyKind::DEVICE_TO_DEVICE;
        let dh = cudaMemcpyKind::DEVICE_TO_HOST;
        api::memcpy2d_to_array(a1, 0, 0, cptr(&h1), SIZE, SIZE, 1, hd).expect("h1 to a1");
        api::memcpy_array_to_array(a2, 0, 0, a1.into(), 0, 0, SIZE, dd).expect("a1 to a2");
        api::memcpy2d_from_array(vptr(&mut h2), SIZE, a2.into(), 0, 0, SIZE, 1, dh)
            .expect("a2 to h2");
        api::free_array(a2).expect("free a2");
        api::free_array(a1).expect("free a1");
    }
    assert_eq!(h1, h2);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_get_channel_desc() {
    gpu();
    let desc = u8_desc();
    let arr = api::malloc_array(&desc, 10, 0, ArrayFlags::empty()).expect("array");
    // SAFETY: `arr` is live until freed.
    unsafe {
        let got = api::get_channel_desc(arr.into()).expect("channel desc");
        assert_eq!((got.x, got.y, got.z, got.w, got.f), (8, 0, 0, 0, desc.f));
        api::free_array(arr).expect("free");
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_get_texture_object_texture_desc() {
    gpu();
    let arr = api::malloc_array(&u8_desc(), 1024, 0, ArrayFlags::empty()).expect("array");
    let mut res = cudaResourceDesc {
        resType: cudaResourceType::ARRAY,
        ..Default::default()
    };
    res.res.array.array = arr;
    let tex_in = cudaTextureDesc::default();
    // SAFETY: the resource names a live array; the texture is destroyed before it is freed.
    unsafe {
        // No resource view: the documentation says it is optional.
        let tex = api::create_texture_object(&res, &tex_in, None).expect("texture object");
        let out = api::get_texture_object_texture_desc(tex).expect("texture desc");
        assert_eq!(out.addressMode, tex_in.addressMode);
        assert_eq!(out.filterMode, tex_in.filterMode);
        assert_eq!(out.readMode, tex_in.readMode);
        assert_eq!(out.sRGB, tex_in.sRGB);
        assert_eq!(out.normalizedCoords, tex_in.normalizedCoords);
        assert_eq!(out.maxAnisotropy, tex_in.maxAnisotropy);
        assert_eq!(out.mipmapFilterMode, tex_in.mipmapFilterMode);
        assert_eq!(out.mipmapLevelBias, tex_in.mipmapLevelBias);
        assert_eq!(out.minMipmapLevelClamp, tex_in.minMipmapLevelClamp);
        assert_eq!(out.maxMipmapLevelClamp, tex_in.maxMipmapLevelClamp);
        assert_eq!(
            out.disableTrilinearOptimization,
            tex_in.disableTrilinearOptimization
        );
        assert_eq!(out.seamlessCubemap, tex_in.seamlessCubemap);
        api::destroy_texture_object(tex).expect("destroy texture");
        api::free_array(arr).expect("free");
    }
}

fn memset3d(alloc: cudaExtent, set_width: Option<usize>, check: usize) {
    let h1 = host(check, 1);
    let mut h2 = host(check, 2);
    let pitched = api::malloc3d(alloc).expect("malloc3d");
    assert!(pitched.pitch >= alloc.width && !pitched.ptr.is_null());
    let width = set_width.unwrap_or(pitched.pitch);
    let extent = api::make_cuda_extent(width, pitched.ysize, 1);
    // SAFETY: the pitched allocation holds pitch × ysize bytes ≥ `check`.
    unsafe {
        api::memset3d(pitched, 1, extent).expect("memset3d");
        api::memcpy(
            vptr(&mut h2),
            pitched.ptr,
            check,
            cudaMemcpyKind::DEVICE_TO_HOST,
        )
        .expect("to host");
        api::free(pitched.ptr).expect("free");
    }
    assert_eq!(h1, h2);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_memset3d() {
    gpu();
    memset3d(api::make_cuda_extent(32, 32, 1), None, SIZE);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_memset3d_2d() {
    gpu();
    memset3d(api::make_cuda_extent(1024, 1, 1), Some(512), 512);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_memcpy_to_array() {
    gpu();
    let h1 = host(SIZE, 1);
    let mut h2 = host(SIZE, 2);
    let arr = api::malloc_array(&u8_desc(), SIZE, 0, ArrayFlags::empty()).expect("array");
    // SAFETY: the array and the host buffers hold SIZE bytes.
    unsafe {
        api::memcpy_to_array(arr, 0, 0, cptr(&h1), SIZE, cudaMemcpyKind::HOST_TO_DEVICE)
            .expect("to array");
        api::memcpy_from_array(
            vptr(&mut h2),
            arr.into(),
            0,
            0,
            SIZE,
            cudaMemcpyKind::DEVICE_TO_HOST,
        )
        .expect("from array");
        api::free_array(arr).expect("free");
    }
    assert_eq!(h1, h2);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_memcpy_to_array_dtod() {
    gpu();
    let d1 = api::malloc(SIZE).expect("d1");
    let d2 = api::malloc(SIZE).expect("d2");
    let h1 = host(SIZE, 1);
    let mut h2 = host(SIZE, 2);
    let arr = api::malloc_array(&u8_desc(), SIZE, 0, ArrayFlags::empty()).expect("array");
    // SAFETY: every buffer and the array hold SIZE bytes.
    unsafe {
        let dd = cudaMemcpyKind::DEVICE_TO_DEVICE;
        api::memcpy(d1, cptr(&h1), SIZE, cudaMemcpyKind::HOST_TO_DEVICE).expect("h1 to d1");
        api::memcpy_to_array(arr, 0, 0, d1, SIZE, dd).expect("d1 to arr");
        // Zeroed first: compute-sanitizer's initcheck does not count a copy out of a CUDA
        // array as initialising `d2` (the data check below shows the copy wrote it).
        api::memset(d2, 0, SIZE).expect("zero d2");
        api::memcpy_from_array(d2, arr.into(), 0, 0, SIZE, dd).expect("arr to d2");
        api::memcpy(vptr(&mut h2), d2, SIZE, cudaMemcpyKind::DEVICE_TO_HOST).expect("d2 to h2");
        api::free_array(arr).expect("free array");
        api::free(d2).expect("free d2");
        api::free(d1).expect("free d1");
    }
    assert_eq!(h1, h2);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_memcpy3d_async() {
    gpu();
    let mut h1 = host(SIZE, 1);
    let mut h2 = host(SIZE, 2);
    let arr = api::malloc_array(&u8_desc(), SIZE, 0, ArrayFlags::empty()).expect("array");
    let stream = api::stream_create().expect("stream");
    let params = cudaMemcpy3DParms {
        srcPtr: api::make_cuda_pitched_ptr(vptr(&mut h1), SIZE, 1, 1),
        dstArray: arr,
        extent: api::make_cuda_extent(SIZE, 1, 1),
        kind: cudaMemcpyKind::HOST_TO_DEVICE,
        ..Default::default()
    };
    // SAFETY: the copy reads SIZE bytes of `h1` into the SIZE-byte array; the stream is
    // synchronised before `h1` or the array goes away.
    unsafe {
        api::memcpy3d_async(&params, stream).expect("memcpy3d_async");
        api::stream_synchronize(stream).expect("sync");
        api::memcpy2d_from_array(
            vptr(&mut h2),
            SIZE,
            arr.into(),
            0,
            0,
            SIZE,
            1,
            cudaMemcpyKind::DEVICE_TO_HOST,
        )
        .expect("from array");
        api::stream_destroy(stream).expect("destroy stream");
        api::free_array(arr).expect("free");
    }
    assert_eq!(h1, h2);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_graph_add_memcpy_node1d() {
    gpu();
    let d = api::malloc(SIZE).expect("malloc");
    let h1 = host(SIZE, 1);
    let mut h2 = host(SIZE, 2);
    let graph = api::graph_create(0).expect("graph");
    // SAFETY: the nodes copy SIZE bytes between SIZE-byte buffers that outlive the launch,
    // which is synchronised.
    unsafe {
        let hd = cudaMemcpyKind::HOST_TO_DEVICE;
        let dh = cudaMemcpyKind::DEVICE_TO_HOST;
        let to_d =
            api::graph_add_memcpy_node1d(graph, &[], d, cptr(&h1), SIZE, hd).expect("h to d");
        api::graph_add_memcpy_node1d(graph, &[to_d], vptr(&mut h2), d, SIZE, dh).expect("d to h");
        let stream = api::stream_create().expect("stream");
        let exec = api::graph_instantiate(graph, 0).expect("instantiate");
        api::graph_launch(exec, stream).expect("launch");
        api::stream_synchronize(stream).expect("sync");
        api::graph_exec_destroy(exec).expect("destroy exec");
        api::graph_destroy(graph).expect("destroy graph");
        api::stream_destroy(stream).expect("destroy stream");
        api::free(d).expect("free");
    }
    assert_eq!(h1, h2);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_graph_add_memset_node() {
    gpu();
    let d = api::malloc(SIZE).expect("malloc");
    let h1 = host(SIZE, 1);
    let mut h2 = host(SIZE, 2);
    let graph = api::graph_create(0).expect("graph");
    let params = cudaMemsetParams {
        dst: d,
        pitch: SIZE,
        value: 1,
        elementSize: 1,
        width: SIZE,
        height: 1,
    };
    // SAFETY: the memset writes the SIZE bytes of `d`; the copy reads them into `h2`; the
    // launch is synchronised before the buffers go away.
    unsafe {
        let set = api::graph_add_memset_node(graph, &[], &params).expect("memset");
        api::graph_add_memcpy_node1d(
            graph,
            &[set],
            vptr(&mut h2),
            d,
            SIZE,
            cudaMemcpyKind::DEVICE_TO_HOST,
        )
        .expect("copy");
        let stream = api::stream_create().expect("stream");
        let exec = api::graph_instantiate(graph, 0).expect("instantiate");
        api::graph_launch(exec, stream).expect("launch");
        api::stream_synchronize(stream).expect("sync");
        api::graph_exec_destroy(exec).expect("destroy exec");
        api::graph_destroy(graph).expect("destroy graph");
        api::stream_destroy(stream).expect("destroy stream");
        api::free(d).expect("free");
    }
    assert_eq!(h1, h2);
}

fn memcpy3d_peer(asynchronous: bool) {
    let d = api::malloc(SIZE).expect("malloc");
    let h1 = host(SIZE, 1);
    let mut h2 = host(SIZE, 2);
    let arr = api::malloc_array(&u8_desc(), SIZE, 0, ArrayFlags::empty()).expect("array");
    let params = cudaMemcpy3DPeerParms {
        srcPtr: api::make_cuda_pitched_ptr(d, SIZE, 1, 1),
        dstArray: arr,
        extent: api::make_cuda_extent(SIZE, 1, 1),
        ..Default::default()
    };
    // SAFETY: the copies move SIZE bytes between SIZE-byte buffers and the array; the
    // asynchronous one is synchronised.
    unsafe {
        api::memcpy(d, cptr(&h1), SIZE, cudaMemcpyKind::HOST_TO_DEVICE).expect("h1 to d");
        if asynchronous {
            let stream = api::stream_create().expect("stream");
            api::memcpy3d_peer_async(&params, stream).expect("peer async");
            api::stream_synchronize(stream).expect("sync");
            api::stream_destroy(stream).expect("destroy stream");
        } else {
            api::memcpy3d_peer(&params).expect("peer");
        }
        api::memcpy2d_from_array(
            vptr(&mut h2),
            SIZE,
            arr.into(),
            0,
            0,
            SIZE,
            1,
            cudaMemcpyKind::DEVICE_TO_HOST,
        )
        .expect("from array");
        api::free_array(arr).expect("free array");
        api::free(d).expect("free");
    }
    assert_eq!(h1, h2);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_memcpy3d_peer() {
    gpu();
    memcpy3d_peer(false);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_memcpy3d_peer_async() {
    gpu();
    memcpy3d_peer(true);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_profiler() {
    gpu();
    api::profiler_start().expect("start");
    api::profiler_stop().expect("stop");
}

#[test]
fn cudart_egl_frame() {
    // A frame's plane arrays and pitched pointers are plain fields, copied by value.
    let mut frame = cudaEglFrame::default();
    // SAFETY: a zeroed frame's union reads as null handles and zero pitched pointers.
    let arrays = unsafe { frame.frame.pArray };
    assert!(arrays.iter().all(|a| a.is_null()));
    frame.frame.pArray = [1usize, 2, 3].map(|v| cudaArray_t(v as *mut _));
    // SAFETY: `pArray` was written last.
    let arrays = unsafe { frame.frame.pArray };
    assert_eq!(arrays.map(|a| a.0 as usize), [1, 2, 3]);
    assert_eq!(CUDA_EGL_MAX_PLANES, 3);
    assert_eq!(arrays.len(), CUDA_EGL_MAX_PLANES as usize);
    let mut x = cudaPitchedPtr {
        pitch: 123,
        ..Default::default()
    };
    frame.frame.pPitch = [x, x, x];
    x.pitch = 1234;
    // SAFETY: `pPitch` was written last.
    let pitches = unsafe { frame.frame.pPitch };
    assert!(pitches
        .iter()
        .all(|p| p.pitch == 123 && p.ptr.is_null() && p.xsize == 0 && p.ysize == 0));
    assert_eq!(x.pitch, 1234);
}

#[repr(C)]
struct Triple {
    a: i32,
    b: i32,
    c: i32,
    seen: AtomicU32,
}

unsafe extern "C" fn host_fn(user_data: *mut c_void) {
    // SAFETY: the test passes a `Triple` that outlives the synchronisation.
    let t = unsafe { &*user_data.cast::<Triple>() };
    if (t.a, t.b, t.c) == (1, 2, 3) {
        t.seen.fetch_add(1, Ordering::SeqCst);
    }
}

unsafe extern "C" fn stream_callback(_: cudaStream_t, status: cudaError_t, user_data: *mut c_void) {
    // SAFETY: as for `host_fn`.
    let t = unsafe { &*user_data.cast::<Triple>() };
    if (t.a, t.b, t.c) == (1, 2, 3) && status == cudaError_t::SUCCESS {
        t.seen.fetch_add(10, Ordering::SeqCst);
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_func_callback() {
    gpu();
    let data = Triple {
        a: 1,
        b: 2,
        c: 3,
        seen: AtomicU32::new(0),
    };
    let user = std::ptr::from_ref(&data).cast_mut().cast::<c_void>();
    let stream = api::stream_create().expect("stream");
    // SAFETY: `data` outlives the device synchronisation after which both callbacks ran.
    unsafe {
        api::stream_add_callback(stream, Some(stream_callback), user, 0).expect("add callback");
        api::launch_host_func(stream, Some(host_fn), user).expect("host func");
        api::device_synchronize().expect("sync");
        api::stream_destroy(stream).expect("destroy");
    }
    assert_eq!(data.seen.load(Ordering::SeqCst), 11);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_conditional() {
    gpu();
    if !driver_at_least(12030) {
        println!("skipped: conditional nodes need a 12.3 driver");
        return;
    }
    let graph = api::graph_create(0).expect("graph");
    // SAFETY: the graph is live until destroyed; `phGraph_out` is written by CUDA into the
    // node parameters, which outlive the call.
    unsafe {
        let handle = api::graph_conditional_handle_create(graph, 0, 0).expect("handle");
        let mut params = cudaGraphNodeParams {
            type_: cudaGraphNodeType::CONDITIONAL,
            ..Default::default()
        };
        params.set_conditional(cudaConditionalNodeParams {
            handle,
            type_: cudaGraphConditionalNodeType::IF,
            size: 1,
            ..Default::default()
        });
        assert!(params.conditional().phGraph_out.is_null());
        api::graph_add_node(graph, &[], None, &mut params).expect("conditional node");
        let out = params.conditional().phGraph_out;
        assert!(!out.is_null());
        assert!(!(*out).is_null(), "the body graph");
        api::graph_destroy(graph).expect("destroy");
    }
}

#[test]
fn cudart_struct_pointer_comparison() {
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};
    fn hash<T: Hash>(t: T) -> u64 {
        let mut h = DefaultHasher::new();
        t.hash(&mut h);
        h.finish()
    }
    macro_rules! check {
        ($t:ident) => {{
            let a = $t(123usize as *mut _);
            let b = $t(123usize as *mut _);
            let c = $t(456usize as *mut _);
            assert_eq!(a, b);
            assert_eq!(hash(a), hash(b));
            assert_ne!(a, c);
            assert_ne!(hash(a), hash(c));
        }};
    }
    check!(cudaStream_t);
    check!(cudaEvent_t);
    check!(cudaGraph_t);
    check!(cudaGraphNode_t);
    check!(cudaGraphExec_t);
    check!(cudaMemPool_t);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cudart_get_local_runtime_version() {
    gpu();
    for _ in 0..10 {
        let v = api::runtime_get_version().expect("runtime version");
        assert!(v >= 12000, "{v}");
    }
}

fn skip_before_13_1() -> bool {
    if driver_at_least(13010) {
        false
    } else {
        println!("skipped: needs a CUDA 13.1 driver");
        true
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_graph_get_id() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    // SAFETY: both graphs are live until destroyed.
    unsafe {
        let g1 = api::graph_create(0).expect("graph 1");
        let g2 = api::graph_create(0).expect("graph 2");
        let id1 = api::graph_get_id(g1).expect("id 1");
        let id2 = api::graph_get_id(g2).expect("id 2");
        assert!(id1 > 0);
        assert_ne!(id1, id2);
        api::graph_destroy(g1).expect("destroy 1");
        api::graph_destroy(g2).expect("destroy 2");
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_graph_exec_get_id() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    // SAFETY: graphs and executables are live until destroyed.
    unsafe {
        let make = || {
            let g = api::graph_create(0).expect("graph");
            api::graph_add_empty_node(g, &[]).expect("node");
            (g, api::graph_instantiate(g, 0).expect("instantiate"))
        };
        let (g1, e1) = make();
        let (g2, e2) = make();
        let id1 = api::graph_exec_get_id(e1).expect("id 1");
        let id2 = api::graph_exec_get_id(e2).expect("id 2");
        assert!(id1 > 0);
        assert_ne!(id1, id2);
        for e in [e1, e2] {
            api::graph_exec_destroy(e).expect("destroy exec");
        }
        for g in [g1, g2] {
            api::graph_destroy(g).expect("destroy graph");
        }
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_graph_node_get_local_id() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    // SAFETY: the graph and its nodes are live until the graph is destroyed.
    unsafe {
        let g = api::graph_create(0).expect("graph");
        let n1 = api::graph_add_empty_node(g, &[]).expect("n1");
        let n2 = api::graph_add_empty_node(g, &[n1]).expect("n2");
        let n3 = api::graph_add_empty_node(g, &[n1, n2]).expect("n3");
        let ids: Vec<u32> = [n1, n2, n3]
            .iter()
            .map(|n| api::graph_node_get_local_id(*n).expect("local id"))
            .collect();
        assert!(
            ids[0] != ids[1] && ids[0] != ids[2] && ids[1] != ids[2],
            "{ids:?}"
        );
        api::graph_destroy(g).expect("destroy");
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_graph_node_get_tools_id() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    // SAFETY: the graph and its nodes are live until the graph is destroyed.
    unsafe {
        let g = api::graph_create(0).expect("graph");
        let n1 = api::graph_add_empty_node(g, &[]).expect("n1");
        let n2 = api::graph_add_empty_node(g, &[n1]).expect("n2");
        let t1 = api::graph_node_get_tools_id(n1).expect("tools id 1");
        let t2 = api::graph_node_get_tools_id(n2).expect("tools id 2");
        assert_ne!(t1, t2);
        api::graph_destroy(g).expect("destroy");
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_graph_node_get_containing_graph() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    // SAFETY: the graphs and their nodes are live until destroyed; the child graph is
    // cloned into the parent's node, so destroying both is sound.
    unsafe {
        let g = api::graph_create(0).expect("graph");
        let n = api::graph_add_empty_node(g, &[]).expect("node");
        assert_eq!(
            api::graph_node_get_containing_graph(n).expect("containing"),
            g
        );
        let child = api::graph_create(0).expect("child");
        let child_node = api::graph_add_empty_node(child, &[]).expect("child node");
        let mut params = cudaGraphNodeParams {
            type_: cudaGraphNodeType::GRAPH,
            ..Default::default()
        };
        params.set_graph(cudaChildGraphNodeParams {
            graph: child,
            ..Default::default()
        });
        if let Ok(node) = api::graph_add_node(g, &[], None, &mut params) {
            assert_eq!(
                api::graph_node_get_containing_graph(node).expect("of child node"),
                g
            );
            assert_eq!(
                api::graph_node_get_containing_graph(child_node).expect("nested"),
                child
            );
        }
        api::graph_destroy(g).expect("destroy");
        api::graph_destroy(child).expect("destroy child");
    }
}

/// Device 0's SM resource, as the green-context tests start from it.
fn sm_resource() -> cudaDevResource {
    let r = api::device_get_dev_resource(0, cudaDevResourceType::SM).expect("SM resource");
    assert_eq!(r.type_, cudaDevResourceType::SM);
    r
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_stream_get_dev_resource() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    let stream = api::stream_create().expect("stream");
    // SAFETY: `stream` is live until destroyed.
    unsafe {
        let r = api::stream_get_dev_resource(stream, cudaDevResourceType::SM).expect("resource");
        assert_eq!(r.type_, cudaDevResourceType::SM);
        // SAFETY: an SM resource holds the `sm` member.
        assert!(r.sm().smCount > 0);
        api::stream_destroy(stream).expect("destroy");
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_device_get_dev_resource() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    let r = sm_resource();
    // SAFETY: an SM resource holds the `sm` member.
    let sms = unsafe { r.sm().smCount };
    assert_eq!(sms as i32, attribute(cudaDeviceAttr::MULTI_PROCESSOR_COUNT));
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_execution_ctx_get_dev_resource() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    let ctx = api::device_get_execution_ctx(0).expect("execution context");
    assert!(!ctx.is_null());
    // SAFETY: the primary context stays alive.
    let r = unsafe { api::execution_ctx_get_dev_resource(ctx, cudaDevResourceType::SM) }
        .expect("resource");
    assert_eq!(r.type_, cudaDevResourceType::SM);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_execution_ctx_get_device() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    let ctx = api::device_get_execution_ctx(0).expect("execution context");
    // SAFETY: the primary context stays alive.
    assert_eq!(
        unsafe { api::execution_ctx_get_device(ctx) }.expect("device"),
        0
    );
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_execution_ctx_get_id() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    let ctx = api::device_get_execution_ctx(0).expect("execution context");
    let again = api::device_get_execution_ctx(0).expect("again");
    assert_eq!(ctx, again, "the same primary context");
    // SAFETY: the primary context stays alive.
    unsafe {
        let id = api::execution_ctx_get_id(ctx).expect("id");
        assert!(id > 0);
        assert_eq!(api::execution_ctx_get_id(again).expect("id again"), id);
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_dev_sm_resource_split() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    let input = sm_resource();
    let groups = [cudaDevSmResourceGroupParams {
        smCount: 4,
        coscheduledSmCount: 2,
        ..Default::default()
    }];
    let mut result = [cudaDevResource::default()];
    // SAFETY: `result` has room for one group per entry of `groups`.
    let remaining =
        unsafe { api::dev_sm_resource_split(Some(&mut result), Some(&input), 0, &groups) }
            .expect("split");
    assert_eq!(result[0].type_, cudaDevResourceType::SM);
    // SAFETY: SM resources hold the `sm` member.
    unsafe {
        let got = result[0].sm().smCount;
        assert!(got >= 4, "{got} SMs in the group");
        assert!(remaining.sm().smCount + got <= input.sm().smCount);
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_dev_sm_resource_split_by_count() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    let input = sm_resource();
    // The two-call pattern: the number of groups is asked first, then that many are made.
    // SAFETY: the input is an SM resource of device 0.
    let (groups, _remaining) =
        unsafe { api::dev_sm_resource_split_by_count(Some(&input), 0, 2) }.expect("split");
    assert!(!groups.is_empty());
    assert!(groups.iter().all(|g| g.type_ == cudaDevResourceType::SM));
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_dev_resource_generate_desc() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    let resources = [sm_resource()];
    // SAFETY: the resources come from the runtime.
    let desc = unsafe { api::dev_resource_generate_desc(&resources) }.expect("desc");
    assert!(!desc.is_null());
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_green_ctx_create() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    let resources = [sm_resource()];
    // SAFETY: the description comes from the runtime; the context is destroyed.
    unsafe {
        let desc = api::dev_resource_generate_desc(&resources).expect("desc");
        let ctx = api::green_ctx_create(desc, 0, 0).expect("green context");
        assert!(!ctx.is_null());
        assert_eq!(api::execution_ctx_get_device(ctx).expect("device"), 0);
        api::execution_ctx_destroy(ctx).expect("destroy");
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_execution_ctx_stream_create() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    let ctx = api::device_get_execution_ctx(0).expect("execution context");
    // SAFETY: the primary context stays alive; the stream is destroyed.
    unsafe {
        let stream =
            api::execution_ctx_stream_create(ctx, StreamFlags::DEFAULT, 0).expect("stream");
        assert!(!stream.is_null());
        api::stream_synchronize(stream).expect("sync");
        api::stream_destroy(stream).expect("destroy");
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cuda_graph_conditional_handle_create_v2() {
    gpu();
    if skip_before_13_1() {
        return;
    }
    let ctx = api::device_get_execution_ctx(0).expect("execution context");
    // SAFETY: the graph is live until destroyed; the context stays alive.
    unsafe {
        let g = api::graph_create(0).expect("graph");
        api::graph_conditional_handle_create_v2(g, ctx, 0, 0).expect("handle");
        api::graph_destroy(g).expect("destroy");
    }
}

// ---------------------------------------------------------------- cython/test_ccudart.pyx

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn ccudart_memcpy() {
    gpu();
    let mut h1 = [1u8; SIZE];
    let mut h2 = [2u8; SIZE];
    assert_ne!(h1, h2);
    let d = api::malloc(SIZE).expect("malloc");
    // SAFETY: `d` and both arrays hold SIZE bytes.
    unsafe {
        api::memcpy(d, vptr(&mut h1), SIZE, cudaMemcpyKind::HOST_TO_DEVICE).expect("h1 to d");
        api::memcpy(vptr(&mut h2), d, SIZE, cudaMemcpyKind::DEVICE_TO_HOST).expect("d to h2");
        api::free(d).expect("free");
    }
    assert_eq!(h1, h2);
}

#[test]
fn ccudart_interoperable() {
    // A record passed and returned by value keeps its fields.
    fn copy_and_append(d: dim3) -> dim3 {
        dim3 {
            x: d.x + 1,
            y: d.y + 1,
            z: d.z + 1,
        }
    }
    let old = dim3 { x: 1, y: 2, z: 3 };
    let new = copy_and_append(old);
    assert_eq!((new.x, new.y, new.z), (2, 3, 4));
    // Enumerators are values of their enum type.
    let none = cudaMemAllocationHandleType::NONE;
    assert_eq!(none.as_raw(), 0);
    // The driver's and the runtime's UUID are one type.
    let mut one = CUuuid::default();
    let mut two = cudaUUID_t::default();
    one.bytes = [1; 16];
    two.bytes = [1; 16];
    assert_eq!(one.bytes, two.bytes);
    two.bytes = [2; 16];
    assert_ne!(one.bytes, two.bytes);
}

// ---------------------------------------------------------------- test_graphics_apis.py

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn graphics_register_image_invalid() {
    gpu();
    // No OpenGL context and a made-up texture: registration must fail with an error.
    let flags = cudaGraphicsRegisterFlags::WRITE_DISCARD.as_raw();
    // SAFETY: no GL object exists to be freed meanwhile: the registration fails.
    match unsafe { api::graphics_gl_register_image(1, 0x0DE1, flags) } {
        Ok(resource) => {
            // SAFETY: the runtime returned this resource.
            unsafe { api::graphics_unregister_resource(resource) }.expect("unregister");
            panic!("expected an error from an invalid GL texture id");
        }
        Err(e) => {
            let code = e.cuda_code().expect("a CUDA error");
            let name = api::get_error_name(cudaError_t::from_raw(code as _)).expect("name");
            assert!(
                name.to_str().expect("ASCII").starts_with("cudaError"),
                "{name:?}"
            );
        }
    }
}

// ---------------------------------------------------------------- CuPy test_runtime.py

#[test]
fn cupy_exception_picklable() {
    // The error type's value survives a clone and prints the same.
    let e1 = Error::from_code(1);
    let e2 = e1.clone();
    assert_eq!(e1, e2);
    assert_eq!(e1.to_string(), e2.to_string());
    assert_eq!(e1.cuda_code(), code(cudaError_t::ERROR_INVALID_VALUE));
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cupy_malloc_from_pool_async() {
    gpu();
    if attribute(cudaDeviceAttr::MEMORY_POOLS_SUPPORTED) == 0 {
        println!("skipped: no memory pools on device 0");
        return;
    }
    let props = cudaMemPoolProps {
        allocType: cudaMemAllocationType::PINNED,
        handleTypes: cudaMemAllocationHandleType::NONE,
        location: device0(),
        ..Default::default()
    };
    // SAFETY: the pool and stream are live until destroyed; the allocation is freed on the
    // stream before both go away.
    unsafe {
        let pool = api::mem_pool_create(&props).expect("pool");
        assert!(!pool.is_null());
        let stream = api::stream_create().expect("stream");
        let p = api::malloc_from_pool_async(128, pool, stream).expect("malloc from pool");
        assert!(!p.is_null());
        api::free_async(p, stream).expect("free async");
        api::stream_synchronize(stream).expect("sync");
        api::stream_destroy(stream).expect("destroy stream");
        api::mem_pool_destroy(pool).expect("destroy pool");
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cupy_assumed_runtime_version() {
    gpu();
    // CuPy checks the runtime version against NVRTC's; this crate checks it against the
    // release it was generated for (the same major).
    let v = api::runtime_get_version().expect("runtime version");
    assert_eq!(v / 1000, cudart13::CUDA_MAJOR as i32, "{v}");
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cupy_major_version() {
    gpu();
    let major = api::runtime_get_version().expect("runtime version") / 1000;
    assert!(10 < major && major < 20, "{major}");
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn cupy_get_local_runtime_version_after_import() {
    gpu();
    let v = api::runtime_get_version().expect("runtime version");
    assert!(v > 0);
    assert_eq!(api::runtime_get_version().expect("again"), v);
}

/// The location of device 0 (`cudaMemLocation.id` is a union member from CUDA 13.4 on).
fn device0() -> cudaMemLocation {
    let mut location = cudaMemLocation {
        type_: cudaMemLocationType::DEVICE,
        ..Default::default()
    };
    location.set_id(0);
    location
}
