//! Gates 4 and 5: resolve what the model named inside the caller's tenant,
//! then authorize the resolved object.

use core::fmt;
use core::future::Future;
use core::marker::PhantomData;
use core::ops::Deref;
use std::borrow::Cow;
use std::error::Error as StdError;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::gate::accepted::CallScope;
use crate::{ToolContext, ToolDef};

/// Something a model names by reference and the server looks up: an order,
/// an account, an invoice.
///
/// The model sends [`Resource::Ref`], a reference with its own schema and
/// rules (`OrderRef` is `ord_` and digits, say); it never sends the object,
/// and never a tenant. [`resolve`](Resource::resolve) finds the object
/// *within `ctx.tenant()`*: another tenant's object is simply not found.
///
/// A tool parameter `order: Authorized<Order>` becomes the model field
/// `order` of type `Order::Ref`.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use toolgate::{Fault, Resource, ToolContext};
///
/// pub struct Shop; // the application state
///
/// pub struct Order {
///     pub id: String,
///     pub tenant: String,
///     pub refundable_cents: u64,
/// }
///
/// /// An order id, as `ord_` and digits.
/// #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
/// #[serde(transparent)]
/// pub struct OrderRef(#[garde(pattern(r"^ord_[0-9]{1,12}$"))] pub String);
///
/// impl Resource<Shop> for Order {
///     type Ref = OrderRef;
///
///     async fn resolve(ctx: &ToolContext, _shop: &Shop, r: &OrderRef) -> Result<Option<Order>, Fault> {
///         // SELECT … WHERE tenant = $1 AND id = $2
///         Ok((r.0 == "ord_1").then(|| Order {
///             id: r.0.clone(),
///             tenant: ctx.tenant().to_owned(),
///             refundable_cents: 5_000,
///         }))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource of a `{S}` toolbox",
    label = "a tool takes `Authorized<{Self}>`, so `{Self}` must be a `Resource<{S}>`",
    note = "implement `Resource<{S}>` for `{Self}`: its `Ref` (what the model sends) and how `resolve` finds the object inside the caller's tenant"
)]
pub trait Resource<S>: Sized + Send + Sync + 'static {
    /// What the model sends to name one.
    /// `Debug` so that the audit log can say what was asked for.
    type Ref: DeserializeOwned
        + JsonSchema
        + garde::Validate<Context = ()>
        + fmt::Debug
        + Send
        + Sync
        + 'static;

    /// Finds the object `reference` names, scoped to `ctx.tenant()`.
    /// `Ok(None)` when the caller's tenant has no such object; `Err` when
    /// the lookup itself failed. Both reach the model as the same flat
    /// `NOT_PERMITTED`.
    fn resolve(
        ctx: &ToolContext,
        state: &S,
        reference: &Self::Ref,
    ) -> impl Future<Output = Result<Option<Self>, Fault>> + Send;

    /// The object's version as resolved (a row version, a revision
    /// counter), if it has one. Gate 6 records it in an approval: if the
    /// object has another version when the approval is resumed, the call
    /// does not run and a fresh approval is asked for. A body makes its
    /// write a compare-and-set on it (`UPDATE … WHERE id = $1 AND version
    /// = $2`) and reports a lost race with [`ToolError::stale`](crate::ToolError::stale).
    fn version(&self) -> Option<u64> {
        None
    }

    /// What a person approving a call should see of this object (an
    /// order's customer and amount, say). Without one, the preview shows
    /// the reference the model sent.
    fn summary(&self) -> Option<serde_json::Value> {
        None
    }
}

/// An authorization policy: may this caller use this resolved object with
/// tool `T` (the marker type `#[tool]` generates)?
///
/// It decides on the *resolved* object, never on the model's text. One
/// policy can serve many tools through a blanket impl that reads the tool's
/// [`ToolInfo`]:
///
/// ```
/// # use toolgate::{Fault, Resource, ToolContext};
/// use toolgate::{Authorize, Denied, Effect, Resolved, ToolInfo};
/// # pub struct Shop;
/// # pub struct Order { pub owner: String }
/// # #[derive(Debug, serde::Deserialize, schemars::JsonSchema, garde::Validate)]
/// # pub struct OrderRef(#[garde(skip)] pub String);
/// # impl Resource<Shop> for Order {
/// #     type Ref = OrderRef;
/// #     async fn resolve(_: &ToolContext, _: &Shop, _: &OrderRef) -> Result<Option<Order>, Fault> { Ok(None) }
/// # }
///
/// // Everyone in the tenant may read an order; only its owner may change it.
/// impl<T: ToolInfo> Authorize<T, Shop> for Order {
///     async fn authorize(ctx: &ToolContext, _shop: &Shop, order: &Resolved<Order>) -> Result<(), Denied> {
///         match T::EFFECT {
///             Effect::Read => Ok(()),
///             _ if order.owner == ctx.actor() => Ok(()),
///             _ => Err(Denied::because("only the order's owner may change it")),
///         }
///     }
/// }
/// ```
///
/// A blanket impl authorizes the resource for every tool (its body decides
/// per tool). Without one, each tool that takes `Authorized<Order>` needs
/// its own `impl Authorize<ThatTool, Shop> for Order`, and a missing impl is
/// a compile error naming the resource and the tool.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no authorization policy for tool `{T}`",
    label = "`{Self}` would be resolved for `{T}`, but nothing authorizes it",
    note = "add the missing step, `impl Authorize<{T}, {S}> for {Self}`, deciding on the resolved object; or one policy for every tool: `impl<T: ToolInfo> Authorize<T, {S}> for {Self}`"
)]
pub trait Authorize<T, S>: Resource<S> {
    /// `Ok(())` to allow; `Err` with the reason for the audit log to deny.
    fn authorize(
        ctx: &ToolContext,
        state: &S,
        resource: &Resolved<Self>,
    ) -> impl Future<Output = Result<(), Denied>> + Send;

    /// Called in place of [`authorize`](Self::authorize) when
    /// [`resolve`](Resource::resolve) found nothing in the caller's
    /// tenant. The call is refused either way, with the same flat
    /// rejection as a denial; nothing this returns changes that.
    ///
    /// A policy that takes measurable time to decide (a policy engine,
    /// a lookup of its own) decides a stand-in here, so that a caller who
    /// times many calls cannot tell an object that exists and is denied
    /// from one that does not exist. The `toolgate-cedar` crate's
    /// `Policies` has one: `policies.decide_not_found::<Self>(ctx,
    /// missing)`. The default does nothing: a not-found then returns
    /// sooner than a decision.
    fn not_found(
        ctx: &ToolContext,
        state: &S,
        missing: &NotFound<'_>,
    ) -> impl Future<Output = ()> + Send {
        let _ = (ctx, state, missing);
        async {}
    }
}

/// A reference that [`Resource::resolve`] found nothing for, with the call
/// it was named in: what [`Authorize::not_found`] sees. It reads the call
/// as a [`Resolved`] does.
pub struct NotFound<'a> {
    def: &'static ToolDef,
    field: &'static str,
    scope: &'a CallScope,
}

impl NotFound<'_> {
    /// The tool being called.
    pub fn tool(&self) -> &'static ToolDef {
        self.def
    }

    /// The argument that named the missing object, by its wire name.
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// The call's arguments as gates 1–3 accepted them: as
    /// [`Resolved::arguments`].
    pub fn arguments(&self) -> &str {
        &self.scope.arguments
    }

    /// One argument as gates 1–3 accepted it, by its wire name: as
    /// [`Resolved::argument`]. The reference itself is
    /// `argument(field())`.
    pub fn argument(&self, wire: &str) -> Option<&serde_json::Value> {
        self.scope.get(wire)
    }

    /// A value the call's policy decisions share: as
    /// [`Resolved::per_call`].
    pub fn per_call<T: core::any::Any + Send + Sync>(&self, make: impl FnOnce() -> T) -> Arc<T> {
        self.scope.per_call(make)
    }
}

impl fmt::Debug for NotFound<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NotFound")
            .field("tool", &self.def.name())
            .field("field", &self.field)
            .finish_non_exhaustive()
    }
}

/// Facts about a tool, at the type level, for policies shared by many tools.
/// Implemented by every marker type `#[tool]` generates.
pub trait ToolInfo {
    /// The tool's name.
    const NAME: &'static str;
    /// The tool's contract version.
    const VERSION: u32;
    /// The scope a caller must hold, if any.
    const SCOPE: Option<&'static str>;
    /// What a call can change.
    const EFFECT: crate::Effect;
}

/// A resource found inside the caller's tenant and not yet authorized,
/// with the call it was named in.
///
/// Only toolgate makes one, and only hands it by reference to
/// [`Authorize::authorize`]: a tool body never receives one. It derefs to
/// the object; a policy that decides on the call too (a refund's amount
/// against the order's balance, in a policy language such as Cedar) reads
/// the tool, the field and the arguments here.
///
/// ```compile_fail
/// # struct Order;
/// let resolved = toolgate::Resolved { resource: Order }; // private: only toolgate resolves
/// ```
pub struct Resolved<R> {
    resource: R,
    def: &'static ToolDef,
    field: &'static str,
    scope: Arc<CallScope>,
}

impl<R> Resolved<R> {
    /// The tool being called.
    pub fn tool(&self) -> &'static ToolDef {
        self.def
    }

    /// The argument that named this object, by its wire name (`order`).
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// The call's arguments as gates 1–3 accepted them and the body
    /// receives them: a JSON object with every parameter by its wire
    /// name, defaults applied, each value as its type serializes it
    /// (`2.0` sent for a whole number is `2`), keys sorted, no
    /// whitespace. Every spelling of one call reads the same here, so a
    /// policy cannot be steered by leaving out a defaulted parameter.
    pub fn arguments(&self) -> &str {
        &self.scope.arguments
    }

    /// One argument as gates 1–3 accepted it, by its wire name: the value
    /// [`arguments`](Self::arguments) holds under that name, for a policy
    /// that reads the values rather than parse their text again. `None`
    /// for a name the tool does not have.
    ///
    /// ```
    /// # use toolgate::Resolved;
    /// fn amount<R>(resolved: &Resolved<R>) -> Option<u64> {
    ///     resolved.argument("amount_cents")?.as_u64()
    /// }
    /// ```
    pub fn argument(&self, wire: &str) -> Option<&serde_json::Value> {
        self.scope.get(wire)
    }

    /// A value every policy decision of this call shares: made by `make`
    /// the first time the call asks for a `T`, and the same `Arc` for
    /// every object of the call after. A policy whose rules can be
    /// replaced while calls run keeps its rules here, so that a call
    /// naming two objects is decided by one set of rules, never half by
    /// the old and half by the new.
    ///
    /// Each type is kept once per call; keep a type of the policy's own.
    pub fn per_call<T: core::any::Any + Send + Sync>(&self, make: impl FnOnce() -> T) -> Arc<T> {
        self.scope.per_call(make)
    }
}

impl<R: fmt::Debug> fmt::Debug for Resolved<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resolved")
            .field("resource", &self.resource)
            .field("tool", &self.def.name())
            .field("field", &self.field)
            .finish_non_exhaustive()
    }
}

impl<R> Deref for Resolved<R> {
    type Target = R;

    fn deref(&self) -> &R {
        &self.resource
    }
}

/// A resource that was resolved inside the caller's tenant and then
/// authorized for tool `T`: the only form in which a model-named object
/// reaches a tool body.
///
/// Write `Authorized<Order>` in a tool's signature; `#[tool]` fills in `T`,
/// the tool's marker type, so an authorization made for one tool cannot be
/// handed to another tool's function: a read tool's `Authorized<Order,
/// GetOrder>` is not the refund tool's `Authorized<Order, IssueRefund>`.
/// The default `T = ()` is a type no authorization is ever made for.
///
/// It cannot be built, cloned, defaulted or deserialized by user code.
///
/// ```compile_fail
/// # struct Order;
/// let authorized = toolgate::Authorized { resource: Order, tool: core::marker::PhantomData::<()> }; // private: only toolgate authorizes
/// ```
pub struct Authorized<R, T = ()> {
    resource: R,
    tool: PhantomData<fn() -> T>,
}

impl<R: fmt::Debug, T> fmt::Debug for Authorized<R, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Authorized").field(&self.resource).finish()
    }
}

impl<R, T> Authorized<R, T> {
    /// The authorized object.
    pub fn into_inner(self) -> R {
        self.resource
    }
}

impl<R, T> Deref for Authorized<R, T> {
    type Target = R;

    fn deref(&self) -> &R {
        &self.resource
    }
}

/// A resolver's failure: the database was down, the query failed. The
/// model sees the same flat `NOT_PERMITTED` as for a missing object; the
/// error goes to the audit log.
pub struct Fault(Box<dyn StdError + Send + Sync>);

impl Fault {
    /// Wraps the error.
    pub fn new(error: impl Into<Box<dyn StdError + Send + Sync>>) -> Self {
        Fault(error.into())
    }
}

impl<E: StdError + Send + Sync + 'static> From<E> for Fault {
    fn from(error: E) -> Self {
        Fault(Box::new(error))
    }
}

impl fmt::Debug for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A policy's refusal, with the reason for the audit log (never shown to
/// the model).
///
/// A policy can also allow a call only with a person's approval:
/// [`Denied::unless_approved`]. The call then goes to gate 6 as an
/// irreversible one would, whatever the toolbox's
/// [`EffectPolicy`](crate::EffectPolicy) says of its class, and runs only
/// when an approval for it is resumed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denied {
    reason: Cow<'static, str>,
    unless_approved: bool,
}

impl Denied {
    /// Denies, recording `reason` server-side.
    pub fn because(reason: impl Into<Cow<'static, str>>) -> Self {
        Denied {
            reason: reason.into(),
            unless_approved: false,
        }
    }

    /// Allows the call only with a person's approval, recording `reason`
    /// server-side ("refunds over 100 EUR need a manager").
    ///
    /// ```
    /// use toolgate::Denied;
    ///
    /// let denied = Denied::unless_approved("refunds over 100 EUR need a manager");
    /// assert!(denied.is_unless_approved());
    /// assert!(!Denied::because("disputed").is_unless_approved());
    /// ```
    pub fn unless_approved(reason: impl Into<Cow<'static, str>>) -> Self {
        Denied {
            reason: reason.into(),
            unless_approved: true,
        }
    }

    /// Whether an approval would allow the call.
    pub fn is_unless_approved(&self) -> bool {
        self.unless_approved
    }

    /// The reason.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

/// Gate 5 for a call that names no object: a tool without resources, or
/// one whose optional resources the model left out. Set on a toolbox with
/// [`Toolbox::with_call_policy`](crate::Toolbox::with_call_policy), it is
/// asked about every such call, after gates 1–3 and before the tool's
/// checks; a call that authorized an object was decided by that object's
/// [`Authorize`] impl instead.
///
/// A policy language that is default deny (Cedar) stays default deny for
/// every tool this way, with or without resources.
///
/// ```
/// use toolgate::{tool, CallInfo, CallPolicy, Denied, ToolContext, ToolError, Toolbox};
///
/// /// Nobody lists recent calls on a weekend.
/// struct NoListing;
///
/// impl CallPolicy for NoListing {
///     fn authorize_call(&self, _ctx: &ToolContext, call: &CallInfo<'_>) -> Result<(), Denied> {
///         match call.tool().name() {
///             "list_recent" => Err(Denied::because("listing is closed")),
///             _ => Ok(()),
///         }
///     }
/// }
///
/// /// The caller's recent calls.
/// #[tool(effect = read)]
/// fn list_recent() -> Result<Vec<String>, ToolError> {
///     Ok(Vec::new())
/// }
///
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     let waker = std::task::Waker::noop();
/// #     let mut cx = std::task::Context::from_waker(&waker);
/// #     let mut f = std::pin::pin!(f);
/// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
/// # }
/// let mut toolbox = Toolbox::new(()).with_call_policy(NoListing);
/// toolbox.register(ListRecent)?;
/// let ctx = ToolContext::new("user_1", "tenant_a", "req_1").allow_all_tools();
/// let outcome = block_on(toolbox.call(&ctx, "list_recent", "{}"));
/// assert_eq!(outcome.to_json()["code"], "NOT_PERMITTED");
/// # Ok::<(), toolgate::RegisterError>(())
/// ```
pub trait CallPolicy: Send + Sync + 'static {
    /// Whether `ctx` may make `call`: `Ok(())`, a denial
    /// ([`Denied::because`]), or allowed only with a person's approval
    /// ([`Denied::unless_approved`]).
    ///
    /// # Errors
    ///
    /// The denial, with its reason for the audit log.
    fn authorize_call(&self, ctx: &ToolContext, call: &CallInfo<'_>) -> Result<(), Denied>;
}

impl<P: CallPolicy + ?Sized> CallPolicy for Arc<P> {
    fn authorize_call(&self, ctx: &ToolContext, call: &CallInfo<'_>) -> Result<(), Denied> {
        (**self).authorize_call(ctx, call)
    }
}

impl<P: CallPolicy + ?Sized> CallPolicy for Box<P> {
    fn authorize_call(&self, ctx: &ToolContext, call: &CallInfo<'_>) -> Result<(), Denied> {
        (**self).authorize_call(ctx, call)
    }
}

/// A call that names no object, as a [`CallPolicy`] sees it.
pub struct CallInfo<'a> {
    pub(crate) def: &'static ToolDef,
    pub(crate) scope: &'a CallScope,
}

impl CallInfo<'_> {
    /// The tool being called.
    pub fn tool(&self) -> &'static ToolDef {
        self.def
    }

    /// The call's arguments as gates 1–3 accepted them: as
    /// [`Resolved::arguments`].
    pub fn arguments(&self) -> &str {
        &self.scope.arguments
    }

    /// One argument as gates 1–3 accepted it, by its wire name: as
    /// [`Resolved::argument`].
    pub fn argument(&self, wire: &str) -> Option<&serde_json::Value> {
        self.scope.get(wire)
    }

    /// A value the call's policy decisions share: as
    /// [`Resolved::per_call`].
    pub fn per_call<T: core::any::Any + Send + Sync>(&self, make: impl FnOnce() -> T) -> Arc<T> {
        self.scope.per_call(make)
    }
}

impl fmt::Debug for CallInfo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallInfo")
            .field("tool", &self.def.name())
            .field("arguments", &self.arguments())
            .finish()
    }
}

/// One reference to resolve and authorize, and the call it is part of.
pub(crate) struct Named<'r, R> {
    pub(crate) def: &'static ToolDef,
    pub(crate) field: &'static str,
    pub(crate) scope: Arc<CallScope>,
    pub(crate) reference: &'r R,
    /// Whether the call resumes an approval: a policy's
    /// [`Denied::unless_approved`] is then met, and not logged as asked.
    pub(crate) approved: bool,
}

/// An authorized object, and whether its policy asked for a person's
/// approval of the call.
pub(crate) struct Granted<R, T> {
    pub(crate) authorized: Authorized<R, T>,
    pub(crate) asks_approval: bool,
}

/// Gates 4 and 5 for one reference. Every failure is the same flat
/// rejection; the audit log gets the reason.
pub(crate) async fn authorize<T, R, S>(
    ctx: &ToolContext,
    state: &S,
    named: Named<'_, R::Ref>,
) -> Result<Granted<R, T>, crate::Rejection>
where
    R: Authorize<T, S>,
{
    use crate::audit;
    use crate::gate::Gate;
    let tool = named.def.name();
    let field = named.field;
    let reference = named.reference;
    let refuse = |gate: Gate, reason: &str| {
        let asked: String = format!("{reference:?}").chars().take(128).collect();
        let resource = core::any::type_name::<R>();
        audit::refused(ctx, tool, gate, field, resource, &asked, reason);
        crate::Rejection::not_permitted()
    };
    let resolved = match R::resolve(ctx, state, reference).await {
        Ok(Some(resource)) => Resolved {
            resource,
            def: named.def,
            field,
            scope: named.scope,
        },
        Ok(None) => {
            let missing = NotFound {
                def: named.def,
                field,
                scope: &named.scope,
            };
            R::not_found(ctx, state, &missing).await;
            return Err(refuse(Gate::Resolve, "not found in the caller's tenant"));
        }
        Err(fault) => return Err(refuse(Gate::Resolve, &format!("resolver failed: {fault}"))),
    };
    let asks_approval = match R::authorize(ctx, state, &resolved).await {
        Ok(()) => false,
        Err(denied) if denied.is_unless_approved() => {
            // A resumed call is the approved one: gate 6 checks that it is.
            if !named.approved {
                audit::approval_asked(ctx, tool, field, denied.reason());
            }
            true
        }
        Err(denied) => return Err(refuse(Gate::Authorize, denied.reason())),
    };
    Ok(Granted {
        authorized: Authorized {
            resource: resolved.resource,
            tool: PhantomData,
        },
        asks_approval,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_shows_its_error_to_the_log() {
        let fault = Fault::new("connection refused");
        assert_eq!(fault.to_string(), "connection refused");
        assert_eq!(format!("{fault:?}"), "\"connection refused\"");
    }

    #[test]
    fn an_authorization_shows_its_object() {
        let authorized: Authorized<u8, ()> = Authorized {
            resource: 7,
            tool: PhantomData,
        };
        assert_eq!(format!("{authorized:?}"), "Authorized(7)");
        assert_eq!(*authorized, 7);
        assert_eq!(authorized.into_inner(), 7);
    }
}
