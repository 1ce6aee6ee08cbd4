//! Who is calling, built by the host from its authenticated transport.

use core::any::{Any, TypeId};
use core::fmt;
use std::sync::Arc;

/// The authenticated facts of one request: actor, tenant, granted scopes,
/// request id, and which tools this request may call.
///
/// The host builds it from its own session or token, never from model output;
/// the `#[tool]` wrapper hands it to the function body as `&ToolContext`, and
/// nothing in it can appear in a tool's schema.
///
/// A context allows no tool until told otherwise: deny by default.
///
/// ```
/// use toolgate::ToolContext;
///
/// let ctx = ToolContext::new("user_7", "tenant_a", "req_42")
///     .with_scopes(["bookings:write"])
///     .allow_tools(["book_hotel"]);
/// assert!(ctx.has_scope("bookings:write"));
/// assert!(ctx.allows_tool("book_hotel"));
/// assert!(!ctx.allows_tool("delete_account"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolContext {
    actor: Box<str>,
    tenant: Box<str>,
    request_id: Box<str>,
    session_id: Option<Box<str>>,
    call_id: Option<Box<str>>,
    scopes: Vec<Box<str>>,
    allowed: Allowed,
    extensions: Extensions,
}

/// Typed values the host attaches to a [`ToolContext`]: one per type,
/// shared (not copied) by the context's clones.
///
/// A host whose authentication builds several contexts (one per request)
/// fills one `Extensions` and hands it to each with
/// [`ToolContext::with_extensions`].
///
/// ```
/// use toolgate::{Extensions, ToolContext};
///
/// struct Locale(&'static str);
///
/// let mut extensions = Extensions::new();
/// extensions.insert(Locale("de-CH"));
/// let ctx = ToolContext::new("user_7", "tenant_a", "req_42").with_extensions(&extensions);
/// assert_eq!(ctx.extension::<Locale>().map(|l| l.0), Some("de-CH"));
/// ```
#[derive(Clone, Default)]
pub struct Extensions(Vec<(TypeId, &'static str, Arc<dyn Any + Send + Sync>)>);

impl Extensions {
    /// No values.
    pub fn new() -> Self {
        Extensions(Vec::new())
    }

    /// Attaches `value`, replacing a value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.put(
            TypeId::of::<T>(),
            core::any::type_name::<T>(),
            Arc::new(value),
        );
    }

    /// The value of type `T`, if one was attached.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.0
            .iter()
            .find(|(id, ..)| *id == TypeId::of::<T>())
            .and_then(|(.., value)| value.downcast_ref())
    }

    /// Whether no value was attached.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn put(&mut self, id: TypeId, name: &'static str, value: Arc<dyn Any + Send + Sync>) {
        match self.0.iter_mut().find(|(slot, ..)| *slot == id) {
            Some(slot) => slot.2 = value,
            None => self.0.push((id, name, value)),
        }
    }
}

/// The types attached, by name.
impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(_, name, _)| name))
            .finish()
    }
}

/// The same types, each holding the same value (attached once and shared
/// by cloning).
impl PartialEq for Extensions {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().all(|(id, _, value)| {
                other.0.iter().any(|(other_id, _, other_value)| {
                    id == other_id && Arc::ptr_eq(value, other_value)
                })
            })
    }
}

impl Eq for Extensions {}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Allowed {
    Listed(Vec<Box<str>>),
    Every,
}

impl ToolContext {
    /// A context for `actor` in `tenant`, handling request `request_id`,
    /// with no scopes and no tools allowed.
    pub fn new(
        actor: impl Into<Box<str>>,
        tenant: impl Into<Box<str>>,
        request_id: impl Into<Box<str>>,
    ) -> Self {
        ToolContext {
            actor: actor.into(),
            tenant: tenant.into(),
            request_id: request_id.into(),
            session_id: None,
            call_id: None,
            scopes: Vec::new(),
            allowed: Allowed::Listed(Vec::new()),
            extensions: Extensions::new(),
        }
    }

    /// Adds granted scopes.
    #[must_use]
    pub fn with_scopes<I>(mut self, scopes: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<Box<str>>,
    {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Sets the conversation or agent session this request belongs to.
    #[must_use]
    pub fn with_session(mut self, session_id: impl Into<Box<str>>) -> Self {
        self.session_id = Some(session_id.into());
        self
    }

    /// Sets the idempotency key of this call, as the host knows it (the
    /// provider's tool-call id, say). Gate 6 then keys the call's record by
    /// it instead of by the action it derives from the arguments: a repeat
    /// with this key replays the outcome, and the key reused with other
    /// arguments is `IDEMPOTENCY_CONFLICT`.
    #[must_use]
    pub fn with_call_id(mut self, call_id: impl Into<Box<str>>) -> Self {
        self.call_id = Some(call_id.into());
        self
    }

    /// Adds tools, by name, to this request's allow-list.
    #[must_use]
    pub fn allow_tools<I>(mut self, names: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<Box<str>>,
    {
        if let Allowed::Listed(list) = &mut self.allowed {
            list.extend(names.into_iter().map(Into::into));
        }
        self
    }

    /// Allows every registered tool, subject to scopes. Prefer
    /// [`allow_tools`](Self::allow_tools) with what the request needs: a
    /// tool the request does not need is a tool the model should not reach.
    #[must_use]
    pub fn allow_all_tools(mut self) -> Self {
        self.allowed = Allowed::Every;
        self
    }

    /// Attaches a typed value that the host's authentication knows and the
    /// tools may read: the token's claims, the actor's roles, a locale.
    /// One value per type; a second of the same type replaces the first.
    ///
    /// Like everything in the context, an extension comes from the host,
    /// never from the model.
    ///
    /// ```
    /// use toolgate::ToolContext;
    ///
    /// #[derive(Debug, PartialEq)]
    /// struct Roles(Vec<&'static str>);
    ///
    /// let ctx = ToolContext::new("user_7", "tenant_a", "req_42")
    ///     .with_extension(Roles(vec!["support"]));
    /// assert_eq!(ctx.extension::<Roles>(), Some(&Roles(vec!["support"])));
    /// assert_eq!(ctx.extension::<String>(), None);
    /// ```
    #[must_use]
    pub fn with_extension<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.extensions.insert(value);
        self
    }

    /// Attaches every value of `extensions` (shared, not copied), each
    /// replacing a value of its type.
    #[must_use]
    pub fn with_extensions(mut self, extensions: &Extensions) -> Self {
        for (id, name, value) in &extensions.0 {
            self.extensions.put(*id, name, Arc::clone(value));
        }
        self
    }

    /// The extension of type `T` the host attached, if any
    /// ([`with_extension`](Self::with_extension)).
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.extensions.get()
    }

    /// Every extension the host attached.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The host's idempotency key for this call, if it gave one.
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// The authenticated actor.
    pub fn actor(&self) -> &str {
        &self.actor
    }

    /// The tenant every lookup must be scoped to.
    pub fn tenant(&self) -> &str {
        &self.tenant
    }

    /// The host's id for this request; it appears in failures and the audit log.
    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    /// The session, if the host set one.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The granted scopes.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter().map(|s| &**s)
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| &**s == scope)
    }

    /// Whether this request may call the tool named `name`.
    pub fn allows_tool(&self, name: &str) -> bool {
        match &self.allowed {
            Allowed::Every => true,
            // A name of 16 bytes or fewer is compared without a call,
            // so the check needs no registers saved around one.
            Allowed::Listed(list) if name.len() <= 16 => list
                .iter()
                .any(|n| crate::json::text::same_text(n.as_bytes(), name.as_bytes())),
            Allowed::Listed(list) => listed(list, name),
        }
    }
}

/// Whether `list` names the tool `name`, longer than 16 bytes.
#[cold]
fn listed(list: &[Box<str>], name: &str) -> bool {
    list.iter().any(|n| **n == *name)
}
