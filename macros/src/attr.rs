//! `#[tool(...)]`: the keys, their values, and their mistakes.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Ident, Lit, LitInt, LitStr, Meta, Token};

use crate::errors::Errors;

pub(crate) const KEYS: &str = "name, version, description, scope, effect, check, approval, approver, approver_scope, timeout_ms, business_fields";

/// What the attribute said, each value with its span.
#[derive(Default)]
pub(crate) struct ToolAttrs {
    pub(crate) name: Option<LitStr>,
    pub(crate) version: Option<LitInt>,
    pub(crate) description: Option<LitStr>,
    pub(crate) scope: Option<LitStr>,
    pub(crate) effect: Option<Ident>,
    /// An expression over the parameters, run after authorization and
    /// before the body: `check = export_allowed(&account, &columns)`.
    pub(crate) check: Option<Expr>,
    /// A `bool` expression over the parameters, run after `check`: whether
    /// this call needs a person's approval (`approval = amount_cents > 10_000`).
    pub(crate) approval: Option<Expr>,
    /// A string, or an `Option` of one over the parameters: the one actor
    /// who may approve (`approver = reason.approver()`).
    pub(crate) approver: Option<Expr>,
    /// A scope the approver must hold.
    pub(crate) approver_scope: Option<LitStr>,
    /// How long the body may run, in milliseconds.
    pub(crate) timeout_ms: Option<LitInt>,
    /// Field names that look like trusted context but are the tool's own
    /// business data: `business_fields = ["user_id"]` for an admin tool.
    pub(crate) business_fields: Vec<LitStr>,
    /// `business_fields` was written but could not be read: it has had its
    /// error, and every name counts as allowed, so none is reported again.
    pub(crate) business_fields_unread: bool,
    /// The attribute's arguments, for errors about a missing key.
    pub(crate) span: Option<Span>,
    /// Every key written, valid value or not: a key given with a wrong value
    /// has had its error, and is not reported again as missing.
    pub(crate) given: Vec<String>,
}

impl ToolAttrs {
    /// Whether the attribute wrote `key`, whatever its value.
    pub(crate) fn gave(&self, key: &str) -> bool {
        self.given.iter().any(|k| k == key)
    }
}

pub(crate) fn parse(tokens: TokenStream, errors: &mut Errors) -> ToolAttrs {
    let mut attrs = ToolAttrs {
        span: (!tokens.is_empty()).then(|| syn::spanned::Spanned::span(&tokens)),
        ..ToolAttrs::default()
    };
    let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens) {
        Ok(metas) => metas,
        Err(error) => {
            errors.push(syn::Error::new(
                error.span(),
                format_args!("{error}; #[tool] takes `key = value` pairs: {KEYS}"),
            ));
            return attrs;
        }
    };
    for meta in metas {
        let Some(key) = meta.path().get_ident().map(ToString::to_string) else {
            errors.at(
                meta.path(),
                format_args!("unknown #[tool] key; expected one of: {KEYS}"),
            );
            continue;
        };
        if attrs.gave(&key) {
            errors.at(
                &meta,
                format_args!("duplicate #[tool] key `{key}`; give it once"),
            );
            continue;
        }
        attrs.given.push(key.clone());
        let value = match &meta {
            Meta::NameValue(nv) => &nv.value,
            _ => {
                match key.as_str() {
                    "name" | "version" | "description" | "scope" | "effect" | "check"
                    | "approval" | "approver" | "approver_scope" | "timeout_ms"
                    | "business_fields" => {
                        errors.at(&meta, format_args!("`{key}` needs a value: `{key} = …`"))
                    }
                    // `#[tool(read)]`: the effect, without its key. It has
                    // had its error, and is not reported again as missing.
                    "read" | "write" | "irreversible" if !attrs.gave("effect") => {
                        attrs.given.push("effect".to_owned());
                        errors.at(
                            meta.path(),
                            format_args!("write the effect as `effect = {key}`"),
                        );
                    }
                    _ => errors.at(
                        meta.path(),
                        format_args!("unknown #[tool] key `{key}`; expected one of: {KEYS}"),
                    ),
                }
                continue;
            }
        };
        match key.as_str() {
            "name" => set(&mut attrs.name, string(value, &key, errors)),
            "description" => set(&mut attrs.description, string(value, &key, errors)),
            "scope" => set(&mut attrs.scope, string(value, &key, errors)),
            "timeout_ms" => {
                let lit = match value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Int(int), ..
                    }) if int.base10_parse::<u64>().is_ok_and(|ms| ms > 0) => Some(int.clone()),
                    other => {
                        errors.at(
                            other,
                            "`timeout_ms` is a whole number of milliseconds above 0, like `timeout_ms = 5_000`",
                        );
                        None
                    }
                };
                set(&mut attrs.timeout_ms, lit);
            }
            "version" => {
                let lit = match value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Int(int), ..
                    }) => Some(int.clone()),
                    other => {
                        errors.at(other, "`version` is a whole number, like `version = 2`");
                        None
                    }
                };
                set(&mut attrs.version, lit);
            }
            "effect" => {
                let ident = match value {
                    Expr::Path(path) => path
                        .path
                        .get_ident()
                        .filter(|i| {
                            ["read", "write", "irreversible"].contains(&i.to_string().as_str())
                        })
                        .cloned(),
                    _ => None,
                };
                if ident.is_none() {
                    errors.at(value, "`effect` is one of `read`, `write` or `irreversible`, written without quotes");
                }
                set(&mut attrs.effect, ident);
            }
            "check" => set(&mut attrs.check, Some(value.clone())),
            "approval" => set(&mut attrs.approval, Some(value.clone())),
            "approver" => set(&mut attrs.approver, Some(value.clone())),
            "approver_scope" => set(&mut attrs.approver_scope, string(value, &key, errors)),
            "business_fields" => match value {
                Expr::Array(array) => {
                    for element in &array.elems {
                        match string(element, "business_fields", errors) {
                            Some(lit) => attrs.business_fields.push(lit),
                            None => attrs.business_fields_unread = true,
                        }
                    }
                }
                other => {
                    attrs.business_fields_unread = true;
                    errors.at(
                        other,
                        "`business_fields` is a list of field names, like `business_fields = [\"user_id\"]`",
                    );
                }
            },
            _ => errors.at(
                meta.path(),
                format_args!("unknown #[tool] key `{key}`; expected one of: {KEYS}"),
            ),
        }
    }
    attrs
}

fn string(value: &Expr, key: &str, errors: &mut Errors) -> Option<LitStr> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.clone()),
        other => {
            errors.at(
                other,
                format_args!("`{key}` is a string literal, like `{key} = \"…\"`"),
            );
            None
        }
    }
}

/// Stores a key's value (duplicates were refused before).
fn set<T>(slot: &mut Option<T>, value: Option<T>) {
    if value.is_some() {
        *slot = value;
    }
}
