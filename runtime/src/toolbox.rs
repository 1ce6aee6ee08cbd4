//! The registry of tools and the entry point of every call (gates 0 and 1).

use std::collections::BTreeMap;
use std::fmt;

use crate::audit::{self, Gate};
use crate::outcome::Failure;
use crate::tool::Invocation;
use crate::{
    Arguments, Code, Limits, Outcome, Rejection, StoredCall, Tool, ToolContext, ToolDef, bounded,
    panic,
};

/// The tools a server offers, with the application state they share.
///
/// Every call goes through [`call`](Self::call):
///
/// 0. admission: the tool is registered, in the request's allow-list, and the
///    caller holds its scope; otherwise one flat `NOT_PERMITTED`;
/// 1. the bounded parse ([`Limits`]);
/// 2. serde into the tool's closed argument struct;
/// 3. the argument rules;
/// 4. the function body, with the context and state injected.
///
/// A panic after gate 1 (in a rule, a resolver, a policy, a check or the
/// body) does not unwind out of `call`: the call ends in the same
/// `Outcome::Failed` as an internal error, and the panic's message goes to the
/// audit log under the request id. The toolbox stays usable.
///
/// ```
/// use toolgate::{tool, ToolContext, ToolError, Toolbox};
///
/// struct App;
///
/// /// Say hello to someone.
/// #[tool(effect = read)]
/// fn greet(_app: &App, #[garde(length(min = 1, max = 20))] name: String) -> Result<String, ToolError> {
///     Ok(format!("Hello, {name}!"))
/// }
///
/// let mut toolbox = Toolbox::new(App);
/// toolbox.register(Greet).unwrap();
///
/// let ctx = ToolContext::new("user_1", "tenant_a", "req_1").allow_tools(["greet"]);
/// let outcome = futures_lite_block_on(toolbox.call(&ctx, "greet", r#"{"name":"Ada"}"#));
/// assert_eq!(outcome.value(), Some(&serde_json::json!("Hello, Ada!")));
/// # fn futures_lite_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     let waker = std::task::Waker::noop();
/// #     let mut cx = std::task::Context::from_waker(&waker);
/// #     let mut f = std::pin::pin!(f);
/// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
/// # }
/// ```
pub struct Toolbox<S> {
    state: S,
    limits: Limits,
    tools: BTreeMap<&'static str, Entry<S>>,
}

struct Entry<S> {
    tool: Box<dyn Tool<S>>,
    limits: Option<Limits>,
}

/// A tool could not be registered.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegisterError {
    /// Another tool already has this name.
    DuplicateName(&'static str),
    /// A field inside a nested argument type is named like trusted context
    /// (`tenant_id`, `actorId`, …), which the model must never choose. The
    /// macro refuses such names on the function's own parameters; this is
    /// the same rule for the types they contain.
    TrustedName {
        /// The tool.
        tool: &'static str,
        /// The field's name, as the schema publishes it.
        field: String,
        /// Where in the tool's schema it is (a JSON Pointer).
        at: String,
    },
    /// A string's `length` rule in a nested type counts bytes, while the
    /// schema's `maxLength` (and every validator and provider) counts
    /// characters: the nested type needs `length(chars, …)`.
    LengthInBytes {
        /// The tool.
        tool: &'static str,
        /// The string, as a JSON Pointer into the arguments.
        at: String,
    },
    /// A map in a nested type has a size rule (garde's `length` on a map
    /// counts its entries) that the schema does not state: schemars states
    /// `length` for strings and arrays only.
    MapSizeNotInSchema {
        /// The tool.
        tool: &'static str,
        /// The map, as a JSON Pointer into the arguments.
        at: String,
    },
    /// A map in a nested type has keys whose type parses them (`IpAddr`,
    /// `Uuid`, a date, a type with its own `Deserialize`): two spellings
    /// of one key, which gate 1 lets through as two keys, would become one
    /// entry, the last. `#[tool]` refuses such keys on a tool's own
    /// parameters; this is the same rule for the types they contain.
    ParsedMapKey {
        /// The tool.
        tool: &'static str,
        /// The map, as a JSON Pointer into the arguments.
        at: String,
        /// What the key type asks serde for (`deserialize_str`, …).
        reads: &'static str,
    },
    /// A pattern in the tool's schema means one thing to the server's regex
    /// and another to JSON Schema validators (ECMA-262): an unescaped `.`,
    /// `\d`, `\w`, `\s`, `\b`, an inline flag, …. `#[tool]` rewrites the
    /// pattern literals on a tool's own parameters; this is the same rule for
    /// the patterns of the types they contain, and for patterns given as
    /// expressions.
    Pattern {
        /// The tool.
        tool: &'static str,
        /// The pattern, as the schema publishes it.
        pattern: String,
        /// Where in the tool's schema it is (a JSON Pointer).
        at: String,
        /// What to write instead, and why.
        fix: String,
    },
}

impl fmt::Display for RegisterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterError::DuplicateName(name) => {
                write!(
                    f,
                    "a tool named `{name}` is already registered in this toolbox"
                )
            }
            RegisterError::MapSizeNotInSchema { tool, at } => write!(
                f,
                "tool `{tool}`: the map at `{at}` has a size rule the schema does not state; state it on the field with `#[schemars(extend(\"minProperties\" = …, \"maxProperties\" = …))]`"
            ),
            RegisterError::ParsedMapKey { tool, at, reads } => write!(
                f,
                "tool `{tool}`: the keys of the map at `{at}` are parsed (their type calls serde's `{reads}`), so two spellings of one key (`::1` and `0:0:0:0:0:0:0:1`) would become one entry, the last; key the map by `String` and parse in the body, or by an integer or an enum of unit variants"
            ),
            RegisterError::LengthInBytes { tool, at } => write!(
                f,
                "tool `{tool}`: the length rule of the string at `{at}` counts bytes, while the schema's maxLength counts characters; write `#[garde(length(chars, max = …))]` in its type"
            ),
            RegisterError::TrustedName { tool, field, at } => write!(
                f,
                "tool `{tool}`: the field `{field}` (schema {at}) names trusted context, which the model must never choose; read it from `ToolContext`, or if it is the tool's own business data, say so with `#[tool(business_fields = [\"{field}\"])]`"
            ),
            RegisterError::Pattern {
                tool,
                pattern,
                at,
                fix,
            } => write!(
                f,
                "tool `{tool}`: the pattern `{pattern}` (schema {at}) means one thing to the server's regex and another to JSON Schema validators (ECMA-262); {fix}"
            ),
        }
    }
}

impl std::error::Error for RegisterError {}

impl<S: Send + Sync + 'static> Toolbox<S> {
    /// An empty toolbox around the application state, with default limits.
    pub fn new(state: S) -> Self {
        Toolbox {
            state,
            limits: Limits::DEFAULT,
            tools: BTreeMap::new(),
        }
    }

    /// Sets the limits for every tool without its own.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Adds a tool. A second tool with the same name is an error, never a
    /// silent replacement.
    pub fn register<T: Tool<S>>(&mut self, tool: T) -> Result<&mut Self, RegisterError> {
        self.insert(Box::new(tool), None)
    }

    /// Adds a tool with its own limits.
    pub fn register_with_limits<T: Tool<S>>(
        &mut self,
        tool: T,
        limits: Limits,
    ) -> Result<&mut Self, RegisterError> {
        self.insert(Box::new(tool), Some(limits))
    }

    fn insert(
        &mut self,
        tool: Box<dyn Tool<S>>,
        limits: Option<Limits>,
    ) -> Result<&mut Self, RegisterError> {
        let def = tool.definition();
        let name = def.name();
        if let Some((field, at)) = crate::schema::trusted_name(def.schema(), def.business_fields) {
            return Err(RegisterError::TrustedName {
                tool: name,
                field,
                at,
            });
        }
        crate::pattern::check(name, def.schema())?;
        if let Some(found) = crate::lengths::instance(def.schema())
            .and_then(|instance| tool.__parsed_key(&instance))
        {
            return Err(RegisterError::ParsedMapKey {
                tool: name,
                at: found.at,
                reads: found.reads,
            });
        }
        match crate::lengths::unstated(&*tool) {
            Some(crate::lengths::Unstated::Bytes(at)) => {
                return Err(RegisterError::LengthInBytes { tool: name, at });
            }
            Some(crate::lengths::Unstated::MapSize(at)) => {
                return Err(RegisterError::MapSizeNotInSchema { tool: name, at });
            }
            None => {}
        }
        if self.tools.contains_key(name) {
            return Err(RegisterError::DuplicateName(name));
        }
        self.tools.insert(name, Entry { tool, limits });
        Ok(self)
    }

    /// The application state.
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The definition of a registered tool.
    pub fn definition(&self, name: &str) -> Option<&'static ToolDef> {
        self.tools.get(name).map(|e| e.tool.definition())
    }

    /// The definitions `ctx` may call, by name: what to show the model for
    /// this request.
    pub fn definitions_for<'a>(
        &'a self,
        ctx: &'a ToolContext,
    ) -> impl Iterator<Item = &'static ToolDef> + 'a {
        self.tools
            .values()
            .map(|e| e.tool.definition())
            .filter(|def| Self::permits(ctx, def).is_ok())
    }

    /// Runs one call: `name` and its argument JSON as the model sent them.
    pub async fn call<'a>(
        &'a self,
        ctx: &'a ToolContext,
        name: &str,
        arguments: impl Into<Arguments<'a>>,
    ) -> Outcome {
        let arguments = arguments.into();
        match self.admit(ctx, name) {
            Ok(entry) => self.run(ctx, entry, arguments.as_bytes()).await,
            Err(rejection) => Outcome::Rejected(rejection),
        }
    }

    /// Runs a call kept from earlier. It is admitted as if new, and refused
    /// with `VERSION_MISMATCH` unless the registered tool has the version and
    /// schema fingerprint the call was made for.
    pub async fn call_stored(&self, ctx: &ToolContext, call: &StoredCall) -> Outcome {
        let entry = match self.admit(ctx, &call.tool) {
            Ok(entry) => entry,
            Err(rejection) => return Outcome::Rejected(rejection),
        };
        let def = entry.tool.definition();
        if call.version != def.version() || call.fingerprint != def.fingerprint() {
            let rejection = Rejection::new(
                Code::VersionMismatch,
                format!(
                    "this call was made for another version of {}; the current one is version {}. Make the call again.",
                    def.name(),
                    def.version()
                ),
            );
            audit::rejected(ctx, def.name(), Gate::Version, &rejection);
            return Outcome::Rejected(rejection);
        }
        self.run(ctx, entry, call.arguments.get().as_bytes()).await
    }

    /// Gate 0: one answer for every reason, the reason in the audit log.
    fn admit(&self, ctx: &ToolContext, name: &str) -> Result<&Entry<S>, Rejection> {
        let reason = match self.tools.get(name) {
            None => "no tool has this name",
            Some(entry) => match Self::permits(ctx, entry.tool.definition()) {
                Ok(()) => return Ok(entry),
                Err(reason) => reason,
            },
        };
        audit::denied(ctx, name, Gate::Admission, reason);
        Err(Rejection::not_permitted())
    }

    fn permits(ctx: &ToolContext, def: &ToolDef) -> Result<(), &'static str> {
        if !ctx.allows_tool(def.name()) {
            return Err("the tool is not in this request's allow-list");
        }
        match def.scope() {
            Some(scope) if !ctx.has_scope(scope) => {
                Err("the caller does not hold the tool's scope")
            }
            _ => Ok(()),
        }
    }

    /// Gates 1–3 for `name`, without admission, resources or the body: what
    /// the published schema promises, as the server decides it. For tests
    /// (`toolgate::testing`); `None` if no tool has the name.
    #[cfg(feature = "testing")]
    pub(crate) fn check_arguments(
        &self,
        name: &str,
        bytes: &[u8],
    ) -> Option<Result<(), Rejection>> {
        let entry = self.tools.get(name)?;
        let limits = entry.limits.unwrap_or(self.limits);
        Some(bounded::scan(bytes, &limits).and_then(|raw| entry.tool.__check(raw)))
    }

    async fn run(&self, ctx: &ToolContext, entry: &Entry<S>, bytes: &[u8]) -> Outcome {
        let def = entry.tool.definition();
        let limits = entry.limits.unwrap_or(self.limits);
        let raw = match bounded::scan(bytes, &limits) {
            Ok(raw) => raw,
            Err(rejection) => {
                audit::rejected(ctx, def.name(), Gate::BoundedParse, &rejection);
                return Outcome::Rejected(rejection);
            }
        };
        let invocation = Invocation {
            ctx,
            state: &self.state,
            raw,
            def,
        };
        match panic::contain(|| entry.tool.__call(invocation)).await {
            Ok(outcome) => outcome,
            Err(panic) => {
                audit::panicked(ctx, def.name(), panic.message());
                Outcome::Failed(Failure::new(ctx.request_id()))
            }
        }
    }
}

impl<S> fmt::Debug for Toolbox<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("limits", &self.limits)
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}
