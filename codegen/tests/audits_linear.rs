//! The audits' red-team inputs (`../shared/redteam/2026-11-25/`: `diff-rename-quadratic.py`,
//! `coverage-sections-quadratic.py`) as tests: the release diff, the ABI diff and the
//! coverage audit take time linear in their input (4× the input, less than 8× the time).

use codegen::abi::Abi;
use codegen::coverage::{self, Exports};
use codegen::doctype::TypeRef;
use codegen::ir::{Api, Detail, Direction, Function, Param, Source};

use crate::common::{abi, assert_linear, cfn};

fn func(name: &str, section: &str, params: Vec<Param>) -> Function {
    Function {
        name: name.into(),
        qualified_name: format!("runtime.{name}"),
        section: Some(section.into()),
        params: Some(params),
        rtype: None,
        errors: vec![],
        doc: String::new(),
        see_also: vec![],
        detail: Detail::Full,
        source: Source::new("doc.txt", 1),
        sources: vec![],
    }
}

fn param(name: String) -> Param {
    Param {
        name,
        ty: Some(TypeRef::parse("int")),
        direction: Direction::In,
        doc: String::new(),
    }
}

fn api(functions: Vec<Function>) -> Api {
    Api {
        functions,
        ..Api::default()
    }
}

#[test]
fn diff_of_many_renamed_functions_is_linear() {
    // `names N`: every function renamed, all with the same parameters.
    let side = |prefix: &str, n: usize| {
        api((0..n)
            .map(|i| {
                func(
                    &format!("cuda{prefix}Function{i:06}"),
                    "S",
                    vec![param("device".into())],
                )
            })
            .collect())
    };
    assert_linear("renamed functions", 2_000, &|n| {
        let d = codegen::diff::diff(&side("Old", n), &side("New", n));
        assert_eq!(d.removed.len(), n);
    });
}

#[test]
fn diff_of_a_reordered_long_parameter_list_and_long_names_is_linear() {
    // `params N`: one function with N parameters, reversed.
    assert_linear("reversed parameters", 25_000, &|n| {
        let ps: Vec<Param> = (0..n).map(|i| param(format!("p{i}"))).collect();
        let rev: Vec<Param> = ps.iter().rev().cloned().collect();
        let d = codegen::diff::diff(
            &api(vec![func("cudaFoo", "S", ps)]),
            &api(vec![func("cudaFoo", "S", rev)]),
        );
        assert_eq!(d.changes.len(), 1);
    });
    // `long N`: one function per side with an N-character name.
    assert_linear("long names", 20_000, &|n| {
        let a = format!("cudaX{}", "a".repeat(n));
        let b = format!("cudaX{}b", "a".repeat(n - 1));
        let d = codegen::diff::diff(
            &api(vec![func(&a, "S", vec![])]),
            &api(vec![func(&b, "S", vec![])]),
        );
        assert!(d.renamed.is_empty(), "names this long are not scored");
    });
}

#[test]
fn abi_diff_of_many_renamed_functions_is_linear() {
    let side = |prefix: &str, n: usize| -> Abi {
        let mut functions = serde_json::Map::new();
        for i in 0..n {
            let name = format!("cuda{prefix}Function{i:06}");
            functions.insert(name.clone(), cfn(&name, &[("int", "device")], 1));
        }
        abi("13.0", serde_json::json!({ "functions": functions }))
    };
    assert_linear("renamed C functions", 2_000, &|n| {
        let (a, b) = (side("Old", n), side("New", n));
        let d = codegen::diff::abi::compare(&a, &b);
        assert_eq!(d.renamed.len(), n);
    });
}

#[test]
fn coverage_of_many_sections_is_linear() {
    // `coverage-sections-quadratic.py N`: N sections of one function each.
    assert_linear("one-function sections", 16_000, &|n| {
        let docs = api((0..n)
            .map(|i| func(&format!("cudaF{i}"), &format!("Section {i}"), vec![]))
            .collect());
        let exports = Exports::from_names("libcudart.so.13", Vec::<String>::new());
        let c = coverage::audit(&docs, &Abi::default(), &exports, None);
        assert_eq!(c.sections.len(), n);
    });
}
