//! The registry of tools and the entry point of every call (gates 0 and 1).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::gate::effect::Effects;

use crate::audit::{self, Gate};
use crate::gate::bounded::Reading;
use crate::outcome::Failure;
use crate::telemetry::{Content, Watch};
use crate::tool::{Call, Invocation};
use crate::{
    Approval, ApprovalState, Arguments, Clock, Code, Decided, Decision, EffectPolicy, EffectStore,
    Limits, Outcome, Rejection, StoreError, StoredCall, Tool, ToolContext, ToolDef, Withdrawn,
    gate::bounded, gate::panic,
};

/// The tools a server offers, with the application state they share.
///
/// Every call goes through [`call`](Self::call), and through the gates in
/// the order of [the crate's table](crate).
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
    effects: Effects,
    /// Whether the definitions shown state toolgate's notes
    /// ([`Toolbox::without_notes`]).
    notes: bool,
    /// What each call's span records of its arguments and result
    /// ([`Toolbox::with_traced_arguments`], [`Toolbox::with_traced_results`]).
    content: Content,
}

struct Entry<S> {
    tool: Box<dyn Tool<S>>,
    /// The tool's definition, as [`Tool::definition`] gives it: kept, so
    /// that a call does not ask for it again.
    def: &'static ToolDef,
    limits: Option<Limits>,
    /// The definition as shown, where it differs from the tool's own.
    shown: Option<Box<ToolDef>>,
    /// How each call is read: in one pass (without the schema where the
    /// shape says so, see `Shape::reads_flat`), or checked against the
    /// schema's bounds before serde reads it, where the schema states a
    /// bound registration could not try.
    reading: Reading,
}

impl<S: 'static> Entry<S> {
    fn shown(&self) -> &ToolDef {
        self.shown.as_deref().unwrap_or(self.def)
    }
}

/// Why an approval could not be decided.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApprovalError {
    /// No approval has this id in the approver's tenant.
    NotFound,
    /// The approval expired before the decision.
    Expired,
    /// The approval was already approved, denied, used or withdrawn.
    AlreadyDecided,
    /// The approved call ran already: it cannot be withdrawn.
    AlreadyUsed,
    /// The approver lacks the scope the tool requires of approvers.
    MissingScope(String),
    /// The approver made the call, and the policy requires someone else.
    OwnCall,
    /// The call names the one actor who may approve it, and this is
    /// someone else.
    NotTheNamedApprover(String),
    /// The store failed; the text is for the host's logs.
    Store(String),
}

impl fmt::Display for ApprovalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApprovalError::NotFound => f.write_str("no such approval in this tenant"),
            ApprovalError::Expired => f.write_str("the approval expired"),
            ApprovalError::AlreadyDecided => f.write_str("the approval was already decided"),
            ApprovalError::AlreadyUsed => f.write_str("the approved call ran already"),
            ApprovalError::MissingScope(scope) => {
                write!(f, "the approver does not hold the scope `{scope}`")
            }
            ApprovalError::OwnCall => {
                f.write_str("the approver made the call, and may not approve it")
            }
            ApprovalError::NotTheNamedApprover(named) => {
                write!(f, "only `{named}`, whom the call names, may decide on it")
            }
            ApprovalError::Store(error) => write!(f, "the effect store failed: {error}"),
        }
    }
}

impl std::error::Error for ApprovalError {}

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
    /// Also (`reads` is `deserialize_enum`, `deserialize_char` or
    /// `deserialize_bool`) a key type whose keys the schema cannot state,
    /// and which refuses keys the schema accepts: an enum whose variants
    /// carry doc comments and aliases, or a type of its own over a `char`
    /// or a `bool` that takes fewer keys than they do.
    ParsedMapKey {
        /// The tool.
        tool: &'static str,
        /// The map, as a JSON Pointer into the arguments.
        at: String,
        /// What the key type asks serde for (`deserialize_str`, …).
        reads: &'static str,
    },
    /// A 128-bit integer (`i128`, `u128`) sits where serde reads it from a
    /// buffer: inside an internally tagged or untagged enum, or a
    /// `#[serde(flatten)]` struct. serde's buffer holds integers of 64 bits
    /// at most, so it refuses every value there, `0` included, while the
    /// schema accepts them: every call that reaches it would be refused.
    WideIntegerBuffered {
        /// The tool.
        tool: &'static str,
        /// Where serde refused, as a JSON Pointer into the arguments: the
        /// buffered enum or struct.
        at: String,
    },
    /// A map whose key type is not a string (an integer, a `bool`, a
    /// `char`, an enum) sits where serde reads it from a buffer: inside an
    /// internally tagged or untagged enum, or a `#[serde(flatten)]` struct
    /// (or flattened itself), or an adjacently tagged enum whose content
    /// comes before its tag. serde hands the key type each key as buffered
    /// text, which an integer or a `bool` refuses whatever it says, and
    /// which registration cannot read the key type through to state its
    /// keys in the schema: the schema accepts keys the server refuses.
    MapKeyBuffered {
        /// The tool.
        tool: &'static str,
        /// The map, as a JSON Pointer into the arguments.
        at: String,
    },
    /// The tool's type refuses as an unknown field a member that the schema
    /// accepts, in an instance the schema accepts whole: every call that
    /// sends it would be refused. serde does this to an internally tagged
    /// or untagged enum flattened (`#[serde(flatten)]`) into a
    /// `#[serde(deny_unknown_fields)]` struct.
    MemberRefused {
        /// The tool.
        tool: &'static str,
        /// The member refused, as a JSON Pointer into the arguments: its
        /// object's, where its name is not one a refusal shows.
        at: String,
    },
    /// The schema states a bound (`maxLength`, `minLength`, `pattern`,
    /// `maximum`, `minimum`, their exclusive forms, `multipleOf`,
    /// `maxItems`, `minItems`, `maxProperties`, `minProperties`,
    /// `unevaluatedProperties: false`, `not` naming a value, or the
    /// lengths of a map's keys under `propertyNames`)
    /// that nothing enforces: the tool accepts a value past it, so the
    /// server would accept calls the published schema refuses. A keyword
    /// that `#[schemars(…)]` or a hand-written `JsonSchema` adds without a
    /// garde rule does this; state the bound as a garde rule in the type.
    UnenforcedBound {
        /// The tool.
        tool: &'static str,
        /// The keyword the schema states.
        keyword: &'static str,
        /// The value it bounds, as a JSON Pointer into the arguments.
        at: String,
    },
    /// The schema states a keyword that the gates do not read and that
    /// says something where it stands: `if` with `then` or `else`,
    /// `dependentRequired`, `dependentSchemas`, `dependencies`,
    /// `propertyNames` other than the lengths of keys (`minLength`,
    /// `maxLength`), `contains`, `unevaluatedItems`, `$dynamicRef`,
    /// `$recursiveRef`, `items` as a list (draft 7's tuples; the gates
    /// read `prefixItems`), `not` other than `{"const": …}` (or an `enum`
    /// of one value) of a scalar, which is tried, as a bound is, and a
    /// `$ref` the gates cannot follow (an `$anchor`, an `$id`, another
    /// document: they follow `#/…` pointers into the tool's schema). No
    /// derive writes them; `#[schemars(extend(…))]` or a hand-written
    /// schema can, and the server would then accept calls the published
    /// schema refuses. State the rule as a garde rule in the type instead.
    UnreadKeyword {
        /// The tool.
        tool: &'static str,
        /// The keyword.
        keyword: &'static str,
        /// Where the schema states it: a JSON Pointer into the tool's
        /// schema, to the subschema that holds the keyword.
        at: String,
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
            RegisterError::ParsedMapKey { tool, at, reads } if *reads == "deserialize_enum" => {
                write!(
                    f,
                    "tool `{tool}`: the keys of the map at `{at}` are the names of an enum that the schema does not list (its variants carry doc comments, and some have aliases: two names of one variant would be one entry), so the schema accepts keys the server refuses; give the enum's variants no aliases, or key the map by `String` and parse in the body"
                )
            }
            RegisterError::ParsedMapKey { tool, at, reads }
                if matches!(*reads, "deserialize_char" | "deserialize_bool") =>
            {
                let ty = reads.trim_start_matches("deserialize_");
                write!(
                    f,
                    "tool `{tool}`: the keys of the map at `{at}` are read by a type of its own over `{ty}` that refuses keys a `{ty}` takes, which the schema cannot state, so the schema accepts keys the server refuses; key the map by `{ty}` itself, or by `String` and check the key in the body"
                )
            }
            RegisterError::ParsedMapKey { tool, at, reads } => write!(
                f,
                "tool `{tool}`: the keys of the map at `{at}` are parsed (their type calls serde's `{reads}`), so two spellings of one key (`::1` and `0:0:0:0:0:0:0:1`) would become one entry, the last; key the map by `String` and parse in the body, or by an integer or an enum of unit variants"
            ),
            RegisterError::WideIntegerBuffered { tool, at } => write!(
                f,
                "tool `{tool}`: a 128-bit integer inside the value at `{at}` is read from serde's buffer (an internally tagged or untagged enum, or a `#[serde(flatten)]` struct), which cannot hold one, so serde refuses every value the schema accepts there; use `i64` or `u64`, a string parsed in the body, or an externally tagged enum"
            ),
            RegisterError::MapKeyBuffered { tool, at } => write!(
                f,
                "tool `{tool}`: the map at `{at}` is read from serde's buffer (it is inside an internally tagged or untagged enum, or a `#[serde(flatten)]` struct), where its key type is handed each key as buffered text: an integer or a `bool` refuses every key there, and no key type there can be stated in the schema, which accepts keys the server refuses; key the map by `String` and parse the key in the body, or make the enum externally tagged (or the struct a field of its own, not flattened)"
            ),
            RegisterError::MemberRefused { tool, at } => write!(
                f,
                "tool `{tool}`: the tool's type refuses as an unknown field a member the schema accepts (at `{at}`), so every call that sends it would be refused; serde does this to an internally tagged or untagged enum flattened into a `#[serde(deny_unknown_fields)]` struct: make the enum a field of its own rather than flattened"
            ),
            RegisterError::UnenforcedBound { tool, keyword, at }
                if *keyword == "unevaluatedProperties" =>
            {
                write!(
                    f,
                    "tool `{tool}`: the schema states `unevaluatedProperties: false` for the object at `{at}`, but the tool accepts a member no subschema there lists: nothing enforces it; close the type with `#[serde(deny_unknown_fields)]`, or leave it out of the schema"
                )
            }
            RegisterError::UnenforcedBound { tool, keyword, at } if *keyword == "propertyNames" => {
                write!(
                    f,
                    "tool `{tool}`: the schema states `propertyNames` for the keys of the map at `{at}`, but the tool accepts a key of a length past it: nothing enforces it; key the map by a type that reads no other keys (`char` for one character), state it as a garde rule on the map (`custom(…)`), or leave it out of the schema"
                )
            }
            RegisterError::UnenforcedBound { tool, keyword, at }
                if matches!(*keyword, "maxProperties" | "minProperties") =>
            {
                write!(
                    f,
                    "tool `{tool}`: the schema states `{keyword}` for the object at `{at}`, but the tool accepts an object with a member too many or too few: nothing enforces it; on a map, state it as a garde rule (`length(…)`); on a struct, close it with `#[serde(deny_unknown_fields)]` or state it as a `custom(…)` rule; or leave it out of the schema"
                )
            }
            RegisterError::UnenforcedBound { tool, keyword, at } => write!(
                f,
                "tool `{tool}`: the schema states `{keyword}` for the value at `{at}`, but the tool accepts {past}: nothing enforces it; state it as a garde rule in its type (`{rule}`), or leave it out of the schema",
                past = match *keyword {
                    "not" => "the value it names",
                    _ => "a value past it",
                },
                rule = crate::schema::keywords::find(keyword)
                    .and_then(|keyword| keyword.bound)
                    .unwrap_or(crate::schema::keywords::Garde::Custom)
                    .rule()
            ),
            RegisterError::UnreadKeyword { tool, keyword, at } if *keyword == "$ref" => write!(
                f,
                "tool `{tool}`: the `$ref` at `{at}` (in the tool's schema) names a place toolgate's gates cannot follow (they follow `#/…` pointers into the tool's own schema), so the server may accept calls the published schema refuses; point it into the schema's `$defs`"
            ),
            RegisterError::UnreadKeyword { tool, keyword, at }
                if crate::schema::keywords::counts().any(|count| count == *keyword) =>
            {
                write!(
                    f,
                    "tool `{tool}`: the schema states `{keyword}` at `{at}` (in the tool's schema) as other than a whole number, which toolgate's gates do not read, so the server may accept calls the published schema refuses; write it as a whole number (`3`, not `3.0`)"
                )
            }
            RegisterError::UnreadKeyword { tool, keyword, at } => write!(
                f,
                "tool `{tool}`: the schema states `{keyword}` at `{at}` (in the tool's schema), which toolgate's gates do not read, so the server may accept calls the published schema refuses; state the rule as a garde rule in the type (`custom(…)`) and leave the keyword out of the schema"
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
            effects: Effects::default(),
            notes: true,
            content: Content::default(),
        }
    }

    /// Records each call's arguments, as the model sent them, on the
    /// call's span (`gen_ai.tool.call.arguments`); off by default. The
    /// OpenTelemetry conventions mark arguments as sensitive: turn this on
    /// where the trace backend may hold what users and models send. A
    /// value is cut at 4,096 characters, and its line breaks and control
    /// characters cannot break a line of a text log.
    ///
    /// Every call has a span, `execute_tool {tool}`, at the `INFO` level
    /// with the target `toolgate`; nothing is recorded unless the host
    /// installs a `tracing` subscriber that takes it.
    ///
    /// ```
    /// use toolgate::Toolbox;
    ///
    /// let toolbox = Toolbox::new(()).with_traced_arguments(true).with_traced_results(true);
    /// # let _ = toolbox;
    /// ```
    #[must_use]
    pub fn with_traced_arguments(mut self, traced: bool) -> Self {
        self.content.arguments = traced;
        self
    }

    /// Records each completed call's result on the call's span
    /// (`gen_ai.tool.call.result`), as the model reads it; off by default,
    /// and bounded as [`with_traced_arguments`](Self::with_traced_arguments)
    /// bounds arguments. A refusal or failure is recorded as its code
    /// (`error.type`) whatever this says.
    ///
    /// ```
    /// use toolgate::Toolbox;
    ///
    /// let toolbox = Toolbox::new(()).with_traced_results(true);
    /// # let _ = toolbox;
    /// ```
    #[must_use]
    pub fn with_traced_results(mut self, traced: bool) -> Self {
        self.content.results = traced;
        self
    }

    /// Shows every definition without toolgate's notes
    /// ([`ToolDef::without_notes`]): descriptions as the tools wrote them,
    /// and exports that do not state in the fields' descriptions what a
    /// dialect dropped. The gates enforce the same rules either way.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use toolgate::{tool, ToolError, Toolbox};
    ///
    /// /// Count the nights booked per room number.
    /// #[tool(effect = read)]
    /// fn count(rooms: BTreeMap<u16, u32>) -> Result<u32, ToolError> {
    ///     Ok(rooms.values().sum())
    /// }
    ///
    /// let mut toolbox = Toolbox::new(()).without_notes();
    /// toolbox.register(Count).unwrap();
    /// let def = toolbox.definition("count").unwrap();
    /// assert_eq!(def.description(), "Count the nights booked per room number.");
    /// assert!(!def.has_notes());
    /// ```
    #[must_use]
    pub fn without_notes(mut self) -> Self {
        self.notes = false;
        for entry in self.tools.values_mut() {
            entry.shown = Some(Box::new(entry.def.without_notes()));
        }
        self
    }

    /// Sets gate 6's policy: which effect classes need approval, how long
    /// approvals and idempotency records last, who may approve.
    #[must_use]
    pub fn with_effect_policy(mut self, policy: EffectPolicy) -> Self {
        self.effects.policy = policy;
        self
    }

    /// Sets where gate 6 keeps approvals and idempotency records (default:
    /// a [`MemoryStore`](crate::MemoryStore), lost on restart and not shared between servers).
    #[must_use]
    pub fn with_effect_store(mut self, store: impl EffectStore) -> Self {
        self.effects.store = Arc::new(store);
        self
    }

    /// Hands gate 6's store every outcome it failed to record, trying
    /// again until `within` has passed. Call it when the server stops
    /// gracefully, after the last call has answered.
    ///
    /// A body that ran while the store was down (or locked past its
    /// deadline) keeps its outcome in this toolbox: a repeat here replays
    /// it, and later calls hand it to the store. A process that ends with
    /// such an outcome loses it: another server would run the body again
    /// once the key's lease runs out. Each outcome still unrecorded when
    /// the flush gives up (or when the toolbox is dropped unflushed) is in
    /// the audit log with its key (`outcome unrecorded at shutdown`).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let toolbox = toolgate::Toolbox::new(());
    /// // … serve calls; then, on SIGTERM:
    /// if let Err(error) = toolbox.flush(Duration::from_secs(10)).await {
    ///     eprintln!("{error}: see the audit log");
    /// }
    /// # });
    /// ```
    pub async fn flush(&self, within: Duration) -> Result<(), crate::FlushError> {
        self.effects
            .unrecorded
            .flush(&*self.effects.store, within)
            .await
    }

    /// Sets gate 5's policy for the calls that authorize no object: a tool
    /// without resources, or a call that leaves out an optional one. Such
    /// a call runs only if `policy` allows it; see [`CallPolicy`](crate::CallPolicy).
    #[must_use]
    pub fn with_call_policy(mut self, policy: impl crate::CallPolicy) -> Self {
        self.effects.call_policy = Some(Arc::new(policy));
        self
    }

    /// Calls `hook` with each approval gate 6 creates, so that the host
    /// can tell someone it waits for them (a message to the approvers'
    /// channel, a mail); not for an approval shown again to a repeat of
    /// the same call.
    ///
    /// The hook cannot change what happens to the call: it runs on a
    /// thread of its own after the approval was saved and the call has
    /// its answer, and is given the approval to read. A hook that panics
    /// is logged (`approval hook failed`) and called again for the next
    /// approval; a slow one delays no call, only the notices queued
    /// behind it, and past 1,024 of those a new one is dropped and logged.
    /// Hand the approval to your own queue or task if notifying takes a
    /// while. A second hook replaces the first.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use toolgate::{ToolContext, Toolbox, tool, ToolError};
    ///
    /// /// Close a customer's account.
    /// #[tool(effect = irreversible, approver_scope = "accounts:approve")]
    /// fn close_account(#[garde(pattern(r"^acct_[0-9]{1,8}$"))] account: String) -> Result<String, ToolError> {
    ///     Ok(format!("closed {account}"))
    /// }
    /// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
    /// #     let waker = std::task::Waker::noop();
    /// #     let mut cx = std::task::Context::from_waker(&waker);
    /// #     let mut f = std::pin::pin!(f);
    /// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// # }
    /// let (notices, waiting) = mpsc::channel();
    /// let mut toolbox = Toolbox::new(()).on_approval(move |approval| {
    ///     let _ = notices.send(format!("{} waits for {:?}", approval.id, approval.approver_scope));
    /// });
    /// toolbox.register(CloseAccount)?;
    /// let agent = ToolContext::new("agent_1", "tenant_a", "req_1").allow_all_tools();
    /// block_on(toolbox.call(&agent, "close_account", r#"{"account":"acct_7"}"#));
    /// let notice = waiting.recv()?;
    /// assert!(notice.ends_with(r#"waits for Some("accounts:approve")"#));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn on_approval(mut self, hook: impl Fn(&Approval) + Send + 'static) -> Self {
        self.effects.notifier = Some(crate::gate::effect::Notifier::start(Box::new(hook)));
        self
    }

    /// Sets the clock gate 6 reads (default: the system clock).
    #[must_use]
    pub fn with_clock(mut self, clock: impl Clock) -> Self {
        self.effects.clock = Arc::new(clock);
        self
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
        if let Some((keyword, at)) = crate::schema::unread_keyword(def.schema()) {
            return Err(RegisterError::UnreadKeyword {
                tool: name,
                keyword,
                at,
            });
        }
        // Each pattern is compiled once for all of registration's checks.
        let mut compiled = crate::register::pattern::Compiled::default();
        crate::register::pattern::check(name, def.schema(), &mut compiled)?;
        // The simplest instance of the schema, for the checks that need it.
        let instance = crate::register::instance::instance(def.schema());
        let key_parse = |text: &str| {
            crate::gate::structural::reader::probing_keys(|| {
                crate::register::proven::accepts(&*tool, text);
            })
        };
        if let Some(found) =
            (instance.as_ref()).and_then(|i| crate::register::keys::parsed_key(i, &key_parse))
        {
            return Err(RegisterError::ParsedMapKey {
                tool: name,
                at: found.at,
                reads: found.reads,
            });
        }
        if let Some(at) = crate::register::buffered::buffered_wide(&*tool) {
            return Err(RegisterError::WideIntegerBuffered { tool: name, at });
        }
        if let Some(at) = crate::register::buffered::buffered_key(&*tool) {
            return Err(RegisterError::MapKeyBuffered { tool: name, at });
        }
        if let Some(at) = crate::register::buffered::refused_member(&*tool) {
            return Err(RegisterError::MemberRefused { tool: name, at });
        }
        match crate::register::lengths::unstated(&*tool) {
            Some(crate::register::lengths::Unstated::Bytes(at)) => {
                return Err(RegisterError::LengthInBytes { tool: name, at });
            }
            Some(crate::register::lengths::Unstated::MapSize(at)) => {
                return Err(RegisterError::MapSizeNotInSchema { tool: name, at });
            }
            None => {}
        }
        let reading = match crate::register::unenforced::unenforced(&*tool, &mut compiled) {
            Ok(tried) if !tried.all => Reading::BoundsFirst,
            Ok(_) => {
                let accepts = |text: &str| crate::register::proven::accepts(&*tool, text);
                if crate::register::proven::holds(def, instance, &accepts) {
                    def.shape.prove_flat();
                }
                Reading::OnePass
            }
            Err(found) => {
                return Err(RegisterError::UnenforcedBound {
                    tool: name,
                    keyword: found.keyword,
                    at: found.at,
                });
            }
        };
        if self.tools.contains_key(name) {
            return Err(RegisterError::DuplicateName(name));
        }
        let shown = (!self.notes).then(|| Box::new(def.without_notes()));
        self.tools.insert(
            name,
            Entry {
                def,
                tool,
                limits,
                shown,
                reading,
            },
        );
        Ok(self)
    }

    /// The application state.
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The definition of a registered tool, as the toolbox shows it.
    pub fn definition(&self, name: &str) -> Option<&ToolDef> {
        self.tools.get(name).map(Entry::shown)
    }

    /// The widest limits any registered tool accepts: each bound is the
    /// largest of the toolbox's own and every tool's. A transport that
    /// reads whole messages before the toolbox sees them bounds them by
    /// these, so that no call a tool would accept is refused earlier.
    pub fn limits(&self) -> Limits {
        self.tools
            .values()
            .filter_map(|e| e.limits)
            .fold(self.limits, |wide, tool| {
                wide.max_bytes(wide.bytes().max(tool.bytes()))
                    .max_depth(wide.depth().max(tool.depth()))
                    .max_nodes(wide.nodes().max(tool.nodes()))
                    .max_string_bytes(wide.string_bytes().max(tool.string_bytes()))
            })
    }

    /// The definition of every registered tool, by name, as the toolbox
    /// shows it.
    pub fn definitions(&self) -> impl Iterator<Item = &ToolDef> + '_ {
        self.tools.values().map(Entry::shown)
    }

    /// The definitions `ctx` may call, by name: what to show the model for
    /// this request.
    pub fn definitions_for<'s, 'c>(
        &'s self,
        ctx: &'c ToolContext,
    ) -> impl Iterator<Item = &'s ToolDef> + use<'s, 'c, S> {
        self.tools
            .values()
            .map(Entry::shown)
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
        let (bytes, text) = (arguments.as_bytes(), arguments.as_text());
        if crate::telemetry::quiet() {
            // Nothing watches: the call runs as it would without a span.
            return self.dispatch(ctx, name, bytes, text, None).await;
        }
        self.watched(ctx, name, bytes, text, None).await
    }

    /// [`dispatch`](Self::dispatch) inside the call's span, for a host whose
    /// subscriber may take it (or with the metrics): boxed, so that the
    /// span and what it notes do not size every call's future.
    fn watched<'a>(
        &'a self,
        ctx: &'a ToolContext,
        name: &'a str,
        bytes: &'a [u8],
        text: Option<&'a str>,
        stored: Option<&'a StoredCall>,
    ) -> crate::BoxFuture<'a, Outcome> {
        Box::pin(async move {
            let tool = || self.tools.get_key_value(name).map(|(tool, _)| *tool);
            let dispatch = self.dispatch(ctx, name, bytes, text, stored);
            match Watch::call(ctx, name, tool, bytes, self.content) {
                // The subscriber does not take the span after all.
                None => dispatch.await,
                Some(watch) => watch.watch(dispatch).await,
            }
        })
    }

    /// Every gate of a call made by the model, live or stored: admission,
    /// the stored call's pin to its contract, the rate limit, gates 1–7,
    /// then the retry budget.
    async fn dispatch(
        &self,
        ctx: &ToolContext,
        name: &str,
        bytes: &[u8],
        text: Option<&str>,
        stored: Option<&StoredCall>,
    ) -> Outcome {
        let started = AtomicBool::new(false);
        let outcome = match self.admit(ctx, name) {
            Ok(entry) => {
                let pin = match stored {
                    Some(call) => pinned(ctx, entry.def, call.version, &call.fingerprint, "made"),
                    None => Ok(()),
                };
                // The store is asked only if the policy limits the tool.
                let limited = match (&pin, self.effects.policy.rate_of(name)) {
                    (Ok(()), Some(rate)) => self.rate_limited(ctx, name, rate).await,
                    _ => None,
                };
                match (pin, limited) {
                    (Err(refused), _) => refused,
                    (Ok(()), Some(rejection)) => Outcome::Rejected(rejection),
                    // A call that ends at once is not driven as a future.
                    (Ok(()), None) => match self.start(ctx, entry, bytes, text, None, &started) {
                        Call::Done(Some(outcome)) => outcome,
                        Call::Done(None) => crate::tool::ran_before(ctx, entry.def),
                        call => Self::rest(ctx, entry, call).await,
                    },
                }
            }
            Err(rejection) => Outcome::Rejected(rejection),
        };
        if !self.effects.unrecorded.is_empty() {
            // A body stopped by a panic left its outcome here: the store
            // takes it now, so that no other process reads IN_PROGRESS.
            if let Err(error) = self.effects.unrecorded.retry(&*self.effects.store).await {
                audit::store_failed(ctx, name, &error);
            }
        }
        // Only a rejection in a conversation counts against a budget.
        let (Outcome::Rejected(rejection), Some(session)) = (&outcome, ctx.session_id()) else {
            return outcome;
        };
        let exhausted = self.budget(ctx, session, name, bytes, rejection).await;
        match exhausted {
            // No budget replaces the outcome of a body that started: it
            // may have taken effect, and the model must read what it did.
            Some(exhausted) if !started.load(Ordering::Relaxed) => exhausted,
            _ => outcome,
        }
    }

    /// Gate 6's rate limit: a token for this actor and tool, at `rate` (the
    /// policy's calls per period for it). A store failure lets the call
    /// through (the limit protects capacity, not correctness) and is
    /// logged.
    async fn rate_limited(
        &self,
        ctx: &ToolContext,
        name: &str,
        (calls, period): (u32, Duration),
    ) -> Option<Rejection> {
        let key = crate::gate::effect::digest(&["rate", ctx.tenant(), ctx.actor(), name]);
        let now = self.effects.clock.now();
        match self.effects.store.take(&key, calls, period, now).await {
            Ok(None) => None,
            Ok(Some(wait)) => {
                let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                let rejection = Rejection::new(
                    Code::RateLimited,
                    format!("too many calls of {name}; try again in {seconds} seconds"),
                );
                audit::rejected(ctx, name, Gate::Effect, &rejection);
                Some(rejection)
            }
            Err(error) => {
                audit::store_failed(ctx, name, &error);
                None
            }
        }
    }

    /// Gate 6's retry budgets, for `rejection` in conversation `session`
    /// (`ToolContext::with_session`): it counts against the budget of the
    /// same call (tool and bytes) and the conversation's total; past
    /// either, the model reads `RETRY_BUDGET_EXHAUSTED` (the outcome
    /// returned), which tells it to stop. Only rejections touch the store.
    async fn budget(
        &self,
        ctx: &ToolContext,
        session: &str,
        name: &str,
        bytes: &[u8],
        rejection: &Rejection,
    ) -> Option<Outcome> {
        // Waiting, a lost race or a store failure is not the model's mistake.
        if matches!(
            rejection.code(),
            Code::InProgress
                | Code::RateLimited
                | Code::Stale
                | Code::Unavailable
                | Code::ApprovalPending
        ) {
            return None;
        }
        let store = &*self.effects.store;
        let now = self.effects.clock.now();
        let window = self.effects.policy.retain;
        let text = String::from_utf8_lossy(bytes);
        // Each actor's budget is their own, also in a shared conversation.
        let (tenant, actor) = (ctx.tenant(), ctx.actor());
        let same = crate::gate::effect::digest(&["retry", tenant, actor, session, name, &text]);
        let all = crate::gate::effect::digest(&["retries", tenant, actor, session]);
        let policy = &self.effects.policy;
        let (retries, total) = (policy.retry_budget, policy.conversation_budget);
        let counted = async {
            Ok::<_, StoreError>((
                store.count(&same, now, window).await?,
                store.count(&all, now, window).await?,
            ))
        };
        match counted.await {
            Ok((same, all)) if same > retries || all > total => {
                let reason = if same > retries {
                    "the same rejected call, past its retry budget"
                } else {
                    "the conversation's rejections, past their budget"
                };
                audit::denied(ctx, name, Gate::Effect, reason);
                Some(Outcome::Rejected(Rejection::new(
                    Code::RetryBudgetExhausted,
                    "This call was refused too often in this conversation. Stop retrying it and tell the user what went wrong.",
                )))
            }
            Ok(_) => None,
            Err(error) => {
                audit::store_failed(ctx, name, &error);
                None
            }
        }
    }

    /// Runs a call kept from earlier. It passes every gate a live call
    /// passes (admission, the rate limit, gates 1–7, the retry budget),
    /// and is refused with `VERSION_MISMATCH` unless the registered tool
    /// has the version and schema fingerprint the call was made for.
    pub async fn call_stored(&self, ctx: &ToolContext, call: &StoredCall) -> Outcome {
        let text = call.arguments.get();
        if crate::telemetry::quiet() {
            return self
                .dispatch(ctx, &call.tool, text.as_bytes(), Some(text), Some(call))
                .await;
        }
        self.watched(ctx, &call.tool, text.as_bytes(), Some(text), Some(call))
            .await
    }

    /// The approval with this id, for the host to show a person: `None`
    /// unless it exists in `ctx`'s tenant.
    pub async fn approval(
        &self,
        ctx: &ToolContext,
        approval_id: &str,
    ) -> Result<Option<Approval>, StoreError> {
        Ok(self
            .effects
            .store
            .approval(approval_id)
            .await?
            .filter(|a| a.tenant == ctx.tenant()))
    }

    /// Records that `approver` approves the pending call `approval_id`.
    /// The approver must be in the call's tenant, hold the tool's
    /// `approver_scope` if it has one, and be someone other than the actor
    /// if the policy says so ([`EffectPolicy::distinct_approver`]).
    /// [`resume`](Self::resume) then runs the call.
    pub async fn approve(
        &self,
        approver: &ToolContext,
        approval_id: &str,
    ) -> Result<(), ApprovalError> {
        self.decide(approver, approval_id, true).await
    }

    /// Records that `approver` denies the pending call `approval_id`; a
    /// resume is then refused with `APPROVAL_DENIED`. The approver must
    /// qualify as for [`approve`](Self::approve).
    pub async fn deny(
        &self,
        approver: &ToolContext,
        approval_id: &str,
    ) -> Result<(), ApprovalError> {
        self.decide(approver, approval_id, false).await
    }

    async fn decide(
        &self,
        approver: &ToolContext,
        approval_id: &str,
        approve: bool,
    ) -> Result<(), ApprovalError> {
        let store = &*self.effects.store;
        let verb = if approve {
            "approval_granted"
        } else {
            "approval_denied"
        };
        // The tool is named in the refusal whenever the approval was
        // found (in any tenant: the audit log is the server's own).
        let refuse = |tool: &str, error: ApprovalError| {
            audit::denied(
                approver,
                tool,
                Gate::Effect,
                &format!("{verb} refused: {error}"),
            );
            Err(error)
        };
        let approval = match store.approval(approval_id).await {
            Ok(Some(approval)) => approval,
            Ok(None) => return refuse("", ApprovalError::NotFound),
            Err(error) => return refuse("", ApprovalError::Store(audit::chain_of(&error))),
        };
        if let Err(error) = crate::rules::may_decide(&approval, approver) {
            return refuse(&approval.tool, error);
        }
        let by = approver.actor().to_owned();
        let decision = if approve {
            Decision::Approve(by)
        } else {
            Decision::Deny(by)
        };
        let tool = approval.tool.as_str();
        match store
            .decide(approval_id, decision, self.effects.clock.now())
            .await
        {
            Ok(Decided::Done) => {
                audit::effect(approver, tool, verb, approval_id);
                Ok(())
            }
            Ok(Decided::Unknown) => refuse(tool, ApprovalError::NotFound),
            Ok(Decided::Expired) => refuse(tool, ApprovalError::Expired),
            Ok(Decided::AlreadyDecided) => refuse(tool, ApprovalError::AlreadyDecided),
            Err(error) => refuse(tool, ApprovalError::Store(audit::chain_of(&error))),
        }
    }

    /// Withdraws the approval `approval_id`, pending or approved and not
    /// yet run, so that it can no longer be decided or resumed: a resume
    /// reads `APPROVAL_DENIED` ("withdrawn"), and a repeat of the call asks
    /// for a new approval.
    ///
    /// Two people may withdraw it: the actor who asked (their call, which
    /// they no longer want), and anyone who may decide it
    /// ([`rules::may_decide`](crate::rules::may_decide): an approver who
    /// granted it by mistake takes it back before it runs). Withdrawing
    /// only ever stops a call, so it needs no more than either. Anyone
    /// else, and anyone of another tenant, is refused as for an approval
    /// that does not exist; the reason goes to the audit log. Once the
    /// approved call ran, it is [`ApprovalError::AlreadyUsed`].
    ///
    /// ```
    /// use toolgate::{ApprovalError, ApprovalState, ToolContext, Toolbox, tool, ToolError};
    ///
    /// /// Close a customer's account.
    /// #[tool(effect = irreversible, approver_scope = "accounts:approve")]
    /// fn close_account(#[garde(pattern(r"^acct_[0-9]{1,8}$"))] account: String) -> Result<String, ToolError> {
    ///     Ok(format!("closed {account}"))
    /// }
    /// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
    /// #     let waker = std::task::Waker::noop();
    /// #     let mut cx = std::task::Context::from_waker(&waker);
    /// #     let mut f = std::pin::pin!(f);
    /// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// # }
    /// let mut toolbox = Toolbox::new(());
    /// toolbox.register(CloseAccount)?;
    /// let agent = ToolContext::new("agent_1", "tenant_a", "req_1").allow_all_tools();
    /// let held = block_on(toolbox.call(&agent, "close_account", r#"{"account":"acct_7"}"#));
    /// let id = held.approval().unwrap().id.clone();
    ///
    /// // Someone of the tenant who neither asked nor may decide: refused.
    /// let bystander = ToolContext::new("clerk_2", "tenant_a", "req_2");
    /// assert!(block_on(toolbox.withdraw(&bystander, &id)).is_err());
    /// // The agent who asked takes it back; it never runs.
    /// block_on(toolbox.withdraw(&agent, &id))?;
    /// let manager = ToolContext::new("manager_1", "tenant_a", "req_3").with_scopes(["accounts:approve"]);
    /// assert_eq!(block_on(toolbox.approve(&manager, &id)), Err(ApprovalError::AlreadyDecided));
    /// assert!(block_on(toolbox.resume(&agent, &id)).rejection().is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn withdraw(
        &self,
        who: &ToolContext,
        approval_id: &str,
    ) -> Result<(), ApprovalError> {
        let store = &*self.effects.store;
        let refuse = |tool: &str, error: ApprovalError| {
            audit::denied(
                who,
                tool,
                Gate::Effect,
                &format!("approval_withdrawn refused: {error}"),
            );
            Err(error)
        };
        let approval = match store.approval(approval_id).await {
            Ok(Some(approval)) => approval,
            Ok(None) => return refuse("", ApprovalError::NotFound),
            Err(error) => return refuse("", ApprovalError::Store(audit::chain_of(&error))),
        };
        let asked = approval.tenant == who.tenant() && approval.actor == who.actor();
        if !asked && let Err(error) = crate::rules::may_decide(&approval, who) {
            return refuse(&approval.tool, error);
        }
        let tool = approval.tool.as_str();
        let now = self.effects.clock.now();
        match store
            .withdraw(approval_id, who.actor().to_owned(), now)
            .await
        {
            Ok(Withdrawn::Done) => {
                audit::effect(who, tool, "approval_withdrawn", approval_id);
                Ok(())
            }
            Ok(Withdrawn::Unknown) => refuse(tool, ApprovalError::NotFound),
            Ok(Withdrawn::Expired) => refuse(tool, ApprovalError::Expired),
            Ok(Withdrawn::Used) => refuse(tool, ApprovalError::AlreadyUsed),
            Ok(Withdrawn::Closed) => refuse(tool, ApprovalError::AlreadyDecided),
            Err(error) => refuse(tool, ApprovalError::Store(audit::chain_of(&error))),
        }
    }

    /// The approvals `approver` may decide now, oldest first, at most
    /// `limit`: pending and unexpired, in their tenant, with the tool's
    /// approver scope held, not asked by them where the policy wants
    /// another approver, and naming them where a call names its one
    /// approver ([`rules::may_decide`](crate::rules::may_decide)). Each is
    /// the whole [`Approval`]: its preview (the arguments as the body
    /// will receive them, each resolved object's summary), the tool, who
    /// asked, when, until when, and the request and call ids.
    ///
    /// The store may be shared with other toolboxes: every approval in it
    /// that the approver may decide is listed, whichever toolbox asked.
    ///
    /// ```
    /// use toolgate::{ToolContext, Toolbox, tool, ToolError};
    ///
    /// /// Close a customer's account.
    /// #[tool(effect = irreversible, approver_scope = "accounts:approve")]
    /// fn close_account(#[garde(pattern(r"^acct_[0-9]{1,8}$"))] account: String) -> Result<String, ToolError> {
    ///     Ok(format!("closed {account}"))
    /// }
    /// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
    /// #     let waker = std::task::Waker::noop();
    /// #     let mut cx = std::task::Context::from_waker(&waker);
    /// #     let mut f = std::pin::pin!(f);
    /// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// # }
    /// let mut toolbox = Toolbox::new(());
    /// toolbox.register(CloseAccount)?;
    /// let agent = ToolContext::new("agent_1", "tenant_a", "req_1").allow_all_tools();
    /// block_on(toolbox.call(&agent, "close_account", r#"{"account":"acct_7"}"#));
    ///
    /// let manager = ToolContext::new("manager_1", "tenant_a", "req_2").with_scopes(["accounts:approve"]);
    /// let waiting = block_on(toolbox.pending_approvals(&manager, 50))?;
    /// assert_eq!(waiting.len(), 1);
    /// assert_eq!(waiting[0].arguments["account"], "acct_7");
    /// // Without the approver's scope, nothing is theirs to decide.
    /// let clerk = ToolContext::new("clerk_2", "tenant_a", "req_3");
    /// assert!(block_on(toolbox.pending_approvals(&clerk, 50))?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub async fn pending_approvals(
        &self,
        approver: &ToolContext,
        limit: usize,
    ) -> Result<Vec<Approval>, StoreError> {
        let now = self.effects.clock.now();
        self.effects
            .store
            .pending_approvals(approver, now, limit)
            .await
    }

    /// Runs an approved call: the call `approval_id` stands for, made by
    /// `ctx`'s actor in `ctx`'s tenant, passes gates 0–5 again under the
    /// current context and state, must match what was approved (tool,
    /// version, fingerprint, arguments, objects), and runs once. If an
    /// object's version changed, nothing runs and a fresh approval is asked
    /// for (`Outcome::ApprovalRequired`). A repeat after the run replays
    /// its outcome.
    ///
    /// An unknown or forged id, or another tenant's or actor's approval, is
    /// the flat `NOT_PERMITTED`; a pending, denied, expired or used one has
    /// its own code.
    pub async fn resume(&self, ctx: &ToolContext, approval_id: &str) -> Outcome {
        let watch = Watch::resume(ctx, approval_id, self.content);
        // The approval is looked up before the span is entered: an
        // OpenTelemetry span takes its name when it starts, and the name is
        // the tool the approval runs.
        let found = self.effects.store.approval(approval_id).await;
        let found = found.map(|approval| {
            approval.filter(|a| a.tenant == ctx.tenant() && a.actor == ctx.actor())
        });
        if let (Some(watch), Ok(Some(approval))) = (&watch, &found)
            && let Some((tool, _)) = self.tools.get_key_value(approval.tool.as_str())
        {
            watch.named(tool);
        }
        match watch {
            None => self.resumed(ctx, found, None).await,
            Some(watch) => watch.watch(self.resumed(ctx, found, Some(&watch))).await,
        }
    }

    /// [`resume`](Self::resume) once the approval was looked up (`None`
    /// if it is not the caller's), inside its span if it has one.
    async fn resumed(
        &self,
        ctx: &ToolContext,
        found: Result<Option<Approval>, StoreError>,
        watch: Option<&Watch>,
    ) -> Outcome {
        let approval = match found {
            Ok(Some(approval)) => approval,
            Ok(None) => {
                audit::denied(
                    ctx,
                    "",
                    Gate::Effect,
                    "no such approval for this tenant and actor",
                );
                return Outcome::Rejected(Rejection::not_permitted());
            }
            Err(error) => {
                audit::store_failed(ctx, "", &error);
                return Outcome::Rejected(Rejection::new(
                    Code::Unavailable,
                    "The server could not look up this approval. Try again shortly.",
                ));
            }
        };
        let now = self.effects.clock.now();
        let refusal = match &approval.state {
            ApprovalState::Denied { .. } => Some(crate::gate::effect::denied()),
            ApprovalState::Withdrawn { .. } => Some(crate::gate::effect::withdrawn()),
            // A used approval replays the outcome of its run, if that is
            // still kept; gate 6 refuses it otherwise.
            ApprovalState::Used { .. } => None,
            _ if now >= approval.expires_at => Some(crate::gate::effect::expired()),
            ApprovalState::Pending => Some(crate::gate::effect::pending()),
            ApprovalState::Approved { .. } => None,
        };
        if let Some(rejection) = refusal {
            audit::rejected(ctx, &approval.tool, Gate::Effect, &rejection);
            return Outcome::Rejected(rejection);
        }
        let entry = match self.admit(ctx, &approval.tool) {
            Ok(entry) => entry,
            Err(rejection) => return Outcome::Rejected(rejection),
        };
        if let Err(refused) = pinned(
            ctx,
            entry.def,
            approval.version,
            &approval.fingerprint,
            "approved",
        ) {
            return refused;
        }
        let bytes = crate::gate::accepted::canonical(&approval.arguments);
        if let Some(watch) = watch {
            watch.arguments(&bytes);
        }
        let started = AtomicBool::new(false);
        let outcome = self
            .run(
                ctx,
                entry,
                bytes.as_bytes(),
                Some(&bytes),
                Some(&approval),
                &started,
            )
            .await;
        let outcome = if outcome.rejection().map(Rejection::code) == Some(Code::Stale) {
            // The body's compare-and-set lost: the object moved on after
            // gate 6 compared versions. Running the gates again finds its
            // new version and asks for a fresh approval; nothing runs.
            self.run(
                ctx,
                entry,
                bytes.as_bytes(),
                Some(&bytes),
                Some(&approval),
                &started,
            )
            .await
        } else {
            outcome
        };
        if !self.effects.unrecorded.is_empty()
            && let Err(error) = self.effects.unrecorded.retry(&*self.effects.store).await
        {
            audit::store_failed(ctx, &approval.tool, &error);
        }
        outcome
    }

    /// Gate 0: one answer for every reason, the reason in the audit log.
    fn admit(&self, ctx: &ToolContext, name: &str) -> Result<&Entry<S>, Rejection> {
        let reason = match self.tools.get(name) {
            None => "no tool has this name",
            Some(entry) => {
                // The metrics count the call under the tool's own name
                // (a resume's and a stored call's too).
                crate::telemetry::named(entry.def.name());
                match Self::permits(ctx, entry.def) {
                    Ok(()) => return Ok(entry),
                    Err(reason) => reason,
                }
            }
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
    #[inline]
    pub(crate) fn check_arguments(
        &self,
        name: &str,
        bytes: &[u8],
    ) -> Option<Result<(), Rejection>> {
        let entry = self.tools.get(name)?;
        let limits = entry.limits.as_ref().unwrap_or(&self.limits);
        let raw = bounded::start(bytes, None, limits, entry.reading);
        Some(raw.and_then(|raw| entry.tool.__check(raw, entry.def)))
    }

    /// See [`crate::testing::checked_before_serde`].
    #[cfg(feature = "testing")]
    pub(crate) fn checked_before_serde(&self, name: &str) -> Option<bool> {
        let entry = self.tools.get(name)?;
        Some(entry.reading == Reading::BoundsFirst || entry.def.shape.walks_first())
    }

    /// See [`crate::testing::read_without_schema`].
    #[cfg(feature = "testing")]
    pub(crate) fn read_without_schema(&self, name: &str) -> Option<bool> {
        let entry = self.tools.get(name)?;
        let shape = &entry.def.shape;
        Some(entry.reading == Reading::OnePass && shape.reads_flat() && !shape.walks_first())
    }

    /// [`Self::check_arguments`], gate by gate: the full scan, then serde,
    /// the shape walk and garde, never the single-pass reader.
    #[cfg(feature = "testing")]
    pub(crate) fn check_arguments_gate_by_gate(
        &self,
        name: &str,
        bytes: &[u8],
    ) -> Option<Result<(), Rejection>> {
        let entry = self.tools.get(name)?;
        let limits = entry.limits.unwrap_or(self.limits);
        let raw = bounded::scan(bytes, &limits);
        Some(raw.and_then(|raw| {
            entry.tool.__check(
                raw.with_bounds_first(entry.reading == Reading::BoundsFirst),
                entry.def,
            )
        }))
    }

    async fn run(
        &self,
        ctx: &ToolContext,
        entry: &Entry<S>,
        bytes: &[u8],
        text: Option<&str>,
        resuming: Option<&Approval>,
        started: &AtomicBool,
    ) -> Outcome {
        match self.start(ctx, entry, bytes, text, resuming, started) {
            Call::Done(Some(outcome)) => outcome,
            Call::Done(None) => crate::tool::ran_before(ctx, entry.def),
            call => Self::rest(ctx, entry, call).await,
        }
    }

    /// Gate 1's start, then the tool's generated call up to where it first
    /// waits: a call that ends at once (a plain body that gate 6 lets
    /// straight through) ends here, with no future of its own to drive.
    fn start<'a>(
        &'a self,
        ctx: &'a ToolContext,
        entry: &'a Entry<S>,
        bytes: &'a [u8],
        text: Option<&'a str>,
        resuming: Option<&'a Approval>,
        started: &'a AtomicBool,
    ) -> Call<'a> {
        let def = entry.def;
        let limits = entry.limits.as_ref().unwrap_or(&self.limits);
        let raw = match bounded::start(bytes, text, limits, entry.reading) {
            Ok(raw) => raw,
            Err(rejection) => {
                audit::rejected(ctx, def.name(), Gate::BoundedParse, &rejection);
                return Call::Done(Some(Outcome::Rejected(rejection)));
            }
        };
        let invocation = Invocation {
            ctx,
            state: &self.state,
            raw,
            def,
            effects: &self.effects,
            resuming,
            objects: None,
            run: None,
            accepted: None,
            started,
        };
        match panic::started(|| entry.tool.__call(invocation)) {
            Ok(call) => call,
            Err(panic) => Call::Done(Some(Self::panicked(ctx, entry, &panic))),
        }
    }

    /// The rest of a call [`start`](Self::start) began, driven to its
    /// outcome.
    async fn rest(ctx: &ToolContext, entry: &Entry<S>, call: Call<'_>) -> Outcome {
        match panic::Contained(call).await {
            Ok(outcome) => outcome,
            Err(panic) => Self::panicked(ctx, entry, &panic),
        }
    }

    /// A panic in a tool's call, contained: logged, and the call failed.
    #[cold]
    fn panicked(ctx: &ToolContext, entry: &Entry<S>, panic: &panic::Panic) -> Outcome {
        audit::panicked(ctx, entry.def.name(), panic.message());
        Outcome::Failed(Failure::new(ctx.request_id()))
    }
}

/// A call kept from earlier runs only against the contract it was `made`
/// (or approved) for: the registered tool's version and fingerprint.
fn pinned(
    ctx: &ToolContext,
    def: &ToolDef,
    version: u32,
    fingerprint: &str,
    made: &str,
) -> Result<(), Outcome> {
    if version == def.version() && fingerprint == def.fingerprint() {
        return Ok(());
    }
    let rejection = Rejection::new(
        Code::VersionMismatch,
        format!(
            "this call was {made} for another version of {}; the current one is version {}. Make the call again.",
            def.name(),
            def.version()
        ),
    );
    audit::rejected(ctx, def.name(), Gate::Version, &rejection);
    Err(Outcome::Rejected(rejection))
}

impl<S> fmt::Debug for Toolbox<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("limits", &self.limits)
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}
