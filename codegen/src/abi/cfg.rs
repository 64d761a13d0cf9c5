//! Evaluates `#[cfg(...)]` predicates of the ABI source for one CUDA release.
//!
//! `feature = "cuda-XXXXX"` holds for exactly the release's feature; other features hold when
//! they are in the enabled set (none by default, so cudarc's `dynamic-loading` and `no-std`
//! branches are off); `any`, `all` and `not` combine as Rust does. A predicate this module
//! does not know (`unix`, `target_os = "linux"`, a malformed one) is *undecided*: `any`/`all`
//! still decide when another operand settles them, otherwise the caller gets the reason and
//! reports it. It does not look at anything but `cfg` attributes.

use std::collections::BTreeSet;

use syn::{Attribute, Expr, Lit, Meta};

use super::cudarc_feature;
use crate::diag::Diagnostics;
use crate::ir::Release;

/// The configuration `#[cfg]`s are evaluated under.
#[derive(Clone, Debug, Default)]
pub struct CfgEval {
    /// The one `cuda-XXXXX` feature that is on.
    pub cuda_feature: String,
    /// Other features that are on.
    pub enabled: BTreeSet<String>,
    /// Every `cuda-XXXXX` feature met so far (whether or not it held).
    pub seen_cuda: BTreeSet<String>,
}

impl CfgEval {
    /// Evaluation for `release` (see [`cudarc_feature`]), no other feature on.
    pub fn for_release(release: &Release) -> CfgEval {
        CfgEval {
            cuda_feature: cudarc_feature(release),
            ..CfgEval::default()
        }
    }

    /// Evaluates one predicate (the inside of `cfg(...)`). `Err` says why it is undecided.
    pub fn eval(&mut self, pred: &Meta) -> Result<bool, String> {
        match pred {
            Meta::NameValue(nv) if nv.path.is_ident("feature") => match &nv.value {
                Expr::Lit(lit) => match &lit.lit {
                    Lit::Str(s) => Ok(self.feature(&s.value())),
                    _ => Err("`feature = ` takes a string".to_string()),
                },
                _ => Err("`feature = ` takes a string".to_string()),
            },
            Meta::List(list) => {
                let name = list
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                let args = list
                    .parse_args_with(
                        syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated,
                    )
                    .map_err(|e| format!("cannot read `{name}(...)`: {e}"))?;
                let mut values = Vec::with_capacity(args.len());
                for arg in &args {
                    values.push(self.eval(arg));
                }
                match name.as_str() {
                    "any" => combine(values, true),
                    "all" => combine(values, false),
                    "not" if values.len() == 1 => values.pop().unwrap_or(Ok(false)).map(|v| !v),
                    "not" => Err(format!("`not` takes one predicate, not {}", values.len())),
                    _ => Err(format!("unknown cfg operator `{name}`")),
                }
            }
            other => Err(format!("unknown cfg predicate `{}`", quote::quote!(#other))),
        }
    }

    /// Whether every `#[cfg]` among `attrs` holds. An undecided one is reported as an error
    /// at `line` and counts as not holding (the item is skipped, and the skip is visible).
    pub fn attrs_hold(&mut self, attrs: &[Attribute], diags: &mut Diagnostics, line: u32) -> bool {
        for attr in attrs.iter().filter(|a| a.path().is_ident("cfg")) {
            let verdict = match attr.parse_args::<Meta>() {
                Ok(pred) => self.eval(&pred),
                Err(e) => Err(format!("cannot read #[cfg]: {e}")),
            };
            match verdict {
                Ok(true) => {}
                Ok(false) => return false,
                Err(why) => {
                    diags.error(line, format!("{why}; item skipped"));
                    return false;
                }
            }
        }
        true
    }

    fn feature(&mut self, name: &str) -> bool {
        if name.starts_with("cuda-") {
            self.seen_cuda.insert(name.to_string());
            name == self.cuda_feature
        } else {
            self.enabled.contains(name)
        }
    }
}

/// `any` (`is_any`) or `all` over operands, three-valued: a deciding operand wins over an
/// undecided one.
fn combine(values: Vec<Result<bool, String>>, is_any: bool) -> Result<bool, String> {
    let mut undecided = None;
    for v in values {
        match v {
            Ok(b) if b == is_any => return Ok(is_any),
            Ok(_) => {}
            Err(e) => undecided = undecided.or(Some(e)),
        }
    }
    match undecided {
        Some(e) => Err(e),
        None => Ok(!is_any),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str) -> Result<bool, String> {
        let mut ev = CfgEval::for_release(&Release(vec![13, 2]));
        ev.enabled.insert("dynamic-loading".to_string());
        let meta: Meta = syn::parse_str(text).map_err(|e| e.to_string())?;
        ev.eval(&meta)
    }

    #[test]
    fn feature_names_the_release() {
        assert_eq!(eval(r#"feature = "cuda-13020""#), Ok(true));
        assert_eq!(eval(r#"feature = "cuda-13010""#), Ok(false));
        assert_eq!(eval(r#"feature = "dynamic-loading""#), Ok(true));
        assert_eq!(eval(r#"feature = "no-std""#), Ok(false));
    }

    #[test]
    fn any_all_not() {
        assert_eq!(
            eval(r#"any(feature = "cuda-12040", feature = "cuda-13020")"#),
            Ok(true)
        );
        assert_eq!(
            eval(r#"any(feature = "cuda-12040", feature = "cuda-13030")"#),
            Ok(false)
        );
        assert_eq!(eval("any()"), Ok(false));
        assert_eq!(eval("all()"), Ok(true));
        assert_eq!(
            eval(r#"all(feature = "cuda-13020", feature = "dynamic-loading")"#),
            Ok(true)
        );
        assert_eq!(
            eval(r#"all(feature = "cuda-13020", feature = "no-std")"#),
            Ok(false)
        );
        assert_eq!(eval(r#"not(feature = "cuda-13020")"#), Ok(false));
        assert_eq!(
            eval(r#"not(any(feature = "cuda-11040", feature = "no-std"))"#),
            Ok(true)
        );
    }

    #[test]
    fn unknown_predicates_are_undecided_unless_settled() {
        assert!(eval("unix").is_err());
        assert!(eval(r#"target_os = "linux""#).is_err());
        assert!(eval(r#"frobnicate(feature = "cuda-13020")"#).is_err());
        assert!(eval(r#"not(unix)"#).is_err());
        assert!(eval(r#"not(feature = "a", feature = "b")"#).is_err());
        assert!(eval(r#"any(unix, feature = "cuda-11040")"#).is_err());
        assert_eq!(eval(r#"any(unix, feature = "cuda-13020")"#), Ok(true));
        assert_eq!(eval(r#"all(unix, feature = "cuda-11040")"#), Ok(false));
    }

    #[test]
    fn undecided_attrs_are_reported_with_their_line() {
        let item: syn::ItemConst =
            syn::parse_str("#[cfg(windows)] pub const X: u32 = 1;").expect("test item parses");
        let mut ev = CfgEval::for_release(&Release(vec![13, 2]));
        let mut diags = Diagnostics::new("t.rs");
        assert!(!ev.attrs_hold(&item.attrs, &mut diags, 7));
        let list = diags.into_vec();
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].line, 7);
        assert!(list[0].message.contains("windows"), "{}", list[0].message);
    }

    #[test]
    fn seen_cuda_features_are_collected() {
        let mut ev = CfgEval::for_release(&Release(vec![12, 4]));
        let meta: Meta = syn::parse_str(r#"any(feature = "cuda-12040", feature = "cuda-11080")"#)
            .expect("parses");
        assert_eq!(ev.eval(&meta), Ok(true));
        let seen: Vec<&str> = ev.seen_cuda.iter().map(String::as_str).collect();
        assert_eq!(seen, ["cuda-11080", "cuda-12040"]);
    }
}
