//! Issue 43 (memory): host registration ended through the gate, pointer classification,
//! and pinned-to-pinned copies on a stream. A registered buffer unregistered and freed
//! while a queued copy still writes it is a heap use after free AddressSanitizer reports.

use super::*;
use cudart13::memory::{MemoryType, PointerInfo};

emulated! {
    /// A registered `Vec` dropped while a slow copy into it is queued: the drop waits for the
    /// copy, then unregisters and frees; a graph holding it keeps it past its drop.
    fn issue43b_registered_buffer_dropped_while_a_copy_is_queued(emu) {
        let s = Stream::non_blocking()?;
        let src = DeviceBuffer::from_slice(&[5u32; 4096], &s)?;
        s.synchronize()?;
        let data = vec![0u32; 4096];
        let addr = data.as_ptr();
        let mut host = PinnedBuffer::register(data)?;
        assert_eq!(host.as_ptr(), addr, "registered in place");
        assert_eq!(PointerInfo::of(addr.cast())?.memory_type, MemoryType::HOST);
        slow(emu)?;
        src.copy_to_pinned_async(&mut host, &s)?;
        drop(host); // must not free the Vec's memory before the copy has run
        assert_eq!(PointerInfo::of(addr.cast())?.memory_type, MemoryType::UNREGISTERED);
        // A graph holding a registered buffer keeps it registered past its drop.
        let mut held = PinnedBuffer::register(vec![0u32; 4096])?;
        let graph = Graph::new()?;
        graph.add_copy_to_pinned_node(&[], &mut held, &src)?;
        let exec = graph.instantiate()?;
        let at = held.as_ptr();
        drop(held);
        drop(graph);
        assert_eq!(PointerInfo::of(at.cast())?.memory_type, MemoryType::HOST);
        exec.launch(&s)?;
        exec.launch(&s)?;
        drop(exec); // let go after the launches, on the release thread
        s.synchronize()?;
        Ok(())
    }
}

emulated! {
    /// Pointer classification of device, pinned, managed and unregistered memory.
    fn issue43b_pointer_info_classifies_memory(_emu) {
        let s = Stream::non_blocking()?;
        let dev = DeviceBuffer::<u8>::new(64, &s)?;
        let info = PointerInfo::of(dev.as_device_ptr().as_raw())?;
        assert_eq!(info.memory_type, MemoryType::DEVICE);
        assert!(info.is_device_accessible() && !info.is_host_accessible());
        let pinned = PinnedBuffer::<u8>::new(64)?;
        let info = PointerInfo::of(pinned.as_ptr().cast())?;
        assert_eq!(info.memory_type, MemoryType::HOST);
        assert!(info.is_device_accessible() && info.is_host_accessible());
        let managed = cudart13::ManagedBuffer::<u8>::new(64)?;
        let info = PointerInfo::of(managed.as_device_ptr().as_raw())?;
        assert_eq!(info.memory_type, MemoryType::MANAGED);
        let heap = [0u8; 16];
        let info = PointerInfo::of(heap.as_ptr().cast())?;
        assert_eq!((info.memory_type, info.device), (MemoryType::UNREGISTERED, None));
        assert!(info.is_host_accessible() && !info.is_device_accessible());
        Ok(())
    }
}

emulated! {
    /// A pinned-to-pinned copy on a stream: the destination's view waits for it, the source
    /// cannot be written meanwhile (its write view waits too), and dropping the source
    /// while the copy is queued keeps its memory until the copy has run.
    fn issue43b_pinned_to_pinned_copy_on_a_stream(emu) {
        let s = Stream::non_blocking()?;
        let src = PinnedBuffer::from_slice(&[3u64; 1024])?;
        let mut dst = PinnedBuffer::<u64>::new(1024)?;
        slow(emu)?;
        dst.copy_from_pinned_async(&src, &s)?;
        drop(src);
        assert!(dst.as_slice()?.iter().all(|v| *v == 3));
        let mut a = PinnedBuffer::from_slice(&[1u8; 64])?;
        let b = PinnedBuffer::from_slice(&[2u8; 64])?;
        a.copy_from_pinned_async(&b, &s)?;
        let mut b = b;
        b.as_mut_slice()?.fill(9); // waits for the copy that reads it
        assert_eq!(a.to_vec()?, vec![2u8; 64]);
        assert!(a.copy_from_pinned_async(&PinnedBuffer::<u8>::new(3)?, &s).is_err());
        Ok(())
    }
}
