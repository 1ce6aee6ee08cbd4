//! # toolgate
//!
//! The execution boundary for LLM tool calls. A model proposes a call; the
//! server decides. Put `#[tool]` on an ordinary function and every call to it
//! passes, in an order the types enforce:
//!
//! | gate | what | failure | types | module (in `src/`) |
//! |---|---|---|---|---|
//! | 0 | the tool exists, is allowed in this request, the caller holds its scope | one flat `NOT_PERMITTED` | [`Toolbox::call`] | `toolbox` |
//! | 1 | bounded parse: size, depth, nodes, string length, duplicate keys, UTF-8 | specific, not retryable | [`Limits`], [`RawArgs`] | `gate/bounded` |
//! | 2 | serde into a closed struct (`deny_unknown_fields`) | specific, retryable | [`Parsed`] | `gate/structural` |
//! | 3 | garde rules | specific, retryable | [`Valid`] | `gate/semantic` |
//! | 4–5 | each referenced object resolved in the caller's tenant, then authorized | one flat `NOT_PERMITTED` | [`Resolved`], [`Authorized`] | `gate/resource` |
//! | 6 | approval for irreversible calls, idempotency for writes ([`Approval`]) | `approval_required`, a replay, or a gate-6 code | [`EffectPolicy`], [`EffectStore`] | `gate/effect` |
//! | 7 | the body, with `&ToolContext` and state injected | internal errors never leak | [`Outcome`], [`ToolError`] | `tool`, `gate/panic` |
//!
//! Before any call, [`Toolbox::register`] proves what a tool's schema
//! promises or refuses the tool ([`RegisterError`]; `register/`). Gate 6
//! keeps its state in an [`EffectStore`]; what the author of a store of
//! their own needs is in [`store`].
//!
//! ```
//! use toolgate::{tool, DomainCode, ToolContext, ToolError, Toolbox};
//!
//! pub struct Hotels;
//!
//! const UNKNOWN_HOTEL: DomainCode = DomainCode::new("UNKNOWN_HOTEL");
//!
//! /// Book a hotel for the signed-in traveller. The server sets the price.
//! #[tool(scope = "bookings:write", effect = write)]
//! async fn book_hotel(
//!     ctx: &ToolContext,          // injected by the server, never in the schema
//!     _hotels: &Hotels,           // injected application state
//!     /// The hotel's id, as search returned it.
//!     #[garde(pattern(r"^h_[a-z0-9]{8}$"))]
//!     hotel_id: String,           // model-controlled, validated
//!     #[garde(range(min = 1, max = 30))]
//!     nights: u8,
//! ) -> Result<String, ToolError> {
//!     if hotel_id == "h_00000000" {
//!         return Err(ToolError::reject(UNKNOWN_HOTEL, "no hotel has this id"));
//!     }
//!     Ok(format!("{} booked {hotel_id} for {nights} nights", ctx.actor()))
//! }
//!
//! let mut toolbox = Toolbox::new(Hotels);
//! toolbox.register(BookHotel)?;
//! let schema = BookHotel::definition().schema();
//! assert_eq!(schema["additionalProperties"], false);
//! assert!(schema["properties"].get("price").is_none());
//! # Ok::<(), toolgate::RegisterError>(())
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![warn(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod arguments;
mod audit;
mod context;
mod definition;
mod error;
mod gate;
pub mod guide;
mod json;
mod outcome;
pub mod providers;
mod register;
mod schema;
pub mod store;
mod stored;
mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;
mod tool;
mod toolbox;
mod wire;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use arguments::Arguments;
pub use context::{Extensions, ToolContext};
pub use definition::{Effect, ResourceField, ToolDef};
pub use error::{BodyCode, ToolError};
pub use gate::bounded::RawArgs;
pub use gate::bounded::limits::Limits;
pub use gate::effect::rules;
pub use gate::effect::{
    Approval, ApprovalRule, ApprovalState, Clock, Decision, EffectPolicy, EffectStore, FlushError,
    MemoryStore, Seen, StoreError, SystemClock,
};
/// A store author's items, at the root too (see [`store`]).
#[doc(hidden)]
pub use gate::effect::{Bucket, Claim, Consumed, Decided, Withdrawn};
pub use gate::resource::{
    Authorize, Authorized, CallInfo, CallPolicy, Denied, Fault, NotFound, Resolved, Resource,
    ToolInfo,
};
pub use gate::semantic::Valid;
pub use gate::structural::Parsed;
pub use outcome::code::{Code, DomainCode};
pub use outcome::rejection::{MAX_MESSAGE_CHARS, Rejection};
pub use outcome::{Failure, Outcome};
pub use stored::StoredCall;
pub use tool::{BoxFuture, Provides, Tool};
pub use toolbox::{ApprovalError, RegisterError, Toolbox};

#[doc = include_str!("tool_attribute.md")]
pub use toolgate_macros::tool;

/// Makes each `#[tool]` method of an impl block a tool whose state is the
/// block's type: the method takes `&self`, and a `Toolbox` of that type
/// (or of an `Arc` of it, or of any state that
/// [`Provides`] it) serves it. Everything else is as for
/// a free function under [`#[tool]`](macro@tool): parameters, attribute
/// keys, rules, resources.
///
/// ```
/// use std::sync::Arc;
///
/// use toolgate::{tool, tools, ToolContext, ToolError, Toolbox};
///
/// pub struct Weather {
///     unit: &'static str,
/// }
///
/// #[tools]
/// impl Weather {
///     /// Today's forecast for a city.
///     #[tool(effect = read)]
///     pub async fn forecast(
///         &self,
///         ctx: &ToolContext,
///         /// The city, as its name is written.
///         #[garde(length(min = 1, max = 80))]
///         city: String,
///     ) -> Result<String, ToolError> {
///         Ok(format!("{city}: 21 {} (asked by {})", self.unit, ctx.actor()))
///     }
///
///     /// Not a tool: an ordinary method stays one.
///     pub fn unit(&self) -> &str {
///         self.unit
///     }
/// }
///
/// let mut toolbox = Toolbox::new(Arc::new(Weather { unit: "°C" }));
/// toolbox.register(Forecast).unwrap();
/// assert_eq!(Forecast::definition().name(), "forecast");
/// ```
pub use toolgate_macros::tools;

/// Where the server and the published JSON Schema disagree, and why it
/// cannot be helped: rules JSON Schema cannot express. The differential
/// test (`tests/tests/behaviour/schema/validator_agreement.rs`) excludes exactly these, by name.
///
/// `integer-map-keys` concerns fields: a map keyed by a type with a range
/// of its own (its own `Deserialize` over an integer: a floor number, at
/// most 200), whose range no key pattern states. Every tool that has one
/// says so at the end of its description ("Numbers used as keys must fit
/// the key's integer type."). The key pattern of every integer type,
/// `NonZero…` and 128-bit ones included, states its range, and is no
/// difference; nor are the keys of a `bool`, a `char` or an enum, which
/// the schema states too (a key type of its own over a `char` or a `bool`
/// that takes fewer keys is refused at registration, as is any key type
/// but a string's where serde reads keys from its buffer; see
/// [`RegisterError`]). The other two concern the document, not a field, and are
/// documented with [`Limits`]; generated instances (small, parsed values)
/// cannot show them.
///
/// Numbers are read by value, as JSON Schema reads them: `2.0`, `1e2` and
/// `-0` are integers where an integer is expected, and no difference.
///
/// | rule | the schema says | the server does |
/// |---|---|---|
/// | `integer-map-keys` | a key of a map keyed by such a type is digits without a leading zero | also refuses a key past the type's own range (`"250"` for the floor numbers) |
/// | `gate-1-limits` | nothing about size, depth, node count or string length | refuses documents past the [`Limits`] |
/// | `duplicate-keys` | nothing: a validator sees the parsed value, last key winning | refuses any repeated key |
pub const KNOWN_DIFFERENCES: [&str; 3] = ["integer-map-keys", "gate-1-limits", "duplicate-keys"];
