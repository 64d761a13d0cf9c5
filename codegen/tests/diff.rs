//! Tests of the release diff on hand-built IRs: identity, symmetry, each kind of change,
//! names-only sides, renamed-looking pairs, the JSON schema and the HTML page.

use crate::common;

use codegen::diff::{self, ApiDiff, ChangeKind, Impact, ItemKind};
use codegen::doctype::TypeRef;
use codegen::ir::{
    Api, Constant, Detail, Direction, Document, Enum, Field, Format, Function, Param, Source,
    Struct, Variant,
};
use codegen::report::OutputFormat;

fn src(file: &str, line: u32) -> Source {
    Source::new(file, line)
}

fn param(name: &str, ty: Option<&str>, direction: Direction) -> Param {
    Param {
        name: name.into(),
        ty: ty.map(TypeRef::parse),
        direction,
        doc: String::new(),
    }
}

fn inp(name: &str, ty: &str) -> Param {
    param(name, Some(ty), Direction::In)
}

fn out(name: &str, ty: &str) -> Param {
    param(name, Some(ty), Direction::Out)
}

fn func(name: &str, section: &str, params: Option<Vec<Param>>, line: u32) -> Function {
    Function {
        name: name.into(),
        qualified_name: format!("runtime.{name}"),
        section: Some(section.into()),
        params,
        rtype: None,
        errors: vec![],
        doc: String::new(),
        see_also: vec![],
        detail: Detail::Full,
        source: src("doc.txt", line),
        sources: vec![],
    }
}

fn enum_(name: &str, members: &[(&str, Option<i64>)], line: u32) -> Enum {
    Enum {
        name: name.into(),
        qualified_name: format!("runtime.{name}"),
        section: Some("Data types".into()),
        doc: String::new(),
        variants: members
            .iter()
            .map(|(n, v)| Variant {
                name: (*n).into(),
                value: *v,
                doc: String::new(),
                source: src("doc.txt", line),
            })
            .collect(),
        detail: Detail::Full,
        source: src("doc.txt", line),
        sources: vec![],
    }
}

fn struct_(name: &str, fields: &[(&str, &str)], line: u32) -> Struct {
    Struct {
        name: name.into(),
        qualified_name: format!("runtime.{name}"),
        section: Some("Data types".into()),
        doc: String::new(),
        fields: fields
            .iter()
            .map(|(n, t)| Field {
                name: (*n).into(),
                ty: Some(TypeRef::parse(t)),
                doc: String::new(),
                source: src("doc.txt", line),
            })
            .collect(),
        detail: Detail::Full,
        source: src("doc.txt", line),
        sources: vec![],
    }
}

fn constant(name: &str, value: i64) -> Constant {
    Constant {
        name: name.into(),
        qualified_name: format!("runtime.{name}"),
        section: Some("Data types".into()),
        value,
        doc: String::new(),
        source: src("doc.txt", 900),
        sources: vec![],
    }
}

/// A small API in the shape the parsers produce.
fn base() -> Api {
    Api {
        documents: vec![Document {
            file: "doc.txt".into(),
            format: Format::BindingsText,
            release: None,
            publisher: None,
        }],
        functions: vec![
            func(
                "cudaMalloc",
                "Memory Management",
                Some(vec![inp("size", "size_t"), out("devPtr", "int")]),
                10,
            ),
            func(
                "cudaMemcpy",
                "Memory Management",
                Some(vec![
                    inp("dst", "Any"),
                    inp("src", "Any"),
                    inp("count", "size_t"),
                    inp("kind", ":py:obj:`~.cudaMemcpyKind`"),
                ]),
                20,
            ),
            func(
                "cudaStreamCreate",
                "Stream Management",
                Some(vec![out("pStream", "cudaStream_t")]),
                30,
            ),
            func(
                "cudaGraphAddNode",
                "Graph Management",
                Some(vec![
                    inp("graph", "cudaGraph_t"),
                    inp(
                        "deps",
                        "Optional[tuple[cudaGraphNode_t] | list[cudaGraphNode_t]]",
                    ),
                ]),
                40,
            ),
        ],
        enums: vec![enum_(
            "cudaMemcpyKind",
            &[
                ("cudaMemcpyHostToHost", Some(0)),
                ("cudaMemcpyHostToDevice", Some(1)),
            ],
            100,
        )],
        structs: vec![struct_(
            "cudaPos",
            &[("x", "size_t"), ("y", "size_t"), ("z", "size_t")],
            200,
        )],
        constants: vec![constant("cudaHostAllocMapped", 2)],
        ..Api::default()
    }
}

fn kinds(d: &ApiDiff, name: &str) -> Vec<ChangeKind> {
    d.changes
        .iter()
        .filter(|c| c.name == name)
        .map(|c| c.change)
        .collect()
}

#[test]
fn identical_apis_have_no_changes() {
    let a = base();
    let d = diff::diff(&a, &a);
    assert!(d.is_unchanged(), "{d:#?}");
    assert!(d.renamed.is_empty() && d.not_comparable.is_empty());
    let f = &d.totals[0];
    assert_eq!(
        (f.kind, f.old, f.new, f.added, f.removed, f.changed),
        (ItemKind::Function, 4, 4, 0, 0, 0)
    );
}

#[test]
fn swapping_sides_swaps_added_and_removed() {
    let old = base();
    let mut new = base();
    new.functions.retain(|f| f.name != "cudaStreamCreate");
    new.functions.push(func(
        "cudaMallocAsync",
        "Stream Ordered Memory",
        Some(vec![inp("size", "size_t"), inp("hStream", "cudaStream_t")]),
        50,
    ));
    new.enums.clear();
    let fwd = diff::diff(&old, &new);
    let back = diff::diff(&new, &old);
    let names = |l: &[codegen::diff::ItemRef]| {
        l.iter()
            .map(|i| (i.kind, i.name.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(&fwd.removed),
        vec![
            (ItemKind::Function, "cudaStreamCreate".into()),
            (ItemKind::Enum, "cudaMemcpyKind".into())
        ]
    );
    assert_eq!(
        names(&fwd.added),
        vec![(ItemKind::Function, "cudaMallocAsync".into())]
    );
    assert_eq!(names(&fwd.added), names(&back.removed));
    assert_eq!(names(&fwd.removed), names(&back.added));
    assert_eq!(fwd.totals[0].removed, back.totals[0].added);
}

#[test]
fn renumbered_member_without_abi_is_docs() {
    let old = base();
    let mut new = base();
    new.enums[0].variants[1].value = Some(7);
    new.enums[0].variants.push(Variant {
        name: "cudaMemcpyDefault".into(),
        value: Some(4),
        doc: String::new(),
        source: src("doc.txt", 103),
    });
    let d = diff::diff(&old, &new);
    let c = d
        .changes
        .iter()
        .find(|c| c.change == ChangeKind::MemberRenumbered)
        .expect("renumbering reported");
    // Without the releases' ABI, a renumbering is no break (count sentinels move too).
    assert_eq!(
        (c.name.as_str(), c.part.as_deref(), c.impact),
        (
            "cudaMemcpyKind",
            Some("cudaMemcpyHostToDevice"),
            Impact::Docs
        )
    );
    assert_eq!((c.old.as_deref(), c.new.as_deref()), (Some("1"), Some("7")));
    assert_eq!(
        kinds(&d, "cudaMemcpyKind"),
        vec![ChangeKind::MemberRenumbered, ChangeKind::MemberAdded]
    );
    assert_eq!(d.breaks(), 0);
    assert_eq!((d.totals[1].breaks, d.totals[1].docs), (0, 1));
    assert!(!d.abi_compared);
    let added = d
        .changes
        .iter()
        .find(|c| c.change == ChangeKind::MemberAdded)
        .unwrap();
    assert_eq!(
        (added.old_source.as_deref(), added.new_source.as_deref()),
        (Some("doc.txt:100"), Some("doc.txt:103"))
    );
    let md = diff::render::render(&d, OutputFormat::Markdown);
    assert!(md.contains("## Documentation only (1)"), "{md}");
    assert!(md.contains("no ABI snapshot was compared"), "{md}");
    assert!(!diff::render::summary(&d).contains("!!"));
}

#[test]
fn constant_value_change_without_abi_is_docs() {
    let old = base();
    let mut new = base();
    new.constants[0].value = 3;
    let d = diff::diff(&old, &new);
    assert_eq!(
        kinds(&d, "cudaHostAllocMapped"),
        vec![ChangeKind::ValueChanged]
    );
    assert_eq!(d.breaks(), 0);
    assert_eq!(d.items[0].impact, Impact::Docs);
}

#[test]
fn retyped_parameter_compares_expressions_not_text() {
    let old = base();
    let mut new = base();
    // Same types, other spelling: role markup dropped, union alternatives swapped.
    new.functions[1].params.as_mut().unwrap()[3] = inp("kind", "cudaMemcpyKind");
    new.functions[3].params.as_mut().unwrap()[1] = inp(
        "deps",
        "Optional[list[cudaGraphNode_t] | tuple[cudaGraphNode_t]]",
    );
    assert!(diff::diff(&old, &new).is_unchanged());
    // A real retyping.
    new.functions[1].params.as_mut().unwrap()[2] = inp("count", "int");
    let d = diff::diff(&old, &new);
    assert_eq!(d.changes.len(), 1, "{:#?}", d.changes);
    let c = &d.changes[0];
    assert_eq!(
        (c.name.as_str(), c.part.as_deref(), c.change),
        ("cudaMemcpy", Some("count"), ChangeKind::ParamRetyped)
    );
    assert_eq!(
        (c.old.as_deref(), c.new.as_deref()),
        (Some("size_t"), Some("int"))
    );
    assert_eq!(c.old_source.as_deref(), Some("doc.txt:20"));
}

#[test]
fn input_becoming_output() {
    let old = base();
    let mut new = base();
    new.functions[0].params = Some(vec![out("size", "size_t"), out("devPtr", "int")]);
    let d = diff::diff(&old, &new);
    let c = d
        .changes
        .iter()
        .find(|c| c.name == "cudaMalloc")
        .expect("a change");
    assert_eq!(
        (c.part.as_deref(), c.change),
        (Some("size"), ChangeKind::InputBecameOutput)
    );
    assert_eq!(kinds(&d, "cudaMalloc"), vec![ChangeKind::InputBecameOutput]);
    let back = diff::diff(&new, &old);
    assert_eq!(
        kinds(&back, "cudaMalloc"),
        vec![ChangeKind::OutputBecameInput]
    );
}

#[test]
fn parameters_added_removed_renamed_reordered() {
    let old = base();
    let mut new = base();
    // cudaMemcpy: `src` and `dst` swapped, `kind` renamed to `direction` (same type, same
    // place), `count` removed, `stream` added.
    new.functions[1].params = Some(vec![
        inp("src", "Any"),
        inp("dst", "Any"),
        inp("direction", "cudaMemcpyKind"),
        inp("stream", "cudaStream_t"),
    ]);
    let d = diff::diff(&old, &new);
    let got: Vec<(ChangeKind, Option<&str>)> = d
        .changes_of(ItemKind::Function, "cudaMemcpy")
        .iter()
        .map(|c| (c.change, c.part.as_deref()))
        .collect();
    assert_eq!(
        got,
        vec![
            (ChangeKind::ParamRemoved, Some("count")),
            (ChangeKind::ParamRemoved, Some("kind")),
            (ChangeKind::ParamAdded, Some("direction")),
            (ChangeKind::ParamAdded, Some("stream")),
            (ChangeKind::ParamsReordered, Some("inputs")),
        ],
        "kind is not at the same position, so it is not a renaming: {:#?}",
        d.changes
    );
    // Same position and type: a renaming.
    let mut new2 = base();
    new2.functions[2].params = Some(vec![out("stream", "cudaStream_t")]);
    let d2 = diff::diff(&old, &new2);
    let c = &d2.changes_of(ItemKind::Function, "cudaStreamCreate")[0];
    assert_eq!(
        (c.change, c.old.as_deref(), c.new.as_deref()),
        (ChangeKind::ParamRenamed, Some("pStream"), Some("stream"))
    );
    assert_eq!(d2.changes.len(), 1);
}

#[test]
fn names_only_side_gives_not_comparable_entries() {
    let new = base();
    let mut old = base();
    for f in &mut old.functions {
        f.params = None;
        f.detail = Detail::NamesOnly;
    }
    old.enums[0].variants.clear();
    old.enums[0].detail = Detail::NamesOnly;
    old.structs[0].fields.clear();
    old.structs[0].detail = Detail::NamesOnly;
    let d = diff::diff(&old, &new);
    assert!(
        d.is_unchanged(),
        "names-only must not look like changes: {:#?}",
        d.changes
    );
    let nc: Vec<(ItemKind, &str, &str)> = d
        .not_comparable
        .iter()
        .map(|n| (n.kind, n.name.as_str(), n.comparison.as_str()))
        .collect();
    assert_eq!(
        nc,
        vec![
            (ItemKind::Function, "cudaGraphAddNode", "parameters"),
            (ItemKind::Function, "cudaMalloc", "parameters"),
            (ItemKind::Function, "cudaMemcpy", "parameters"),
            (ItemKind::Function, "cudaStreamCreate", "parameters"),
            (ItemKind::Enum, "cudaMemcpyKind", "members"),
            (ItemKind::Struct, "cudaPos", "fields"),
        ]
    );
    assert_eq!(d.not_comparable[0].reason, "old side states names only");
    // Renamed-looking pairs need parameters: when they are unstated, that is said once.
    let mut old2 = old.clone();
    old2.functions[0].name = "cudaGraphAddNodeOld".into();
    let d2 = diff::diff(&old2, &new);
    let agg: Vec<(&str, &str)> = d2
        .not_comparable
        .iter()
        .filter(|n| n.name == "*")
        .map(|n| (n.comparison.as_str(), n.reason.as_str()))
        .collect();
    assert_eq!(
        agg,
        vec![(
            "renamed-looking pairs",
            "old side states no parameters for 1 of the 1 removed functions"
        )]
    );
    assert!(d2.renamed.is_empty());
    assert_eq!(d.not_comparable[0].source, "doc.txt:40");
    // A parameter without a type on one side: only that comparison is impossible.
    let mut untyped = base();
    untyped.functions[0].params.as_mut().unwrap()[0].ty = None;
    let d = diff::diff(&base(), &untyped);
    assert!(d.is_unchanged());
    assert_eq!(d.not_comparable.len(), 1);
    assert_eq!(
        (
            d.not_comparable[0].comparison.as_str(),
            d.not_comparable[0].reason.as_str()
        ),
        ("type of parameter size", "new side gives no type")
    );
}

#[test]
fn renamed_looking_pairs() {
    let old = base();
    let mut new = base();
    // Renamed with the same parameters; a similar name with other parameters is not paired,
    // nor is a same-parameter function with an unrelated name.
    new.functions[2].name = "cudaStreamCreate_v2".into();
    new.functions.push(func(
        "cudaStreamCreate_v3",
        "Stream Management",
        Some(vec![
            out("pStream", "cudaStream_t"),
            inp("flags", "unsigned int"),
        ]),
        60,
    ));
    new.functions[0].name = "cudaAllocateDeviceBuffer".into();
    let d = diff::diff(&old, &new);
    assert_eq!(d.renamed.len(), 1, "{:#?}", d.renamed);
    let r = &d.renamed[0];
    assert_eq!(
        (r.old_name.as_str(), r.new_name.as_str()),
        ("cudaStreamCreate", "cudaStreamCreate_v2")
    );
    assert!(r.similarity > 0.8 && r.similarity < 1.0);
    let removed = d
        .removed
        .iter()
        .find(|i| i.name == "cudaStreamCreate")
        .unwrap();
    assert_eq!(
        removed.looks_renamed.as_deref(),
        Some("cudaStreamCreate_v2")
    );
    assert!(d
        .removed
        .iter()
        .find(|i| i.name == "cudaMalloc")
        .unwrap()
        .looks_renamed
        .is_none());
    assert_eq!(d.totals[0].renamed, 1);
}

#[test]
fn struct_fields_and_sections() {
    let old = base();
    let mut new = base();
    new.structs[0].fields = vec![
        Field {
            name: "y".into(),
            ty: Some(TypeRef::parse("size_t")),
            doc: String::new(),
            source: src("doc.txt", 201),
        },
        Field {
            name: "x".into(),
            ty: Some(TypeRef::parse("int")),
            doc: String::new(),
            source: src("doc.txt", 202),
        },
        Field {
            name: "w".into(),
            ty: Some(TypeRef::parse("size_t")),
            doc: String::new(),
            source: src("doc.txt", 203),
        },
    ];
    new.functions[0].section = Some("Stream Ordered Memory".into());
    let d = diff::diff(&old, &new);
    assert_eq!(
        kinds(&d, "cudaPos"),
        vec![
            ChangeKind::FieldRetyped,
            ChangeKind::FieldRemoved,
            ChangeKind::FieldAdded,
            ChangeKind::FieldsReordered
        ]
    );
    let moved = &d.changes_of(ItemKind::Function, "cudaMalloc")[0];
    assert_eq!(
        (moved.change, moved.new.as_deref()),
        (ChangeKind::SectionMoved, Some("Stream Ordered Memory"))
    );
    assert!(d.has_removals());
}

#[test]
fn order_is_deterministic() {
    let old = base();
    let mut new = base();
    new.functions.reverse();
    new.functions[0]
        .params
        .as_mut()
        .unwrap()
        .push(inp("flags", "unsigned int"));
    new.functions[2]
        .params
        .as_mut()
        .unwrap()
        .push(inp("flags", "unsigned int"));
    let a = diff::diff(&old, &new);
    let mut shuffled = old.clone();
    shuffled.functions.swap(0, 3);
    let b = diff::diff(&shuffled, &new);
    assert_eq!(diff::render::to_json(&a), diff::render::to_json(&b));
    let names: Vec<&str> = a.changes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["cudaGraphAddNode", "cudaMemcpy"]);
}

// --- JSON schema -----------------------------------------------------------------------

use common::check;

fn schema() -> serde_json::Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/diff-report.schema.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("schema file"))
        .expect("schema is JSON")
}

/// The C side of [`base`] in two releases: `cudaMalloc` gains a parameter, `cudaStreamCreate`
/// becomes `cudaStreamCreate_v2`, a member and a constant change value, `cudaPos` grows,
/// `cudaMemcpy` is deprecated.
fn abis() -> (codegen::abi::Abi, codegen::abi::Abi) {
    use common::{abi, cfn};
    use serde_json::json;
    let record = |size: u32, fields: &[(&str, &str, u32)]| {
        let fields: Vec<serde_json::Value> = fields
            .iter()
            .map(|(n, t, o)| json!({"name": n, "ty": common::cty(t), "offset": o, "line": 1}))
            .collect();
        json!({"cudaPos": {"name": "cudaPos", "kind": "struct", "repr": ["C"], "fields": fields,
            "opaque": false, "size": size, "align": 8, "header": "driver_types.h", "line": 200}})
    };
    let kind = |v: i64| {
        json!({"cudaMemcpyKind": {"name": "cudaMemcpyKind", "repr": "u32", "values": [
            {"name": "cudaMemcpyHostToHost", "value": 0, "line": 101},
            {"name": "cudaMemcpyHostToDevice", "value": v, "line": 102}],
            "header": "driver_types.h", "line": 100}})
    };
    let constant = |v: i64| {
        json!({"cudaHostAllocMapped": {"name": "cudaHostAllocMapped", "ty": common::cty("unsigned int"),
            "value": v, "header": "cuda_runtime_api.h", "line": 5}})
    };
    let old = abi(
        "13.1",
        json!({
            "functions": {
                "cudaMalloc": cfn("cudaMalloc", &[("void**", "devPtr"), ("size_t", "size")], 10),
                "cudaMemcpy": cfn("cudaMemcpy", &[("void*", "dst"), ("void*", "src"), ("size_t", "count"), ("cudaMemcpyKind", "kind")], 20),
                "cudaStreamCreate": cfn("cudaStreamCreate", &[("cudaStream_t*", "pStream")], 30),
            },
            "records": record(24, &[("x", "size_t", 0), ("y", "size_t", 8), ("z", "size_t", 16)]),
            "enums": kind(1),
            "constants": constant(2),
        }),
    );
    let new = abi(
        "13.2",
        json!({
            "functions": {
                "cudaMalloc": cfn("cudaMalloc", &[("void**", "devPtr"), ("size_t", "size"), ("unsigned int", "flags")], 10),
                "cudaMemcpy": cfn("cudaMemcpy", &[("void*", "dst"), ("void*", "src"), ("size_t", "count"), ("cudaMemcpyKind", "kind")], 20),
                "cudaStreamCreate_v2": cfn("cudaStreamCreate_v2", &[("cudaStream_t*", "pStream")], 30),
            },
            "records": record(32, &[("y", "size_t", 0), ("x", "int", 8), ("w", "size_t", 16)]),
            "enums": kind(5),
            "constants": constant(9),
            "deprecated": {"cudaMemcpy": "attribute"},
        }),
    );
    (old, new)
}

/// A diff with at least one entry of every list, every optional key and every change kind
/// the fixtures produce, joined with [`abis`].
fn busy_diff() -> ApiDiff {
    let mut old = base();
    old.functions[3].params = None;
    let mut new = base();
    new.functions[2].name = "cudaStreamCreate_v2".into();
    new.functions[0].params = Some(vec![
        out("size", "size_t"),
        out("devPtr", "int"),
        inp("flags", "list[:py:obj:`~.cudaGraphEdgeData`]"),
    ]);
    new.functions[1].section = Some("Other".into());
    new.enums[0].variants[0].value = Some(5);
    new.constants[0].value = 9;
    new.structs[0].fields.remove(0);
    new.documents[0].release = codegen::ir::Release::parse("13.2");
    let (a, b) = abis();
    let mut links = diff::RustdocLinks {
        crate_name: "cudart13".into(),
        base: "../doc".into(),
        ..Default::default()
    };
    links.items.insert("cudaMalloc".into(), "fn");
    let pair = diff::AbiPair {
        old: &a,
        new: &b,
        old_file: Some("abi/13.1.json"),
        new_file: Some("abi/13.2.json"),
    };
    let mut d = diff::diff_with_abi(&old, &new, pair, Some(&links));
    d.old.label = Some("old/".into());
    d
}

#[test]
fn json_matches_the_committed_schema() {
    let schema = schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let d = busy_diff();
    assert!(
        !d.added.is_empty()
            && !d.removed.is_empty()
            && !d.renamed.is_empty()
            && !d.not_comparable.is_empty()
    );
    let json: serde_json::Value = serde_json::from_str(&diff::render::to_json(&d)).unwrap();
    check(&schema, &schema, &json, "$").unwrap();
    // Every change kind and impact the code can emit is in the schema's enums.
    let kinds = schema["$defs"]["change_kind"]["enum"].as_array().unwrap();
    assert_eq!(kinds.len(), 32);
    assert!(!d.items.is_empty() && !d.abi_changes.is_empty());
    // The checker itself rejects what the schema forbids.
    let mut bad = json.clone();
    bad["changes"][0]["impact"] = "fatal".into();
    assert!(check(&schema, &schema, &bad, "$").is_err());
    let mut bad = json.clone();
    bad.as_object_mut().unwrap().remove("totals");
    assert!(check(&schema, &schema, &bad, "$").is_err());
    let mut bad = json;
    bad["extra"] = 1.into();
    assert!(check(&schema, &schema, &bad, "$").is_err());
    // And the JSON reads back into the same diff.
    let back: ApiDiff = serde_json::from_str(&diff::render::to_json(&d)).unwrap();
    assert_eq!(back, d);
}

#[test]
fn the_join_classes_items_from_the_abi() {
    let d = busy_diff();
    assert!(d.abi_compared);
    let item = |kind, name: &str| d.item(kind, name).unwrap_or_else(|| panic!("{name}"));
    // One break per function, with both prototypes and the link to the crate's page.
    let m = item(ItemKind::Function, "cudaMalloc");
    assert_eq!(
        (m.impact, m.status),
        (Impact::Break, diff::ItemStatus::Changed)
    );
    let sig: Vec<&diff::Change> = m
        .changes
        .iter()
        .filter(|c| c.change == ChangeKind::SignatureChanged)
        .collect();
    assert_eq!(sig.len(), 1);
    assert!(
        m.new_c.as_deref().unwrap().ends_with("unsigned int flags)"),
        "{m:?}"
    );
    assert!(
        m.old_c.as_deref().unwrap().ends_with("size_t size)"),
        "{m:?}"
    );
    assert_eq!(
        m.rustdoc.as_deref(),
        Some("../doc/cudart13/sys/fn.cudaMalloc.html")
    );
    // The documents' view of the same change rides along, class docs.
    assert!(m.changes.iter().any(|c| c.evidence == diff::Evidence::Docs));
    // A removed name with a `_vN` family member of the same declaration is paired.
    let s = item(ItemKind::Function, "cudaStreamCreate");
    assert_eq!(
        (s.impact, s.status),
        (Impact::Break, diff::ItemStatus::Paired)
    );
    assert_eq!(s.paired_with.as_deref(), Some("cudaStreamCreate_v2"));
    assert_eq!(
        item(ItemKind::Function, "cudaMemcpy").impact,
        Impact::Deprecated
    );
    assert_eq!(item(ItemKind::Enum, "cudaMemcpyKind").impact, Impact::Break);
    assert_eq!(
        item(ItemKind::Constant, "cudaHostAllocMapped").impact,
        Impact::Break
    );
    let pos = item(ItemKind::Struct, "cudaPos");
    let got: Vec<(ChangeKind, Option<&str>)> = pos
        .changes
        .iter()
        .filter(|c| c.evidence == diff::Evidence::Abi)
        .map(|c| (c.change, c.part.as_deref()))
        .collect();
    assert_eq!(
        got,
        vec![
            (ChangeKind::SizeChanged, None),
            (ChangeKind::FieldRetyped, Some("x")),
            (ChangeKind::FieldMoved, Some("x")),
            (ChangeKind::FieldMoved, Some("y")),
            (ChangeKind::FieldRemoved, Some("z")),
            (ChangeKind::FieldAdded, Some("w")),
        ]
    );
    // A section moved in the documents only: class docs, and the reason says so.
    let moved = item(ItemKind::Function, "cudaMemcpy");
    assert!(moved
        .changes
        .iter()
        .any(|c| c.change == ChangeKind::SectionMoved && c.impact == Impact::Docs));
    let classes: Vec<(ItemKind, &str, Impact)> = d
        .items
        .iter()
        .map(|i| (i.kind, i.name.as_str(), i.impact))
        .collect();
    assert_eq!(d.breaks(), 5, "{classes:?}");
}

// --- HTML --------------------------------------------------------------------------------

#[test]
fn html_page_has_contents_anchors_filters_and_code() {
    use scraper::{Html, Selector};
    let mut d = busy_diff();
    // Text that must be escaped.
    d.items[0].changes[0].reason = Some("<b>\"x\" & 'y'</b>".into());
    let page = diff::render::render(&d, OutputFormat::Html);
    let doc = Html::parse_document(&page);
    assert!(doc.errors.is_empty(), "{:?}", doc.errors);
    let sel = |s: &str| Selector::parse(s).unwrap();
    // Self-contained: no external resources.
    assert_eq!(
        doc.select(&sel("link, script[src], img, iframe")).count(),
        0
    );
    assert!(doc.select(&sel("style")).next().is_some());
    // The search box, the class filter and the sort script.
    assert!(doc
        .select(&sel("input#search[type=search]"))
        .next()
        .is_some());
    let options: Vec<String> = doc
        .select(&sel("select#class-filter option"))
        .filter_map(|o| o.value().attr("value").map(String::from))
        .collect();
    assert_eq!(options, ["", "break", "deprecated", "info"]);
    let script: String = doc
        .select(&sel("script"))
        .map(|s| s.text().collect::<String>())
        .collect();
    assert!(
        script.contains("addEventListener('click'")
            && script.contains("aria-sort")
            && script.contains("getElementById('search')")
            && script.contains("hashchange")
    );
    // Every link of the contents leads to an element of the page.
    let ids: std::collections::HashSet<String> = doc
        .select(&sel("[id]"))
        .filter_map(|e| e.value().attr("id").map(String::from))
        .collect();
    let toc: Vec<String> = doc
        .select(&sel("nav#toc a"))
        .filter_map(|a| a.value().attr("href").map(String::from))
        .collect();
    assert!(toc.len() >= 6, "{toc:?}");
    for href in &toc {
        assert!(
            ids.contains(href.trim_start_matches('#')),
            "{href} leads nowhere"
        );
    }
    assert!(toc.contains(&"#function-cudaMalloc".to_string()));
    // The break row: its anchor, class, rustdoc link and the two C prototypes as code.
    let row = doc
        .select(&sel("table#t-break tr#function-cudaMalloc"))
        .next()
        .expect("break row");
    assert_eq!(row.value().attr("data-severity"), Some("break"));
    let cell = |key: &str| {
        row.select(&sel(&format!("td[data-col=\"{key}\"]")))
            .next()
            .unwrap()
    };
    let link = cell("item").select(&sel("a code")).next().expect("link");
    assert_eq!(link.text().collect::<String>(), "cudaMalloc");
    assert!(cell("old_c")
        .select(&sel("code"))
        .next()
        .is_some_and(|c| c.text().collect::<String>().contains("size_t size)")));
    // Tables: totals first, then one per class, pairs, not comparable; all sortable.
    let tables: Vec<String> = doc
        .select(&sel("table"))
        .filter_map(|t| t.value().attr("id").map(String::from))
        .collect();
    assert_eq!(
        tables,
        [
            "t-totals",
            "t-break",
            "t-folds",
            "t-deprecated",
            "t-info",
            "t-docs",
            "t-renamed",
            "t-not-comparable"
        ]
    );
    assert_eq!(doc.select(&sel("table.sortable")).count(), 8);
    // Escaping: the markup is text, not elements.
    assert!(page.contains("&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;"));
    assert_eq!(doc.select(&sel("table#t-break b")).count(), 0);
}

#[test]
fn markdown_has_contents_anchors_and_code() {
    let d = busy_diff();
    let md = diff::render::render(&d, OutputFormat::Markdown);
    let totals = md.find("## Totals").unwrap();
    let contents = md.find("## Contents").unwrap();
    // Four breaks to act on, then the one folded name apart (a break too: 5 in the totals).
    let breaks = md.find("## ⚠ Breaks (4)").expect(&md);
    let folds = md.find("## Folded names (").expect(&md);
    assert!(
        totals < contents && contents < breaks && breaks < folds,
        "{md}"
    );
    assert!(
        md.contains("| function | 4 | 4 | 1 | 1 | 2 | 2 | 1 | 1 | 0 | 1 |"),
        "{md}"
    );
    assert!(
        md.contains("- [`cudaMalloc`](#function-cudaMalloc)"),
        "{md}"
    );
    assert!(md.contains("<a id=\"function-cudaMalloc\"></a>[`cudaMalloc`](../doc/cudart13/sys/fn.cudaMalloc.html)"), "{md}");
    // reST in the documents' types is text and code, never raw roles.
    assert!(!md.contains(":py:obj:"), "{md}");
    assert!(
        md.contains("flags: list\\[`cudaGraphEdgeData`\\] (in)"),
        "{md}"
    );
    let html = diff::render::render(&d, OutputFormat::Html);
    assert!(
        html.contains("flags: list[<code>cudaGraphEdgeData</code>] (in)"),
        "{html}"
    );
}
