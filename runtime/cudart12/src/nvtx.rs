// Copied by `cargo xtask codegen` from the generator's codegen/template/src/nvtx.rs:
// edit the template, not this copy.

//! NVTX marks and ranges for Nsight tools (CuPy's `cupy.cuda.nvtx`), through NVIDIA's
//! [`nvtx`] crate; enabled by this crate's `nvtx` feature. Without a tool attached, each
//! call is a cheap no-op.
//!
//! CuPy's `Mark`/`MarkC`, `RangePush`/`RangePushC` and `RangePop` are [`mark`] /
//! [`mark_color`], [`range_push`] / [`range_push_color`] and [`range_pop`]; [`range`] is the
//! scoped form. Colours are `0xAARRGGBB` (`0x00RRGGBB` is opaque). CuPy's `id_color`
//! palette index is not reproduced: pass the colour. For domains, categories and payloads,
//! use the [`nvtx`] crate directly (re-exported as [`crate::nvtx::nvtx`]).

pub use ::nvtx;

fn attributes(message: &str, argb: Option<u32>) -> ::nvtx::EventAttributes {
    let builder =
        ::nvtx::EventAttributes::builder().message(::nvtx::Message::from_str_lossy(message));
    match argb {
        Some(c) => builder.color(c).build(),
        None => builder.build(),
    }
}

/// An instantaneous marker (`nvtxMarkEx`; CuPy's `nvtx.Mark`).
pub fn mark(message: &str) {
    ::nvtx::mark(attributes(message, None));
}

/// A coloured marker (CuPy's `nvtx.MarkC`).
pub fn mark_color(message: &str, argb: u32) {
    ::nvtx::mark(attributes(message, Some(argb)));
}

/// Opens a nested range on this thread (`nvtxRangePushEx`; CuPy's `nvtx.RangePush`);
/// returns the nesting depth, or a negative value without a tool.
pub fn range_push(message: &str) -> i32 {
    ::nvtx::sys::range_push_ex(&attributes(message, None).encode())
}

/// Opens a coloured nested range (CuPy's `nvtx.RangePushC`).
pub fn range_push_color(message: &str, argb: u32) -> i32 {
    ::nvtx::sys::range_push_ex(&attributes(message, Some(argb)).encode())
}

/// Closes the innermost range of this thread (`nvtxRangePop`; CuPy's `nvtx.RangePop`).
pub fn range_pop() -> i32 {
    ::nvtx::sys::range_pop()
}

/// A range open until the returned value is dropped (push now, pop on drop).
pub fn range(message: &str) -> Range {
    Range {
        _range: ::nvtx::LocalRange::new(attributes(message, None)),
    }
}

/// A scoped range (see [`range`]); not `Send`, as NVTX thread ranges belong to a thread.
///
/// ```no_run
/// {
///     let _step = cudart12::nvtx::range("upload"); // shows as a range in Nsight Systems
///     // … the upload …
/// } // closed here
/// ```
#[derive(Debug)]
#[must_use = "the range closes when this value is dropped"]
pub struct Range {
    _range: ::nvtx::LocalRange,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_without_a_tool_are_harmless() {
        mark("mark");
        mark_color("red mark", 0x00FF_0000);
        let depth = range_push("outer");
        range_push_color("inner", 0xFF00_FF00);
        range_pop();
        range_pop();
        let _ = depth;
        let scoped = range("scoped");
        drop(scoped);
    }
}
