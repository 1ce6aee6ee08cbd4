//! The typed model of a tool function: what each parameter is, with its span.

use proc_macro2::{Span, TokenStream};
use syn::{Attribute, Expr, ExprLit, FnArg, Ident, ItemFn, Lit, LitStr, Meta, Pat, Type};

use crate::attr::ToolAttrs;
use crate::errors::Errors;

/// The annotated function, its attribute, and its parameters.
pub(crate) struct ToolFn {
    /// The function as the user wrote it, minus the parameter attributes
    /// that belong to the argument struct (`///`, `#[garde]`, `#[serde]`).
    pub(crate) func: ItemFn,
    pub(crate) attrs: ToolAttrs,
    /// The doc comment, joined into one description.
    pub(crate) docs: Option<String>,
    pub(crate) params: Vec<Param>,
    /// For a method of a `#[tools]` impl block: the block's type, which is
    /// the state `&self` lends.
    pub(crate) method_of: Option<Box<Type>>,
}

/// One parameter, by where its value comes from.
pub(crate) enum Param {
    /// `&ToolContext`: injected by the server. The name, if the pattern is one.
    Context(Option<Ident>),
    /// `&S`: the toolbox's state, injected by the server.
    State(Box<Type>, Option<Ident>),
    /// An owned value the model sends.
    Model(ModelArg),
    /// `Authorized<R>` (or `Option<Authorized<R>>`): the model sends
    /// `R::Ref`; the server resolves and authorizes it.
    Resource(ResourceArg),
    /// A parameter already reported as an error.
    Invalid,
}

/// A resource parameter.
pub(crate) struct ResourceArg {
    pub(crate) arg: ModelArg,
    /// `R` in `Authorized<R>`.
    pub(crate) resource: Box<Type>,
    pub(crate) optional: bool,
}

/// A parameter that becomes a field of the argument struct.
pub(crate) struct ModelArg {
    /// The field name, as written (`r#type` stays raw).
    pub(crate) ident: Ident,
    pub(crate) ty: Box<Type>,
    pub(crate) docs: Vec<Attribute>,
    pub(crate) garde: Vec<Attribute>,
    /// `#[serde(rename = "…")]`: the name on the wire.
    pub(crate) rename: Option<LitStr>,
    /// `#[serde(default)]` or `#[serde(default = "path")]`: the model may
    /// leave the field out or send `null`, and the body gets this value.
    pub(crate) default: Option<FieldDefault>,
}

/// The value a field takes when the model leaves it out or sends `null`.
pub(crate) enum FieldDefault {
    /// `#[serde(default)]`: the type's `Default`.
    Trait(Span),
    /// `#[serde(default = "path")]`: what the function at `path` returns.
    Path(syn::ExprPath),
}

impl FieldDefault {
    /// The expression that makes the value.
    pub(crate) fn expr(&self) -> TokenStream {
        match self {
            FieldDefault::Trait(span) => {
                quote::quote_spanned!(*span=> ::core::default::Default::default())
            }
            FieldDefault::Path(path) => quote::quote!(#path()),
        }
    }
}

impl ModelArg {
    pub(crate) fn wire_name(&self) -> String {
        match &self.rename {
            Some(rename) => rename.value(),
            None => syn::ext::IdentExt::unraw(&self.ident).to_string(),
        }
    }
}

/// Reads the annotated item; anything but a function is an error.
pub(crate) fn parse_item(item: TokenStream, errors: &mut Errors) -> Option<ItemFn> {
    match syn::parse2::<syn::Item>(item) {
        Ok(syn::Item::Fn(func)) => Some(func),
        Ok(other) => {
            let what = match &other {
                syn::Item::Struct(_) => "a struct",
                syn::Item::Enum(_) => "an enum",
                syn::Item::Impl(_) => "an impl block",
                syn::Item::Mod(_) => "a module",
                syn::Item::Trait(_) => "a trait",
                syn::Item::Const(_) | syn::Item::Static(_) => "a constant",
                _ => "this item",
            };
            errors.at_span(
                Span::call_site(),
                format_args!(
                    "#[tool] goes on a function, not on {what}: write `#[tool(effect = read)] fn name(...) -> Result<T, ToolError>`"
                ),
            );
            None
        }
        Err(error) => {
            errors.push(error);
            None
        }
    }
}

impl ToolFn {
    pub(crate) fn new(
        mut func: ItemFn,
        attrs: ToolAttrs,
        method_of: Option<Box<Type>>,
        errors: &mut Errors,
    ) -> Self {
        let docs = doc_text(&func.attrs);
        let mut params = Vec::new();
        let mut context_seen = false;
        let mut state_seen = false;
        for input in &mut func.sig.inputs {
            let param = match input {
                FnArg::Receiver(receiver) => match &method_of {
                    Some(self_ty)
                        if receiver.reference.is_some()
                            && receiver.mutability.is_none()
                            && receiver.colon_token.is_none() =>
                    {
                        state_seen = true;
                        Param::State(self_ty.clone(), None)
                    }
                    Some(_) => {
                        errors.at(
                            &*receiver,
                            "a tool method takes `&self`: the toolbox's state, shared by every call (wrap what changes in a Mutex)",
                        );
                        Param::Invalid
                    }
                    None => {
                        errors.at(
                            &*receiver,
                            "a #[tool] method needs `#[toolgate::tools]` on its impl block, which registers each `#[tool]` method with `self` as the toolbox's state; or make it a free function that takes the state as `&State`",
                        );
                        Param::Invalid
                    }
                },
                FnArg::Typed(typed) => {
                    let (docs, garde, serde, rename, default) =
                        take_attrs(&mut typed.attrs, errors);
                    classify(
                        typed,
                        docs,
                        garde,
                        serde,
                        rename,
                        default,
                        &mut context_seen,
                        &mut state_seen,
                        errors,
                    )
                }
            };
            params.push(param);
        }
        ToolFn {
            func,
            attrs,
            docs,
            params,
            method_of,
        }
    }

    pub(crate) fn model_args(&self) -> impl Iterator<Item = &ModelArg> {
        self.params.iter().filter_map(|p| match p {
            Param::Model(arg) => Some(arg),
            _ => None,
        })
    }

    pub(crate) fn resources(&self) -> impl Iterator<Item = &ResourceArg> {
        self.params.iter().filter_map(|p| match p {
            Param::Resource(r) => Some(r),
            _ => None,
        })
    }

    /// Every field of the argument struct: model values and references.
    pub(crate) fn fields(&self) -> impl Iterator<Item = &ModelArg> {
        self.params.iter().filter_map(|p| match p {
            Param::Model(arg) => Some(arg),
            Param::Resource(r) => Some(&r.arg),
            _ => None,
        })
    }

    pub(crate) fn state(&self) -> Option<&Type> {
        self.params.iter().find_map(|p| match p {
            Param::State(ty, _) => Some(&**ty),
            _ => None,
        })
    }

    /// The tool's name: the attribute's, or the function's.
    pub(crate) fn name(&self) -> String {
        match &self.attrs.name {
            Some(name) => name.value(),
            None => syn::ext::IdentExt::unraw(&self.func.sig.ident).to_string(),
        }
    }
}

type ParamAttrs = (
    Vec<Attribute>,
    Vec<Attribute>,
    Vec<Attribute>,
    Option<LitStr>,
    Option<FieldDefault>,
);

/// Splits off the attributes that describe the model's field; the rest
/// (`cfg`, lints) stay on the parameter.
fn take_attrs(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> ParamAttrs {
    let (mut docs, mut garde, mut serde, mut rename) = (Vec::new(), Vec::new(), Vec::new(), None);
    let mut default = None;
    attrs.retain(|attr| {
        let path = attr.path();
        if path.is_ident("doc") {
            docs.push(attr.clone());
        } else if path.is_ident("garde") {
            garde.push(attr.clone());
        } else if path.is_ident("serde") {
            serde.push(attr.clone());
            let parsed = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    let value: LitStr = meta.value()?.parse()?;
                    if rename.replace(value).is_some() {
                        return Err(meta.error("duplicate `rename`"));
                    }
                    Ok(())
                } else if meta.path.is_ident("default") {
                    let value = if meta.input.peek(syn::Token![=]) {
                        let value = meta.value()?;
                        if !value.peek(LitStr) {
                            return Err(value.error(
                                "`default = \"…\"` names, in quotes, a function that makes the value: `default = \"default_nights\"` with `fn default_nights() -> u8 { 2 }`",
                            ));
                        }
                        let path: LitStr = value.parse()?;
                        let parsed = path.parse::<syn::ExprPath>().map_err(|_| {
                            syn::Error::new(
                                path.span(),
                                "`default = \"…\"` names a function that makes the value, like `default = \"default_nights\"`",
                            )
                        })?;
                        FieldDefault::Path(parsed)
                    } else {
                        FieldDefault::Trait(syn::spanned::Spanned::span(&meta.path))
                    };
                    if default.replace(value).is_some() {
                        return Err(meta.error("duplicate `default`"));
                    }
                    Ok(())
                } else {
                    Err(meta.error(
                        "a tool parameter takes `#[serde(rename = \"…\")]` and `#[serde(default)]` (or `default = \"path\"`) only: the argument struct is closed",
                    ))
                }
            });
            if let Err(error) = parsed {
                errors.push(error);
            }
        } else if path.is_ident("validate") || path.is_ident("schemars") {
            // Habits from other crates: the validator crate's rules, and
            // schemars' own, which would state a rule the server does not
            // apply.
            errors.at(
                path,
                format_args!(
                    "a tool parameter's rules are garde's, which the server applies and the schema states: write `#[garde(…)]`, like `#[garde(length(min = 1, max = 80))]`, not `#[{}(…)]`",
                    quote::ToTokens::to_token_stream(path)
                ),
            );
        } else {
            return true;
        }
        false
    });
    (docs, garde, serde, rename, default)
}

#[allow(clippy::too_many_arguments)]
fn classify(
    typed: &syn::PatType,
    docs: Vec<Attribute>,
    garde: Vec<Attribute>,
    serde: Vec<Attribute>,
    rename: Option<LitStr>,
    default: Option<FieldDefault>,
    context_seen: &mut bool,
    state_seen: &mut bool,
    errors: &mut Errors,
) -> Param {
    let injected = |errors: &mut Errors, what: &str| {
        for attr in garde.iter().chain(&serde) {
            errors.at(
                attr,
                format_args!("{what} is injected by the server, not sent by the model: it takes no `#[garde]` or `#[serde]` attributes"),
            );
        }
    };
    match &*typed.ty {
        Type::Reference(reference) => {
            if let Some(mutability) = &reference.mutability {
                errors.at(
                    mutability,
                    "injected parameters are shared references: take `&T`, not `&mut T` (wrap mutable state in a Mutex or use interior mutability)",
                );
                return Param::Invalid;
            }
            match &*reference.elem {
                elem if last_ident_is(elem, &["ToolContext"]) => {
                    injected(errors, "the context");
                    if std::mem::replace(context_seen, true) {
                        errors.at(
                            &typed.ty,
                            "a tool takes at most one `&ToolContext` parameter",
                        );
                        return Param::Invalid;
                    }
                    Param::Context(plain_name(&typed.pat))
                }
                Type::Path(path) if path.path.is_ident("str") => {
                    errors.at(
                        &typed.ty,
                        "model arguments are owned values: take `String`, not `&str` (borrowed parameters are injected by the server)",
                    );
                    Param::Invalid
                }
                Type::Slice(_) => {
                    errors.at(
                        &typed.ty,
                        "model arguments are owned values: take `Vec<T>`, not a slice (borrowed parameters are injected by the server)",
                    );
                    Param::Invalid
                }
                elem if wrapper(elem).is_some() => {
                    let message = match wrapper(elem) {
                        Some(Wrapper::Resolved) => RESOLVED_PARAMETER,
                        _ => {
                            "take `Authorized<R>` by value, without `&`: toolgate resolves and authorizes the object for this call and hands it to the body (a borrowed parameter would be the toolbox's state)"
                        }
                    };
                    errors.at(&typed.ty, message);
                    Param::Invalid
                }
                elem if is_model_data(elem) => {
                    let owned = plain_type(elem);
                    errors.at(
                        &typed.ty,
                        format_args!(
                            "model arguments are owned values: take `{owned}`, not `&{owned}` (borrowed parameters are injected by the server as the toolbox's state, and `{owned}` is data the model sends)"
                        ),
                    );
                    Param::Invalid
                }
                elem => {
                    injected(errors, "the state");
                    if std::mem::replace(state_seen, true) {
                        errors.at(
                            &typed.ty,
                            "a tool takes at most one state parameter: a toolbox has one state type, so put what the tool needs in it",
                        );
                        return Param::Invalid;
                    }
                    Param::State(Box::new(elem.clone()), plain_name(&typed.pat))
                }
            }
        }
        ty if last_ident_is(ty, &["ToolContext"]) => {
            errors.at(
                &typed.ty,
                "take `&ToolContext`: the server lends the call's context (actor, tenant, scopes, request id) to the tool; it is never an argument the model sends",
            );
            Param::Invalid
        }
        Type::ImplTrait(_) => {
            errors.at(&typed.ty, "a model argument needs a concrete type that the model's JSON can be read into, not `impl Trait`");
            Param::Invalid
        }
        ty if mentions(ty, "ToolContext") => {
            errors.at(
                &typed.ty,
                "the context is always there: take `ctx: &ToolContext`, not a wrapper of it",
            );
            Param::Invalid
        }
        ty if borrowed_within(ty).is_some() => {
            let at = borrowed_within(ty).unwrap_or(ty);
            errors.at(
                at,
                "a model argument is an owned value the model's JSON is read into: drop the `&` (`Option<String>` for an optional argument); the toolbox's state is always there, so take it as `&State` itself",
            );
            Param::Invalid
        }
        ty => match &*typed.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                let defaulted = default.is_some();
                let arg = ModelArg {
                    ident: pat.ident.clone(),
                    ty: typed.ty.clone(),
                    docs,
                    garde,
                    rename,
                    default,
                };
                if defaulted && single_generic(ty, "Option").is_some() && wrapper(ty).is_none() {
                    errors.at(
                        ty,
                        "an `Option` is optional already: left out or `null`, it is `None`; remove `#[serde(default)]`",
                    );
                    return Param::Invalid;
                }
                match wrapper(ty) {
                    Some(_) if defaulted => {
                        errors.at(
                            ty,
                            "a resource has no default: take `Option<Authorized<R>>` for one the model may leave out",
                        );
                        Param::Invalid
                    }
                    Some(Wrapper::Authorized { resource, optional }) => {
                        for attr in &arg.garde {
                            errors.at(
                                attr,
                                "a resource reference is checked by the rules on its `Ref` type; put `#[garde]` rules there",
                            );
                        }
                        Param::Resource(ResourceArg {
                            arg,
                            resource: Box::new(resource.clone()),
                            optional,
                        })
                    }
                    Some(Wrapper::Resolved) => {
                        errors.at(ty, RESOLVED_PARAMETER);
                        Param::Invalid
                    }
                    None => {
                        if let Some(at) = find_ident(ty, &["Authorized", "Resolved"]) {
                            errors.at_span(
                                at.span(),
                                format_args!(
                                    "`{at}<R>` is a parameter of its own, `name: Authorized<R>` or `name: Option<Authorized<R>>`: the server resolves and authorizes one reference per parameter, and cannot inside a list or another type"
                                ),
                            );
                            return Param::Invalid;
                        }
                        if let Some(lifetime) = borrowed_lifetime(ty) {
                            errors.at(
                                &lifetime,
                                format_args!(
                                    "a model argument is owned: it is read from the model's JSON and lives past it, so it cannot borrow for `{lifetime}`; take an owned type (`String` for `Cow<{lifetime}, str>`)"
                                ),
                            );
                            return Param::Invalid;
                        }
                        Param::Model(arg)
                    }
                }
            }
            other => {
                errors.at(
                    other,
                    "a model argument must be a plain name, like `nights: u8`: the name is the field the model sends",
                );
                Param::Invalid
            }
        },
    }
}

/// The first of `names` written anywhere in `ty`.
fn find_ident(ty: &Type, names: &[&str]) -> Option<Ident> {
    fn walk(tokens: proc_macro2::TokenStream, names: &[&str]) -> Option<Ident> {
        tokens.into_iter().find_map(|tree| match tree {
            proc_macro2::TokenTree::Ident(ident) if names.iter().any(|n| ident == n) => Some(ident),
            proc_macro2::TokenTree::Group(group) => walk(group.stream(), names),
            _ => None,
        })
    }
    walk(quote::ToTokens::to_token_stream(ty), names)
}

/// A lifetime other than `'static` written in `ty`: `Cow<'a, str>`.
fn borrowed_lifetime(ty: &Type) -> Option<syn::Lifetime> {
    fn walk(tokens: proc_macro2::TokenStream) -> Option<syn::Lifetime> {
        let mut trees = tokens.into_iter().peekable();
        while let Some(tree) = trees.next() {
            match tree {
                proc_macro2::TokenTree::Punct(p) if p.as_char() == '\'' => {
                    if let Some(proc_macro2::TokenTree::Ident(name)) = trees.peek()
                        && name != "static"
                    {
                        return syn::parse_str::<syn::Lifetime>(&format!("'{name}"))
                            .ok()
                            .map(|mut l| {
                                l.apostrophe = p.span();
                                l.ident.set_span(name.span());
                                l
                            });
                    }
                }
                proc_macro2::TokenTree::Group(group) => {
                    if let Some(found) = walk(group.stream()) {
                        return Some(found);
                    }
                }
                _ => {}
            }
        }
        None
    }
    walk(quote::ToTokens::to_token_stream(ty))
}

const RESOLVED_PARAMETER: &str = "a tool body never receives `Resolved<R>`: a resolved object is not yet authorized; take `Authorized<R>`, and toolgate resolves and then authorizes it";

/// Types a model sends, which are never a toolbox's state: `&String`,
/// `&Vec<T>`, `&u32` are model arguments written with a `&` too many.
fn is_model_data(ty: &Type) -> bool {
    const DATA: &[&str] = &[
        "String", "Vec", "Option", "HashMap", "BTreeMap", "HashSet", "BTreeSet", "VecDeque",
        "Value", "bool", "char",
    ];
    match ty {
        Type::Path(_) => last_ident_is(ty, DATA) || last_ident_is(ty, &NUMBERS),
        Type::Array(_) | Type::Tuple(_) => true,
        Type::Paren(inner) => is_model_data(&inner.elem),
        _ => false,
    }
}

/// Rust's primitive number types, by name.
pub(crate) const NUMBERS: [&str; 14] = [
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64",
];

/// Whether `ty` is a path (not `<T as Trait>::…`) whose last segment is
/// one of `names`: `ToolContext` and `toolgate::ToolContext` alike.
fn last_ident_is(ty: &Type, names: &[&str]) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none()
        && path.path.segments.last().is_some_and(|s| names.iter().any(|n| s.ident == n)))
}

/// Whether `name` is the last segment of `ty` or of a type inside it.
fn mentions(ty: &Type, name: &str) -> bool {
    last_ident_is(ty, &[name]) || inner_types(ty).any(|inner| mentions(inner, name))
}

/// The first reference inside an owned type: `&str` in `Option<&str>`.
fn borrowed_within(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(_) => Some(ty),
        _ => inner_types(ty).find_map(borrowed_within),
    }
}

/// The types written inside `ty`: generic arguments, items of arrays,
/// slices and tuples, what a reference borrows.
fn inner_types(ty: &Type) -> Box<dyn Iterator<Item = &Type> + '_> {
    match ty {
        Type::Path(path) if path.qself.is_none() => {
            Box::new(path.path.segments.iter().flat_map(|segment| {
                let args = match &segment.arguments {
                    syn::PathArguments::AngleBracketed(args) => Some(args.args.iter()),
                    _ => None,
                };
                args.into_iter().flatten().filter_map(|arg| match arg {
                    syn::GenericArgument::Type(inner) => Some(inner),
                    _ => None,
                })
            }))
        }
        Type::Array(array) => Box::new(core::iter::once(&*array.elem)),
        Type::Reference(reference) => Box::new(core::iter::once(&*reference.elem)),
        Type::Slice(slice) => Box::new(core::iter::once(&*slice.elem)),
        Type::Paren(paren) => Box::new(core::iter::once(&*paren.elem)),
        Type::Group(group) => Box::new(core::iter::once(&*group.elem)),
        Type::Tuple(tuple) => Box::new(tuple.elems.iter()),
        _ => Box::new(core::iter::empty()),
    }
}

/// A type as a user writes it: `Vec<u32>`, not `Vec < u32 >`.
fn plain_type(ty: &Type) -> String {
    let spaced = quote::ToTokens::to_token_stream(ty).to_string();
    let mut out = String::with_capacity(spaced.len());
    let mut chars = spaced.chars().peekable();
    while let Some(c) = chars.next() {
        let before = out.chars().last();
        let after = chars.peek().copied();
        let tight = before.is_some_and(|b| "<:[(&".contains(b))
            || after.is_some_and(|a| "<>:,;])".contains(a));
        if c != ' ' || !tight {
            out.push(c);
        }
    }
    out
}

enum Wrapper<'t> {
    Authorized { resource: &'t Type, optional: bool },
    Resolved,
}

/// `Authorized<R>`, `Option<Authorized<R>>`, or a `Resolved` in either place.
fn wrapper(ty: &Type) -> Option<Wrapper<'_>> {
    let (inner, optional) = match single_generic(ty, "Option") {
        Some(inner) => (inner, true),
        None => (ty, false),
    };
    if let Some(resource) = single_generic(inner, "Authorized") {
        return Some(Wrapper::Authorized { resource, optional });
    }
    single_generic(inner, "Resolved").map(|_| Wrapper::Resolved)
}

/// `T` in `Name<T>`, by the path's last segment.
fn single_generic<'t>(ty: &'t Type, name: &str) -> Option<&'t Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => {
            match args.args.first()? {
                syn::GenericArgument::Type(inner) => Some(inner),
                _ => None,
            }
        }
        _ => None,
    }
}

fn plain_name(pat: &Pat) -> Option<Ident> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
        _ => None,
    }
}

/// The text of `///` comments as a model should read it: lines of a
/// paragraph joined by spaces, paragraphs by a blank line.
pub(crate) fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| {
            text.lines()
                .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    let mut text = String::new();
    for line in lines.iter().map(|l| l.trim()) {
        if line.is_empty() {
            if !text.is_empty() && !text.ends_with("\n\n") {
                text.push_str("\n\n");
            }
        } else {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push(' ');
            }
            text.push_str(line);
        }
    }
    let text = text.trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// The span to blame for the function as a whole: its name.
pub(crate) fn fn_span(func: &ItemFn) -> Span {
    func.sig.ident.span()
}

/// `book_hotel` → `BookHotel`.
pub(crate) fn pascal(ident: &Ident) -> Ident {
    let name = syn::ext::IdentExt::unraw(ident).to_string();
    let mut out = String::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if out.is_empty() {
        out.push_str("Tool");
    }
    Ident::new(&out, ident.span())
}
