#!/usr/bin/env python3
"""Write the table of every public item of cuda.core into docs/cuda-core-mapping.md.

Usage: scripts/cuda_core_mapping.py ITEMS.tsv [docs/cuda-core-mapping.md]

ITEMS.tsv is the output of scripts/cuda_core_items.py (committed as
docs/cuda-core-1.2-items.tsv). Each item gets a row with the first rule of RULES that matches
its path (without the `cuda.core.` prefix): the crate's item (a path in backticks, which
codegen/tests/cuda_core_mapping.rs resolves against the generated crates' sources), "not
provided: <reason; route>", or "planned (issue N)". The table replaces everything after the
line "## Every item of cuda.core" in the document (the prose above it is kept). An item no
rule matches is an error: the script writes nothing and names it.
"""

import re
import sys

R = "cudart13::"
N = "nvrtc13::"
J = "nvjitlink13::"

CTX = "not provided: driver-API contexts; the runtime uses each device's primary context (route: the driver API, `cuCtxCreate`/`cuGreenCtxCreate`)"
GREEN = "not provided: green contexts and device resources are driver-API objects (route: the driver API, `cuDevSmResourceSplitByCount`, `cuGreenCtxCreate`)"
VMM = "not provided: virtual memory management is driver API (route: the driver API, `cuMemCreate`/`cuMemMap`/`cuMemSetAccess`)"
NVML = "not provided: NVML, another library (route: NVML, e.g. the `nvml-wrapper` crate)"
DLPACK = "not provided: DLPack / Python buffer protocol exchange is Python-only (route: the `dlpark` crate; device pointers are `DevicePtr`)"
TMAP = "not provided: tensor maps are driver API (route: the driver API, `cuTensorMapEncodeTiled`)"
GL = "not provided: OpenGL interop in the safe layer (route: the typed layer, `cudart13::api::graphics_gl_register_buffer` and friends)"
CACHE = "not provided: a program cache is an application concern (route: cache `Compiled::ptx`/`cubin` bytes yourself, keyed by source and options)"
PY = "not provided: Python-only (object life-cycle or Python protocol); Rust ownership covers it"
P43B = "planned (issue 43b)"
P39 = "planned (issue 39)"
FILL = "not provided: 16/32-bit fills are driver API `cuMemsetD16/D32` (route: the driver API); bytes: `cudart13::DeviceSliceMut::memset`"

def generated_options():
    """The typed NVRTC option methods the generator wrote (runtime/nvrtc13/src/options.rs)."""
    try:
        with open("runtime/nvrtc13/src/options.rs", encoding="utf-8") as f:
            return sorted(set(re.findall(r"pub fn ([a-z0-9_]+)\(", f.read())))
    except OSError:
        return []


GENERATED_OPTIONS = generated_options() or ["__none__"]

RULES = [
    # Contexts, green contexts, resources.
    (r"Context(Options)?(\..*)?$", CTX),
    (r"(Device|Stream)\.context$", CTX),
    (r"Event\.context$", CTX),
    (r"Device\.create_context$", CTX),
    (r"(SMResource|SMResourceOptions|WorkqueueResource|WorkqueueResourceOptions|DeviceResources)(\..*)?$", GREEN),
    (r"(Device|Stream)\.resources$", GREEN),
    (r"VirtualMemoryResource(Options)?(\..*)?$", VMM),
    (r"system\..*", NVML),
    (r"Device\.to_system_device$", NVML),
    (r"TensorMapDescriptor(Options)?(\..*)?$", TMAP),
    (r"GraphicsResource(\..*)?$", GL),
    (r"utils\.(FileStreamProgramCache|InMemoryProgramCache|ProgramCacheResource|make_program_cache_key)(\..*)?$", CACHE),
    (r"utils\.(StridedMemoryView|args_viewable_as_strided_memory)(\..*)?$", DLPACK),
    (r"utils\.(copy_batch|CopyOptions|MemcpyOverlapMode|MemcpySrcAccessOrder)(\..*)?$", "not provided: batched copies (`cudaMemcpyBatchAsync`) are in the typed layer only (route: `cudart13::api::memcpy_batch_async`)"),
    (r"utils\.(prefetch_batch|discard_batch|discard_prefetch_batch)$", "not provided in the safe layer: batched prefetch and discard of managed memory (route: the typed layer, `cudart13::api::mem_prefetch_batch_async`, `mem_discard_batch_async`)"),
    (r".*\.(is_closed|close)$", "`cudart13::Stream::close` (each owned type has `close(self)`; a closed value cannot be used: Rust ownership)"),
    # Devices.
    (r"Device$", R + "Device"),
    (r"Device\.allocate$", R + "DeviceBuffer::new"),
    (r"Device\.arch$", R + "Device::arch"),
    (r"Device\.can_access_peer$", R + "Device::can_access_peer"),
    (r"Device\.compute_capability$", R + "Device::compute_capability"),
    (r"Device\.create_event$", R + "Event::on_device"),
    (r"Device\.create_graph_builder$", R + "Stream::begin_capture"),
    (r"Device\.create_mipmapped_array$", "not provided: mipmapped arrays in the safe layer (route: the typed layer, `cudart13::api::malloc_mipmapped_array`)"),
    (r"Device\.create_opaque_array$", R + "texture::CudaArray::new"),
    (r"Device\.create_stream$", R + "Device::stream"),
    (r"Device\.create_surface_object$", R + "texture::SurfaceObject::new"),
    (r"Device\.create_texture_object$", R + "texture::TextureObject::new"),
    (r"Device\.default_stream$", R + "Stream::legacy"),
    (r"Device\.device_id$", R + "Device::ordinal"),
    (r"Device\.get_all_devices$", R + "Device::all"),
    (r"Device\.memory_resource$", R + "MemPool::device_current"),
    (r"Device\.name$", R + "Device::name"),
    (r"Device\.pci_bus_id$", R + "Device::pci_bus_id"),
    (r"Device\.properties$", R + "Device::properties"),
    (r"Device\.set_current$", R + "Device::set_current"),
    (r"Device\.sync$", R + "Device::synchronize"),
    (r"Device\.uuid$", R + "Device::uuid"),
    # Streams.
    (r"(LEGACY_DEFAULT_STREAM)$", R + "Stream::legacy"),
    (r"(PER_THREAD_DEFAULT_STREAM)$", R + "Stream::per_thread"),
    (r"Stream$", R + "Stream"),
    (r"StreamOptions$", R + "StreamFlags"),
    (r"StreamOptions\.nonblocking$", R + "StreamFlags::NON_BLOCKING"),
    (r"StreamOptions\.priority$", R + "Stream::with_priority"),
    (r"Stream\.create_graph_builder$", R + "Stream::begin_capture"),
    (r"Stream\.device$", R + "Stream::device"),
    (r"Stream\.from_handle$", R + "Stream::borrowed"),
    (r"Stream\.handle$", R + "Stream::as_raw"),
    (r"Stream\.is_nonblocking$", R + "Stream::flags"),
    (r"Stream\.priority$", R + "Stream::priority"),
    (r"Stream\.record$", R + "Stream::record_event"),
    (r"Stream\.sync$", R + "Stream::synchronize"),
    (r"Stream\.wait$", R + "Stream::wait_event"),
    # Events.
    (r"Event$", R + "Event"),
    (r"EventOptions$", R + "EventFlags"),
    (r"EventOptions\.blocking_sync$", R + "EventFlags::BLOCKING_SYNC"),
    (r"EventOptions\.ipc_enabled$", R + "EventFlags::INTERPROCESS"),
    (r"EventOptions\.timing_enabled$", R + "EventFlags::DISABLE_TIMING"),
    (r"Event\.device$", R + "Event::device"),
    (r"Event\.from_ipc_descriptor$", R + "IpcEventHandle::open"),
    (r"Event\.handle$", R + "Event::as_raw"),
    (r"Event\.ipc_descriptor$", R + "Event::ipc_handle"),
    (r"Event\.is_blocking_sync$", R + "Event::is_blocking_sync"),
    (r"Event\.is_done$", R + "Event::query"),
    (r"Event\.is_ipc_enabled$", R + "Event::is_ipc_enabled"),
    (r"Event\.is_timing_enabled$", R + "Event::is_timing_disabled"),
    (r"Event\.sync$", R + "Event::synchronize"),
    # Host.
    (r"Host(\..*)?$", "not provided: host NUMA placement is a pinned-pool location (route: the typed layer, `cudaMemPoolCreate` with `cudaMemLocationTypeHostNuma`)"),
    # Launch and kernels.
    (r"LaunchConfig$", R + "LaunchConfig::new"),
    (r"LaunchConfig\.block$", R + "LaunchConfig::block"),
    (r"LaunchConfig\.cluster$", R + "LaunchConfig::cluster"),
    (r"LaunchConfig\.grid$", R + "LaunchConfig::grid"),
    (r"LaunchConfig\.is_cooperative$", R + "LaunchConfig::cooperative"),
    (r"LaunchConfig\.programmatic_stream_serialization$", R + "LaunchConfig::programmatic_stream_serialization"),
    (r"LaunchConfig\.shmem_size$", R + "LaunchConfig::shared_mem_bytes"),
    (r"launch$", R + "Kernel::launch"),
    (r"Kernel$", R + "Kernel"),
    (r"Kernel\.arguments_info$", R + "Kernel::params"),
    (r"Kernel\.num_arguments$", R + "Kernel::params"),
    (r"Kernel\.attributes$", R + "Kernel::attributes"),
    (r"Kernel\.from_handle$", R + "Kernel::from_raw"),
    (r"Kernel\.handle$", R + "Kernel::as_raw"),
    (r"Kernel\.occupancy$", R + "Kernel::occupancy_variable_smem"),
    # Modules.
    (r"ObjectCode$", R + "Module"),
    (r"ObjectCode\.(code|code_type|name)$", "not provided: a `Module` keeps no copy of its image (the bytes are the caller's: `nvrtc13::Compiled::ptx`/`cubin`)"),
    (r"ObjectCode\.from_(cubin|fatbin)$", R + "Module::from_bytes"),
    (r"ObjectCode\.from_ptx$", R + "Module::from_ptx"),
    (r"ObjectCode\.from_library$", R + "Module::from_file"),
    (r"ObjectCode\.from_ltoir$", J + "Linker::add"),
    (r"ObjectCode\.from_object$", J + "Linker::add"),
    (r"ObjectCode\.get_kernel$", R + "Module::kernel"),
    (r"ObjectCode\.get_module$", R + "Module::as_raw"),
    (r"ObjectCode\.handle$", R + "Module::as_raw"),
    (r"ObjectCode\.symbol_mapping$", R + "Module::with_symbols"),
    # Programs.
    (r"Program$", N + "Program"),
    (r"Program\.compile$", N + "Program::compile"),
    (r"Program\.handle$", N + "Program::as_raw"),
    (r"Program\.backend$", "not provided: one backend, NVRTC (PTX input is loaded directly: `cudart13::Module::from_ptx`; linking: issue 39)"),
    (r"Program\.pch_status$", N + "api::get_pch_create_status"),
    (r"ProgramOptions$", N + "CompileOptions"),
    (r"ProgramOptions\.arch$", N + "CompileOptions::arch"),
    (r"ProgramOptions\.define_macro$", N + "CompileOptions::define"),
    (r"ProgramOptions\.include_path$", N + "CompileOptions::include_path"),
    (r"ProgramOptions\.std$", N + "CompileOptions::std"),
    (r"ProgramOptions\.use_fast_math$", N + "CompileOptions::fast_math"),
    (r"ProgramOptions\.link_time_optimization$", N + "CompileOptions::lto"),
    (r"ProgramOptions\.lineinfo$", N + "CompileOptions::line_info"),
    (r"ProgramOptions\.name$", N + "Program::new"),
    (r"ProgramOptions\.extra_sources$", N + "Program::with_headers"),
    (r"ProgramOptions\.as_bytes$", N + "CompileOptions::as_slice"),
    (r"ProgramOptions\.debug$", N + "CompileOptions::device_debug"),
    (r"ProgramOptions\.device_code_optimize$", N + "CompileOptions::dopt"),
    (r"ProgramOptions\.fma$", N + "CompileOptions::fmad"),
    (r"ProgramOptions\.max_register_count$", N + "CompileOptions::maxrregcount"),
    (r"ProgramOptions\.relocatable_device_code$", N + "CompileOptions::relocatable_device_code"),
    (r"ProgramOptions\.(" + "|".join(GENERATED_OPTIONS) + r")$", None),
    (r"ProgramOptions\..*$", N + "CompileOptions::option"),
    # Linker (issue 39).
    (r"LinkerOptions(\..*)?$", J + "LinkOptions"),
    (r"Linker\.link$", J + "Linker::complete"),
    (r"Linker(\..*)?$", J + "Linker"),
    # Memory.
    (r"Buffer$", R + "DeviceBuffer"),
    (r"Buffer\.copy_from$", R + "DeviceSliceMut::copy_from_device"),
    (r"Buffer\.copy_to$", R + "DeviceSlice::copy_to_host"),
    (r"Buffer\.device_id$", R + "DeviceBuffer::device"),
    (r"Buffer\.fill$", FILL),
    (r"Buffer\.from_handle$", R + "DeviceBuffer::from_raw_parts"),
    (r"Buffer\.from_ipc_descriptor$", R + "IpcMemHandle::open"),
    (r"Buffer\.ipc_descriptor$", R + "DeviceBuffer::ipc_handle"),
    (r"Buffer\.handle$", R + "DeviceSlice::as_device_ptr"),
    (r"Buffer\.size$", R + "DeviceSlice::size_bytes"),
    (r"Buffer\.memory_resource$", R + "MemPool::device_current"),
    (r"Buffer\.(is_device_accessible|is_host_accessible)$", R + "memory::PointerInfo"),
    (r"Buffer\.(is_managed|is_mapped|owner)$", R + "memory::PointerInfo::of"),
    (r"Buffer\.set_deallocation_stream$", "not provided: a buffer is freed after every stream that used it (the lifetime gate), not on one chosen stream"),
    (r"ManagedBuffer$", R + "ManagedBuffer"),
    (r"ManagedBuffer\.from_handle$", "not provided: a managed buffer is made by `ManagedBuffer::new` only; foreign memory is classified by `cudart13::memory::PointerInfo::of`"),
    (r"ManagedBuffer\..*$", "not provided: managed-memory advice and prefetch in the safe layer (route: the typed layer, `cudart13::api::mem_advise`, `mem_prefetch_async`)"),
    (r"DeviceMemoryResource$", R + "MemPool"),
    (r"DeviceMemoryResourceOptions$", R + "MemPool::with_limit"),
    (r"DeviceMemoryResourceOptions\.max_size$", R + "MemPool::with_limit"),
    (r"DeviceMemoryResourceOptions\.ipc_enabled$", R + "MemPool::new_shareable"),
    (r"DeviceMemoryResource\.allocation_handle$", R + "MemPool::export_fd"),
    (r"DeviceMemoryResource\.from_allocation_handle$", R + "MemPool::import_fd"),
    (r"DeviceMemoryResource\.(from_registry|register)$", "not provided: a process-wide registry of imported pools is Python-side bookkeeping (the file descriptor is the handle: `cudart13::MemPool::import_fd`)"),
    (r"DeviceMemoryResource\.device_id$", R + "MemPool::device"),
    (r"DeviceMemoryResource\.peer_accessible_by$", R + "MemPool::set_access"),
    (r"DeviceMemoryResource\.(is_device_accessible|is_host_accessible)$", R + "MemPool"),
    (r"GraphMemoryResource(\..*)?$", R + "GraphBuffer"),
    (r"LegacyPinnedMemoryResource$", R + "PinnedBuffer"),
    (r"LegacyPinnedMemoryResource\.allocate$", R + "PinnedBuffer::new"),
    (r"LegacyPinnedMemoryResource\.deallocate$", R + "PinnedBuffer::close"),
    (r"LegacyPinnedMemoryResource\..*$", R + "PinnedBuffer"),
    (r"PinnedMemoryResource(Options)?$", R + "PinnedPool"),
    (r"PinnedMemoryResource\.allocate$", R + "PinnedPool::alloc"),
    (r"PinnedMemoryResource(Options)?\.(allocation_handle|from_allocation_handle|from_registry|register|ipc_enabled|numa_id)$", "not provided: IPC-shareable pinned pools (route: the typed layer, `cudart13::api::mem_pool_create` with a host location and `cudaMemHandleTypePosixFileDescriptor`)"),
    (r"PinnedMemoryResource(Options)?\..*$", R + "PinnedPool"),
    (r"ManagedMemoryResource(Options)?$", R + "ManagedBuffer::new"),
    (r"ManagedMemoryResource(Options)?\..*$", "not provided: managed allocations are not pooled; location advice is typed-layer (route: `cudart13::api::mem_advise`)"),
    (r"MemoryResource$", R + "memory::DeviceAllocator"),
    (r"MemoryResource\.allocate$", R + "memory::DeviceAllocator"),
    (r"MemoryResource\.deallocate$", R + "memory::DeviceAllocator"),
    (r"MemoryResource\..*$", R + "memory::DeviceAllocator"),
    # Graphs.
    (r"graph\.GraphBuilder$", R + "Stream::begin_capture"),
    (r"graph\.GraphBuilder\.begin_building$", R + "Stream::begin_capture"),
    (r"graph\.GraphBuilder\.end_building$", R + "CaptureGuard::end"),
    (r"graph\.GraphBuilder\.complete$", R + "Graph::instantiate"),
    (r"graph\.GraphBuilder\.stream$", R + "CaptureGuard::stream"),
    (r"graph\.GraphBuilder\.is_building$", R + "Stream::is_capturing"),
    (r"graph\.GraphBuilder\.(split|join|is_join_required)$", "not provided: fork and join a capture with events (`Stream::record_event`, `Stream::wait_event`)"),
    (r"graph\.GraphBuilder\.callback$", R + "Stream::launch_repeatable_host_func"),
    (r"graph\.GraphBuilder\.create_condition$", R + "Graph::conditional_handle"),
    (r"graph\.GraphBuilder\.(if_then|if_else|switch|while_loop)$", R + "Graph::add_conditional_node"),
    (r"graph\.GraphBuilder\.embed$", R + "Graph::add_child_graph_node"),
    (r"graph\.GraphBuilder\.graph_definition$", R + "CaptureGuard::end"),
    (r"graph\.(GraphBuilder|GraphDefinition)\.debug_dot_print$", "not provided: DOT output in the safe layer (route: the typed layer, `cudart13::api::graph_debug_dot_print`)"),
    (r"graph\.GraphDebugPrintOptions(\..*)?$", "not provided: DOT output in the safe layer (route: the typed layer, `cudart13::api::graph_debug_dot_print` with `cudaGraphDebugDotFlags`)"),
    (r"graph\.Graph$", R + "GraphExec"),
    (r"graph\.Graph\.launch$", R + "GraphExec::launch"),
    (r"graph\.Graph\.upload$", R + "GraphExec::upload"),
    (r"graph\.Graph\.update$", R + "GraphExec::update"),
    (r"graph\.Graph\.handle$", R + "GraphExec::as_raw"),
    (r"graph\.GraphCompleteOptions$", R + "InstantiateFlags"),
    (r"graph\.GraphCompleteOptions\.auto_free_on_launch$", R + "InstantiateFlags::AUTO_FREE_ON_LAUNCH"),
    (r"graph\.GraphCompleteOptions\.device_launch$", R + "InstantiateFlags::DEVICE_LAUNCH"),
    (r"graph\.GraphCompleteOptions\.upload_stream$", R + "GraphExec::upload"),
    (r"graph\.GraphCompleteOptions\.use_node_priority$", R + "InstantiateFlags::USE_NODE_PRIORITY"),
    (r"graph\.GraphCondition(\..*)?$", R + "graph::ConditionalHandle"),
    (r"graph\.GraphDefinition$", R + "Graph"),
    (r"graph\.GraphDefinition\.handle$", R + "Graph::as_raw"),
    (r"graph\.GraphDefinition\.instantiate$", R + "Graph::instantiate"),
    (r"graph\.GraphDefinition\.empty$", R + "Graph::add_empty_node"),
    (r"graph\.GraphDefinition\.launch$", R + "Graph::add_kernel_node"),
    (r"graph\.GraphDefinition\.memcpy$", R + "Graph::add_copy_node"),
    (r"graph\.GraphDefinition\.memset$", R + "Graph::add_memset_node"),
    (r"graph\.GraphDefinition\.record$", R + "Graph::add_event_record_node"),
    (r"graph\.GraphDefinition\.wait$", R + "Graph::add_event_wait_node"),
    (r"graph\.GraphDefinition\.embed$", R + "Graph::add_child_graph_node"),
    (r"graph\.GraphDefinition\.callback$", R + "Graph::add_host_node"),
    (r"graph\.GraphDefinition\.is_valid$", R + "Graph::as_raw"),
    (r"graph\.GraphDefinition\.(nodes|node_count)$", R + "Graph::nodes"),
    (r"graph\.GraphDefinition\.edges$", R + "Graph::edges"),
    (r"graph\.GraphDefinition\.(if_then|if_else|switch|while_loop|create_condition)$", R + "Graph::add_conditional_node"),
    (r"graph\.GraphDefinition\..*$", R + "Graph"),
    (r"graph\.(EmptyNode|KernelNode|MemcpyNode|MemsetNode|EventRecordNode|EventWaitNode|ChildGraphNode|HostCallbackNode|GraphNode)$", R + "GraphNode"),
    (r"graph\.Executable(KernelNode)\.update$", R + "GraphExec::set_kernel_node_params"),
    (r"graph\.Executable(MemcpyNode)\.update$", R + "GraphExec::set_copy_node"),
    (r"graph\.Executable(EventRecordNode)\.update$", R + "GraphExec::set_event_record_node"),
    (r"graph\.Executable(EventWaitNode)\.update$", R + "GraphExec::set_event_wait_node"),
    (r"graph\..*", R + "GraphNode"),
    # Textures.
    (r"texture\.OpaqueArray(Options)?$", R + "texture::CudaArray"),
    (r"texture\.OpaqueArray\.copy_from$", R + "texture::CudaArray::copy_from_host"),
    (r"texture\.OpaqueArray\.copy_to$", R + "texture::CudaArray::copy_to_host"),
    (r"texture\.OpaqueArray\.handle$", R + "texture::CudaArray::as_raw"),
    (r"texture\.OpaqueArray(Options)?\.(width|height)$", R + "texture::CudaArray::width"),
    (r"texture\.ResourceDescriptor(\..*)?$", R + "texture::ResourceDesc"),
    (r"texture\.TextureObjectOptions(\..*)?$", R + "texture::TextureDesc"),
    (r"texture\.TextureObject(\..*)?$", R + "texture::TextureObject"),
    (r"texture\.SurfaceObject(\..*)?$", R + "texture::SurfaceObject"),
    (r"texture\.MipmappedArray(Options)?(\..*)?$", "not provided: mipmapped arrays in the safe layer (route: the typed layer, `cudart13::api::malloc_mipmapped_array`)"),
    (r"texture\..*", R + "texture::CudaArray"),
]


def cell_for(item):
    short = item[len("cuda.core."):] if item.startswith("cuda.core.") else item
    for pattern, cell in RULES:
        if re.fullmatch(pattern, short):
            if cell is None:
                cell = N + "CompileOptions::" + short.split(".")[-1]
            if cell.startswith(R) or cell.startswith(N) or cell.startswith(J):
                return "`" + cell + "`"
            return cell
    return None


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    items_path = sys.argv[1]
    doc_path = sys.argv[2] if len(sys.argv) > 2 else "docs/cuda-core-mapping.md"
    rows = []
    missing = []
    with open(items_path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            item, kind = line.split("\t")
            cell = cell_for(item)
            if cell is None:
                missing.append(item)
            rows.append((item, kind, cell))
    if missing:
        print("no rule for: " + ", ".join(missing), file=sys.stderr)
        return 1
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    head = text.split("\n## Every item of cuda.core", 1)[0].rstrip("\n")
    out = [head, "", "## Every item of cuda.core 1.2", "",
           "Every public item of cuda.core 1.2.2 (listed from its wheel's type stubs by "
           "`scripts/cuda_core_items.py`, kept in [cuda-core-1.2-items.tsv](cuda-core-1.2-items.tsv)), "
           "with this workspace's item, the reason it is not provided and the route, or the issue "
           "that plans it. Written by `scripts/cuda_core_mapping.py`; `cargo test -p codegen --test "
           "integration cuda_core_mapping` fails when an item has no row or a path in backticks no longer "
           "exists in the generated crates.", "",
           "| cuda.core | kind | here |", "|---|---|---|"]
    for item, kind, cell in rows:
        out.append("| `" + item + "` | " + kind + " | " + cell + " |")
    with open(doc_path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
