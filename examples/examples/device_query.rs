//! Lists every CUDA device with its properties, memory, limits and peer access, and checks
//! that the values agree with each other (properties against attributes, the PCI bus id
//! round trip, the device guard restoring the current device).
use cudart13::device::{driver_version, runtime_version};
use cudart13::sys::{cudaDeviceAttr, cudaLimit};
use cudart13::{Device, Result};

fn ensure(ok: bool, what: &str) {
    if ok {
        println!("  checked: {what}");
    } else {
        eprintln!("FAILED: {what}");
        std::process::exit(1);
    }
}

fn main() -> Result<()> {
    let count = Device::count()?;
    let (driver, runtime) = (driver_version()?, runtime_version()?);
    println!("{count} device(s); driver supports CUDA {driver}, runtime {runtime}");
    ensure(count >= 1, "at least one device");
    ensure(
        driver >= runtime / 1000 * 1000,
        "the driver supports the runtime's major",
    );
    for ordinal in 0..count {
        let device = Device::get(ordinal)?;
        let p = device.properties()?;
        let mem = device.mem_info()?;
        println!(
            "device {ordinal}: {} sm_{}{} | {} SMs | {} MiB ({} MiB free) | warp {} | L2 {} KiB",
            p.name,
            p.major,
            p.minor,
            p.multi_processor_count,
            p.total_global_mem >> 20,
            mem.free >> 20,
            p.warp_size,
            p.l2_cache_size >> 10
        );
        println!(
            "  max block {:?}, grid {:?}, {} threads/block, smem {} B/block ({} B opt-in)",
            p.max_threads_dim,
            p.max_grid_size,
            p.max_threads_per_block,
            p.shared_mem_per_block,
            p.shared_mem_per_block_optin
        );
        println!("  UUID {} | arch {}", p.uuid, p.arch());
        println!(
            "  managed {}, concurrent managed {}, cooperative {}, clusters {}, pools {}",
            p.managed_memory,
            p.concurrent_managed_access,
            p.cooperative_launch,
            p.cluster_launch,
            p.memory_pools_supported
        );
        ensure(!p.name.is_empty(), "the name is not empty");
        ensure(p.uuid.as_bytes() != &[0; 16], "the UUID is set");
        ensure(
            device.uuid()? == p.uuid,
            "Device::uuid = the properties' UUID",
        );
        ensure(
            p.uuid.to_string().len() == 40 && p.uuid.to_string().starts_with("GPU-"),
            "the UUID prints as GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
        );
        let cc = device.compute_capability()?;
        ensure(
            cc == p.compute_capability(),
            "compute capability = attributes",
        );
        ensure(
            device.arch()? == format!("{}{}", cc.0, cc.1) && p.arch() == device.arch()?,
            "arch() is the compute capability's digits",
        );
        let attrs = device.attributes();
        ensure(
            attrs.multi_processor_count()? == p.multi_processor_count
                && attrs.warp_size()? == p.warp_size
                && attrs.cooperative_launch()? == p.cooperative_launch,
            "generated attribute getters = properties",
        );
        let shown = p.to_string();
        ensure(
            shown.lines().count() > 80 && shown.contains("multi_processor_count"),
            "Display prints every property",
        );
        let sms = device.attribute(cudaDeviceAttr::MULTI_PROCESSOR_COUNT)?;
        ensure(
            sms == p.multi_processor_count && sms > 0,
            "SM count = attribute",
        );
        ensure(p.warp_size == 32, "warp size 32");
        ensure(
            mem.free <= mem.total && mem.total <= p.total_global_mem + (1 << 30),
            "free <= total memory <= properties' total",
        );
        let bus_id = device.pci_bus_id()?;
        println!("  PCI {bus_id}");
        ensure(
            Device::by_pci_bus_id(&bus_id)? == device,
            "PCI bus id round trip",
        );
        let (least, greatest) = device.stream_priority_range()?;
        println!("  stream priorities {greatest} (highest) ..= {least}");
        ensure(greatest <= least, "priority range is ordered");
        let stack = device.limit(cudaLimit::STACK_SIZE)?;
        println!("  stack size limit {stack} B");
        ensure(stack > 0, "a stack size limit");
        for peer in 0..count {
            if peer != ordinal {
                let can = device.can_access_peer(Device::get(peer)?)?;
                println!("  peer access to device {peer}: {can}");
            }
        }
    }
    let before = Device::current()?;
    {
        let last = Device::get(count - 1)?;
        let _guard = last.guard()?;
        ensure(Device::current()? == last, "the guard selects the device");
    }
    ensure(
        Device::current()? == before,
        "the guard restores the previous device",
    );
    match Device::get(count) {
        Err(e) => println!("device {count}: {e}"),
        Ok(_) => ensure(false, "a device past the last one is refused"),
    }
    println!("device_query: all checks passed");
    Ok(())
}
