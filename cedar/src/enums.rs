//! String literals against attributes of a fixed set of values.
//!
//! Cedar types an enumeration as a plain `String`, so its validator
//! accepts `resource.classification == "secrte"`, which then never holds:
//! a `forbid` written that way never forbids. Every place a literal meets
//! such an attribute (`==`, `!=`, `.contains`, `.containsAll`,
//! `.containsAny`, `like`, either side, sets and records of literals, the
//! branches of an `if`) is checked against the values the attribute can
//! have, over every request the policy can apply to.

use cedar_policy::pst::{BinaryOp, Clause, Expr, Literal, PatternElem, Var};
use cedar_policy::{Policy, RequestEnv};

use crate::schema::Schema;
use crate::types::{Attr, Records, Ty};

/// A literal that is none of the values of what it meets.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Mismatch {
    /// The literal as written in the policy, quotes included: where the
    /// problem is found in the text.
    pub(crate) literal: String,
    /// What is wrong, naming the attribute and its values.
    pub(crate) message: String,
}

/// The types of `principal`, `resource` and `context` over the requests a
/// policy applies to: an attribute holds every value it can hold in any.
#[derive(Default)]
struct Scope {
    principal: Option<Ty>,
    resource: Option<Ty>,
    context: Option<Ty>,
}

impl Scope {
    fn of(envs: &[RequestEnv], schema: &Schema) -> Self {
        let mut scope = Scope::default();
        for env in envs {
            scope.widen(env, schema);
        }
        scope
    }

    fn widen(&mut self, env: &RequestEnv, schema: &Schema) {
        let shape = |name: String| schema.shapes.get(&name).cloned().map(Ty::Record);
        let context = schema
            .tools
            .values()
            .find(|tool| tool.action == *env.action())
            .map(|tool| Ty::Record(tool.context.clone()));
        for (slot, ty) in [
            (&mut self.principal, shape(env.principal().to_string())),
            (&mut self.resource, shape(env.resource().to_string())),
            (&mut self.context, context),
        ] {
            *slot = match (slot.take(), ty) {
                (Some(seen), Some(ty)) => seen.join(&ty, Records::Either),
                (seen, ty) => seen.or(ty),
            };
        }
    }

    /// The type and the name (`resource.classification`) of an attribute
    /// path; `None` for any other expression.
    fn type_of(&self, expr: &Expr) -> Option<(Ty, String)> {
        match expr {
            Expr::Var(Var::Principal) => Some((self.principal.clone()?, "principal".to_owned())),
            Expr::Var(Var::Resource) => Some((self.resource.clone()?, "resource".to_owned())),
            Expr::Var(Var::Context) => Some((self.context.clone()?, "context".to_owned())),
            Expr::GetAttr { expr, attr } => {
                let (Ty::Record(attrs), path) = self.type_of(expr)? else {
                    return None;
                };
                let found = attrs.into_iter().find(|a| a.name == attr.as_str())?;
                Some((found.ty, member(&path, attr)))
            }
            _ => None,
        }
    }
}

/// Every literal in `policy` that meets an attribute which can never hold
/// it, once each, over the requests `envs` the policy applies to.
pub(crate) fn check(
    policy: &Policy,
    envs: &[RequestEnv],
    schema: &Schema,
) -> Result<Vec<Mismatch>, String> {
    let pst = policy.to_pst().map_err(|e| e.to_string())?;
    let scope = Scope::of(envs, schema);
    let mut found = Vec::new();
    for clause in pst.body().clauses() {
        let (Clause::When(expr) | Clause::Unless(expr)) = clause;
        walk(expr, &scope, &mut found);
    }
    let mut once = Vec::with_capacity(found.len());
    for mismatch in found {
        if !once.contains(&mismatch) {
            once.push(mismatch);
        }
    }
    Ok(once)
}

fn walk(expr: &Expr, scope: &Scope, out: &mut Vec<Mismatch>) {
    match expr {
        Expr::BinaryOp { op, left, right } => {
            let sides = [(left, right), (right, left)];
            match op {
                BinaryOp::Eq | BinaryOp::NotEq => {
                    for (attr, value) in sides {
                        if let Some((ty, path)) = scope.type_of(attr) {
                            fits(&ty, value, &path, false, out);
                        }
                    }
                }
                BinaryOp::Contains => {
                    if let Some((Ty::Set(item), path)) = scope.type_of(left) {
                        fits(&item, right, &path, true, out);
                    }
                    if let Some((ty, path)) = scope.type_of(right) {
                        for item in items(left) {
                            fits(&ty, item, &path, false, out);
                        }
                    }
                }
                BinaryOp::ContainsAll | BinaryOp::ContainsAny => {
                    for (attr, value) in sides {
                        if let Some((ty @ Ty::Set(_), path)) = scope.type_of(attr) {
                            fits(&ty, value, &path, false, out);
                        }
                    }
                }
                _ => {}
            }
            walk(left, scope, out);
            walk(right, scope, out);
        }
        Expr::Like { expr, pattern } => {
            if let Some((Ty::Enum(values), path)) = scope.type_of(expr)
                && !values.iter().any(|v| matches(pattern, v))
            {
                let written = written_pattern(pattern);
                out.push(Mismatch {
                    message: format!(
                        "the pattern {written} matches none of the values of `{path}`: {}",
                        listed(&values)
                    ),
                    literal: written,
                });
            }
            walk(expr, scope, out);
        }
        Expr::UnaryOp { expr, .. } | Expr::GetAttr { expr, .. } | Expr::HasAttr { expr, .. } => {
            walk(expr, scope, out);
        }
        Expr::Is { expr, in_expr, .. } => {
            walk(expr, scope, out);
            if let Some(parent) = in_expr {
                walk(parent, scope, out);
            }
        }
        Expr::IfThenElse {
            cond,
            then_expr,
            else_expr,
        } => {
            for part in [cond, then_expr, else_expr] {
                walk(part, scope, out);
            }
        }
        Expr::Set(items) => items.iter().for_each(|item| walk(item, scope, out)),
        Expr::Record(fields) => fields.values().for_each(|field| walk(field, scope, out)),
        _ => {}
    }
}

/// Checks the literals `value` can be against `ty`, the type of `path`
/// (`element`: of one element of it).
fn fits(ty: &Ty, value: &Expr, path: &str, element: bool, out: &mut Vec<Mismatch>) {
    if let Expr::IfThenElse {
        then_expr,
        else_expr,
        ..
    } = value
    {
        fits(ty, then_expr, path, element, out);
        fits(ty, else_expr, path, element, out);
        return;
    }
    match (ty, value) {
        (Ty::Enum(values), Expr::Literal(Literal::String(text)))
            if !values.iter().any(|v| v == text.as_str()) =>
        {
            let literal = quoted(text);
            let what = if element {
                format!("an element of `{path}`")
            } else {
                format!("`{path}`")
            };
            out.push(Mismatch {
                message: format!(
                    "{literal} is none of the values of {what}: {}",
                    listed(values)
                ),
                literal,
            });
        }
        (Ty::Set(item), Expr::Set(items)) => {
            for each in items {
                fits(item, each, path, true, out);
            }
        }
        (Ty::Record(attrs), Expr::Record(fields)) => {
            for (name, field) in fields {
                if let Some(Attr { ty, .. }) = attrs.iter().find(|a| a.name == *name) {
                    fits(ty, field, &member(path, name), false, out);
                }
            }
        }
        _ => {}
    }
}

/// The elements of a set literal (of either branch of an `if`).
fn items(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::Set(items) => items.iter().map(AsRef::as_ref).collect(),
        Expr::IfThenElse {
            then_expr,
            else_expr,
            ..
        } => {
            let mut both = items(then_expr);
            both.extend(items(else_expr));
            both
        }
        _ => Vec::new(),
    }
}

/// `path.name`, or `path["not an identifier"]`.
fn member(path: &str, name: &str) -> String {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if identifier {
        format!("{path}.{name}")
    } else {
        format!("{path}[{}]", quoted(name))
    }
}

/// A string as a Cedar policy writes it.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.escape_debug())
}

/// `"a", "b", "c"`.
fn listed(values: &[String]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| quoted(v)).collect();
    quoted.join(", ")
}

/// A `like` pattern as written: `*` a wildcard, `\*` a star.
fn written_pattern(pattern: &[PatternElem]) -> String {
    let mut text = String::from("\"");
    for elem in pattern {
        match elem {
            PatternElem::Wildcard => text.push('*'),
            PatternElem::Char('*') => text.push_str("\\*"),
            PatternElem::Char(c) => text.extend(c.escape_debug()),
        }
    }
    text.push('"');
    text
}

/// Whether `text` matches `pattern`, as Cedar's `like` does: `*` stands
/// for any run of characters, every other element for itself.
fn matches(pattern: &[PatternElem], text: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    // The classic two-pointer match: on a mismatch, the last wildcard
    // takes one more character; linear in practice, quadratic at worst.
    let (mut p, mut t) = (0, 0);
    let mut retry: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(PatternElem::Wildcard) => {
                retry = Some((p, t));
                p += 1;
            }
            Some(PatternElem::Char(c)) if *c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match retry {
                Some((wildcard, from)) => {
                    p = wildcard + 1;
                    t = from + 1;
                    retry = Some((wildcard, from + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..]
        .iter()
        .all(|elem| matches!(elem, PatternElem::Wildcard))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(text: &str) -> Vec<PatternElem> {
        text.chars()
            .map(|c| match c {
                '*' => PatternElem::Wildcard,
                c => PatternElem::Char(c),
            })
            .collect()
    }

    #[test]
    fn patterns_match_as_cedar_s_like() {
        for (p, text, expected) in [
            ("secret", "secret", true),
            ("sec*", "secret", true),
            ("*ret", "secret", true),
            ("s*c*t", "secret", true),
            ("*", "", true),
            ("", "", true),
            ("sec", "secret", false),
            ("*x*", "secret", false),
            ("s*z", "secret", false),
            ("a*a", "a", false),
            ("*é", "café", true),
        ] {
            assert_eq!(matches(&pattern(p), text), expected, "{p:?} ~ {text:?}");
        }
    }

    #[test]
    fn names_read_as_in_a_policy() {
        assert_eq!(member("context", "format"), "context.format");
        assert_eq!(member("context", "dry-run"), "context[\"dry-run\"]");
        assert_eq!(written_pattern(&pattern("a*b")), "\"a*b\"");
        assert_eq!(
            written_pattern(&[PatternElem::Char('*'), PatternElem::Wildcard]),
            "\"\\**\""
        );
    }
}
