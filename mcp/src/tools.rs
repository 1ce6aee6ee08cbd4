//! Several toolboxes, each with its own state, served as one set of tools.

use std::sync::Arc;

use toolgate::{
    Approval, ApprovalError, BoxFuture, Limits, Outcome, Rejection, StoreError, ToolContext,
    ToolDef, Toolbox,
};

/// What the server needs of a toolbox, whatever its state type.
trait Served: Send + Sync + 'static {
    fn definitions(&self) -> Vec<&ToolDef>;
    fn definitions_for<'a>(&'a self, ctx: &ToolContext) -> Vec<&'a ToolDef>;
    fn has(&self, name: &str) -> bool;
    fn names(&self) -> Vec<&'static str>;
    fn limits(&self) -> Limits;
    fn call<'a>(
        &'a self,
        ctx: &'a ToolContext,
        name: &'a str,
        arguments: &'a str,
    ) -> BoxFuture<'a, Outcome>;
    fn decide<'a>(
        &'a self,
        approver: &'a ToolContext,
        id: &'a str,
        approve: bool,
    ) -> BoxFuture<'a, Result<(), ApprovalError>>;
    fn resume<'a>(&'a self, ctx: &'a ToolContext, id: &'a str) -> BoxFuture<'a, Outcome>;
    fn approval<'a>(&'a self, ctx: &'a ToolContext, id: &'a str)
    -> BoxFuture<'a, Option<Approval>>;
    fn pending<'a>(
        &'a self,
        approver: &'a ToolContext,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Approval>, StoreError>>;
    fn withdraw<'a>(
        &'a self,
        who: &'a ToolContext,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), ApprovalError>>;
}

impl<S: Send + Sync + 'static> Served for Toolbox<S> {
    fn definitions(&self) -> Vec<&ToolDef> {
        Toolbox::definitions(self).collect()
    }

    fn definitions_for<'a>(&'a self, ctx: &ToolContext) -> Vec<&'a ToolDef> {
        Toolbox::definitions_for(self, ctx).collect()
    }

    fn has(&self, name: &str) -> bool {
        self.definition(name).is_some()
    }

    fn names(&self) -> Vec<&'static str> {
        self.definitions().map(ToolDef::name).collect()
    }

    fn limits(&self) -> Limits {
        Toolbox::limits(self)
    }

    fn call<'a>(
        &'a self,
        ctx: &'a ToolContext,
        name: &'a str,
        arguments: &'a str,
    ) -> BoxFuture<'a, Outcome> {
        Box::pin(Toolbox::call(self, ctx, name, arguments))
    }

    fn decide<'a>(
        &'a self,
        approver: &'a ToolContext,
        id: &'a str,
        approve: bool,
    ) -> BoxFuture<'a, Result<(), ApprovalError>> {
        if approve {
            Box::pin(Toolbox::approve(self, approver, id))
        } else {
            Box::pin(Toolbox::deny(self, approver, id))
        }
    }

    fn resume<'a>(&'a self, ctx: &'a ToolContext, id: &'a str) -> BoxFuture<'a, Outcome> {
        Box::pin(Toolbox::resume(self, ctx, id))
    }

    fn approval<'a>(
        &'a self,
        ctx: &'a ToolContext,
        id: &'a str,
    ) -> BoxFuture<'a, Option<Approval>> {
        Box::pin(async move { Toolbox::approval(self, ctx, id).await.ok().flatten() })
    }

    fn pending<'a>(
        &'a self,
        approver: &'a ToolContext,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Approval>, StoreError>> {
        Box::pin(Toolbox::pending_approvals(self, approver, limit))
    }

    fn withdraw<'a>(
        &'a self,
        who: &'a ToolContext,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), ApprovalError>> {
        Box::pin(Toolbox::withdraw(self, who, id))
    }
}

/// The tools an MCP server serves: one toolbox, or several whose states
/// differ (a hotel toolbox and a shop toolbox), as one list.
///
/// ```
/// # use toolgate::Toolbox;
/// use toolgate_mcp::Tools;
///
/// let tools = Tools::new().with(Toolbox::new(1u8)).with(Toolbox::new("another state"));
/// # let _ = tools;
/// ```
#[derive(Clone, Default)]
pub struct Tools {
    boxes: Vec<Arc<dyn Served>>,
}

impl core::fmt::Debug for Tools {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list()
            .entries(self.boxes.iter().flat_map(|b| b.names()))
            .finish()
    }
}

impl Tools {
    /// No tools.
    pub fn new() -> Self {
        Tools::default()
    }

    /// Adds a toolbox's tools.
    ///
    /// # Panics
    ///
    /// If it registers a name another toolbox here already serves: which
    /// one a call reaches must never depend on the order of `with`.
    #[must_use]
    pub fn with<S: Send + Sync + 'static>(mut self, toolbox: impl Into<Arc<Toolbox<S>>>) -> Self {
        let toolbox: Arc<Toolbox<S>> = toolbox.into();
        for name in toolbox.definitions().map(ToolDef::name) {
            assert!(
                !self.boxes.iter().any(|b| b.has(name)),
                "two toolboxes register the tool `{name}`; each name must be served by one"
            );
        }
        self.boxes.push(toolbox);
        self
    }

    /// Every tool, whoever calls.
    pub(crate) fn definitions(&self) -> Vec<&ToolDef> {
        self.boxes.iter().flat_map(|b| b.definitions()).collect()
    }

    /// The tools `ctx` may call.
    pub(crate) fn definitions_for(&self, ctx: &ToolContext) -> Vec<&ToolDef> {
        self.boxes
            .iter()
            .flat_map(|b| b.definitions_for(ctx))
            .collect()
    }

    /// The widest limits of every toolbox.
    pub(crate) fn limits(&self) -> Limits {
        self.boxes
            .iter()
            .map(|b| b.limits())
            .reduce(|wide, limits| {
                wide.max_bytes(wide.bytes().max(limits.bytes()))
                    .max_depth(wide.depth().max(limits.depth()))
                    .max_nodes(wide.nodes().max(limits.nodes()))
                    .max_string_bytes(wide.string_bytes().max(limits.string_bytes()))
            })
            .unwrap_or_default()
    }

    /// The toolbox that has the tool `name`.
    fn serving(&self, name: &str) -> Option<&Arc<dyn Served>> {
        self.boxes.iter().find(|b| b.has(name))
    }

    /// Whether a toolbox here has the tool `name`.
    pub(crate) fn serves(&self, name: &str) -> bool {
        self.serving(name).is_some()
    }

    /// Approves (or denies) an approval of the tool `name`, as `approver`.
    pub(crate) async fn decide(
        &self,
        name: &str,
        approver: &ToolContext,
        id: &str,
        approve: bool,
    ) -> Result<(), ApprovalError> {
        match self.serving(name) {
            Some(toolbox) => toolbox.decide(approver, id, approve).await,
            None => Err(ApprovalError::NotFound),
        }
    }

    /// The approval `id` of the tool `name`, if it is in `ctx`'s tenant
    /// (and the store answers).
    pub(crate) async fn approval(
        &self,
        name: &str,
        ctx: &ToolContext,
        id: &str,
    ) -> Option<Approval> {
        self.serving(name)?.approval(ctx, id).await
    }

    /// Resumes an approved call of the tool `name`.
    pub(crate) async fn resume(&self, name: &str, ctx: &ToolContext, id: &str) -> Outcome {
        match self.serving(name) {
            Some(toolbox) => toolbox.resume(ctx, id).await,
            None => Outcome::Rejected(Rejection::not_permitted()),
        }
    }

    /// The approvals `approver` may decide, of the tools served here,
    /// oldest first, at most `limit`: from every toolbox's store, each
    /// once (toolboxes may share one store).
    pub(crate) async fn pending(
        &self,
        approver: &ToolContext,
        limit: usize,
    ) -> Result<Vec<Approval>, StoreError> {
        let mut listed: Vec<Approval> = Vec::new();
        for toolbox in &self.boxes {
            for approval in toolbox.pending(approver, limit).await? {
                if self.serves(&approval.tool) && !listed.iter().any(|a| a.id == approval.id) {
                    listed.push(approval);
                }
            }
        }
        listed.sort_by(|a, b| {
            toolgate::rules::listing_order(a).cmp(&toolgate::rules::listing_order(b))
        });
        listed.truncate(limit);
        Ok(listed)
    }

    /// The toolbox whose tool the approval `id` (in `ctx`'s tenant) is
    /// for; else the first, whose refusal is the flat one every unknown
    /// id gets, and which logs why.
    async fn deciding(&self, ctx: &ToolContext, id: &str) -> Option<&Arc<dyn Served>> {
        for toolbox in &self.boxes {
            if let Some(approval) = toolbox.approval(ctx, id).await
                && let Some(serving) = self.serving(&approval.tool)
            {
                return Some(serving);
            }
        }
        self.boxes.first()
    }

    /// Approves or denies the approval `id`, whatever its tool, as
    /// `approver`.
    pub(crate) async fn decide_by_id(
        &self,
        approver: &ToolContext,
        id: &str,
        approve: bool,
    ) -> Result<(), ApprovalError> {
        match self.deciding(approver, id).await {
            Some(toolbox) => toolbox.decide(approver, id, approve).await,
            None => Err(ApprovalError::NotFound),
        }
    }

    /// Withdraws the approval `id`, whatever its tool, as `who`.
    pub(crate) async fn withdraw(&self, who: &ToolContext, id: &str) -> Result<(), ApprovalError> {
        match self.deciding(who, id).await {
            Some(toolbox) => toolbox.withdraw(who, id).await,
            None => Err(ApprovalError::NotFound),
        }
    }

    /// Runs the call in the toolbox that has the tool. A name no toolbox
    /// has goes to the first, which refuses it as it refuses any tool the
    /// caller may not use.
    pub(crate) async fn call(&self, ctx: &ToolContext, name: &str, arguments: &str) -> Outcome {
        let target = self.serving(name).or_else(|| self.boxes.first());
        match target {
            Some(toolbox) => toolbox.call(ctx, name, arguments).await,
            None => Outcome::Rejected(Rejection::not_permitted()),
        }
    }
}

impl<S: Send + Sync + 'static> From<Toolbox<S>> for Tools {
    fn from(toolbox: Toolbox<S>) -> Self {
        Tools::new().with(toolbox)
    }
}

impl<S: Send + Sync + 'static> From<Arc<Toolbox<S>>> for Tools {
    fn from(toolbox: Arc<Toolbox<S>>) -> Self {
        Tools::new().with(toolbox)
    }
}
