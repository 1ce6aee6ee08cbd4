//! Gate 7 as users write bodies first: a tool takes the toolbox's state,
//! or the part of it the state lends, or is a method of a `#[tools]`
//! block on the state's type; it reads what the host's authentication
//! attached to the context, and returns the errors of other libraries
//! with `?`.

use std::sync::Arc;

use toolgate::{Code, Outcome, Provides, ToolContext, ToolError, Toolbox, tool};

use crate::common::block_on;

fn ctx() -> ToolContext {
    ToolContext::new("user_7", "tenant_a", "req_1").allow_all_tools()
}

fn call<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    ctx: &ToolContext,
    tool: &str,
    args: &str,
) -> Outcome {
    block_on(toolbox.call(ctx, tool, args))
}

pub struct Catalogue {
    nightly_cents: u64,
}

/// Quote a stay.
#[tool(effect = read)]
fn quote(
    catalogue: &Catalogue,
    #[garde(range(min = 1, max = 30))] nights: u64,
) -> Result<u64, ToolError> {
    Ok(catalogue.nightly_cents * nights)
}

#[test]
fn a_tool_taking_its_state_joins_a_toolbox_of_an_arc_of_it() {
    let shared = Arc::new(Catalogue { nightly_cents: 100 });
    let mut toolbox = Toolbox::new(Arc::clone(&shared));
    toolbox.register(Quote).unwrap();
    let outcome = call(&toolbox, &ctx(), "quote", r#"{"nights":3}"#);
    assert_eq!(
        outcome.value(),
        Some(&serde_json::json!(300)),
        "{outcome:?}"
    );
    // The gates still run on the lent state's tool.
    let refused = call(&toolbox, &ctx(), "quote", r#"{"nights":31}"#);
    assert_eq!(
        refused.rejection().map(|r| r.code()),
        Some(Code::OutOfRange)
    );
    assert_eq!(Arc::strong_count(&shared), 2);
}

pub struct Server {
    catalogue: Catalogue,
}

impl Provides<Catalogue> for Server {
    fn provide(&self) -> &Catalogue {
        &self.catalogue
    }
}

#[test]
fn a_state_lends_the_part_a_tool_takes() {
    let mut toolbox = Toolbox::new(Server {
        catalogue: Catalogue { nightly_cents: 7 },
    });
    toolbox.register(Quote).unwrap();
    let outcome = call(&toolbox, &ctx(), "quote", r#"{"nights":2}"#);
    assert_eq!(outcome.value(), Some(&serde_json::json!(14)), "{outcome:?}");
}

/// What the host's token said about the caller.
pub struct Roles(Vec<&'static str>);

/// Say which roles the caller holds.
#[tool(effect = read)]
fn my_roles(ctx: &ToolContext) -> Result<String, ToolError> {
    Ok(match ctx.extension::<Roles>() {
        Some(roles) => roles.0.join(","),
        None => "none".to_owned(),
    })
}

#[test]
fn a_body_reads_what_the_host_attached_to_the_context() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(MyRoles).unwrap();
    let with = ctx().with_extension(Roles(vec!["support", "billing"]));
    let outcome = call(&toolbox, &with, "my_roles", "{}");
    assert_eq!(outcome.value(), Some(&serde_json::json!("support,billing")));
    let without = call(&toolbox, &ctx(), "my_roles", "{}");
    assert_eq!(without.value(), Some(&serde_json::json!("none")));
}

/// Read a ledger through a library that reports with `anyhow`.
#[tool(effect = read)]
fn ledger(fail: bool) -> Result<u32, ToolError> {
    fn library(fail: bool) -> anyhow::Result<u32> {
        if fail {
            anyhow::bail!("ledger shard 3 at 10.0.0.7 is down");
        }
        Ok(5)
    }
    Ok(library(fail)?)
}

/// Parse a number with the standard library, and fail with a `String`.
#[tool(effect = read)]
fn parse_number(text: String) -> Result<u32, ToolError> {
    let number: u32 = text.parse()?;
    if number == 13 {
        Err("13 is unlucky, see /etc/superstitions".to_owned())?;
    }
    Ok(number)
}

#[test]
fn errors_of_other_libraries_are_internal_failures_with_question_mark() {
    let mut toolbox = Toolbox::new(());
    toolbox
        .register(Ledger)
        .unwrap()
        .register(ParseNumber)
        .unwrap();
    assert_eq!(
        call(&toolbox, &ctx(), "ledger", r#"{"fail":false}"#).value(),
        Some(&serde_json::json!(5))
    );
    for (tool, args, secret) in [
        ("ledger", r#"{"fail":true}"#, "10.0.0.7"),
        ("parse_number", r#"{"text":"seven"}"#, "invalid digit"),
        ("parse_number", r#"{"text":"13"}"#, "superstitions"),
    ] {
        let outcome = call(&toolbox, &ctx(), tool, args);
        let Outcome::Failed(failure) = &outcome else {
            panic!("{tool} {args}: {outcome:?}");
        };
        // Internal: the model reads that it failed, never why.
        let seen = outcome.to_json().to_string();
        assert!(!seen.contains(secret), "{seen}");
        assert_eq!(failure.request_id(), "req_1");
    }
}

pub struct Account {
    balance_cents: std::sync::Mutex<i64>,
}

#[toolgate::tools]
impl Account {
    /// Read the balance.
    #[tool(effect = read)]
    pub fn balance(&self) -> Result<i64, ToolError> {
        Ok(*self.balance_cents.lock().unwrap())
    }

    /// Add to the balance.
    #[tool(effect = write, name = "credit_ledger")]
    pub async fn credit(
        &self,
        ctx: &ToolContext,
        /// The amount, in cents.
        #[garde(range(min = 1, max = 10_000))]
        amount_cents: i64,
    ) -> Result<String, ToolError> {
        let mut balance = self.balance_cents.lock().unwrap();
        *balance += amount_cents;
        Ok(format!("{} credited {amount_cents}", ctx.actor()))
    }

    /// An ordinary method, untouched.
    pub fn reset(&self) {
        *self.balance_cents.lock().unwrap() = 0;
    }
}

#[test]
fn methods_of_a_tools_block_are_tools_on_their_type() {
    let account = Arc::new(Account {
        balance_cents: std::sync::Mutex::new(100),
    });
    let mut toolbox = Toolbox::new(Arc::clone(&account));
    toolbox.register(Balance).unwrap().register(Credit).unwrap();
    let credited = call(&toolbox, &ctx(), "credit_ledger", r#"{"amount_cents":50}"#);
    assert_eq!(
        credited.value(),
        Some(&serde_json::json!("user_7 credited 50"))
    );
    let refused = call(&toolbox, &ctx(), "credit_ledger", r#"{"amount_cents":0}"#);
    assert_eq!(
        refused.rejection().map(|r| r.code()),
        Some(Code::OutOfRange)
    );
    let unknown = call(
        &toolbox,
        &ctx(),
        "credit_ledger",
        r#"{"amount_cents":5,"to":"me"}"#,
    );
    assert_eq!(
        unknown.rejection().map(|r| r.code()),
        Some(Code::UnknownField)
    );
    assert_eq!(
        call(&toolbox, &ctx(), "balance", "{}").value(),
        Some(&serde_json::json!(150))
    );
    account.reset();
    assert_eq!(
        call(&toolbox, &ctx(), "balance", "{}").value(),
        Some(&serde_json::json!(0))
    );
}
