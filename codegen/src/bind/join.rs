//! Joining the documentation IR with the ABI model.
//!
//! Functions are matched by name; their parameters by the rules of [`crate::param_renames`].
//! Enums, structs and typedefs are matched by name directly or through the ABI's typedef
//! aliases (`cudaError_t` → `cudaError`). Every type a bound item mentions is pulled in too
//! (undocumented records and enums the ABI needs), so the emitted crate is complete.

use std::collections::BTreeSet;

use foldhash::HashMap;

use crate::abi::{self, Abi, CType};
use crate::diag::{Diagnostic, Severity};
use crate::ir::{Api, Direction, Function, Source};

use super::{
    Bindings, BoundConstant, BoundEnum, BoundFunction, BoundParam, BoundRecord, BoundTypedef,
    Renaming, Unbound,
};
use crate::param_renames::{self as renames, Rule};

/// Joins `api` (documentation, merged) with `abi` (one release).
pub fn join(api: &Api, abi: &Abi) -> Bindings {
    let mut j = Joiner {
        api,
        abi,
        out: Bindings::default(),
        needed: BTreeSet::new(),
    };
    j.out.release = abi.release.clone();
    j.out.abi_source = abi.origin.clone();
    j.out.library = abi.library;
    j.out.documents = api.documents.clone();
    if abi.library == crate::library::Library::Nvrtc {
        j.out.compile_options = api
            .sections
            .iter()
            .find(|s| s.id.as_deref() == Some("options"))
            .map(|s| s.doc.clone());
    }
    j.functions();
    j.mismatch();
    j.constants();
    j.types();
    j.out.diagnostics.extend(
        abi.diagnostics
            .iter()
            .filter(|d| d.severity != Severity::Note)
            .cloned(),
    );
    j.out
}

struct Joiner<'a> {
    api: &'a Api,
    abi: &'a Abi,
    out: Bindings,
    /// ABI type names bound items mention, to be emitted.
    needed: BTreeSet<String>,
}

impl<'a> Joiner<'a> {
    /// An error when the documents describe functions and the ABI declares functions but
    /// none of the first is one of the second: documents of another library than the ABI's
    /// (`--library nvrtc` given the runtime's pages), which would make a crate of the ABI's
    /// functions with no documentation at all.
    fn mismatch(&mut self) {
        let documented = self.out.functions.iter().filter(|f| f.documented).count();
        let Some(first) = self.api.functions.first() else {
            return;
        };
        if documented > 0 || self.abi.functions.is_empty() {
            return;
        }
        let library = self.abi.library;
        let message = format!(
            "none of the {} documented functions is one the ABI of {library} declares ({}): \
             these are not documents of {library} (the `library` of the crate's [[crate]] \
             entry, or `--library`, names another)",
            self.api.functions.len(),
            self.abi.origin
        );
        let source = first.source.clone();
        self.diag(Severity::Error, &source, message);
    }

    fn diag(&mut self, severity: Severity, source: &Source, message: String) {
        self.out
            .diagnostics
            .push(Diagnostic::at(severity, source, message));
    }

    fn functions(&mut self) {
        for f in &self.api.functions {
            match self.abi.function_for(&f.name) {
                Some((c, symbol)) => {
                    let mut bound = self.bind_function(f, c);
                    bound.symbol = symbol.to_string();
                    for p in &bound.params {
                        self.need(&p.ty.c);
                    }
                    self.need(&bound.ret.c);
                    self.out.functions.push(bound);
                }
                None if self.constructor(f) => {}
                None => {
                    let reason = if f.qualified_name.starts_with("cupy")
                        || f.qualified_name.contains("cupy_")
                        || f.name.starts_with("cupy_")
                    {
                        "a CuPy C API function, not part of the CUDA Runtime".to_string()
                    } else if f.name.starts_with("make_") {
                        "an inline helper of the C headers, not an exported symbol; the ABI source does not declare it".to_string()
                    } else {
                        format!("not declared by the ABI source ({}) (interop API or not in this release)", self.abi.origin)
                    };
                    self.out.unbound.push(Unbound {
                        name: f.name.clone(),
                        kind: "function".into(),
                        reason,
                        source: f.source.clone(),
                    });
                }
            }
        }
        // Functions only the ABI declares are bound too, under their C name, so that nothing
        // the release declares is missing from the crate; the summary names them.
        let abi = self.abi;
        let bound: BTreeSet<&str> = self
            .api
            .functions
            .iter()
            .filter_map(|f| abi.function_for(&f.name).map(|(c, _)| c.name.as_str()))
            .collect();
        for (name, c) in &abi.functions {
            if bound.contains(name.as_str()) {
                continue;
            }
            let bound = BoundFunction {
                name: name.clone(),
                section: None,
                doc: String::new(),
                see_also: Vec::new(),
                errors: Vec::new(),
                params: c
                    .params
                    .iter()
                    .map(|p| BoundParam {
                        c_name: p.name.clone(),
                        ty: p.ty.clone(),
                        doc_name: None,
                        direction: None,
                        doc_type: None,
                        doc: String::new(),
                    })
                    .collect(),
                ret: c.ret.clone(),
                source: Source::new(c.header.clone().unwrap_or_else(|| abi.file.clone()), c.line),
                symbol: name.clone(),
                documented: false,
                typed: super::Typed::default(),
                since: None,
            };
            for p in &bound.params {
                self.need(&p.ty.c);
            }
            self.need(&bound.ret.c);
            self.out.abi_only.push(name.clone());
            self.out.functions.push(bound);
        }
    }

    fn bind_function(&mut self, f: &Function, c: &abi::Function) -> BoundFunction {
        let mut params: Vec<BoundParam> = c
            .params
            .iter()
            .map(|p| BoundParam {
                c_name: p.name.clone(),
                ty: p.ty.clone(),
                doc_name: None,
                direction: None,
                doc_type: None,
                doc: String::new(),
            })
            .collect();
        if let Some(doc_params) = &f.params {
            let mut taken = vec![false; params.len()];
            let mut unmatched = Vec::new();
            for (di, dp) in doc_params.iter().enumerate() {
                // The best rule wins; among equal rules, the first free C parameter.
                let best = params
                    .iter()
                    .enumerate()
                    .filter(|(ci, _)| !taken[*ci])
                    .filter_map(|(ci, cp)| {
                        renames::matches(&dp.name, &cp.c_name).map(|r| (r.rank(), ci, r))
                    })
                    .min_by_key(|(rank, ci, _)| (*rank, *ci));
                match best {
                    Some((_, ci, rule)) => {
                        taken[ci] = true;
                        self.attach(f, &mut params[ci], dp, rule);
                    }
                    None => unmatched.push(di),
                }
            }
            let free: Vec<usize> = (0..params.len()).filter(|ci| !taken[*ci]).collect();
            if unmatched.len() == 1 && free.len() == 1 {
                let dp = &doc_params[unmatched[0]];
                self.attach(f, &mut params[free[0]], dp, Rule::OnlyRemaining);
                self.diag(
                    Severity::Warning,
                    &f.source,
                    format!("{}: documented parameter `{}` matched to C parameter `{}` only because both are the last unmatched ones; add a synonym if this is right", f.name, dp.name, params[free[0]].c_name),
                );
            } else {
                for di in unmatched {
                    let dp = &doc_params[di];
                    self.diag(
                        Severity::Warning,
                        &f.source,
                        format!(
                            "{}: documented {}parameter `{}` matches no C parameter (C has: {})",
                            f.name,
                            direction_word(dp.direction),
                            dp.name,
                            c.params
                                .iter()
                                .map(|p| p.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    );
                }
            }
        }
        BoundFunction {
            name: f.name.clone(),
            section: f.section.clone(),
            doc: f.doc.clone(),
            see_also: f.see_also.clone(),
            errors: f.errors.clone(),
            params,
            ret: c.ret.clone(),
            source: f.source.clone(),
            symbol: c.name.clone(),
            documented: true,
            typed: super::Typed::default(),
            since: None,
        }
    }

    fn attach(&mut self, f: &Function, p: &mut BoundParam, dp: &crate::ir::Param, rule: Rule) {
        p.doc_name = Some(dp.name.clone());
        p.direction = Some(dp.direction);
        p.doc_type = dp.ty.clone();
        p.doc = dp.doc.clone();
        if rule != Rule::Exact {
            self.out.renamings.push(Renaming {
                function: f.name.clone(),
                doc_name: dp.name.clone(),
                c_name: p.c_name.clone(),
                rule,
                source: f.source.clone(),
            });
            if rule != Rule::OnlyRemaining {
                self.diag(
                    Severity::Note,
                    &f.source,
                    format!(
                        "{}: documented `{}` is C parameter `{}` ({})",
                        f.name,
                        dp.name,
                        p.c_name,
                        rule.describe()
                    ),
                );
            }
        }
        // An output must be a pointer in C: the callee writes through it.
        if dp.direction == Direction::Out && p.ty.c.pointer_depth() == 0 {
            self.diag(Severity::Warning, &f.source, format!("{}: `{}` is documented as an output but C parameter `{}` is `{}`, not a pointer", f.name, dp.name, p.c_name, p.ty.c_text));
        }
    }

    fn constants(&mut self) {
        for k in &self.api.constants {
            match self.abi.constants.get(&k.name) {
                Some(c) => {
                    if c.value != i128::from(k.value) {
                        self.diag(Severity::Warning, &k.source, format!("constant `{}` is {} in the docs but {} in the ABI; emitting the ABI value", k.name, k.value, c.value));
                    }
                    let Ok(value) = i64::try_from(c.value) else {
                        self.diag(
                            Severity::Error,
                            &k.source,
                            format!(
                                "constant `{}` = {} does not fit in 64 bits",
                                k.name, c.value
                            ),
                        );
                        continue;
                    };
                    self.out.constants.push(BoundConstant {
                        name: k.name.clone(),
                        value,
                        rust_type: c.ty.rust.clone(),
                        doc: k.doc.clone(),
                        section: k.section.clone(),
                        source: k.source.clone(),
                        kind: super::ConstantKind::Integer,
                        from_macro: false,
                        since: None,
                    });
                }
                None if self.macro_constant(k) => {}
                None => self.out.unbound.push(Unbound {
                    name: k.name.clone(),
                    kind: "constant".into(),
                    reason: format!("not declared by the ABI source ({})", self.abi.origin),
                    source: k.source.clone(),
                }),
            }
        }
    }

    /// A documented function `make_<record>` the ABI does not declare, whose documented
    /// parameters are as many as the record's fields: an inline helper that fills the fields
    /// in order (`make_cudaPos(x, y, z)`), bound as a constructor.
    fn constructor(&mut self, f: &crate::ir::Function) -> bool {
        let Some(record) = f.name.strip_prefix("make_") else {
            return false;
        };
        let Some(r) = self.abi.records.get(record) else {
            return false;
        };
        let params = f.params.as_deref().unwrap_or(&[]);
        if r.opaque || r.fields.is_empty() || params.len() != r.fields.len() {
            return false;
        }
        let params: Vec<_> = params
            .iter()
            .zip(&r.fields)
            .map(|(p, field)| {
                (
                    p.name.clone(),
                    field.name.clone(),
                    field.ty.clone(),
                    p.doc.clone(),
                )
            })
            .collect();
        for (_, _, ty, _) in &params {
            self.need(&ty.c);
        }
        self.need(&CType::Named {
            name: record.to_string(),
        });
        self.out.constructors.push(super::Constructor {
            name: f.name.clone(),
            record: record.to_string(),
            params,
            doc: f.doc.clone(),
            source: f.source.clone(),
        });
        true
    }

    /// A documented constant the ABI holds as a C macro only: a second name of an enumerator
    /// (typed as its enum), or a cast of an integer to a handle type or an integer type
    /// (`((cudaStream_t)0x1)`, `((int)-1)`), read from the ABI's notes on the macro. The value
    /// is the documentation's; a disagreeing ABI value is a warning and the ABI's wins.
    fn macro_constant(&mut self, k: &crate::ir::Constant) -> bool {
        let abi = self.abi;
        let push = |this: &mut Self, value: i64, rust_type: String, kind| {
            this.out.constants.push(BoundConstant {
                name: k.name.clone(),
                value,
                rust_type,
                doc: k.doc.clone(),
                section: k.section.clone(),
                source: k.source.clone(),
                kind,
                from_macro: true,
                since: None,
            });
        };
        if let Some(target) = abi.macro_aliases.get(&k.name) {
            let found = abi.enums.values().find_map(|e| {
                e.values
                    .iter()
                    .find(|v| &v.name == target)
                    .map(|v| (e.name.clone(), v.value))
            });
            if let Some((ty, value)) = found {
                let value = i64::try_from(value).unwrap_or(k.value);
                if value != k.value {
                    self.diag(Severity::Warning, &k.source, format!("constant `{}` is {} in the docs but {} in the ABI (`{target}`); emitting the ABI value", k.name, k.value, value));
                }
                self.need(&CType::Named { name: ty.clone() });
                push(
                    self,
                    value,
                    ty.clone(),
                    super::ConstantKind::Enumerator { ty },
                );
                return true;
            }
        }
        let Some(cast) = crate::abi::macros::cast_of(abi, &k.name) else {
            return false;
        };
        if let Some(v) = cast.value {
            if v != k.value {
                self.diag(Severity::Warning, &k.source, format!("constant `{}` is {} in the docs but {v} in the header macro; emitting the header's value", k.name, k.value));
            }
        }
        let value = cast.value.unwrap_or(k.value);
        match abi.typedefs.get(&cast.ty) {
            Some(td) if td.kind == crate::abi::TypedefKind::Handle => {
                self.need(&CType::Named {
                    name: cast.ty.clone(),
                });
                push(
                    self,
                    value,
                    cast.ty.clone(),
                    super::ConstantKind::Handle { ty: cast.ty },
                );
                true
            }
            _ => match crate::abi::macros::rust_integer(&cast.ty) {
                Some(rust) => {
                    push(self, value, rust.to_string(), super::ConstantKind::Integer);
                    true
                }
                None => false,
            },
        }
    }

    fn need(&mut self, c: &CType) {
        let mut names = Vec::new();
        c.named(&mut names);
        self.needed.extend(names);
    }

    /// Binds documented enums, structs and typedefs, then every ABI type they need.
    fn types(&mut self) {
        let doc_enum = self.documented_enums();
        let doc_record = self.documented_records();
        let doc_typedef = self.documented_typedefs();
        let seen = self.needed_closure();
        // Emit in ABI order for determinism.
        self.bind_records(&seen, &doc_record);
        self.bind_enums(&seen, &doc_enum);
        self.bind_typedefs(&seen, &doc_typedef);
    }

    /// The documentation of each ABI enum, from the docs' enums (the first document naming
    /// a type wins: the merge puts the preferred source first); those the ABI lacks are
    /// unbound.
    fn documented_enums(&mut self) -> HashMap<String, &'a crate::ir::Enum> {
        let (api, abi) = (self.api, self.abi);
        let mut doc_enum = HashMap::default();
        for e in &api.enums {
            let target = abi.resolve_alias(&e.name).to_string();
            if abi.enums.contains_key(&target) {
                self.needed.insert(target.clone());
                doc_enum.entry(target).or_insert(e);
            } else {
                self.out.unbound.push(Unbound {
                    name: e.name.clone(),
                    kind: "enum".into(),
                    reason: format!("no enum of that name in the ABI source ({})", abi.origin),
                    source: e.source.clone(),
                });
            }
        }
        doc_enum
    }

    /// The documentation of each ABI struct or union, from the docs' structs (the first
    /// wins); a struct that is a typedef in C is only needed, one the ABI lacks unbound.
    fn documented_records(&mut self) -> HashMap<String, &'a crate::ir::Struct> {
        let (api, abi) = (self.api, self.abi);
        let mut doc_record = HashMap::default();
        for s in &api.structs {
            let target = abi.resolve_alias(&s.name).to_string();
            if abi.records.contains_key(&target) {
                self.needed.insert(target.clone());
                doc_record.entry(target).or_insert(s);
            } else if abi.typedefs.contains_key(&s.name) {
                // Documented as a class but a typedef in C (a handle or scalar).
                self.needed.insert(s.name.clone());
            } else {
                self.out.unbound.push(Unbound {
                    name: s.name.clone(),
                    kind: "struct".into(),
                    reason: format!(
                        "no struct or union of that name in the ABI source ({})",
                        abi.origin
                    ),
                    source: s.source.clone(),
                });
            }
        }
        doc_record
    }

    /// The documentation of each ABI type named by a documented typedef (the first wins);
    /// those the ABI lacks are unbound.
    fn documented_typedefs(&mut self) -> HashMap<String, &'a crate::ir::Typedef> {
        let (api, abi) = (self.api, self.abi);
        let mut doc_typedef = HashMap::default();
        for t in &api.typedefs {
            if abi.typedefs.contains_key(&t.name)
                || abi.records.contains_key(&t.name)
                || abi.enums.contains_key(&t.name)
            {
                self.needed.insert(t.name.clone());
                doc_typedef.entry(t.name.clone()).or_insert(t);
            } else {
                self.out.unbound.push(Unbound {
                    name: t.name.clone(),
                    kind: "typedef".into(),
                    reason: format!("no type of that name in the ABI source ({})", abi.origin),
                    source: t.source.clone(),
                });
            }
        }
        doc_typedef
    }

    /// The needed types and every type they mention (fields, nested records, typedef
    /// targets), transitively.
    fn needed_closure(&self) -> BTreeSet<String> {
        let abi = self.abi;
        let mut queue: Vec<String> = self.needed.iter().cloned().collect();
        let mut seen: BTreeSet<String> = BTreeSet::new();
        while let Some(name) = queue.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let mut mentioned = Vec::new();
            if let Some(r) = abi.records.get(&name) {
                for f in &r.fields {
                    f.ty.c.named(&mut mentioned);
                }
                mentioned.extend(r.nested.iter().cloned());
            } else if let Some(t) = abi.typedefs.get(&name) {
                t.ty.c.named(&mut mentioned);
            }
            queue.extend(mentioned.into_iter().filter(|m| !seen.contains(m)));
        }
        seen
    }

    /// Binds the ABI records in `seen`, in ABI order, with their documentation (its fields
    /// compared with the ABI's).
    fn bind_records(
        &mut self,
        seen: &BTreeSet<String>,
        doc_record: &HashMap<String, &crate::ir::Struct>,
    ) {
        for (name, r) in &self.abi.records {
            if !seen.contains(name) {
                continue;
            }
            let doc = doc_record.get(name).copied();
            if let Some(s) = doc {
                self.compare_fields(s, r);
            }
            self.out.records.push(BoundRecord {
                name: name.clone(),
                abi: r.clone(),
                doc: doc.and_then(|s| about_the_type(&s.doc)),
                field_docs: doc
                    .map(|s| {
                        s.fields
                            .iter()
                            .map(|f| (f.name.clone(), f.doc.clone()))
                            .collect()
                    })
                    .unwrap_or_default(),
                section: doc.and_then(|s| s.section.clone()),
                source: doc.map(|s| s.source.clone()),
                since: None,
                layout_changes: Vec::new(),
            });
        }
    }

    /// Binds the ABI enums in `seen` (or with an alias in it), in ABI order, under their
    /// documented name with the other names as aliases, values compared with the docs'.
    fn bind_enums(
        &mut self,
        seen: &BTreeSet<String>,
        doc_enum: &HashMap<String, &crate::ir::Enum>,
    ) {
        for (name, e) in &self.abi.enums {
            if !seen.contains(name) && !e.aliases.iter().any(|a| seen.contains(a)) {
                continue;
            }
            let doc = doc_enum.get(name).copied();
            if let Some(d) = doc {
                self.compare_values(d, e);
            }
            let emitted = doc.map_or_else(|| name.clone(), |d| d.name.clone());
            let mut aliases: Vec<String> = std::iter::once(name.clone())
                .chain(e.aliases.iter().cloned())
                .filter(|a| *a != emitted)
                .collect();
            aliases.dedup();
            let members: Vec<&str> = e.values.iter().map(|v| v.name.as_str()).collect();
            self.out.enums.push(BoundEnum {
                name: emitted,
                aliases,
                member_names: super::naming::member_names(&members),
                abi: e.clone(),
                doc: doc.map(|d| d.doc.clone()),
                member_docs: doc
                    .map(|d| {
                        d.variants
                            .iter()
                            .map(|v| (v.name.clone(), v.doc.clone()))
                            .collect()
                    })
                    .unwrap_or_default(),
                section: doc.and_then(|d| d.section.clone()),
                source: doc.map(|d| d.source.clone()),
                since: None,
                member_since: Vec::new(),
                alias_since: Vec::new(),
            });
        }
    }

    /// Binds the ABI typedefs in `seen`, in ABI order, but those emitted as an enum's
    /// aliases (so after [`Self::bind_enums`]).
    fn bind_typedefs(
        &mut self,
        seen: &BTreeSet<String>,
        doc_typedef: &HashMap<String, &crate::ir::Typedef>,
    ) {
        let enum_names: BTreeSet<String> = self
            .out
            .enums
            .iter()
            .flat_map(|e| std::iter::once(e.name.clone()).chain(e.aliases.iter().cloned()))
            .collect();
        for (name, t) in &self.abi.typedefs {
            // Enum aliases are emitted with their enum.
            if !seen.contains(name) || enum_names.contains(name) {
                continue;
            }
            let doc = doc_typedef.get(name).copied();
            self.out.typedefs.push(BoundTypedef {
                name: name.clone(),
                abi: t.clone(),
                doc: doc.and_then(|d| about_the_type(&d.doc)),
                section: doc.and_then(|d| d.section.clone()),
                source: doc.map(|d| d.source.clone()),
                since: None,
            });
        }
    }

    fn compare_values(&mut self, d: &crate::ir::Enum, e: &abi::Enum) {
        let mut missing = Vec::new();
        for v in &d.variants {
            match (e.value(&v.name), v.value) {
                (Some(a), Some(b)) if a != i128::from(b) => {
                    self.diag(
                        Severity::Warning,
                        &v.source,
                        format!(
                            "{}::{} is {} in the docs but {} in the ABI; emitting the ABI value",
                            d.name, v.name, b, a
                        ),
                    );
                }
                (None, _) => missing.push(v.name.clone()),
                _ => {}
            }
        }
        if !missing.is_empty() {
            self.diag(
                Severity::Warning,
                &d.source,
                format!(
                    "enum {}: {} documented member(s) absent from the ABI, not emitted: {}",
                    d.name,
                    missing.len(),
                    missing.join(", ")
                ),
            );
        }
        let undocumented: Vec<&str> = e
            .values
            .iter()
            .filter(|v| !d.variants.iter().any(|dv| dv.name == v.name))
            .map(|v| v.name.as_str())
            .collect();
        if !undocumented.is_empty() && d.detail == crate::ir::Detail::Full {
            self.diag(
                Severity::Note,
                &d.source,
                format!(
                    "enum {}: {} ABI member(s) the docs do not list, emitted without docs: {}",
                    d.name,
                    undocumented.len(),
                    undocumented.join(", ")
                ),
            );
        }
    }

    fn compare_fields(&mut self, s: &crate::ir::Struct, r: &abi::Record) {
        if s.detail != crate::ir::Detail::Full || s.fields.is_empty() {
            return;
        }
        let abi_fields: Vec<&str> = r
            .fields
            .iter()
            .filter(|f| !f.bitfield_unit && !f.name.starts_with("__bindgen"))
            .map(|f| f.name.as_str())
            .collect();
        let doc_fields: Vec<&str> = s
            .fields
            .iter()
            .map(|f| f.name.trim_end_matches('_'))
            .collect();
        let abi_norm: Vec<&str> = abi_fields.iter().map(|f| f.trim_end_matches('_')).collect();
        if doc_fields != abi_norm {
            let only_doc: Vec<&str> = doc_fields
                .iter()
                .filter(|f| !abi_norm.contains(f))
                .copied()
                .collect();
            let only_abi: Vec<&str> = abi_norm
                .iter()
                .filter(|f| !doc_fields.contains(f))
                .copied()
                .collect();
            let what = if only_doc.is_empty() && only_abi.is_empty() {
                "the same fields in another order".to_string()
            } else {
                format!(
                    "docs only: [{}]; ABI only: [{}]",
                    only_doc.join(", "),
                    only_abi.join(", ")
                )
            };
            self.diag(Severity::Warning, &s.source, format!("struct {}: documented fields differ from the ABI's ({what}); the ABI layout is emitted", s.name));
        }
    }
}

fn direction_word(d: Direction) -> &'static str {
    match d {
        Direction::In => "input ",
        Direction::Out => "output ",
        Direction::Unstated => "",
    }
}

/// Sentences the Python binding layer puts on its wrapper classes (its `getPtr` method's
/// docstring, shown as the class's when the C type has none): not about the C type.
const BINDING_BOILERPLATE: &[&str] = &["Get memory address of class instance"];

/// A type's documentation without the binding layer's boilerplate; `None` when nothing else
/// is left (the type is then described as undocumented).
fn about_the_type(doc: &str) -> Option<String> {
    let kept: Vec<&str> = doc
        .lines()
        .filter(|l| !BINDING_BOILERPLATE.contains(&l.trim()))
        .collect();
    let text = kept.join("\n");
    (!text.trim().is_empty()).then(|| text.trim_matches('\n').to_string())
}
