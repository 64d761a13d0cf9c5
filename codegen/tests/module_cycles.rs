//! No import cycle between `codegen`'s top-level modules: each names the others only in one
//! direction (`crate::X` paths in code, outside comments and test modules), so the stages read
//! as the table of docs/ARCHITECTURE.md, each module before the ones that use it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("reads the source folder")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `text` without `//` comments and without what follows its first `#[cfg(test)]`.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules of `src` and, for each, the other top-level modules its code names.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let top = |p: &Path| -> Option<String> {
        let rel = p.strip_prefix(src).ok()?;
        let first = rel.components().next()?.as_os_str().to_str()?;
        let name = first.strip_suffix(".rs").unwrap_or(first);
        (name != "lib" && name != "main").then(|| name.to_string())
    };
    let modules: BTreeSet<String> = files.iter().filter_map(|p| top(p)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for p in &files {
        let Some(from) = top(p) else { continue };
        let code = code_of(&std::fs::read_to_string(p).expect("reads a source file"));
        for (at, _) in code.match_indices("crate::") {
            let name: String = code[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name != from && modules.contains(&name) {
                graph.get_mut(&from).expect("a module").insert(name);
            }
        }
    }
    graph
}

/// A cycle of `graph` as the list of its modules, if it has one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // 0: not visited, 1: on the current path, 2: done.
    let mut state: BTreeMap<&str, u8> = BTreeMap::new();
    let mut path: Vec<&str> = Vec::new();
    fn visit<'a>(
        m: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        state.insert(m, 1);
        path.push(m);
        for next in &graph[m] {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|p| p == next).unwrap_or(0);
                    let mut cycle: Vec<String> =
                        path[start..].iter().map(|s| s.to_string()).collect();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(next, graph, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(m, 2);
        None
    }
    for m in graph.keys() {
        if state.get(m.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(m, graph, &mut state, &mut path) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn codegen_top_level_modules_form_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    assert!(
        graph.contains_key("emit") && graph["emit"].contains("bind"),
        "{graph:?}"
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "an import cycle between codegen's modules: {}",
            cycle.join(" → ")
        );
    }
}

#[test]
fn a_cycle_is_found() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(find_cycle(&graph).expect("a cycle"), ["a", "b", "c", "a"]);
    let mut acyclic = graph.clone();
    acyclic.get_mut("c").unwrap().clear();
    assert_eq!(find_cycle(&acyclic), None);
}
