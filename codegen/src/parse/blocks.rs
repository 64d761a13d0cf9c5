//! The neutral block sequence between a documentation front end and the shared IR builder.
//!
//! A front end (the text reader in [`super::sphinx_text`], the HTML reader in [`super::html`]) turns a
//! rendered `cuda.bindings.runtime` page into a flat list of [`Block`]s:
//!
//! - a [`Heading`] with its intro text (the lines up to the next object), and
//! - an [`Object`]: a kind hint ([`ObjectKind`]), the signature text as the page shows it
//!   (without Sphinx's `#` permalink marker and without the `class ` keyword), and the
//!   docstring lines that follow it, each with its own line number.
//!
//! Nothing here knows how the lines were read; [`super::sphinx_blocks`] turns blocks into IR
//! items and [`super::docstring`] reads the docstring lines. This module holds data only.

use std::borrow::Cow;

use crate::ir::Source;

/// One line of docstring or intro text, with where it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocLine<'a> {
    /// The line as written, indentation kept, line ending removed.
    pub text: Cow<'a, str>,
    /// 1-based line in the document; 0 for formats without lines (the block's
    /// [`Source::path`] locates it then).
    pub line: u32,
}

impl<'a> DocLine<'a> {
    /// A line borrowed from the input.
    pub fn new(text: &'a str, line: u32) -> Self {
        DocLine {
            text: Cow::Borrowed(text),
            line,
        }
    }
}

/// What a front end saw an object as; the builder decides the IR item from the signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// A callable: `cuda.bindings.runtime.cudaMalloc(size_t size)`.
    Function,
    /// A class: `cuda.bindings.runtime.cudaError_t(value: int)`, `….CUuuid`.
    Class,
    /// A `name = value` object: module constants and aliases (`runtime.X = 2`,
    /// `runtime.X = <enum 'Y'>`) and enum members (`X = <E.X: 3>`).
    Data,
}

/// A section heading (`Device Management#`) with the text before the first object.
#[derive(Clone, Debug, PartialEq)]
pub struct Heading<'a> {
    /// The title without the permalink marker.
    pub title: Cow<'a, str>,
    /// 1 for the page title, 2 for a section.
    pub level: u8,
    /// The intro lines up to the next block.
    pub intro: Vec<DocLine<'a>>,
    pub source: Source,
}

/// A documented object: signature plus docstring.
#[derive(Clone, Debug, PartialEq)]
pub struct Object<'a> {
    pub kind: ObjectKind,
    /// Signature text on one line: `cuda.bindings.runtime.f(a: T, size_t b)`,
    /// `cuda.bindings.runtime.X(void_ptr _ptr=0)`, `runtime.X = 2`.
    pub signature: Cow<'a, str>,
    /// The docstring lines after the signature.
    pub doc: Vec<DocLine<'a>>,
    pub source: Source,
    /// Whether the page nests this object in the class object before it: `Some(true)` for
    /// an enum member's `dl` inside the class's `dd` (HTML), `Some(false)` for an object known
    /// to stand on its own, `None` where the format cannot tell (the text rendering, where
    /// the builder goes by the shape of the name).
    pub in_class: Option<bool>,
}

/// One block of a page.
#[derive(Clone, Debug, PartialEq)]
pub enum Block<'a> {
    Heading(Heading<'a>),
    Object(Object<'a>),
}
