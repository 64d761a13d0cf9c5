//! Helpers shared by the integration tests of `codegen`: a checker for the subset of JSON
//! Schema the committed report schemas (`docs/*.schema.json`) use, and a check that work grows
//! linearly with its input.

use std::time::Duration;

use codegen::clock::Stopwatch;

/// Checks `value` against `schema` for the subset of JSON Schema the report schemas use
/// (type, const, enum, required, properties, additionalProperties: false, items, $ref,
/// minimum, maximum). Returns the first violation.
pub fn check(
    root: &serde_json::Value,
    schema: &serde_json::Value,
    value: &serde_json::Value,
    at: &str,
) -> Result<(), String> {
    use serde_json::Value;
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r
            .strip_prefix("#/$defs/")
            .ok_or_else(|| format!("{at}: unsupported $ref {r}"))?;
        let target = root["$defs"]
            .get(name)
            .ok_or_else(|| format!("{at}: unknown $ref {r}"))?;
        return check(root, target, value, at);
    }
    if let Some(t) = schema.get("type").and_then(Value::as_str) {
        let ok = match t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_u64() || value.is_i64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            other => return Err(format!("{at}: unsupported type {other}")),
        };
        if !ok {
            return Err(format!("{at}: expected {t}, got {value}"));
        }
    }
    if schema.get("const").is_some_and(|c| c != value) {
        return Err(format!("{at}: not the constant"));
    }
    if schema
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|e| !e.contains(value))
    {
        return Err(format!("{at}: {value} not in enum"));
    }
    let num = value.as_f64();
    if let (Some(min), Some(v)) = (schema.get("minimum").and_then(Value::as_f64), num) {
        if v < min {
            return Err(format!("{at}: below minimum"));
        }
    }
    if let (Some(max), Some(v)) = (schema.get("maximum").and_then(Value::as_f64), num) {
        if v > max {
            return Err(format!("{at}: above maximum"));
        }
    }
    if let Some(obj) = value.as_object() {
        let props = schema.get("properties").and_then(Value::as_object);
        for req in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let k = req.as_str().unwrap_or_default();
            if !obj.contains_key(k) {
                return Err(format!("{at}: missing required key {k}"));
            }
        }
        for (k, v) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(s) => check(root, s, v, &format!("{at}.{k}"))?,
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    return Err(format!("{at}: key {k} not in schema"))
                }
                None => {}
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            check(root, items, v, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

/// A C type for a hand-built ABI: `int`, `void*`, `cudaStream_t` (a name starting with
/// `cuda`/`CU` is a declared type, a trailing `*` a pointer).
pub fn cty(text: &str) -> serde_json::Value {
    fn c(text: &str) -> serde_json::Value {
        if let Some(inner) = text.strip_suffix('*') {
            return serde_json::json!({"kind": "pointer", "to": c(inner.trim_end()), "is_const": false});
        }
        if text.starts_with("cuda") || text.starts_with("CU") {
            serde_json::json!({"kind": "named", "name": text})
        } else {
            serde_json::json!({"kind": "primitive", "name": text})
        }
    }
    serde_json::json!({"rust": "", "c_text": text, "c": c(text)})
}

/// A C function for a hand-built ABI: `params` are `(type, name)`.
pub fn cfn(name: &str, params: &[(&str, &str)], line: u32) -> serde_json::Value {
    let params: Vec<serde_json::Value> = params
        .iter()
        .map(|(t, n)| serde_json::json!({"name": n, "ty": cty(t)}))
        .collect();
    serde_json::json!({"name": name, "params": params, "ret": cty("cudaError_t"),
        "header": "cuda_runtime_api.h", "line": line})
}

/// An ABI model from the JSON of its parts (`functions`, `records`, `enums`, …, each
/// optional), as a snapshot file holds them.
pub fn abi(release: &str, parts: serde_json::Value) -> codegen::abi::Abi {
    let mut v = serde_json::json!({
        "release": codegen::ir::Release::parse(release),
        "origin": format!("test headers {release}"),
        "file": "test.rs",
        "functions": {}, "records": {}, "enums": {}, "typedefs": {}, "constants": {},
        "diagnostics": []
    });
    if let (Some(o), Some(p)) = (v.as_object_mut(), parts.as_object()) {
        for (k, x) in p {
            o.insert(k.clone(), x.clone());
        }
    }
    serde_json::from_value(v).expect("a valid hand-built ABI")
}

/// The least of three timings of `f` (CPU time of this thread).
pub fn best_of_three(f: &dyn Fn()) -> Duration {
    (0..3)
        .map(|_| {
            let t = Stopwatch::start();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Asserts that `work(4n)` takes less than 8 times `work(n)` (linear: 4×, quadratic: 16×).
pub fn assert_linear(what: &str, n: usize, work: &dyn Fn(usize)) {
    work(n); // warm up
    let small = best_of_three(&|| work(n));
    let large = best_of_three(&|| work(4 * n));
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
    println!(
        "{what}: {n} → {small:?}, {} → {large:?} ({ratio:.1}×)",
        4 * n
    );
    assert!(
        ratio < 8.0,
        "{what}: 4× the input took {ratio:.1}× the time ({small:?} → {large:?})"
    );
}
