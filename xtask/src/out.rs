//! Writing the commands' output without panicking.
//!
//! `println!` panics when standard output is a pipe its reader has closed
//! (`cargo xtask ir --out - | head -c 100`). Here a closed standard output is the error
//! [`Closed`], which `main` turns into a quiet, successful exit: the reader asked for no more.
//! Standard error is written best-effort: when it is closed there is nobody left to tell.
//! This module does not decide what is printed.

use std::fmt;
use std::io::{ErrorKind, Write};

/// Standard output was closed by its reader; the command stops quietly.
#[derive(Debug)]
pub struct Closed;

impl fmt::Display for Closed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("standard output was closed")
    }
}

impl std::error::Error for Closed {}

/// Writes `args` to standard output, flushing it; a closed pipe is [`Closed`].
pub fn stdout(args: fmt::Arguments<'_>) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_fmt(args).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Err(Closed.into()),
        Err(e) => Err(anyhow::Error::new(e).context("writing to standard output")),
    }
}

/// Writes `args` to standard error, ignoring failures.
pub fn stderr(args: fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.flush());
}

/// Whether `e` (or what it wraps) is [`Closed`].
pub fn is_closed(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.is::<Closed>())
}

/// `print!` that returns [`Closed`] instead of panicking (use with `?`).
macro_rules! out {
    ($($t:tt)*) => { $crate::out::stdout(format_args!($($t)*)) };
}

/// `println!` that returns [`Closed`] instead of panicking (use with `?`).
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
