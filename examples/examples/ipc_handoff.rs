//! A device buffer and an event handed from one process to another (CUDA IPC, as CUDA's
//! simpleIPC): the parent fills a shareable buffer on the last device with a kernel, records
//! an interprocess event after it and starts this program again as a child, passing both
//! handles as hexadecimal on its standard input. The child opens them (`unsafe`: the handles
//! come from another process, which keeps the memory and the event alive meanwhile), makes its
//! stream wait on the event, checks the parent's values, adds one to every element and exits
//! once its work is done; the parent then checks the child's values. Both sides own what they
//! opened: the child's buffer unmaps the memory when dropped, after its work.
use std::io::{BufRead, Write};
use std::process::{Command, Stdio};

use cudart13::{
    Device, DeviceBuffer, Event, IpcEventHandle, IpcMemHandle, LaunchConfig, Module, Result,
    Stream, StreamFlags,
};

/// `iota_add(unsigned* data, unsigned n, unsigned k)`: `data[i] = data[i] * k + i` with
/// `k = 0` (fill with the index) or `k = 1` (add the index).
const PTX: &str = r"
.version 7.0
.target sm_70
.address_size 64
.visible .entry iota_add(.param .u64 pdata, .param .u32 pn, .param .u32 pk)
{
    .reg .pred %p1;
    .reg .b32 %r<10>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [pdata];
    ld.param.u32 %r1, [pn];
    ld.param.u32 %r2, [pk];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r6, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r6, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r7, [%rd4];
    mad.lo.s32 %r8, %r7, %r2, %r6;
    st.global.u32 [%rd4], %r8;
DONE:
    ret;
}
";

const N: usize = 1 << 20;

fn fail(what: &str) -> ! {
    eprintln!("FAILED: {what}");
    std::process::exit(1);
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex<const L: usize>(text: &str) -> [u8; L] {
    let mut out = [0u8; L];
    if text.len() != 2 * L {
        fail("a handle of the wrong length on standard input");
    }
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16)
            .unwrap_or_else(|_| fail("a handle that is not hexadecimal"));
    }
    out
}

/// The device both processes use: the last one (device 1 on a machine with two).
fn device() -> Result<Device> {
    let all = Device::all()?;
    Ok(*all.last().unwrap_or_else(|| fail("no CUDA device")))
}

fn parent() -> Result<()> {
    let device = device()?;
    let stream = device.stream(StreamFlags::NON_BLOCKING)?;
    let kernel = Module::from_ptx(PTX)?.kernel("iota_add")?;
    let mut buffer = DeviceBuffer::<u32>::new_shareable(N, &stream)?;
    // Shareable memory comes uninitialised, and iota_add reads before it writes.
    buffer.fill_zero(&stream)?;
    let (n, fill) = (N as u32, 0u32);
    // SAFETY: iota_add(unsigned*, unsigned, unsigned) over `n` elements of `buffer`.
    unsafe {
        kernel.launch(
            &stream,
            LaunchConfig::for_num_elems(n),
            (&buffer, &n, &fill),
        )?
    };
    println!(
        "parent: filling {N} elements on device {}",
        device.ordinal()
    );
    let filled = Event::interprocess(device)?;
    filled.record(&stream)?;

    let lines = format!(
        "{}\n{}\n",
        hex(&buffer.ipc_handle()?.to_bytes()),
        hex(&filled.ipc_handle()?.to_bytes())
    );
    println!("parent: handing the buffer and the event to a child process");
    let exe = std::env::current_exe().unwrap_or_else(|e| fail(&format!("this program: {e}")));
    let mut child = Command::new(exe)
        .arg("child")
        .stdin(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("starting the child: {e}")));
    // Written, then the input closed, before waiting: the child reads to the end.
    let written = child
        .stdin
        .take()
        .map(|mut to_child| to_child.write_all(lines.as_bytes()));
    let status = child.wait();
    let status = status.unwrap_or_else(|e| fail(&format!("waiting for the child: {e}")));
    if !matches!(written, Some(Ok(()))) {
        fail("writing the handles to the child");
    }
    if !status.success() {
        fail(&format!("the child failed: {status}"));
    }
    // The child's work finished before it exited: every element is now 2 * i.
    let values = buffer.to_vec()?;
    if let Some(i) = (0..N).find(|&i| values[i] != 2 * i as u32) {
        fail(&format!("element {i} is {} after the child", values[i]));
    }
    println!("parent: checked {N} elements the child changed through IPC");
    Ok(())
}

fn child() -> Result<()> {
    let device = device()?;
    let mut lines = std::io::stdin().lock().lines();
    let mut line = || {
        lines
            .next()
            .and_then(|l| l.ok())
            .unwrap_or_else(|| fail("a handle on standard input"))
    };
    let (memory, event) = (line(), line());
    let stream = Stream::on_device(device, StreamFlags::NON_BLOCKING)?;
    // SAFETY: the parent made both handles and keeps the buffer and the event alive until
    // this process has exited.
    let (shared, filled): (DeviceBuffer<u32>, Event) = unsafe {
        (
            IpcMemHandle::from_bytes(unhex(&memory)).open(&stream)?,
            IpcEventHandle::from_bytes(unhex(&event)).open(device)?,
        )
    };
    if shared.len() != N {
        fail("the handle's size");
    }
    println!(
        "child: opened the buffer and the event on device {}",
        device.ordinal()
    );
    stream.wait_event(&filled)?; // the parent's kernel comes first
    let kernel = Module::from_ptx(PTX)?.kernel("iota_add")?;
    let before = shared.to_vec()?; // on `shared`'s stream, after the wait
    if let Some(i) = (0..N).find(|&i| before[i] != i as u32) {
        fail(&format!(
            "child: element {i} is {} before its kernel",
            before[i]
        ));
    }
    let (n, add) = (N as u32, 1u32);
    // SAFETY: iota_add(unsigned*, unsigned, unsigned) over `n` elements of the shared buffer.
    unsafe { kernel.launch(&stream, LaunchConfig::for_num_elems(n), (&shared, &n, &add))? };
    stream.synchronize()?;
    println!("child: checked the parent's {N} elements and added the index to each");
    Ok(()) // `shared` is unmapped here, after its work; `filled` is this process's handle
}

fn main() -> Result<()> {
    if std::env::args().nth(1).as_deref() == Some("child") {
        child()
    } else {
        parent()
    }
}
