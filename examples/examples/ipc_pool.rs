//! Two processes sharing allocations of an IPC-enabled memory pool: the parent creates a
//! shareable pool (`MemPool::new_shareable`), allocates and fills a buffer from it, exports
//! the pool as a file descriptor and the buffer as 72 bytes, and runs itself as a child with
//! the descriptor as the child's standard input and the bytes in an environment variable.
//! The child imports the pool and the pointer, checks the parent's data, writes its own,
//! and drops its buffer (ending the import) before exiting; the parent then checks the
//! child's data and frees its buffer. Linux only.
use std::os::fd::{AsFd, BorrowedFd};
use std::process::{Command, Stdio};

use cudart13::memory::PoolPointerExport;
use cudart13::{Device, DeviceBuffer, MemPool, Result, Stream};

const CHILD: &str = "CUDART_EXAMPLE_IPC_POOL_CHILD";
const N: usize = 1 << 20;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .filter_map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok())
        .collect()
}

fn fail(what: &str) -> ! {
    eprintln!("FAILED: {what}");
    std::process::exit(1);
}

fn child(export: &str) -> Result<()> {
    let device = Device::get(0)?;
    device.set_current()?;
    let stream = Stream::non_blocking()?;
    let bytes: [u8; 72] = unhex(export)
        .try_into()
        .unwrap_or_else(|_| fail("the export is not 72 bytes"));
    // SAFETY: standard input is the pool's descriptor, inherited from the parent, open for
    // this process's whole life.
    let fd = unsafe { BorrowedFd::borrow_raw(0) };
    let pool = MemPool::import_fd(fd, device)?;
    // SAFETY: the parent allocated the buffer (and synchronised) before exporting it, and
    // keeps it until this process has exited.
    let mut shared: DeviceBuffer<u32> =
        unsafe { pool.import_pointer(PoolPointerExport::from_bytes(bytes), &stream)? };
    if shared.len() != N || shared.to_vec()?.iter().any(|v| *v != 7) {
        fail("the child does not see the parent's data");
    }
    println!("child: imported {} elements = 7", shared.len());
    shared.copy_from_host(&vec![9u32; N])?;
    drop(shared); // gives the import up, in stream order
    stream.synchronize()?;
    drop(pool);
    println!("child: wrote 9s and gave the import up");
    Ok(())
}

fn main() -> Result<()> {
    if let Ok(export) = std::env::var(CHILD) {
        return child(&export);
    }
    let device = Device::get(0)?;
    device.set_current()?;
    let stream = Stream::non_blocking()?;
    let pool = MemPool::new_shareable(device)?;
    let fd = pool.export_fd()?;
    let mut buf = pool.alloc::<u32>(N, &stream)?;
    buf.copy_from_host(&vec![7u32; N])?;
    stream.synchronize()?; // allocated and filled before the child sees it
    let export = pool.export_pointer(&buf)?;
    println!(
        "parent: exported {} bytes of a shareable pool",
        export.size_bytes()
    );
    let exe = std::env::current_exe().unwrap_or_else(|_| fail("no executable path"));
    let stdin = fd
        .as_fd()
        .try_clone_to_owned()
        .unwrap_or_else(|_| fail("cannot duplicate the descriptor"));
    let out = Command::new(exe)
        .env(CHILD, hex(&export.to_bytes()))
        .stdin(Stdio::from(stdin))
        .output()
        .unwrap_or_else(|_| fail("cannot run the child"));
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        fail("the child failed");
    }
    if buf.to_vec()?.iter().any(|v| *v != 9) {
        fail("the parent does not see the child's data");
    }
    println!("checked: the parent sees the child's 9s in all {N} elements");
    drop(buf);
    drop(pool);
    Ok(())
}
