//! C declarations of ABI items written as a C programmer reads them, for the report's old and
//! new columns: `cudaError_t cudaMemAdvise(const void* devPtr, size_t count, cudaMemoryAdvise
//! advice, int device)`, `struct cudaDeviceProp (1008 bytes, align 8)`, `int clockRate
//! (offset 348)`. It renders only; the comparison is [`super::abi`].

use crate::abi::{AbiType, CType, Constant, Function, Record, RecordKind, Typedef};

/// A parameter or field declaration: the name placed where C puts it (`char name[256]`,
/// `void (*fn)(void*)`, `const char* name`).
pub fn declare(ty: &AbiType, name: &str) -> String {
    let text = &ty.c_text;
    if let Some(at) = text.find("(*)") {
        return format!("{}(*{name}){}", &text[..at], &text[at + 3..]);
    }
    if let (CType::Array { .. }, Some(at)) = (&ty.c, text.find('[')) {
        return format!("{} {name}{}", &text[..at], &text[at..]);
    }
    if name.is_empty() {
        text.clone()
    } else {
        format!("{text} {name}")
    }
}

/// The prototype of `f`, under the name C code calls it by (`name`; the symbol when it
/// differs, through a `#define`, is added in a comment).
pub fn function(f: &Function, name: &str) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| declare(&p.ty, p.c_name()))
        .collect();
    let params = if params.is_empty() {
        "void".to_string()
    } else {
        params.join(", ")
    };
    let symbol = if f.name == name {
        String::new()
    } else {
        format!(" /* symbol {} */", f.name)
    };
    format!("{} {name}({params}){symbol}", f.ret.c_text)
}

/// `struct cudaDeviceProp (1008 bytes, align 8)`; an opaque record says so.
pub fn record(r: &Record) -> String {
    let kind = match r.kind {
        RecordKind::Struct => "struct",
        RecordKind::Union => "union",
    };
    if r.opaque {
        return format!("{kind} {} (opaque)", r.name);
    }
    match (r.size, r.align) {
        (Some(s), Some(a)) => format!("{kind} {} ({s} bytes, align {a})", r.name),
        _ => format!("{kind} {} (layout unknown)", r.name),
    }
}

/// A field with its offset: `int clockRate (offset 348)`.
pub fn field(ty: &AbiType, path: &str, offset: Option<u64>) -> String {
    match offset {
        Some(o) => format!("{} (offset {o})", declare(ty, path)),
        None => declare(ty, path),
    }
}

/// `#define NAME value`.
pub fn constant(c: &Constant) -> String {
    format!("#define {} {}", c.name, c.value)
}

/// `typedef T NAME`.
pub fn typedef(t: &Typedef) -> String {
    format!("typedef {}", declare(&t.ty, &t.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::Param;

    fn ty(c: CType) -> AbiType {
        AbiType::new(String::new(), c)
    }

    fn prim(name: &str) -> CType {
        CType::Primitive { name: name.into() }
    }

    #[test]
    fn names_go_where_c_puts_them() {
        let arr = ty(CType::Array {
            of: Box::new(prim("char")),
            len: 256,
        });
        assert_eq!(declare(&arr, "name"), "char name[256]");
        let fp = ty(CType::FnPtr {
            params: vec![Param {
                name: "a".into(),
                ty: ty(CType::Pointer {
                    to: Box::new(prim("void")),
                    is_const: false,
                }),
            }],
            ret: Box::new(prim("void")),
            nullable: true,
        });
        assert_eq!(declare(&fp, "fn"), "void (*fn)(void*)");
        assert_eq!(declare(&ty(prim("int")), "device"), "int device");
        let f = Function {
            name: "cudaX_v2".into(),
            params: vec![],
            ret: ty(CType::Named {
                name: "cudaError_t".into(),
            }),
            header: None,
            line: 1,
        };
        assert_eq!(
            function(&f, "cudaX"),
            "cudaError_t cudaX(void) /* symbol cudaX_v2 */"
        );
    }
}
