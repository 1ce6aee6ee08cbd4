//! The trait `#[tool]` implements, and the call path it runs.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use serde::Serialize;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::audit::{self, Gate};
use crate::error::Repr;
use crate::gate::accepted::{Accepted, Objects};
use crate::gate::effect::Effects;
use crate::gate::resource::{self, Authorize, Authorized, ToolInfo};
use crate::gate::semantic::Valid;
use crate::gate::structural::Parsed;
use crate::gate::structural::reader::Read;
use crate::outcome::Failure;
use crate::{Approval, Outcome, RawArgs, ToolContext, ToolDef, ToolError, gate::semantic};

/// A boxed, sendable future, as tools return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A tool a [`Toolbox<S>`](crate::Toolbox) can run. Implemented by the marker
/// type that `#[tool]` generates (`book_hotel` → `BookHotel`); write the
/// function, not this impl.
///
/// A tool whose function takes `&App` is a `Tool<App>`; one that takes no
/// state is a `Tool<S>` for every `S`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool for a `Toolbox<{S}>`",
    label = "not a tool for this toolbox",
    note = "put `#[tool]` on a function and register the marker type it generates (`fn book_hotel` -> `BookHotel`)",
    note = "a tool whose function takes `&App` joins only a `Toolbox<App>`"
)]
pub trait Tool<S>: Send + Sync + 'static {
    /// The tool's static definition.
    fn definition(&self) -> &'static ToolDef;

    /// Runs gates 2–7 on arguments that passed gates 0–1. Generated code
    /// only: the toolbox is the one caller.
    #[doc(hidden)]
    fn __call<'a>(&'a self, invocation: Invocation<'a, S>) -> Call<'a>;

    /// Gates 2–3 alone, for testing aids and registration's tries, on
    /// the tool's definition `def` (the one [`Tool::definition`] gives,
    /// which the caller holds). Generated code only.
    #[doc(hidden)]
    fn __check(&self, raw: RawArgs<'_>, def: &ToolDef) -> Result<(), crate::Rejection>;
}

/// The state a tool takes, lent by the toolbox's state: a tool whose
/// function takes `&App` joins a `Toolbox<S>` for every `S: Provides<App>`.
///
/// `App` provides itself, and `Arc<App>` and `Box<App>` provide the `App`
/// they hold, so `Toolbox::new(Arc::new(app))` serves the same tools as
/// `Toolbox::new(app)`. An application state made of parts lends each
/// part to the tools that need only it:
///
/// ```
/// use toolgate::{tool, Provides, ToolError, Toolbox};
///
/// pub struct Db;
/// pub struct Mailer;
/// pub struct App {
///     db: Db,
///     mailer: Mailer,
/// }
///
/// impl Provides<Db> for App {
///     fn provide(&self) -> &Db {
///         &self.db
///     }
/// }
///
/// /// Count the open orders.
/// #[tool(effect = read)]
/// fn open_orders(db: &Db) -> Result<u32, ToolError> {
///     let _ = db;
///     Ok(3)
/// }
///
/// let mut toolbox = Toolbox::new(App { db: Db, mailer: Mailer });
/// toolbox.register(OpenOrders).unwrap();
///
/// let mut shared = Toolbox::new(std::sync::Arc::new(Db));
/// shared.register(OpenOrders).unwrap();
/// ```
#[diagnostic::on_unimplemented(
    message = "a `Toolbox<{Self}>` has no `{T}` to lend a tool that takes `&{T}`",
    label = "this toolbox's state does not provide `{T}`",
    note = "a tool that takes `&{T}` joins a `Toolbox<{T}>`, a `Toolbox<Arc<{T}>>` or a `Toolbox<Box<{T}>>`",
    note = "if `{Self}` holds a `{T}`, lend it: `impl toolgate::Provides<{T}> for {Self} {{ fn provide(&self) -> &{T} {{ &self.… }} }}`"
)]
pub trait Provides<T> {
    /// The `T` this state lends to a tool.
    fn provide(&self) -> &T;
}

impl<T> Provides<T> for T {
    fn provide(&self) -> &T {
        self
    }
}

impl<T> Provides<T> for std::sync::Arc<T> {
    fn provide(&self) -> &T {
        self
    }
}

impl<T> Provides<T> for Box<T> {
    fn provide(&self) -> &T {
        self
    }
}

/// Gates 2–3 on arguments that passed gate 1, without running anything.
#[doc(hidden)]
pub fn check<A>(raw: RawArgs<'_>, def: &ToolDef) -> Result<(), crate::Rejection>
where
    A: crate::gate::semantic::Arguments,
{
    match semantic::gates(raw, def, &mut Read::<A>(None)) {
        Ok(()) => Ok(()),
        Err((_, rejection)) => Err(rejection),
    }
}

/// A gate's refusal, logged.
fn refused(ctx: &ToolContext, def: &ToolDef, gate: Gate, rejection: crate::Rejection) -> Outcome {
    audit::rejected(ctx, def.name(), gate, &rejection);
    Outcome::Rejected(rejection)
}

/// Gate 6 reads the call through [`Call`](crate::gate::effect::Call).
impl<'a, S> crate::gate::effect::Call<'a> for Invocation<'a, S> {
    fn ctx(&self) -> &'a ToolContext {
        self.ctx
    }

    fn def(&self) -> &'static ToolDef {
        self.def
    }

    fn effects(&self) -> &'a Effects {
        self.effects
    }

    fn resuming(&self) -> Option<&'a Approval> {
        self.resuming
    }

    fn objects(&self) -> Option<&Objects> {
        self.objects.as_deref()
    }

    fn accepted(&self) -> Option<&Accepted> {
        self.accepted.as_deref()
    }
}

/// One admitted call, handed to a tool's generated wrapper.
#[doc(hidden)]
pub struct Invocation<'a, S> {
    pub(crate) ctx: &'a ToolContext,
    pub(crate) state: &'a S,
    pub(crate) raw: RawArgs<'a>,
    pub(crate) def: &'static ToolDef,
    pub(crate) effects: &'a Effects,
    /// The approval this run resumes, if any.
    pub(crate) resuming: Option<&'a Approval>,
    /// What gates 4 and 5 found, once the call authorizes an object:
    /// boxed, so that a call with no resources carries one word of it and
    /// the invocation stays small enough to move without a `memcpy`.
    pub(crate) objects: Option<Box<Objects>>,
    /// The effect gate's hold on the call, once [`admit`](Self::admit) let
    /// a call it gates through: boxed, so that a call it lets through at
    /// once carries one word of it.
    pub(crate) run: Option<Box<crate::gate::effect::Run<'a>>>,
    /// The arguments as the gates accepted them, once the call needs them
    /// ([`accept`](Self::accept)): for policies, approvals and keys.
    pub(crate) accepted: Option<Box<Accepted>>,
    /// Set once the body starts: no budget may replace its outcome.
    pub(crate) started: &'a AtomicBool,
}

impl<'a, S> Invocation<'a, S> {
    /// The caller's context.
    pub fn context(&self) -> &'a ToolContext {
        self.ctx
    }

    /// The toolbox's state.
    pub fn state(&self) -> &'a S {
        self.state
    }

    /// The tool's definition, as the toolbox keeps it: what a call needs
    /// of it, without asking the tool again.
    pub fn definition(&self) -> &'static ToolDef {
        self.def
    }

    /// The same call, on the state `T` the toolbox's state provides.
    pub fn lend<T>(self) -> Invocation<'a, T>
    where
        S: Provides<T>,
    {
        Invocation {
            ctx: self.ctx,
            state: self.state.provide(),
            raw: self.raw,
            def: self.def,
            effects: self.effects,
            resuming: self.resuming,
            objects: self.objects,
            run: self.run,
            accepted: self.accepted,
            started: self.started,
        }
    }

    /// Gates 2 and 3: serde into the closed struct, then its rules; and
    /// the rest of gate 1, read in the same pass.
    pub fn validate<A>(&mut self) -> Result<Valid<A>, Outcome>
    where
        A: crate::gate::semantic::Arguments,
    {
        // Only the reader's making and the arguments' taking out are
        // compiled for each tool: the gates are compiled once. Not `?`,
        // which would be one more function compiled for each tool.
        let mut read = Read::<A>(None);
        #[allow(clippy::question_mark)]
        if let Err(outcome) = self.read_into(&mut read) {
            return Err(outcome);
        }
        match read.0 {
            Some(Parsed(args)) => Ok(Valid(args)),
            None => Err(self.unread()),
        }
    }

    /// Gates 2 and 3 on the arguments `args` reads: on `Ok`, the
    /// arguments are accepted. (Accepting them in `validate`, once taken
    /// out, would compile the call into every tool.)
    #[inline]
    fn read_into(&mut self, args: &mut dyn semantic::Gated) -> Result<(), Outcome> {
        match semantic::gates(self.raw, self.def, args) {
            Ok(()) => {
                self.raw.accept();
                Ok(())
            }
            Err((gate, r)) => Err(refused(self.ctx, self.def, gate, r)),
        }
    }

    /// The gates passed, yet serde read nothing: never, as the gates
    /// refuse that (see [`structural::unread`](crate::gate::structural::unread)).
    /// Were it ever, the call is refused all the same: accepting the
    /// text only marks it as read.
    #[cold]
    fn unread(&self) -> Outcome {
        let (gate, r) = crate::gate::structural::unread();
        refused(self.ctx, self.def, gate, r)
    }

    /// Gates 4 and 5 for the reference in field `field`: resolve it within
    /// the caller's tenant, then authorize the resolved object for tool `T`.
    ///
    /// The future is boxed so that its type names neither `T` nor `R`: a
    /// missing `Authorize` impl is then one error, on the call (which the
    /// macro spans on the resource type), and not a second one where the
    /// tool's own future is checked for `Send`.
    pub fn authorize<'f, T, R>(
        &'f mut self,
        field: &'static str,
        reference: &'f R::Ref,
    ) -> crate::BoxFuture<'f, Result<Authorized<R, T>, Outcome>>
    where
        T: ToolInfo,
        R: Authorize<T, S>,
        S: Sync,
    {
        Box::pin(async move {
            // An authorization is for the tool being called, and for no other.
            if T::NAME != self.def.name() {
                audit::denied(
                    self.ctx,
                    self.def.name(),
                    Gate::Authorize,
                    "authorization asked for another tool",
                );
                return Err(Outcome::Rejected(crate::Rejection::not_permitted()));
            }
            let Some(accepted) = &self.accepted else {
                // Never: a tool that names a resource accepts its
                // arguments before it authorizes one.
                audit::denied(
                    self.ctx,
                    self.def.name(),
                    Gate::Authorize,
                    "no accepted arguments to authorize with",
                );
                return Err(Outcome::Rejected(crate::Rejection::not_permitted()));
            };
            let named = resource::Named {
                def: self.def,
                field,
                scope: std::sync::Arc::clone(&accepted.scope),
                reference,
                approved: self.resuming.is_some(),
            };
            let objects = self.objects.get_or_insert_with(Box::default);
            let granted = resource::authorize::<T, R, S>(self.ctx, self.state, named)
                .await
                .map_err(Outcome::Rejected)?;
            let authorized = granted.authorized;
            objects.asked |= granted.asks_approval;
            objects.seen.push((
                field,
                <R as crate::Resource<S>>::version(&authorized),
                <R as crate::Resource<S>>::summary(&authorized),
            ));
            Ok(authorized)
        })
    }

    /// Whether this call needs its arguments as the gates accepted them
    /// ([`accept`](Self::accept)): `always` for a tool that names a
    /// resource (its policies read them) or decides approval by an
    /// expression; otherwise, when a policy or gate 6 may see the call.
    /// A `read` call that none of them sees skips the work.
    #[inline]
    pub fn wants_arguments(&self, always: bool) -> bool {
        always
            || self.def.effect() != crate::Effect::Read
            || self.resuming.is_some()
            || self.effects.call_policy.is_some()
            || self
                .effects
                .policy
                .needs_approval(crate::Effect::Read, None)
    }

    /// Keeps the arguments as the gates accepted them: each parameter by
    /// its wire name, with its value as its type serializes it once
    /// defaults are applied (`None` for a type that does not serialize:
    /// the value as sent stands in).
    pub fn accept(&mut self, fields: &mut [(&'static str, Option<serde_json::Value>)]) {
        self.accepted = Some(Box::new(Accepted::new(fields, self.raw.as_str(), self.def)));
    }

    /// Gate 5 for a call that authorized no object: the toolbox's
    /// [`CallPolicy`](crate::CallPolicy), if it has one, decides it.
    pub fn authorize_call(&mut self) -> Result<(), Outcome> {
        let Some(policy) = &self.effects.call_policy else {
            return Ok(());
        };
        if self.objects.as_ref().is_some_and(|o| !o.seen.is_empty()) {
            return Ok(());
        }
        let Some(accepted) = &self.accepted else {
            audit::denied(
                self.ctx,
                self.def.name(),
                Gate::Authorize,
                "no accepted arguments to decide the call with",
            );
            return Err(Outcome::Rejected(crate::Rejection::not_permitted()));
        };
        let call = resource::CallInfo {
            def: self.def,
            scope: &accepted.scope,
        };
        match policy.authorize_call(self.ctx, &call) {
            Ok(()) => Ok(()),
            Err(denied) if denied.is_unless_approved() => {
                if self.resuming.is_none() {
                    audit::approval_asked(self.ctx, self.def.name(), "", denied.reason());
                }
                self.objects.get_or_insert_with(Box::default).asked = true;
                Ok(())
            }
            Err(denied) => {
                audit::denied(self.ctx, self.def.name(), Gate::Authorize, denied.reason());
                Err(Outcome::Rejected(crate::Rejection::not_permitted()))
            }
        }
    }

    /// Marks the body started: its outcome, whatever it is, is the call's.
    #[inline]
    pub fn starting(&self) {
        self.started.store(true, Ordering::Relaxed);
    }

    /// The tool's checks on its authorized resources, run before the body.
    pub fn check(&self, result: Result<(), ToolError>) -> Result<(), Outcome> {
        match result {
            Ok(()) => Ok(()),
            Err(ToolError(Repr::Rejected(rejection))) => {
                audit::rejected(self.ctx, self.def.name(), Gate::Checks, &rejection);
                Err(Outcome::Rejected(rejection))
            }
            Err(ToolError(Repr::Denied(rejection, reason))) => {
                audit::denied(self.ctx, self.def.name(), Gate::Checks, &reason);
                Err(Outcome::Rejected(rejection))
            }
            Err(ToolError(Repr::Internal(error))) => {
                audit::failed(self.ctx, self.def.name(), &*error);
                Err(Outcome::Failed(Failure::new(self.ctx.request_id())))
            }
        }
    }

    /// Ends the call. One that holds no objects and no hold of gate 6's
    /// (every call gate 6 lets straight through that authorized nothing)
    /// owns nothing else, so it is forgotten, without a call to its drop
    /// glue. A field that owns something must be added to the test here.
    /// Inline in optimized builds only (not forced), so that a debug
    /// build compiles it once for each state, not into each tool.
    #[inline]
    fn end(self) {
        if self.objects.is_none() && self.run.is_none() && self.accepted.is_none() {
            core::mem::forget(self);
        }
    }

    /// Gate 6 before the body: `approval` is what the tool's `approval = …`
    /// expression said (`None` without one), `approver` the actor its
    /// `approver = …` expression named.
    ///
    /// A `read` call that needs no approval is let through at once, with no
    /// store call and no future to await. Any other goes through the effect
    /// gate, boxed, so that its state (store calls, approvals) does not
    /// size every call's future and is not copied with it; it ends in the
    /// outcome instead if the body does not run now (an approval asked
    /// for, a replay, a refusal). Compiled once, not once for each tool:
    /// the body is not part of it.
    pub fn admit<'b>(
        &'b mut self,
        approval: Option<bool>,
        approver: Option<String>,
    ) -> Admission<impl Future<Output = Result<(), Outcome>> + use<'a, 'b, S>> {
        let Some(needs) = self.gated(approval) else {
            return Admission::Now;
        };
        Admission::Later(Box::pin(self.held(needs, approver)))
    }

    /// Gate 6 before the body of a call it holds; on `Ok` the call holds
    /// its key (`run`) and runs.
    async fn held(&mut self, needs: bool, approver: Option<String>) -> Result<(), Outcome> {
        let run = crate::gate::effect::before(self, needs, approver).await?;
        self.run = Some(Box::new(run));
        Ok(())
    }

    /// Whether gate 6 holds the call (`Some`), and then whether it needs a
    /// person's approval; `None` for a `read` call it lets through at once.
    fn gated(&self, approval: Option<bool>) -> Option<bool> {
        let needs = self.objects.as_ref().is_some_and(|o| o.asked)
            || self
                .effects
                .policy
                .needs_approval(self.def.effect(), approval);
        let gated = needs || self.resuming.is_some() || self.def.effect() != crate::Effect::Read;
        gated.then_some(needs)
    }

    /// The body, pinned by the call's future, within the tool's time limit
    /// (or the toolbox's). Only after [`admit`](Self::admit) let the call
    /// through.
    pub fn run<'f, F: Future<Output = Outcome>>(
        &self,
        body: Pin<&'f mut F>,
    ) -> crate::gate::effect::Timed<'f, F> {
        self.starting();
        let limit = self.def.timeout().or(self.effects.policy.timeout);
        crate::gate::effect::Timed::new(body, limit)
    }

    /// Gate 6 after the body: records its outcome for replay, if the gate
    /// holds the call. A body stopped at its time limit may have taken
    /// effect before it was stopped: its `TIMEOUT` is its outcome, kept
    /// like any other, so that a repeat replays it and never runs the
    /// body a second time.
    pub fn finish<'b>(
        &'b mut self,
        ran: Result<Outcome, core::time::Duration>,
    ) -> Finished<impl Future<Output = Outcome> + use<'a, 'b, S>> {
        let outcome = match ran {
            Ok(outcome) => outcome,
            Err(limit) => crate::gate::effect::timed_out(self.ctx, self.def, limit),
        };
        match self.run.take() {
            None => Finished::Now(outcome),
            Some(run) => Finished::Later(Box::pin(async move {
                crate::gate::effect::after(self, *run, outcome).await
            })),
        }
    }
}

/// What [`Invocation::admit`] decided: the call runs now, or once the
/// effect gate, awaited, lets it.
#[doc(hidden)]
pub enum Admission<G> {
    Now,
    Later(Pin<Box<G>>),
}

/// What [`Invocation::finish`] left to do: nothing (the outcome is final),
/// or record it, awaited.
#[doc(hidden)]
pub enum Finished<R> {
    Now(Outcome),
    Later(Pin<Box<R>>),
}

/// A call as [`Tool::__call`] starts it: its outcome, if the call ended at
/// once, or the rest of it, boxed. A tool whose body is a plain function
/// and whose call needs nothing of gate 6's store ends at once, and its
/// call allocates no future.
#[doc(hidden)]
pub enum Call<'a> {
    /// Ended; `None` once polled.
    Done(Option<Outcome>),
    /// Still running.
    Later(BoxFuture<'a, Outcome>),
}

impl Future for Call<'_> {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        match Pin::into_inner(self) {
            Call::Done(outcome) => match outcome.take() {
                Some(outcome) => Poll::Ready(outcome),
                None => Poll::Pending,
            },
            Call::Later(future) => future.as_mut().poll(cx),
        }
    }
}

/// The body of a tool that names no resource and whose body is a plain
/// function, not yet run: what [`Steps`] call it through, so that the
/// steps are compiled once for each state type, not once for each tool.
pub(crate) trait Body<'a>: Send {
    /// Runs the body: its outcome, or `None` if it ran before.
    fn run(&mut self) -> Option<Outcome>;

    /// The body, moved out of here into a box: for a call that waits.
    fn boxed(&mut self) -> Box<dyn Body<'a> + 'a>;
}

impl<'a, B: FnOnce() -> Outcome + Send + 'a> Body<'a> for Option<B> {
    fn run(&mut self) -> Option<Outcome> {
        // Matched, not mapped: one function fewer for each tool.
        #[allow(clippy::manual_map)]
        match self.take() {
            Some(body) => Some(body()),
            None => None,
        }
    }

    fn boxed(&mut self) -> Box<dyn Body<'a> + 'a> {
        Box::new(self.take())
    }
}

/// The call of a tool that names no resource and whose body is a plain
/// function, once its generated code has prepared it: gate 6, the body,
/// gate 6 again. Started by [`start`], and boxed only if gate 6 waits on
/// its store, its body boxed beside it.
///
/// A future written out rather than an async block, and not generic over
/// the body, so that it is compiled once for each state type: of each
/// tool, only the body's `Body` impl is compiled. (An async block generic
/// over the body would be compiled again for every tool, its steps and
/// drop glue included.)
struct Plain<'a, S> {
    steps: Steps<'a, S>,
    body: Box<dyn Body<'a> + 'a>,
}

impl<S: Sync> Future for Plain<'_, S> {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        // Nothing in it is pinned: the body is boxed, and so are the
        // gate's futures.
        let Plain { steps, body } = Pin::into_inner(self);
        steps.poll(cx, &mut **body)
    }
}

/// Starts the call of a tool that names no resource and whose body is a
/// plain function, once its generated code has read its arguments: the
/// approval and approver its expressions said (see [`Invocation::admit`])
/// and its `body`, not yet run. Its outcome, if it ended at once, or the
/// rest of it, boxed.
///
/// A `read` call that gate 6 lets straight through runs its body here.
/// Any other is polled once with a waker that does nothing: a call still
/// pending (gate 6 waits on its store) is boxed, and polled again at once
/// by the toolbox with the caller's waker, which is the one a future must
/// wake. Not generic over the body, which it reaches through [`Body`]:
/// compiled once for each state type, so that of each tool only the
/// body's call and its boxing are compiled.
pub(crate) fn start<'a, S>(
    invocation: Invocation<'a, S>,
    approval: Option<bool>,
    approver: Option<String>,
    body: &mut dyn Body<'a>,
) -> Call<'a>
where
    S: Send + Sync + 'static,
{
    // Gate 6 lets a `read` call that needs no approval straight through:
    // the body runs now, with no steps around it.
    if invocation.gated(approval).is_none() {
        invocation.starting();
        invocation.end();
        return Call::Done(body.run());
    }
    Steps::start(invocation, approval, approver, body)
}

/// The call of a tool that names no resource and whose body is async,
/// once its generated code has read its arguments: gate 6, the body
/// within its time limit, gate 6 again. Not generic over the body, so
/// that it is checked and compiled once for each state type; of each
/// tool, only the body's own future is.
pub(crate) async fn drive<'a, S: Sync>(
    mut invocation: Invocation<'a, S>,
    approval: Option<bool>,
    approver: Option<String>,
    mut body: BoxFuture<'a, Outcome>,
) -> Outcome {
    if let Admission::Later(gate) = invocation.admit(approval, approver)
        && let Err(outcome) = gate.await
    {
        return outcome;
    }
    let ran = invocation.run(Pin::new(&mut body)).await;
    match invocation.finish(ran) {
        Finished::Now(outcome) => outcome,
        Finished::Later(recording) => recording.await,
    }
}

/// A body asked to run again: never, as each call makes its body and runs
/// it once. Were it ever, the call fails, audited, rather than never
/// ending: here, and where the toolbox finds a call [`start`] ended with
/// no outcome.
#[cold]
pub(crate) fn ran_before(ctx: &ToolContext, def: &ToolDef) -> Outcome {
    let error: Box<dyn std::error::Error> = "the tool's body was asked to run a second time".into();
    audit::failed(ctx, def.name(), &*error);
    Outcome::Failed(Failure::new(ctx.request_id()))
}

/// A [`Plain`] call, but its body.
struct Steps<'a, S> {
    /// Here, except while gate 6 holds it.
    invocation: Option<Invocation<'a, S>>,
    approval: Option<bool>,
    approver: Option<String>,
    at: At<'a, S>,
}

/// Where a [`Plain`] call is.
enum At<'a, S> {
    /// At gate 6, or past it and done.
    Gate,
    /// Gate 6 holds the call and has not let it through yet.
    Admitting(crate::BoxFuture<'a, Result<Invocation<'a, S>, Outcome>>),
    /// Gate 6 keeps the body's outcome.
    Recording(crate::BoxFuture<'a, Outcome>),
}

impl<'a, S: Sync> Steps<'a, S> {
    /// The call of `body`, which gate 6 gates: polled once with a waker
    /// that does nothing, and boxed with its body if it waits. The part of
    /// [`start`] past its fast path.
    fn start(
        invocation: Invocation<'a, S>,
        approval: Option<bool>,
        approver: Option<String>,
        body: &mut dyn Body<'a>,
    ) -> Call<'a>
    where
        S: Send,
    {
        let mut steps = Steps {
            invocation: Some(invocation),
            approval,
            approver,
            at: At::Gate,
        };
        let mut now = Context::from_waker(core::task::Waker::noop());
        match steps.poll(&mut now, body) {
            Poll::Ready(outcome) => Call::Done(Some(outcome)),
            Poll::Pending => Call::Later(Box::pin(Plain {
                steps,
                body: body.boxed(),
            })),
        }
    }

    fn poll(&mut self, cx: &mut Context<'_>, body: &mut dyn Body<'_>) -> Poll<Outcome> {
        loop {
            match &mut self.at {
                At::Gate => {}
                At::Admitting(gate) => {
                    let admitted = core::task::ready!(gate.as_mut().poll(cx));
                    self.at = At::Gate;
                    match admitted {
                        Ok(invocation) => self.invocation = Some(invocation),
                        Err(outcome) => return Poll::Ready(outcome),
                    }
                    match self.ran(body) {
                        Some(outcome) => return Poll::Ready(outcome),
                        None => continue,
                    }
                }
                At::Recording(recording) => {
                    let outcome = core::task::ready!(recording.as_mut().poll(cx));
                    self.at = At::Gate;
                    return Poll::Ready(outcome);
                }
            }
            // At gate 6; done once the invocation is gone.
            let Some(invocation) = &self.invocation else {
                return Poll::Pending;
            };
            let Some(needs) = invocation.gated(self.approval) else {
                match self.ran(body) {
                    Some(outcome) => return Poll::Ready(outcome),
                    None => continue,
                }
            };
            let Some(mut invocation) = self.invocation.take() else {
                return Poll::Pending;
            };
            let approver = self.approver.take();
            self.at = At::Admitting(Box::pin(async move {
                invocation.held(needs, approver).await?;
                Ok(invocation)
            }));
        }
    }

    /// Runs the body of a call gate 6 let through: its outcome, or `None`
    /// once gate 6 is keeping it (`At::Recording`, polled next). Either
    /// way the invocation is gone after, and the call done.
    fn ran(&mut self, body: &mut dyn Body<'_>) -> Option<Outcome> {
        if let Some(invocation) = &self.invocation {
            invocation.starting();
        }
        let held = self.invocation.as_mut().and_then(|i| i.run.take());
        let Some(outcome) = body.run() else {
            return self
                .invocation
                .take()
                .map(|invocation| ran_before(invocation.ctx, invocation.def));
        };
        let Some(run) = held else {
            self.invocation = None;
            return Some(outcome);
        };
        let invocation = self.invocation.take()?;
        self.at = At::Recording(Box::pin(async move {
            crate::gate::effect::after(&invocation, *run, outcome).await
        }));
        None
    }
}

/// What the body returned, as the outcome the model sees.
#[doc(hidden)]
pub fn into_outcome<R: IntoOutcome>(returned: R, ctx: &ToolContext, def: &ToolDef) -> Outcome {
    returned.into_outcome(ctx, def)
}

pin_project_lite::pin_project! {
    /// An async body's future, its result made the call's outcome when it
    /// is ready. A type of the runtime's rather than an async block of each
    /// tool's own: each tool's crate compiles its `poll`, but does not
    /// check and lay out another coroutine around the body's.
    #[doc(hidden)]
    pub struct Finishing<'a, F> {
        #[pin]
        body: F,
        ctx: &'a ToolContext,
        def: &'a ToolDef,
    }
}

impl<'a, F> Finishing<'a, F>
where
    F: Future,
    F::Output: IntoOutcome,
{
    /// `body`, the tool function's future, finished as the call's outcome.
    #[doc(hidden)]
    #[inline(always)]
    pub fn new(body: F, ctx: &'a ToolContext, def: &'a ToolDef) -> Self {
        Finishing { body, ctx, def }
    }
}

impl<F> Future for Finishing<'_, F>
where
    F: Future,
    F::Output: IntoOutcome,
{
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let this = self.project();
        this.body
            .poll(cx)
            .map(|returned| returned.into_outcome(this.ctx, this.def))
    }
}

/// What a tool function may return: `Result<T, ToolError>` with `T: Serialize`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a `#[tool]` function must return `Result<T, ToolError>`, not `{Self}`",
    label = "this is not `Result<T, ToolError>`",
    note = "`T` is any `serde::Serialize` type; reject with `ToolError::reject(code, message)`, fail with `ToolError::internal(error)` or `?`"
)]
pub trait IntoOutcome {
    /// Converts, logging internal failures under the request id.
    fn into_outcome(self, ctx: &ToolContext, def: &ToolDef) -> Outcome;
}

impl<T: Serialize> IntoOutcome for Result<T, ToolError> {
    fn into_outcome(self, ctx: &ToolContext, def: &ToolDef) -> Outcome {
        match self {
            Ok(value) => match serde_json::to_value(value) {
                Ok(value) => Outcome::Done(value),
                Err(error) => {
                    audit::failed(ctx, def.name(), &error);
                    Outcome::Failed(Failure::new(ctx.request_id()))
                }
            },
            Err(ToolError(Repr::Rejected(rejection))) => {
                audit::rejected(ctx, def.name(), Gate::Execute, &rejection);
                Outcome::Rejected(rejection)
            }
            Err(ToolError(Repr::Denied(rejection, reason))) => {
                audit::denied(ctx, def.name(), Gate::Execute, &reason);
                Outcome::Rejected(rejection)
            }
            Err(ToolError(Repr::Internal(error))) => {
                audit::failed(ctx, def.name(), &*error);
                Outcome::Failed(Failure::new(ctx.request_id()))
            }
        }
    }
}
