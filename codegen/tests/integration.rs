//! The generator's integration tests, one binary (each module is one test file; linking
//! syn and html5ever once instead of once per file).

#[path = "abi.rs"]
mod abi;
#[path = "abi_snapshots.rs"]
mod abi_snapshots;
#[path = "audits_linear.rs"]
mod audits_linear;
#[path = "availability.rs"]
mod availability;
mod common;
#[path = "corpus.rs"]
mod corpus;
#[path = "coverage.rs"]
mod coverage;
#[path = "cuda_core_mapping.rs"]
mod cuda_core_mapping;
#[path = "diff.rs"]
mod diff;
#[path = "diff_abi.rs"]
mod diff_abi;
#[path = "diff_docs.rs"]
mod diff_docs;
#[path = "elf_inspect.rs"]
mod elf_inspect;
#[path = "identify.rs"]
mod identify;
#[path = "ir_json.rs"]
mod ir_json;
#[path = "join.rs"]
mod join;
#[path = "../../tests/src/mapped_library.rs"]
mod mapped_library;
#[path = "module_cycles.rs"]
mod module_cycles;
#[path = "parse_autodoc.rs"]
mod parse_autodoc;
#[path = "parse_cudart_text.rs"]
mod parse_cudart_text;
#[path = "parse_doxygen.rs"]
mod parse_doxygen;
#[path = "parse_html.rs"]
mod parse_html;
#[path = "parse_sphinx_text.rs"]
mod parse_sphinx_text;
#[path = "redteam.rs"]
mod redteam;
#[path = "redteam_2026_11_25.rs"]
mod redteam_2026_11_25;
#[path = "redteam_2026_11_29.rs"]
mod redteam_2026_11_29;
#[path = "safe_layer_docs.rs"]
mod safe_layer_docs;
#[path = "since_marks.rs"]
mod since_marks;
#[path = "sphinx_forms.rs"]
mod sphinx_forms;
#[path = "themes.rs"]
mod themes;
#[path = "timeline.rs"]
mod timeline;
#[path = "typed_safety.rs"]
mod typed_safety;
