//! Who is calling, built by the host from its authenticated transport.

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
}

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
            Allowed::Listed(list) => list.iter().any(|n| &**n == name),
        }
    }
}
