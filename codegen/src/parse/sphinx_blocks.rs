//! The shared builder: turns the neutral [`Block`] sequence of a rendered
//! `cuda.bindings.runtime` page into IR items.
//!
//! Any front end (the text reader in [`super::sphinx_text`], an HTML reader) produces
//! blocks; this module decides what each becomes, from structure only:
//!
//! - a heading of level 2 or more → a [`Section`]; later items belong to it;
//! - a function object → a [`Function`]: inputs in signature order (documented by the
//!   matching `:param`, by name, else by position with a note), then the named `:returns:`
//!   bullets as outputs; an unnamed value bullet (`* *bytes* -- …`) is the C return value and
//!   becomes `rtype` (its text is kept at the end of the doc as a `:returns:` line);
//! - a class object with the data objects of its body: the data objects the page nests in it,
//!   or, where the format cannot tell, those right after it whose name is unqualified or
//!   qualified by the class (`X = 0`, `cudaE.X = 0`) or whose value names it (`<E.X: 3>`).
//!   Such a `NAME = VALUE` is a member, never a module constant. The class is
//!   - an [`Enum`] when its body holds members (data objects, or `NAME = VALUE` lines and
//!     valued attributes in its docstring), or when its header is an enum constructor (first
//!     parameter `value`: `(value: int)`, `(value, names=None, *, module=None, …)`; or an
//!     `enum` base class: `(IntEnum)`), whatever else the header says;
//!   - else a [`Struct`] (`(void_ptr _ptr=0)`), its attributes in any form the docstring model
//!     reads as fields; or a [`Typedef`] (`(*args, **kwargs)` or no arguments, attributes kept
//!     as fields);
//! - any other data object → a [`Constant`] (`runtime.X = 2`) or an [`Alias`]
//!   (`runtime.X = <enum 'Y'>`).
//!
//! No line is lost silently: after reading an object's docstring, the lines its kind cannot
//! hold (a function's attributes, an enum's fields, a constant's fields, anything the
//! docstring model left unread) are reported as runs by [`super::unread`]. An enum without
//! members and a record whose attribute-like lines gave no field are warnings too.
//!
//! Repeated names are reported (a note when the repeat is identical, a warning otherwise)
//! and the first definition is kept. Docstrings are read by [`super::docstring`]. Nothing
//! here reads lines or lists CUDA names.

use foldhash::{HashMap, HashSet};

use crate::diag::{Diagnostics, Severity};
use crate::doctype::TypeRef;
use crate::ir::{
    Alias, Api, Constant, Detail, Direction, Enum, Field, Function, Param, Section, Source, Struct,
    Typedef, TypedefKind, Variant,
};

use super::blocks::{Block, DocLine, Heading, Object, ObjectKind};
use super::docstring::{self, Docstring, Holder};
use super::signature::{self, DataValue, SigParam};
use super::unread;

/// Builds the IR items of `blocks`, reporting problems into `diags`.
pub fn build(blocks: &[Block<'_>], diags: &mut Diagnostics) -> Api {
    let mut b = Builder {
        api: Api::default(),
        diags,
        section: None,
        members: None,
        seen: HashMap::default(),
    };
    let mut i = 0;
    while i < blocks.len() {
        match &blocks[i] {
            Block::Heading(h) => b.heading(h),
            Block::Object(o) if o.kind == ObjectKind::Class => {
                let members = class_members(o, &blocks[i + 1..]);
                b.class(o, &members);
                i += members.len();
            }
            Block::Object(o) if o.kind == ObjectKind::Function => b.function(o),
            Block::Object(o) => b.data(o),
        }
        i += 1;
    }
    b.api
}

/// The data objects of `class`'s body among the blocks after it (`rest`): those the page
/// nests in it; where the format cannot tell, the run of data objects right after it whose
/// name is unqualified or qualified by the class, or whose value names the class.
fn class_members<'r, 'a>(class: &Object<'a>, rest: &'r [Block<'a>]) -> Vec<&'r Object<'a>> {
    let short = signature::split_call(&class.signature)
        .ok()
        .map(|c| signature::short_name(c.qualified));
    rest.iter()
        .map_while(|b| match b {
            Block::Object(o) if o.kind == ObjectKind::Data && belongs(o, short) => Some(o),
            _ => None,
        })
        .collect()
}

/// Whether data object `o` belongs to the body of the class named `class` (short name).
fn belongs(o: &Object<'_>, class: Option<&str>) -> bool {
    if let Some(nested) = o.in_class {
        return nested;
    }
    let Ok((qualified, value)) = signature::parse_data(&o.signature) else {
        return false;
    };
    let Some((qualifier, _)) = qualified.rsplit_once('.') else {
        return true;
    };
    let names_class = match &value {
        DataValue::Member { enum_name, .. } => Some(enum_name.as_str()) == class,
        _ => false,
    };
    names_class || Some(signature::short_name(qualifier)) == class
}

/// Name spaces in which a repeated name is a duplicate.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Space {
    Section,
    Function,
    Type,
    Constant,
    Alias,
}

/// Index of an item in its `Api` list.
#[derive(Clone, Copy)]
enum Slot {
    Section(usize),
    Function(usize),
    Enum(usize),
    Struct(usize),
    Typedef(usize),
    Constant(usize),
    Alias(usize),
}

struct Builder<'d> {
    api: Api,
    diags: &'d mut Diagnostics,
    section: Option<String>,
    /// Member name → index in `variants`, for the enum of that index (built when first needed,
    /// so a repeated member is found without a search).
    members: Option<(usize, HashMap<String, usize>)>,
    seen: HashMap<(Space, String), Slot>,
}

/// `file:line` of a docstring line: the block's source with that line (and the block's element
/// path, for HTML), or the block's source itself when the line is unknown (0).
fn at(block: &Source, line: u32) -> Source {
    if line == 0 {
        block.clone()
    } else {
        Source {
            file: block.file.clone(),
            line,
            path: block.path.clone(),
        }
    }
}

impl Builder<'_> {
    fn report(&mut self, severity: Severity, source: &Source, message: impl Into<String>) {
        self.diags.at(severity, source, message);
    }

    fn report_problems(&mut self, source: &Source, doc: &Docstring) {
        for p in &doc.problems {
            self.diags
                .at(p.severity, &at(source, p.line), p.message.clone());
        }
    }

    /// Reports the lines of `lines` (read into `doc`) that the object described by `what`, of
    /// kind `holder`, leaves unread.
    fn report_unread(
        &mut self,
        what: &str,
        source: &Source,
        lines: &[DocLine<'_>],
        doc: &Docstring,
        holder: Holder,
    ) {
        let runs = doc.unread(lines, holder);
        unread::report(self.diags, source, what, &runs);
    }

    /// Reads a type text; what cannot be read (or is nested deeper than
    /// [`crate::doctype::MAX_NESTING`]) is kept as [`crate::doctype::TypeExpr::Unknown`] and
    /// reported.
    fn type_ref(&mut self, text: &str, source: &Source) -> TypeRef {
        let (ty, problem) = TypeRef::read(text);
        if let Some(problem) = problem {
            self.report(Severity::Warning, source, problem.to_string());
        }
        ty
    }

    /// Records `name` in `space`; on a repeat returns the first definition's slot.
    fn claim(&mut self, space: Space, name: &str, slot: Slot) -> Option<Slot> {
        match self.seen.get(&(space, name.to_string())) {
            Some(first) => Some(*first),
            None => {
                self.seen.insert((space, name.to_string()), slot);
                None
            }
        }
    }

    fn first_source(&self, slot: Slot) -> Source {
        let a = &self.api;
        match slot {
            Slot::Section(i) => a.sections[i].source.clone(),
            Slot::Function(i) => a.functions[i].source.clone(),
            Slot::Enum(i) => a.enums[i].source.clone(),
            Slot::Struct(i) => a.structs[i].source.clone(),
            Slot::Typedef(i) => a.typedefs[i].source.clone(),
            Slot::Constant(i) => a.constants[i].source.clone(),
            Slot::Alias(i) => a.aliases[i].source.clone(),
        }
    }

    fn duplicate(&mut self, what: &str, name: &str, first: Slot, source: &Source, identical: bool) {
        let first = self.first_source(first);
        if identical {
            self.report(
                Severity::Note,
                source,
                format!(
                    "{what} `{name}` is repeated identically (first at {first}); keeping the first"
                ),
            );
        } else {
            self.report(
                Severity::Warning,
                source,
                format!("duplicate {what} `{name}` (first at {first}); keeping the first"),
            );
        }
    }

    fn heading(&mut self, h: &Heading<'_>) {
        let (name, cut) = crate::text::bounded_title(h.title.trim());
        if let Some(message) = cut {
            self.report(Severity::Warning, &h.source, message);
        }
        let doc = docstring::parse(&h.intro);
        self.report_problems(&h.source, &doc);
        self.report_unread(
            &format!("heading `{name}`"),
            &h.source,
            &h.intro,
            &doc,
            Holder::Text,
        );
        if h.level < 2 {
            return;
        }
        self.section = Some(name.clone());
        let slot = Slot::Section(self.api.sections.len());
        if let Some(first) = self.claim(Space::Section, &name, slot) {
            self.duplicate("section", &name, first, &h.source, false);
            return;
        }
        self.api.sections.push(Section {
            name,
            doc: doc.doc_text(),
            source: h.source.clone(),
            id: None,
        });
    }

    fn function(&mut self, o: &Object<'_>) {
        let call = match signature::split_call(&o.signature) {
            Ok(c) => c,
            Err(e) => {
                return self.report(Severity::Error, &o.source, format!("function skipped: {e}"))
            }
        };
        let name = signature::short_name(call.qualified).to_string();
        let mut inputs: Vec<SigParam> = Vec::new();
        let mut names = HashSet::default();
        for piece in signature::split_top_level(call.args.unwrap_or(""), ',') {
            match signature::parse_param(piece) {
                Ok(p) if !names.insert(p.name.clone()) => {
                    self.report(
                        Severity::Warning,
                        &o.source,
                        format!("`{name}` repeats parameter `{}`; keeping the first", p.name),
                    );
                }
                Ok(p) => inputs.push(p),
                Err(e) => self.report(Severity::Error, &o.source, format!("in `{name}`: {e}")),
            }
        }
        let doc = docstring::parse(&o.doc);
        self.report_problems(&o.source, &doc);
        self.report_unread(
            &format!("function `{name}`"),
            &o.source,
            &o.doc,
            &doc,
            Holder::Function,
        );
        let mut params = self.inputs(&name, &inputs, &doc, &o.source);
        let mut rtype = doc
            .rtype
            .as_ref()
            .map(|r| self.type_ref(&r.text, &at(&o.source, r.line)));
        let mut text = doc.doc_text();
        let mut errors = Vec::new();
        if let Some(ret) = &doc.returns {
            errors.clone_from(&ret.codes);
            for out in &ret.outputs {
                match &out.name {
                    Some(n) => params.push(Param {
                        name: n.clone(),
                        ty: out
                            .ty
                            .as_deref()
                            .map(|t| self.type_ref(t, &at(&o.source, out.line))),
                        direction: Direction::Out,
                        doc: out.doc.clone(),
                    }),
                    None => {
                        let src = at(&o.source, out.line);
                        if rtype.is_some() {
                            self.report(
                                Severity::Warning,
                                &src,
                                format!(
                                    "`{name}` returns a second unnamed value; kept in the doc only"
                                ),
                            );
                        } else {
                            rtype = out.ty.as_deref().map(|t| self.type_ref(t, &src));
                        }
                        if !out.doc.is_empty() {
                            text = if text.is_empty() {
                                format!(":returns: {}", out.doc)
                            } else {
                                format!("{text}\n\n:returns: {}", out.doc)
                            };
                        }
                    }
                }
            }
        }
        let slot = Slot::Function(self.api.functions.len());
        if let Some(first) = self.claim(Space::Function, &name, slot) {
            let identical = self
                .api
                .functions
                .get(self.index(first))
                .is_some_and(|f| f.params.as_ref() == Some(&params) && f.doc == text);
            return self.duplicate("function", &name, first, &o.source, identical);
        }
        self.api.functions.push(Function {
            name,
            qualified_name: call.qualified.to_string(),
            section: self.section.clone(),
            params: Some(params),
            rtype,
            errors,
            doc: text,
            see_also: doc.see_also.clone(),
            detail: Detail::Full,
            source: o.source.clone(),
            sources: vec![o.source.clone()],
        });
    }

    fn index(&self, slot: Slot) -> usize {
        match slot {
            Slot::Section(i)
            | Slot::Function(i)
            | Slot::Enum(i)
            | Slot::Struct(i)
            | Slot::Typedef(i)
            | Slot::Constant(i)
            | Slot::Alias(i) => i,
        }
    }

    /// The signature's parameters with their `:param` docs: by name, else by position.
    fn inputs(
        &mut self,
        func: &str,
        inputs: &[SigParam],
        doc: &Docstring,
        source: &Source,
    ) -> Vec<Param> {
        // Name → first index, so that matching is linear in the number of parameters.
        let mut documented: HashMap<&str, usize> = HashMap::default();
        for (j, d) in doc.params.iter().enumerate() {
            documented.entry(d.name.as_str()).or_insert(j);
        }
        let mut types: HashMap<&str, &str> = HashMap::default();
        for t in &doc.param_types {
            types.entry(t.name.as_str()).or_insert(t.text.as_str());
        }
        let in_signature: HashSet<&str> = inputs.iter().map(|p| p.name.as_str()).collect();
        let mut used = vec![false; doc.params.len()];
        let mut matched: Vec<Option<(usize, bool)>> = inputs
            .iter()
            .map(|p| {
                let j = *documented.get(p.name.as_str())?;
                used[j] = true;
                Some((j, true))
            })
            .collect();
        for (i, m) in matched.iter_mut().enumerate() {
            if m.is_none()
                && i < used.len()
                && !used[i]
                && !in_signature.contains(doc.params[i].name.as_str())
            {
                used[i] = true;
                *m = Some((i, false));
            }
        }
        let mut out = Vec::with_capacity(inputs.len());
        for (p, m) in inputs.iter().zip(&matched) {
            let (text, ty) = match m {
                Some((j, true)) => {
                    let d = &doc.params[*j];
                    let ty = types.get(d.name.as_str()).copied().or(p.stated_type());
                    (d.text.clone(), ty)
                }
                Some((j, false)) if looks_renamed(&p.name, &doc.params[*j].name) => {
                    let d = &doc.params[*j];
                    self.report(
                        Severity::Note,
                        &at(source, d.line),
                        format!(
                            "`{func}`: signature parameter `{}` is documented as `{}`",
                            p.name, d.name
                        ),
                    );
                    let ty = p.stated_type().or(types.get(d.name.as_str()).copied());
                    (d.text.clone(), ty)
                }
                Some((j, false)) => {
                    let d = &doc.params[*j];
                    self.report(
                        Severity::Warning,
                        &at(source, d.line),
                        format!(
                            "`{func}`: `:param {}:` stands where signature parameter `{}` is, but does not look like it; `{}` left undocumented",
                            d.name, p.name, p.name
                        ),
                    );
                    (String::new(), p.stated_type())
                }
                None => (String::new(), p.stated_type()),
            };
            let ty = ty.map(|t| self.type_ref(t, source));
            out.push(Param {
                name: p.name.clone(),
                ty,
                direction: Direction::In,
                doc: text,
            });
        }
        for (d, u) in doc.params.iter().zip(&used) {
            if !u {
                self.report(
                    Severity::Warning,
                    &at(source, d.line),
                    format!(
                        "`{func}` documents parameter `{}`, which its signature lacks",
                        d.name
                    ),
                );
            }
        }
        out
    }

    fn fields(&mut self, owner: &str, doc: &Docstring, source: &Source) -> Vec<Field> {
        let mut fields: Vec<Field> = Vec::with_capacity(doc.attributes.len());
        let mut names = HashSet::default();
        for a in &doc.attributes {
            let src = at(source, a.line);
            if !names.insert(a.name.as_str()) {
                self.report(
                    Severity::Warning,
                    &src,
                    format!(
                        "`{owner}` repeats attribute `{}`; keeping the first",
                        a.name
                    ),
                );
                continue;
            }
            if a.ty.is_none() {
                self.report(
                    Severity::Warning,
                    &src,
                    format!("attribute `{owner}.{}` has no `:type:`", a.name),
                );
            }
            let ty = a.ty.as_deref().map(|t| self.type_ref(t, &src));
            fields.push(Field {
                name: a.name.clone(),
                ty,
                doc: a.doc.clone(),
                source: src,
            });
        }
        fields
    }

    /// A class and the members after it: an enum (members, or an enum's constructor or base
    /// class), a struct (a `_ptr` argument) or a typedef (opaque, or another class).
    fn class(&mut self, o: &Object<'_>, members: &[&Object<'_>]) {
        let call = match signature::split_call(&o.signature) {
            Ok(c) => c,
            Err(e) => return self.skipped_class(o, members, &e),
        };
        let name = signature::short_name(call.qualified).to_string();
        let qualified_name = call.qualified.to_string();
        let doc = docstring::parse(&o.doc);
        self.report_problems(&o.source, &doc);
        let header = class_header(call.args);
        let source = o.source.clone();
        let section = self.section.clone();
        let has_members = !members.is_empty() || !doc.members.is_empty();
        if has_members || header == ClassHeader::Enum {
            if header == ClassHeader::Struct {
                self.report(
                    Severity::Warning,
                    &source,
                    format!("class `{name}` has a struct's header but members; read as an enum"),
                );
            }
            return self.enum_class(o, &doc, members, name, qualified_name);
        }
        let what = format!("class `{name}`");
        self.report_unread(&what, &source, &o.doc, &doc, Holder::Record);
        let fields = self.fields(&name, &doc, &source);
        if fields.is_empty() {
            if let Some((line, text)) = doc.attribute_like(&o.doc) {
                self.report(
                    Severity::Warning,
                    &at(&source, line),
                    format!("{what} has attribute-like lines but no fields: `{text}`"),
                );
            }
        }
        if header == ClassHeader::Struct {
            return self.push_struct(Struct {
                name,
                qualified_name,
                section,
                doc: doc.doc_text(),
                fields,
                detail: Detail::Full,
                source: source.clone(),
                sources: vec![source],
            });
        }
        let kind = if header == ClassHeader::Opaque {
            TypedefKind::Opaque
        } else {
            if call.args.is_some() {
                self.report(
                    Severity::Warning,
                    &source,
                    format!(
                        "class `{name}` has unfamiliar arguments `{}`; read as a typedef",
                        call.args.unwrap_or("")
                    ),
                );
            }
            TypedefKind::Class
        };
        self.push_typedef(Typedef {
            name,
            qualified_name,
            section,
            kind,
            doc: doc.doc_text(),
            fields,
            detail: Detail::Full,
            source: source.clone(),
            sources: vec![source],
        });
    }

    /// A class whose signature does not parse: an error for it and one for each member.
    fn skipped_class(&mut self, o: &Object<'_>, members: &[&Object<'_>], e: &str) {
        self.report(Severity::Error, &o.source, format!("class skipped: {e}"));
        for m in members {
            self.report(
                Severity::Error,
                &m.source,
                format!("member `{}` of a skipped class skipped", m.signature),
            );
        }
    }

    /// Adds a class read as a struct, unless its name is taken (then a duplicate, reported).
    fn push_struct(&mut self, s: Struct) {
        let slot = Slot::Struct(self.api.structs.len());
        if let Some(first) = self.claim(Space::Type, &s.name, slot) {
            let identical = matches!(first, Slot::Struct(i) if same_fields(&self.api.structs[i].fields, &s.fields) && self.api.structs[i].doc == s.doc);
            return self.duplicate("class", &s.name, first, &s.source, identical);
        }
        self.api.structs.push(s);
    }

    /// Adds a class read as a typedef, unless its name is taken (then a duplicate, reported).
    fn push_typedef(&mut self, t: Typedef) {
        let slot = Slot::Typedef(self.api.typedefs.len());
        if let Some(first) = self.claim(Space::Type, &t.name, slot) {
            let identical = matches!(first, Slot::Typedef(i) if same_fields(&self.api.typedefs[i].fields, &t.fields) && self.api.typedefs[i].doc == t.doc);
            return self.duplicate("class", &t.name, first, &t.source, identical);
        }
        self.api.typedefs.push(t);
    }

    /// An enum class with the members of its body: those its docstring writes, then the data
    /// objects after it.
    fn enum_class(
        &mut self,
        o: &Object<'_>,
        doc: &Docstring,
        members: &[&Object<'_>],
        name: String,
        qualified_name: String,
    ) {
        let source = o.source.clone();
        self.report_unread(
            &format!("enum `{name}`"),
            &source,
            &o.doc,
            doc,
            Holder::Enum,
        );
        let idx = self.api.enums.len();
        let slot = Slot::Enum(idx);
        if let Some(first) = self.claim(Space::Type, &name, slot) {
            self.duplicate("class", &name, first, &source, false);
            for m in members {
                self.report(
                    Severity::Warning,
                    &m.source,
                    format!(
                        "member `{}` of the repeated class `{name}` skipped",
                        m.signature
                    ),
                );
            }
            return;
        }
        self.api.enums.push(Enum {
            name: name.clone(),
            qualified_name,
            section: self.section.clone(),
            doc: doc.doc_text(),
            variants: Vec::new(),
            detail: Detail::Full,
            source: source.clone(),
            sources: vec![source.clone()],
        });
        for m in &doc.members {
            let src = at(&source, m.line);
            self.member(idx, &m.name, None, m.value.clone(), m.doc.clone(), src);
        }
        for m in members {
            self.member_object(idx, m);
        }
        if self.api.enums[idx].variants.is_empty() {
            let has_text = o.doc.iter().any(|l| !l.text.trim().is_empty());
            let message = if has_text {
                format!("enum class `{name}` has text but no members")
            } else {
                format!("enum class `{name}` has no members")
            };
            self.report(Severity::Warning, &source, message);
        }
    }

    /// A data object of an enum class's body: a member.
    fn member_object(&mut self, idx: usize, o: &Object<'_>) {
        let (qualified, value) = match signature::parse_data(&o.signature) {
            Ok(d) => d,
            Err(e) => {
                return self.report(
                    Severity::Error,
                    &o.source,
                    format!("enum member skipped: {e}"),
                )
            }
        };
        let name = signature::short_name(qualified);
        let doc = docstring::parse(&o.doc);
        self.report_problems(&o.source, &doc);
        let what = format!("member `{}.{name}`", self.api.enums[idx].name);
        self.report_unread(&what, &o.source, &o.doc, &doc, Holder::Text);
        let (shown, value) = match value {
            DataValue::Integer(v) => (None, Ok(v)),
            DataValue::Member {
                enum_name,
                member,
                value,
            } => (Some((enum_name, member)), value),
            DataValue::Alias { kind, target } => (
                None,
                Err(format!("value `<{kind} '{target}'>` is not an integer")),
            ),
            DataValue::Other(v) => (None, Err(format!("value `{v}` is not an integer"))),
        };
        self.member(idx, name, shown, value, doc.doc_text(), o.source.clone());
    }

    fn data(&mut self, o: &Object<'_>) {
        let (qualified, value) = match signature::parse_data(&o.signature) {
            Ok(d) => d,
            Err(e) => {
                return self.report(
                    Severity::Error,
                    &o.source,
                    format!("data object skipped: {e}"),
                );
            }
        };
        let name = signature::short_name(qualified).to_string();
        let doc = docstring::parse(&o.doc);
        self.report_problems(&o.source, &doc);
        self.report_unread(
            &format!("data `{qualified}`"),
            &o.source,
            &o.doc,
            &doc,
            Holder::Text,
        );
        let source = o.source.clone();
        match value {
            DataValue::Member { .. } => self.report(
                Severity::Error,
                &source,
                format!("enum member `{name}` outside an enum class; skipped"),
            ),
            DataValue::Integer(value) => {
                let slot = Slot::Constant(self.api.constants.len());
                if let Some(first) = self.claim(Space::Constant, &name, slot) {
                    let identical =
                        matches!(first, Slot::Constant(i) if self.api.constants[i].value == value);
                    return self.duplicate("constant", &name, first, &source, identical);
                }
                self.api.constants.push(Constant {
                    name,
                    qualified_name: qualified.to_string(),
                    section: self.section.clone(),
                    value,
                    doc: doc.doc_text(),
                    source: source.clone(),
                    sources: vec![source],
                });
            }
            DataValue::Alias { kind, target } => {
                let slot = Slot::Alias(self.api.aliases.len());
                if let Some(first) = self.claim(Space::Alias, &name, slot) {
                    return self.duplicate("alias", &name, first, &source, false);
                }
                self.api.aliases.push(Alias {
                    name,
                    qualified_name: qualified.to_string(),
                    section: self.section.clone(),
                    target,
                    target_kind: kind,
                    doc: doc.doc_text(),
                    source: source.clone(),
                    sources: vec![source],
                });
            }
            DataValue::Other(v) => {
                self.report(
                    Severity::Warning,
                    &source,
                    format!(
                        "value `{v}` of `{qualified}` is neither an integer nor a type; skipped"
                    ),
                );
            }
        }
    }

    /// Adds member `name` to enum `idx`. `shown` is the enum and member name its value repr
    /// states (`<E.X: 3>`), checked against the enum and `name`.
    fn member(
        &mut self,
        idx: usize,
        name: &str,
        shown: Option<(String, String)>,
        value: Result<i64, String>,
        doc: String,
        source: Source,
    ) {
        let repeat = self.variant_named(idx, name);
        let e = &self.api.enums[idx];
        let mut problems = Vec::new();
        if let Some((enum_name, member)) = &shown {
            if &e.name != enum_name {
                problems.push((
                    Severity::Warning,
                    format!(
                        "member `{name}` names enum `{enum_name}` but follows `{}`",
                        e.name
                    ),
                ));
            }
            if member != name {
                problems.push((
                    Severity::Warning,
                    format!("member `{name}` shows the name `{member}` in its value"),
                ));
            }
        }
        let value = match value {
            Ok(v) => Some(v),
            Err(m) => {
                problems.push((
                    Severity::Error,
                    format!("enum member `{}.{name}`: {m}", e.name),
                ));
                None
            }
        };
        if let Some(first) = repeat.map(|k| &e.variants[k]) {
            let msg = format!(
                "duplicate member `{}.{name}` (first at {}); keeping the first",
                e.name, first.source
            );
            problems.push((Severity::Warning, msg));
            for (s, m) in problems {
                self.report(s, &source, m);
            }
            return;
        }
        for (s, m) in problems {
            self.report(s, &source, m);
        }
        let variants = &mut self.api.enums[idx].variants;
        if let Some((_, index)) = self.members.as_mut().filter(|m| m.0 == idx) {
            index.insert(name.to_string(), variants.len());
        }
        variants.push(Variant {
            name: name.to_string(),
            value,
            doc,
            source,
        });
    }

    /// The index of member `name` of enum `idx`, if it has one.
    fn variant_named(&mut self, idx: usize, name: &str) -> Option<usize> {
        if self.members.as_ref().map(|m| m.0) != Some(idx) {
            let mut index = HashMap::default();
            for (k, v) in self.api.enums[idx].variants.iter().enumerate() {
                index.entry(v.name.clone()).or_insert(k);
            }
            self.members = Some((idx, index));
        }
        self.members.as_ref().and_then(|m| m.1.get(name).copied())
    }
}

/// Whether a documented parameter name looks like a renaming of a signature name
/// (`stream`/`hStream`, `memPool`/`pool`, `devPtr`/`dptr`, `from_`/`from`) rather than the
/// documentation of another parameter: after lower-casing and dropping a trailing `_` and a
/// one-letter `h`/`p` prefix, one contains the other, or they share a 3-letter start or end.
fn looks_renamed(signature: &str, documented: &str) -> bool {
    fn norm(s: &str) -> String {
        let s = s.trim_end_matches('_');
        let bytes = s.as_bytes();
        let s = if bytes.len() > 2
            && matches!(bytes[0], b'h' | b'p')
            && bytes[1].is_ascii_uppercase()
        {
            &s[1..]
        } else {
            s
        };
        s.to_ascii_lowercase()
    }
    let (a, b) = (norm(signature), norm(documented));
    let common = |x: &mut dyn Iterator<Item = (u8, u8)>| x.take_while(|(p, q)| p == q).count();
    a.contains(&b)
        || b.contains(&a)
        || common(&mut a.bytes().zip(b.bytes())) >= 3
        || common(&mut a.bytes().rev().zip(b.bytes().rev())) >= 3
}

/// What a class signature's arguments say the class is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ClassHeader {
    /// Python's enum constructor (`(value: int)`, `(value, names=None, *, module=None, …)`),
    /// or an enum base class of Python's `enum` module (`(IntEnum)`, `(enum.IntFlag)`).
    Enum,
    /// A struct's wrapper: `(_ptr)`.
    Struct,
    /// An opaque handle's: `(*args, **kwargs)`.
    Opaque,
    Other,
}

/// The header of a class whose signature has the arguments `args` (`None`: no parentheses).
fn class_header(args: Option<&str>) -> ClassHeader {
    let args: Vec<&str> = args
        .map(|a| signature::split_top_level(a, ','))
        .unwrap_or_default();
    let single = match args.as_slice() {
        [one] => signature::parse_param(one).ok(),
        _ => None,
    };
    let enum_header = args
        .first()
        .and_then(|a| signature::parse_param(a).ok())
        .is_some_and(|p| p.name == "value" && p.default.is_none())
        || matches!(args.as_slice(), [base] if is_enum_base(base));
    if enum_header {
        ClassHeader::Enum
    } else if single.as_ref().is_some_and(|p| p.name == "_ptr") {
        ClassHeader::Struct
    } else if args.len() == 2 && args[0].starts_with("*") && args[1].starts_with("**") {
        ClassHeader::Opaque
    } else {
        ClassHeader::Other
    }
}

/// Whether a class header's only argument names a base class of Python's `enum` module.
fn is_enum_base(arg: &str) -> bool {
    let arg = arg.trim();
    signature::is_dotted_ident(arg)
        && matches!(
            signature::short_name(arg),
            "Enum" | "IntEnum" | "Flag" | "IntFlag" | "StrEnum"
        )
}

/// Fields equal apart from where they were read.
fn same_fields(a: &[Field], b: &[Field]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.name == y.name && x.ty == y.ty && x.doc == y.doc)
}

#[cfg(test)]
mod tests {
    use super::looks_renamed;

    #[test]
    fn renamings() {
        for (a, b) in [
            ("stream", "hStream"),
            ("memPool", "pool"),
            ("devPtr", "dptr"),
            ("from_", "from"),
            ("attr", "attrib"),
            ("exportData", "shareData"),
        ] {
            assert!(looks_renamed(a, b), "{a} {b}");
        }
        for (a, b) in [
            ("graph", "symbol"),
            ("callbackFunc", "scope"),
            ("hGraph", "node"),
            ("descList", "map"),
        ] {
            assert!(!looks_renamed(a, b), "{a} {b}");
        }
    }
}
