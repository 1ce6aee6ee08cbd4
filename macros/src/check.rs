//! Every rule a tool function must follow, each with what it rejects.

use syn::{ReturnType, Type};

use crate::emit::args::{adapt_garde, field_rules};
use crate::errors::Errors;
use crate::model::{ToolFn, fn_span};

/// Names a model must never choose: they are facts of the authenticated
/// request, read from `ToolContext`. Compared after [`normalized`], so
/// `tenantId`, `Tenant-ID` and `"ACTOR_ID "` are caught too. The runtime
/// keeps the same list for names inside nested types (a test in the
/// tests crate holds the two equal).
pub(crate) const TRUSTED_NAMES: [&str; 12] = [
    "tenantid",
    "tenant",
    "actorid",
    "actor",
    "userid",
    "orgid",
    "organizationid",
    "scopes",
    "role",
    "roles",
    "isadmin",
    "requestid",
];

/// A name as the trusted-name rule compares it: lower case, without `_`,
/// `-` and white space.
pub(crate) fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-') && !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

pub(crate) fn check(tool: &ToolFn, errors: &mut Errors) {
    name(tool, errors);
    version(tool, errors);
    description(tool, errors);
    effect(tool, errors);
    scope(tool, errors);
    signature(tool, errors);
    arguments(tool, errors);
}

/// `#[tool(name = "book hotel")]`: a name every provider accepts.
fn name(tool: &ToolFn, errors: &mut Errors) {
    let name = tool.name();
    if is_portable_name(&name) {
        return;
    }
    let message = format!(
        "tool name `{name}` is not accepted by every provider: use 1-64 characters of A-Z, a-z, 0-9, `_` and `-`, starting with a letter or `_`"
    );
    match &tool.attrs.name {
        Some(lit) => errors.at(lit, message),
        None => errors.at_span(
            fn_span(&tool.func),
            format!("{message}, or set `name = \"…\"`"),
        ),
    }
}

/// `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`
fn is_portable_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'_'))
        && name.len() <= 64
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `#[tool(version = 0)]`: versions start at 1.
fn version(tool: &ToolFn, errors: &mut Errors) {
    if let Some(lit) = &tool.attrs.version {
        match lit.base10_parse::<u32>() {
            Ok(v) if v >= 1 => {}
            _ => errors.at(lit, "`version` is a whole number from 1 to 4294967295"),
        }
    }
}

/// A function with no doc comment and no `description`: the model would not
/// know what the tool does.
fn description(tool: &ToolFn, errors: &mut Errors) {
    let text = match &tool.attrs.description {
        Some(lit) => lit.value(),
        None => tool.docs.clone().unwrap_or_default(),
    };
    if text.trim().is_empty()
        && !(tool.attrs.description.is_none() && tool.attrs.gave("description"))
    {
        let message = "a tool needs a description for the model: add a doc comment (`/// Book a hotel ...`) or `description = \"...\"`";
        match &tool.attrs.description {
            Some(lit) => errors.at(lit, message),
            None => errors.at_span(fn_span(&tool.func), message),
        }
    }
}

/// `#[tool]` without `effect`: what a call can change must be declared.
fn effect(tool: &ToolFn, errors: &mut Errors) {
    if tool.attrs.effect.is_none() && !tool.attrs.gave("effect") {
        let message = "add `effect = read`, `effect = write` or `effect = irreversible`: what a call can change is part of the tool's contract";
        match tool.attrs.span {
            Some(span) => errors.at_span(span, message),
            None => errors.at_span(proc_macro2::Span::call_site(), message),
        }
    }
}

/// `#[tool(scope = "")]` or a scope with spaces.
fn scope(tool: &ToolFn, errors: &mut Errors) {
    if let Some(lit) = &tool.attrs.scope {
        let scope = lit.value();
        if scope.is_empty()
            || scope.len() > 128
            || scope.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            errors.at(lit, "`scope` is one scope name of 1-128 characters without spaces, like \"bookings:write\"");
        }
    }
}

/// Generic, `unsafe`, `extern` or variadic functions, and functions that
/// return nothing.
fn signature(tool: &ToolFn, errors: &mut Errors) {
    let sig = &tool.func.sig;
    let generics = &sig.generics;
    if generics.type_params().next().is_some() || generics.const_params().next().is_some() {
        errors.at(
            generics,
            "a #[tool] function cannot be generic: the model's arguments need one concrete schema",
        );
    }
    if let Some(unsafety) = &sig.unsafety {
        errors.at(
            unsafety,
            "a #[tool] function cannot be `unsafe`: a model must not be able to reach unsafe code",
        );
    }
    if let Some(abi) = &sig.abi {
        errors.at(abi, "a #[tool] function uses the Rust ABI; remove `extern`");
    }
    if let Some(variadic) = &sig.variadic {
        errors.at(variadic, "a #[tool] function cannot be variadic");
    }
    if let ReturnType::Default = sig.output {
        errors.at_span(
            sig.paren_token.span.close(),
            "a #[tool] function returns `Result<T, ToolError>`: add `-> Result<T, ToolError>`",
        );
    }
}

/// Model arguments: names a model must not control, names sent twice,
/// garde rules whose meaning differs from JSON Schema's (`length(bytes, …)`,
/// `pattern(r"\bword\b")`).
fn arguments(tool: &ToolFn, errors: &mut Errors) {
    let mut wire_names: Vec<String> = Vec::new();
    if tool.state().is_none() {
        for resource in tool.resources() {
            errors.at(
                &resource.arg.ty,
                "a tool that takes `Authorized<R>` also takes the state its resources resolve against: add a parameter `state: &State`",
            );
        }
    }
    for arg in tool.fields() {
        let wire = arg.wire_name();
        let field = syn::ext::IdentExt::unraw(&arg.ident).to_string();
        let allowed = |name: &str| {
            tool.attrs.business_fields_unread
                || tool
                    .attrs
                    .business_fields
                    .iter()
                    .any(|b| normalized(&b.value()) == normalized(name))
        };
        if let Some(trusted) = [&wire, &field]
            .into_iter()
            .find(|n| TRUSTED_NAMES.contains(&normalized(n).as_str()) && !allowed(n))
        {
            let at = arg
                .rename
                .as_ref()
                .map_or_else(|| arg.ident.span(), syn::LitStr::span);
            errors.at_span(
                at,
                format_args!(
                    "`{trusted}` names trusted context, which the model must never choose: read it from `ctx: &ToolContext` (actor, tenant, scopes, request id) instead of taking it as an argument; if it is the tool's own business data (an admin tool looking up another user), say so with `#[tool(business_fields = [\"{trusted}\"])]`"
                ),
            );
        }
        if wire.is_empty() {
            if let Some(rename) = &arg.rename {
                errors.at(rename, "a field name cannot be empty");
            }
        } else if wire_names.contains(&wire) {
            let at = arg
                .rename
                .as_ref()
                .map_or_else(|| arg.ident.span(), syn::LitStr::span);
            errors.at_span(
                at,
                format_args!("two arguments are sent as `{wire}`; give each its own name"),
            );
        } else {
            wire_names.push(wire);
        }
        let mut rules_read = true;
        for attr in &arg.garde {
            if let Err(error) = adapt_garde(attr, &arg.ty) {
                errors.push(error);
                rules_read = false;
            }
        }
        if rules_read && let Err(error) = field_rules(&arg.garde) {
            errors.push(error);
        }
        map_keys(&arg.ty, errors);
        if let Type::Never(never) = &*arg.ty {
            errors.at(never, "a model argument cannot have type `!`");
        }
    }
}

/// `HashMap<IpAddr, V>`: two keys the model sent as different strings
/// (`"::1"` and `"0:0:0:0:0:0:0:1"`) would be read as one, the second
/// silently replacing the first after gate 1 saw no duplicate. Map keys are
/// strings or integers, which serde_json reads one way only.
fn map_keys(ty: &Type, errors: &mut Errors) {
    match ty {
        Type::Path(path) => {
            for segment in &path.path.segments {
                let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
                    continue;
                };
                let types: Vec<&Type> = args
                    .args
                    .iter()
                    .filter_map(|a| match a {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    })
                    .collect();
                let is_map = ["HashMap", "BTreeMap", "IndexMap"]
                    .iter()
                    .any(|m| segment.ident == m);
                if let (true, Some(key)) = (is_map, types.first())
                    && !is_plain_key(key)
                {
                    errors.at(
                        key,
                        "map keys must be strings or integers: a key type that reads several spellings as one value (an IP address, an enum with aliases, a UUID) lets one key the model sent silently replace another; take `String` keys and parse them in the body",
                    );
                }
                for inner in types {
                    map_keys(inner, errors);
                }
            }
        }
        Type::Array(array) => map_keys(&array.elem, errors),
        Type::Slice(slice) => map_keys(&slice.elem, errors),
        Type::Paren(paren) => map_keys(&paren.elem, errors),
        Type::Group(group) => map_keys(&group.elem, errors),
        Type::Reference(reference) => map_keys(&reference.elem, errors),
        Type::Tuple(tuple) => tuple.elems.iter().for_each(|t| map_keys(t, errors)),
        _ => {}
    }
}

/// A string type, an integer (`NonZero…` too), `char` or `bool`: keys
/// with one spelling.
fn is_plain_key(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    const PLAIN: [&str; 28] = [
        "String",
        "u8",
        "u16",
        "u32",
        "u64",
        "u128",
        "usize",
        "i8",
        "i16",
        "i32",
        "i64",
        "i128",
        "isize",
        "NonZeroU8",
        "NonZeroU16",
        "NonZeroU32",
        "NonZeroU64",
        "NonZeroU128",
        "NonZeroUsize",
        "NonZeroI8",
        "NonZeroI16",
        "NonZeroI32",
        "NonZeroI64",
        "NonZeroI128",
        "NonZeroIsize",
        "char",
        "bool",
        "CompactString",
    ];
    if PLAIN.iter().any(|p| last.ident == p) {
        return true;
    }
    // `Box<str>`, `Arc<str>`, `Rc<str>`, `Cow<str>`.
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    ["Box", "Arc", "Rc", "Cow"].iter().any(|w| last.ident == w)
        && args.args.iter().any(
            |a| matches!(a, syn::GenericArgument::Type(Type::Path(p)) if p.path.is_ident("str")),
        )
}

#[cfg(test)]
mod tests {
    use super::is_portable_name;

    #[test]
    fn portable_names() {
        for ok in ["a", "_x", "book_hotel", "get-weather", &"a".repeat(64)] {
            assert!(is_portable_name(ok), "{ok}");
        }
        for bad in ["", "1a", "-a", "book hotel", "a.b", "é", &"a".repeat(65)] {
            assert!(!is_portable_name(bad), "{bad}");
        }
    }
}
