//! Writing the commands' output without panicking.
//!
//! `println!` panics when standard output is a pipe its reader has closed
//! (`cargo xtask ir --out - | head -c 100`). Here a closed standard output is remembered and
//! every later write skipped: the reader asked for no more, and the command finishes its work
//! (a crate it writes is still written) and exits with the status it would have had (an input
//! read with errors is still a failure). Standard error is written best-effort: when it is
//! closed there is nobody left to tell. This module does not decide what is printed.

use std::fmt;
use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether standard output was closed by its reader.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `args` to standard output, flushing it; once the reader has closed it, nothing is
/// written and the result is `Ok`. Other failures (a full disk behind a redirection) are errors.
pub fn stdout(args: fmt::Arguments<'_>) -> anyhow::Result<()> {
    if CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    match out.write_fmt(args).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(anyhow::Error::new(e).context("writing to standard output")),
    }
}

/// Writes `args` to standard error, ignoring failures.
pub fn stderr(args: fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.flush());
}

/// `print!` that never panics on a closed standard output (use with `?`).
macro_rules! out {
    ($($t:tt)*) => { $crate::out::stdout(format_args!($($t)*)) };
}

/// `println!` that never panics on a closed standard output (use with `?`).
macro_rules! outln {
    () => { $crate::out::stdout(format_args!("\n")) };
    ($($t:tt)*) => { $crate::out::stdout(format_args!("{}\n", format_args!($($t)*))) };
}

/// `eprint!` that never panics.
macro_rules! err {
    ($($t:tt)*) => { $crate::out::stderr(format_args!($($t)*)) };
}

/// `eprintln!` that never panics.
macro_rules! errln {
    ($($t:tt)*) => { $crate::out::stderr(format_args!("{}\n", format_args!($($t)*))) };
}
