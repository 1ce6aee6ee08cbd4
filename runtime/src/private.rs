//! Support for the code `#[tool]` generates. Not a public API: names and
//! signatures here change without notice.

pub use garde;
pub use schemars;
pub use serde;
pub use serde_json;
pub use std::sync::OnceLock;

pub use crate::schema::described::{Bound, Field, Rule, described};
pub use crate::tool::{
    Admission, BoxFuture, Call, Finished, Finishing, IntoOutcome, Invocation, check, into_outcome,
};
pub use crate::wire::{Fields, fill, filled, missing};

use crate::{Effect, Outcome, ToolDef, schema};

/// Whether every call is watched whether or not a subscriber listens
/// (feature `metrics`): its future boxed with the watch. The allocation
/// tests allow for it.
pub const EVERY_CALL_WATCHED: bool = cfg!(feature = "metrics");

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
    /// Each field with a default (`#[serde(default)]`), by wire name, and
    /// its value as the schema states it.
    pub defaults: &'static [FieldDefault],
    /// The arguments that name resources.
    pub resources: &'static [crate::ResourceField],
    /// The argument struct's schema, as schemars writes it.
    pub schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    /// Reads a document as the argument struct, for the schema to state
    /// what each map's keys are (see [`read_keys`]).
    pub keys: fn(&str),
}

/// Reads `text` as `A` for the probe of map keys that states in the schema
/// what each map's keys are (`crate::register::keys::state_keys`): what matters is
/// what each key's type asks of the reader, not what is read.
pub fn read_keys<A: serde::de::DeserializeOwned>(text: &str) {
    crate::gate::structural::reader::read_keys(
        text,
        &mut crate::gate::structural::reader::Read::<A>(None),
    );
}

pub use crate::schema::FieldDefault;

/// A tool's definition, built from `meta` and the result's schema
/// (`output`, found by [`Output`]) on first use. The cell is each tool's
/// own; the rest is compiled once for every tool, not once for each: what
/// each tool's generated code holds of it is data (`meta` is a static)
/// and two function pointers.
pub fn definition(
    cell: &'static OnceLock<ToolDef>,
    meta: &'static Meta,
    output: fn() -> Option<serde_json::Value>,
) -> &'static ToolDef {
    cell.get_or_init(|| defined(meta, output()))
}

/// The definition of a tool described by `meta`, whose result has
/// `output_schema`.
fn defined(meta: &Meta, output_schema: Option<serde_json::Value>) -> ToolDef {
    let mut schema = schema::root(meta.schema);
    schema::state_defaults(&mut schema, meta.defaults);
    crate::register::keys::state_keys(&mut schema, meta.keys);
    let fingerprint = schema::fingerprint(&schema);
    let shape = crate::gate::structural::shape::Shape::new(&schema);
    let sets = crate::gate::accepted::declares_sets(&schema);
    ToolDef {
        sets,
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
        output_schema,
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

/// `Canon(&value).canonical()`: a parameter's value as its type
/// serializes it, for the arguments as the gates accepted them: the
/// inherent method when the type implements `Serialize`, the trait method
/// [`NotCanon`] (`None`: the value as sent stands in) otherwise.
pub struct Canon<'a, T>(pub &'a T);

impl<T: serde::Serialize> Canon<'_, T> {
    pub fn canonical(&self) -> Option<serde_json::Value> {
        serde_json::to_value(self.0).ok()
    }
}

pub trait NotCanon {
    fn canonical(&self) -> Option<serde_json::Value> {
        None
    }
}

impl<T> NotCanon for Canon<'_, T> {}

/// `#[tool(approval = …)]` is a `bool`: whether this call needs approval.
#[inline(always)]
pub fn approval_is_a_bool(needed: bool) -> bool {
    needed
}

/// `#[tool(approver = …)]` names the one actor who may approve: a string,
/// or an `Option` of one (`None`: anyone allowed may).
pub fn approver_is_named<A: Approver>(approver: A) -> Option<String> {
    approver.named()
}

#[diagnostic::on_unimplemented(
    message = "`approver` names the one actor who may approve: a string, or an `Option` of one, not `{Self}`",
    label = "not a string or an `Option` of one",
    note = "`approver = \"alice\"`, or an expression over the parameters such as `approver = order.owner()`; `None` lets anyone allowed approve"
)]
pub trait Approver {
    fn named(self) -> Option<String>;
}

impl<A: AsRef<str>> Approver for Option<A> {
    fn named(self) -> Option<String> {
        self.map(|a| a.as_ref().to_owned())
    }
}

impl Approver for &str {
    fn named(self) -> Option<String> {
        Some(self.to_owned())
    }
}

impl Approver for String {
    fn named(self) -> Option<String> {
        Some(self)
    }
}

impl Approver for &String {
    fn named(self) -> Option<String> {
        Some(self.clone())
    }
}

/// A model argument's type must be readable from the model's JSON.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a model argument: the model's JSON cannot be read into it",
    label = "this parameter's type does not implement `serde::Deserialize`",
    note = "derive `serde::Deserialize` and `schemars::JsonSchema` for `{Self}`, or take a type that implements them; state the tool uses, which the model does not send, is taken by reference: `&{Self}`",
    note = "the derives need `serde = {{ version = \"1\", features = [\"derive\"] }}` and `schemars = \"1\"` under `[dependencies]` in Cargo.toml"
)]
pub trait ReadableArgument {}
#[diagnostic::do_not_recommend]
impl<T: serde::de::DeserializeOwned> ReadableArgument for T {}

/// A model argument's type must have a schema to show the model.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a model argument: it has no JSON Schema to show the model",
    label = "this parameter's type does not implement `schemars::JsonSchema`",
    note = "derive `schemars::JsonSchema` for `{Self}`, or take a type that implements it",
    note = "the derive needs `schemars = \"1\"` under `[dependencies]` in Cargo.toml"
)]
pub trait DescribedArgument {}
#[diagnostic::do_not_recommend]
impl<T: schemars::JsonSchema> DescribedArgument for T {}

/// Emitted once per model parameter, spanned on its type.
pub fn model_argument_must_be_readable<T: ReadableArgument>() {}

/// `SchemaProbe::<T>::new().model_argument_must_have_a_schema()`, once per
/// model parameter, spanned on its type. When `T` is readable, the
/// inherent method asks for a schema; when it is not, the trait method
/// [`Unreadable`] stands in, so that a type with neither is reported once,
/// by [`model_argument_must_be_readable`].
pub struct SchemaProbe<T>(core::marker::PhantomData<fn() -> T>);

impl<T> SchemaProbe<T> {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        SchemaProbe(core::marker::PhantomData)
    }
}

impl<T: serde::de::DeserializeOwned> SchemaProbe<T> {
    pub fn model_argument_must_have_a_schema(&self)
    where
        T: DescribedArgument,
    {
    }
}

pub trait Unreadable {
    fn model_argument_must_have_a_schema(&self) {}
}

impl<T> Unreadable for SchemaProbe<T> {}

/// The generated argument struct reads the model's JSON, and describes
/// itself, through a twin generic over its fields' types
/// (`__BookHotelWire<A0, A1, …>`), so that its generated `Deserialize` and
/// `JsonSchema` never name a user's type: a type that cannot be read or
/// described is reported once, by the probes above, not again inside
/// that code.
/// `Twin::<W>::new()`'s inherent methods do the work when `W` has the
/// traits; the trait methods of [`NoTwin`] stand in otherwise, in a crate
/// that does not compile.
pub struct Twin<W>(core::marker::PhantomData<fn() -> W>);

impl<W> Twin<W> {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Twin(core::marker::PhantomData)
    }
}

impl<W: serde::de::DeserializeOwned> Twin<W> {
    #[inline(always)]
    pub fn read<'de, D: serde::Deserializer<'de>>(&self, deserializer: D) -> Result<W, D::Error> {
        W::deserialize(deserializer)
    }
}

impl<W: schemars::JsonSchema> Twin<W> {
    pub fn schema_name(&self) -> std::borrow::Cow<'static, str> {
        W::schema_name()
    }

    pub fn schema_id(&self) -> std::borrow::Cow<'static, str> {
        W::schema_id()
    }

    pub fn json_schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        W::json_schema(generator)
    }
}

const NO_TWIN: &str = "a model argument's type lacks `Deserialize` or `JsonSchema`, which #[tool] reports at compile time";

pub trait NoTwin<W> {
    fn read<'de, D: serde::Deserializer<'de>>(&self, _deserializer: D) -> Result<W, D::Error> {
        unreachable!("{NO_TWIN}")
    }

    fn schema_name(&self) -> std::borrow::Cow<'static, str> {
        unreachable!("{NO_TWIN}")
    }

    fn schema_id(&self) -> std::borrow::Cow<'static, str> {
        unreachable!("{NO_TWIN}")
    }

    fn json_schema(&self, _generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        unreachable!("{NO_TWIN}")
    }
}

impl<W> NoTwin<W> for Twin<W> {}

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

/// Passes on a tool's call future, which runs on state `S`, to be boxed.
/// A state that is not shareable is refused once, by
/// [`state_must_be_shareable`]; for such a state the stand-in
/// [`Unshareable::wrap`] is chosen instead, whose future is `Send`, so
/// that the call's future not being `Send` (it holds the state) is not a
/// second error. With a shareable state the future itself is boxed, and
/// refused there if its body holds something that is not `Send`.
pub struct Boxing<S: ?Sized>(core::marker::PhantomData<fn() -> *const S>);

impl<S: ?Sized> Boxing<S> {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Boxing(core::marker::PhantomData)
    }
}

impl<S: ?Sized + SharedState> Boxing<S> {
    #[inline(always)]
    pub fn wrap<F>(&self, future: F) -> F {
        future
    }
}

impl<S: Send + Sync + 'static> Boxing<S> {
    /// The call of a tool that names no resource and whose body is a plain
    /// function, once its generated code has read its arguments: run at
    /// once, and boxed only if gate 6 waits on its store (see
    /// [`crate::tool::start`]).
    #[inline(always)]
    pub fn call<'a, B>(
        &self,
        invocation: Invocation<'a, S>,
        approval: Option<bool>,
        approver: Option<String>,
        body: B,
    ) -> Call<'a>
    where
        B: FnOnce() -> Outcome + Send + 'a,
    {
        crate::tool::start(invocation, approval, approver, &mut Some(body))
    }

    /// The call of a tool that names no resource and whose body is async,
    /// once its generated code has read its arguments: `body` is the
    /// body's future, boxed and not yet polled, which gate 6 lets run or
    /// not (see [`crate::tool::drive`]). Boxed where the tool is written,
    /// so that a body that is not `Send` is refused there.
    #[inline(always)]
    pub fn call_async<'a>(
        &self,
        invocation: Invocation<'a, S>,
        approval: Option<bool>,
        approver: Option<String>,
        body: BoxFuture<'a, Outcome>,
    ) -> Call<'a> {
        Call::Later(Box::pin(crate::tool::drive(
            invocation, approval, approver, body,
        )))
    }
}

/// [`Boxing`]'s stand-in for a state that is not shareable: never called,
/// since a crate that would call it does not compile.
pub trait Unshareable<S: ?Sized> {
    fn wrap<F>(&self, _future: F) -> core::future::Pending<crate::Outcome> {
        unreachable!("the state must be Send + Sync + 'static, which the crate was refused for")
    }

    fn call<'a, B>(
        &self,
        _: Invocation<'a, S>,
        _: Option<bool>,
        _: Option<String>,
        _: B,
    ) -> Call<'a>
    where
        S: Sized,
    {
        unreachable!("the state must be Send + Sync + 'static, which the crate was refused for")
    }

    fn call_async<'a, F>(
        &self,
        _: Invocation<'a, S>,
        _: Option<bool>,
        _: Option<String>,
        _: F,
    ) -> Call<'a>
    where
        S: Sized,
    {
        unreachable!("the state must be Send + Sync + 'static, which the crate was refused for")
    }
}

impl<S: ?Sized> Unshareable<S> for Boxing<S> {}

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

/// What a generated argument struct requires of a resource's reference
/// type: what `Resource::Ref` promises. The struct takes each reference as
/// a type parameter whose default is `<R as Resource<S>>::Ref`, so that
/// when `R` is not a resource, the one place that names the default
/// reports it, and the derived code (generic over the parameter) adds
/// nothing.
pub trait WireRef:
    serde::de::DeserializeOwned
    + schemars::JsonSchema
    + garde::Validate<Context = ()>
    + core::fmt::Debug
    + Send
    + Sync
    + 'static
{
}

impl<T> WireRef for T where
    T: serde::de::DeserializeOwned
        + schemars::JsonSchema
        + garde::Validate<Context = ()>
        + core::fmt::Debug
        + Send
        + Sync
        + 'static
{
}

/// `Authorizing::<T, R, S>::new().authorize(…)`: gates 4 and 5 for a
/// resource parameter. The inherent method runs them when `R` is a
/// resource of `S`; when it is not, the trait method [`NotAResourceOf`]
/// stands in, so that the mistake is reported once (where the argument
/// struct names `R::Ref`), not again at every use. The stand-in never runs:
/// a crate with that mistake does not compile.
pub struct Authorizing<T, R, S>(Marker<(T, R, S)>);

/// A type named only at compile time: no value, no auto-trait cost.
type Marker<T> = core::marker::PhantomData<fn() -> T>;

impl<T, R, S> Authorizing<T, R, S> {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Authorizing(core::marker::PhantomData)
    }
}

impl<T, R: crate::Resource<S>, S> Authorizing<T, R, S> {
    pub fn authorize<'f, 'a>(
        &self,
        invocation: &'f mut Invocation<'a, S>,
        field: &'static str,
        reference: &'f R::Ref,
    ) -> BoxFuture<'f, Result<crate::Authorized<R, T>, crate::Outcome>>
    where
        T: crate::ToolInfo,
        R: crate::Authorize<T, S>,
        S: Sync,
    {
        invocation.authorize::<T, R>(field, reference)
    }
}

pub trait NotAResourceOf<T, R> {
    fn authorize<'f, S, X>(
        &self,
        _invocation: &'f mut Invocation<'_, S>,
        _field: &'static str,
        _reference: &'f X,
    ) -> BoxFuture<'f, Result<crate::Authorized<R, T>, crate::Outcome>>
    where
        R: 'f,
        T: 'f,
    {
        Box::pin(async { Err(crate::Outcome::Rejected(crate::Rejection::not_permitted())) })
    }
}

impl<T, R, S> NotAResourceOf<T, R> for Authorizing<T, R, S> {}

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
    fn schema(&self) -> fn() -> Option<serde_json::Value> {
        no_output
    }
}

impl<T> NoOutputSchema for Output<T> {}

impl<T: schemars::JsonSchema> Output<T> {
    /// How the result's schema is made: a function, called when the
    /// definition is first built.
    pub fn schema(&self) -> fn() -> Option<serde_json::Value> {
        schema::output::<T>
    }
}

/// The schema of a result that states none.
pub fn no_output() -> Option<serde_json::Value> {
    None
}

/// The generated argument struct's trait, which gate 3 runs.
pub use crate::gate::semantic::Arguments;

/// `#[garde(custom(rule))]` on a model argument: `rule` is a function of
/// the value (or what it dereferences to, `&str` for a `String`) and
/// garde's context, `()`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a custom rule for a `{T}`",
    label = "a custom rule is a function `fn(value: &{T}, context: &()) -> garde::Result`",
    note = "write `fn rule(value: &{T}, _: &()) -> garde::Result` (for a `String`, `value: &str` works too), and return `Err(garde::Error::new(\"…\"))` to refuse"
)]
pub trait CustomRule<T: ?Sized, M> {
    fn check(&self, value: &T) -> garde::Result;
}

/// The rule takes the value's own type.
pub enum Itself {}

/// The rule takes what the value dereferences to.
pub enum Dereferenced {}

impl<T: ?Sized, F: Fn(&T, &()) -> garde::Result> CustomRule<T, Itself> for F {
    fn check(&self, value: &T) -> garde::Result {
        self(value, &())
    }
}

impl<T: ?Sized + core::ops::Deref, F: Fn(&T::Target, &()) -> garde::Result>
    CustomRule<T, Dereferenced> for F
{
    fn check(&self, value: &T) -> garde::Result {
        self(value, &())
    }
}

pub fn custom_rule<T: ?Sized, M, F: CustomRule<T, M>>(rule: &F, value: &T) -> garde::Result {
    rule.check(value)
}

/// `#[garde(dive)]` on a model argument: its type must have rules to dive
/// into. The rules run whether or not the field says `dive`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no garde rules to dive into",
    label = "`dive` needs a type that derives `garde::Validate`",
    note = "derive `garde::Validate` on the type (its rules then run whether or not the field says `dive`), or remove `dive`"
)]
pub trait Dives {}

impl<T: garde::Validate<Context = ()> + ?Sized> Dives for T {}

pub fn dives<T: Dives + ?Sized>() {}

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

/// A definition with `schema` and nothing else, for the runtime's own
/// unit tests.
#[cfg(test)]
pub(crate) fn definition_for_tests(schema: serde_json::Value) -> ToolDef {
    static META: Meta = Meta {
        name: "test",
        version: 1,
        description: "A test.",
        scope: None,
        effect: Effect::Write,
        renames: &[],
        business_fields: &[],
        approver_scope: None,
        timeout_ms: None,
        defaults: &[],
        resources: &[],
        schema: |_| schemars::Schema::default(),
        keys: |_| {},
    };
    let mut def = defined(&META, None);
    def.sets = crate::gate::accepted::declares_sets(&schema);
    def.schema = schema;
    def
}
