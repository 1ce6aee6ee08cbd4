//! Scheduling an export (seed 000): the model names an account by
//! reference; the server resolves it inside the caller's tenant, authorizes
//! the resolved account, and only then checks the account's own rules
//! (exports enabled, PII allowed, row limit) before queueing the job.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::policies::Backend;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolgate::{
    Authorize, Authorized, Denied, DomainCode, Fault, NotFound, Resolved, Resource, ToolContext,
    ToolError, ToolInfo, tool,
};

/// The account has exports turned off.
pub const EXPORTS_DISABLED: DomainCode = DomainCode::new("EXPORTS_DISABLED");
/// The export asks for personal data the account may not export.
pub const PII_EXPORT_DISABLED: DomainCode = DomainCode::new("PII_EXPORT_DISABLED");
/// The export is larger than the account's limit.
pub const ROW_LIMIT_EXCEEDED: DomainCode = DomainCode::new("ROW_LIMIT_EXCEEDED");

/// An account, as the server stores it; its fields are what a Cedar
/// policy reads of it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Account {
    /// `acct_` and letters or digits.
    pub id: String,
    /// The tenant that owns it.
    pub tenant: String,
    /// Actors who may export from it.
    pub exporters: Vec<String>,
    /// Whether exports are on.
    pub exports_enabled: bool,
    /// Whether columns with personal data may be exported.
    pub pii_export_enabled: bool,
    /// The largest export allowed, in rows.
    pub export_row_limit: u64,
    /// The rows an export would contain.
    pub rows: u64,
    /// Exports larger than this wait for a person's approval.
    pub approval_row_threshold: u64,
}

/// A reference to an account: `acct_` and letters or digits.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
pub struct AccountRef(
    #[garde(pattern(r"^acct_[a-zA-Z0-9]+$"), length(chars, max = 40))] pub String,
);

/// The file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Comma-separated values.
    Csv,
    /// One JSON object per line.
    Jsonl,
}

/// A column to export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Column {
    /// The row id.
    Id,
    /// The row's status.
    Status,
    /// When the row was created.
    CreatedAt,
    /// The contact email: personal data.
    Email,
}

/// One to three different columns.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
#[schemars(extend("uniqueItems" = true))]
pub struct Columns(#[garde(length(min = 1, max = 3), custom(all_different))] pub Vec<Column>);

fn all_different(columns: &[Column], _: &()) -> garde::Result {
    // One bit for each column seen: however long a list a model sends,
    // checking it allocates nothing.
    let mut seen = 0u8;
    for column in columns {
        let bit = 1 << *column as u8;
        if seen & bit != 0 {
            return Err(garde::Error::new("must list each column once"));
        }
        seen |= bit;
    }
    Ok(())
}

/// A queued export: what the tool returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ExportJob {
    /// The job's id.
    pub job_id: String,
    /// The exported account.
    pub account_id: String,
    /// The format.
    pub format: Format,
    /// The columns.
    pub columns: Vec<Column>,
    /// Who asked, from the request context.
    pub requested_by: String,
}

/// The application state: accounts of every tenant, and the export queue.
#[derive(Debug, Default)]
pub struct Accounts {
    accounts: HashMap<(String, String), Account>,
    queue: Mutex<Vec<ExportJob>>,
    /// Makes every lookup fail, as a database outage would.
    pub outage: AtomicBool,
    /// Who decides gate 5: the Rust policy below, or Cedar's.
    backend: Backend,
}

impl Accounts {
    /// Accounts in two tenants, `tenant_a` and `tenant_b`.
    pub fn demo() -> Self {
        let account =
            |id: &str, tenant: &str, exports: bool, pii: bool, limit: u64, rows: u64| Account {
                id: id.to_owned(),
                tenant: tenant.to_owned(),
                exporters: vec!["analyst_1".to_owned()],
                exports_enabled: exports,
                pii_export_enabled: pii,
                export_row_limit: limit,
                rows,
                approval_row_threshold: 10_000,
            };
        let accounts = [
            account("acct_42", "tenant_a", true, false, 100_000, 1_200),
            account("acct_frozen", "tenant_a", false, false, 100_000, 10),
            account("acct_huge", "tenant_a", true, true, 100_000, 2_500_000),
            account("acct_big", "tenant_a", true, false, 100_000, 50_000),
            account("acct_7", "tenant_b", true, true, 100_000, 50),
        ];
        Accounts {
            accounts: accounts
                .into_iter()
                .map(|a| ((a.tenant.clone(), a.id.clone()), a))
                .collect(),
            ..Accounts::default()
        }
    }

    /// Decides gate 5 by Cedar `policies` instead of the Rust policy.
    #[cfg(feature = "cedar")]
    #[must_use]
    pub fn with_policies(mut self, policies: std::sync::Arc<toolgate_cedar::Policies>) -> Self {
        self.backend = Backend::Cedar(policies);
        self
    }

    /// Every queued export: the side effect a refused call must never reach.
    pub fn queued(&self) -> Vec<ExportJob> {
        self.queue.lock().map(|q| q.clone()).unwrap_or_default()
    }
}

impl Resource<Accounts> for Account {
    type Ref = AccountRef;

    async fn resolve(
        ctx: &ToolContext,
        accounts: &Accounts,
        reference: &AccountRef,
    ) -> Result<Option<Account>, Fault> {
        if accounts.outage.load(Ordering::Relaxed) {
            return Err(Fault::new("accounts database unreachable"));
        }
        // The lookup is keyed by the caller's tenant: another tenant's
        // account is not found, exactly like one that does not exist.
        let key = (ctx.tenant().to_owned(), reference.0.clone());
        Ok(accounts.accounts.get(&key).cloned())
    }
}

#[cfg(feature = "cedar")]
impl toolgate_cedar::CedarEntity for Account {
    fn entity_id(&self) -> String {
        self.id.clone()
    }
}

/// One policy for every tool that takes an account: the caller must be one
/// of its exporters.
impl<T: ToolInfo> Authorize<T, Accounts> for Account {
    async fn authorize(
        ctx: &ToolContext,
        accounts: &Accounts,
        account: &Resolved<Account>,
    ) -> Result<(), Denied> {
        accounts.backend.authorize(ctx, account, |account| {
            if account.exporters.iter().any(|a| a == ctx.actor()) {
                Ok(())
            } else {
                Err(Denied::because(format!(
                    "{} is not an exporter of {}",
                    ctx.actor(),
                    account.id
                )))
            }
        })
    }

    async fn not_found(ctx: &ToolContext, accounts: &Accounts, missing: &NotFound<'_>) {
        accounts.backend.not_found::<Account>(ctx, missing);
    }
}

/// The account's own rules for an export (seed 000's `validateExport`).
/// They need the resolved account, so they run after authorization: a
/// caller never learns them for an account it may not see.
pub fn export_allowed(account: &Account, columns: &Columns) -> Result<(), ToolError> {
    if !account.exports_enabled {
        return Err(ToolError::reject(
            EXPORTS_DISABLED,
            "exports are turned off for this account",
        ));
    }
    if columns.0.contains(&Column::Email) && !account.pii_export_enabled {
        return Err(ToolError::reject(
            PII_EXPORT_DISABLED,
            "this account may not export email; choose other columns",
        )
        .at("/columns")
        .retryable(true));
    }
    if account.rows > account.export_row_limit {
        return Err(ToolError::reject(
            ROW_LIMIT_EXCEEDED,
            format!(
                "this export would exceed the account's limit of {} rows; ask for a narrower export",
                account.export_row_limit
            ),
        ));
    }
    Ok(())
}

/// Queue an export of one of the caller's accounts.
#[tool(
    scope = "exports:write",
    effect = write,
    check = export_allowed(&account, &columns),
    approval = account.rows > account.approval_row_threshold
)]
pub async fn schedule_export(
    ctx: &ToolContext,
    accounts: &Accounts,
    /// The account to export from.
    #[serde(rename = "account_ref")]
    account: Authorized<Account>,
    /// The file format.
    format: Format,
    /// One to three different columns.
    #[garde(dive)]
    columns: Columns,
) -> Result<ExportJob, ToolError> {
    let mut queue = accounts
        .queue
        .lock()
        .map_err(|_| ToolError::internal("the export queue is poisoned"))?;
    let job = ExportJob {
        job_id: format!("exp_{}", queue.len() + 1),
        account_id: account.id.clone(),
        format,
        columns: columns.0,
        requested_by: ctx.actor().to_owned(),
    };
    queue.push(job.clone());
    Ok(job)
}
