//! Support for the code `#[tool]` generates. Not a public API: names and
//! signatures here change without notice.

pub use garde;
pub use schemars;
pub use serde;
pub use serde_json;
pub use std::sync::OnceLock;

pub use crate::keys::{ParsedKey, parsed_key};
pub use crate::tool::{BoxFuture, IntoOutcome, Invocation, check, into_outcome};

use crate::{Effect, ToolDef, schema};

/// The parts of a definition the macro knows at compile time.
pub struct Meta {
    pub name: &'static str,
    pub version: u32,
    pub description: &'static str,
    pub scope: Option<&'static str>,
    pub effect: Effect,
    pub renames: &'static [(&'static str, &'static str)],
    pub business_fields: &'static [&'static str],
    pub approver_scope: Option<&'static str>,
    /// `#[tool(timeout_ms = …)]`, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// The result's schema, found by [`Output`].
    pub output_schema: Option<serde_json::Value>,
    /// Each field with a default (`#[serde(default)]`), by wire name, and
    /// its value as the schema states it.
    pub defaults: &'static [FieldDefault],
    /// The arguments that name resources.
    pub resources: &'static [crate::ResourceField],
}

/// A field's wire name, and its default as the schema states it.
pub type FieldDefault = (&'static str, fn() -> Option<serde_json::Value>);

/// Builds a tool's definition from its argument type.
pub fn define<A: schemars::JsonSchema>(meta: Meta) -> ToolDef {
    let mut schema = schema::canonical::<A>();
    schema::state_defaults(&mut schema, meta.defaults);
    let fingerprint = schema::fingerprint(&schema);
    let shape = crate::shape::Shape::new(&schema);
    ToolDef {
        shape,
        business_fields: meta.business_fields,
        approver_scope: meta.approver_scope,
        timeout: meta.timeout_ms.map(core::time::Duration::from_millis),
        name: meta.name,
        version: meta.version,
        description: schema::described(meta.description, &schema),
        written: meta.description.len(),
        notes: true,
        scope: meta.scope,
        effect: meta.effect,
        schema,
        fingerprint,
        renames: meta.renames,
        output_schema: meta.output_schema,
        resources: meta.resources,
    }
}

/// A parameter's default as its schema states it.
#[diagnostic::on_unimplemented(
    message = "the tool's schema states the default of this parameter, so `{Self}` must implement `serde::Serialize`",
    label = "the default of a `{Self}` parameter",
    note = "derive `serde::Serialize` for `{Self}`, or drop `#[serde(default)]` and take an `Option`"
)]
pub trait StatedDefault {
    /// The value as JSON; `None` if it does not serialize.
    fn stated(&self) -> Option<serde_json::Value>;
}

impl<T: serde::Serialize> StatedDefault for T {
    fn stated(&self) -> Option<serde_json::Value> {
        serde_json::to_value(self).ok()
    }
}

/// `#[serde(default)]`'s value, for the schema.
pub fn default_value<T: StatedDefault>(value: T) -> Option<serde_json::Value> {
    value.stated()
}

/// `#[tool(approval = …)]` is a `bool`: whether this call needs approval.
#[inline(always)]
pub fn approval_is_a_bool(needed: bool) -> bool {
    needed
}

/// `#[tool(approver = …)]` names the one actor who may approve: an
/// `Option` of a string.
pub fn approver_is_named<A: AsRef<str>>(approver: Option<A>) -> Option<String> {
    approver.map(|a| a.as_ref().to_owned())
}

/// A model argument's type must be readable from the model's JSON.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a model argument: the model's JSON cannot be read into it",
    label = "this parameter's type does not implement `serde::Deserialize`",
    note = "derive `serde::Deserialize` for `{Self}`, or take a type that implements it"
)]
pub trait ReadableArgument {}
impl<T: serde::de::DeserializeOwned> ReadableArgument for T {}

/// A model argument's type must have a schema to show the model.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a model argument: it has no JSON Schema to show the model",
    label = "this parameter's type does not implement `schemars::JsonSchema`",
    note = "derive `schemars::JsonSchema` for `{Self}`, or take a type that implements it"
)]
pub trait DescribedArgument {}
impl<T: schemars::JsonSchema> DescribedArgument for T {}

/// Emitted once per model parameter, spanned on its type.
pub fn model_argument_must_be_readable<T: ReadableArgument>() {}

/// Emitted once per model parameter, spanned on its type.
pub fn model_argument_must_have_a_schema<T: DescribedArgument>() {}

/// The state is shared by concurrent calls.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a toolbox's state: calls share it across threads",
    label = "this state type is not `Send + Sync + 'static`",
    note = "wrap what is not thread-safe in a `Mutex` or an `Arc`"
)]
pub trait SharedState {}
impl<T: ?Sized + Send + Sync + 'static> SharedState for T {}

/// Emitted for the state parameter, spanned on its type.
pub fn state_must_be_shareable<T: ?Sized + SharedState>() {}

/// Calls `model_argument_is_not_a_resource` on a probe: the trait method
/// (fine) unless the type is a resource, when the inherent method wins and
/// its bound fails with the message below.
pub struct Probe<T: ?Sized, S>(core::marker::PhantomData<(*const T, S)>);

impl<T: ?Sized, S> Probe<T, S> {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Probe(core::marker::PhantomData)
    }
}

pub trait NotAResource {
    fn model_argument_is_not_a_resource(&self) {}
}

impl<T: ?Sized, S> NotAResource for Probe<T, S> {}

impl<T: crate::Resource<S>, S> Probe<T, S> {
    pub fn model_argument_is_not_a_resource(&self)
    where
        T: ForgotAuthorized,
    {
    }
}

/// Never implemented: its only use is the message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a resource: take `Authorized<{Self}>`, so the server resolves and authorizes it",
    label = "the model would send a whole `{Self}` instead of a reference to one",
    note = "a resource parameter is written `name: Authorized<{Self}>`; the model then sends `{Self}::Ref`"
)]
pub trait ForgotAuthorized {}

/// `Output::<T>::new().schema()`: the inherent method (a schema) when `T`
/// implements `JsonSchema`, the trait method (`None`) otherwise.
pub struct Output<T>(core::marker::PhantomData<T>);

impl<T> Output<T> {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Output(core::marker::PhantomData)
    }
}

pub trait NoOutputSchema {
    fn schema(&self) -> Option<serde_json::Value> {
        None
    }
}

impl<T> NoOutputSchema for Output<T> {}

impl<T: schemars::JsonSchema> Output<T> {
    pub fn schema(&self) -> Option<serde_json::Value> {
        schema::output::<T>()
    }
}

/// The generated argument struct: its garde rules, and the rules of every
/// model argument whose type has rules of its own, which gate 3 runs
/// whether or not the parameter says `#[garde(dive)]`.
pub trait Arguments: serde::de::DeserializeOwned + garde::Validate<Context = ()> {
    /// Validates the nested types of the fields that do not dive.
    fn validate_nested(&self, report: &mut garde::Report);
}

/// `Nested(&field).validate_into(…)`: the inherent method (the type's own
/// rules) when the field's type implements `garde::Validate`, the trait
/// method (nothing to check) otherwise. `Option`, `Vec`, maps, arrays,
/// boxes and tuples of a validated type implement it through garde.
pub struct Nested<'a, T>(pub &'a T);

pub trait NotNested {
    fn validate_into(&self, _field: &'static str, _report: &mut garde::Report) {}
}

impl<T> NotNested for Nested<'_, T> {}

impl<T: garde::Validate<Context = ()>> Nested<'_, T> {
    pub fn validate_into(&self, field: &'static str, report: &mut garde::Report) {
        self.0
            .validate_into(&(), &mut || garde::Path::new(field), report);
    }
}
