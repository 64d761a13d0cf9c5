//! The model of one RST docstring, shared by the text and HTML front ends.
//!
//! STUB: being written; see issue 2.
