//! Gates 4–5 answer the model with one byte-identical `NOT_PERMITTED` for
//! every reason, so a rejection is never an existence oracle; the audit log
//! keeps each real reason.

use std::sync::atomic::Ordering;

use toolgate::{ToolContext, Toolbox};
use toolgate_examples::export::{Accounts, ScheduleExport};

use crate::common::{Record, audit, block_on};

fn attempt(actor: &str, account: &str, outage: bool) -> (String, Record) {
    let mut toolbox = Toolbox::new(Accounts::demo());
    toolbox.register(ScheduleExport).unwrap();
    toolbox.state().outage.store(outage, Ordering::Relaxed);
    let ctx = ToolContext::new(actor, "tenant_a", format!("req_{account}"))
        .with_scopes(["exports:write"])
        .allow_tools(["schedule_export"]);
    let args = format!(r#"{{"account_ref":"{account}","format":"csv","columns":["id"]}}"#);
    let (outcome, log) = audit(|| block_on(toolbox.call(&ctx, "schedule_export", args.as_str())));
    assert!(
        toolbox.state().queued().is_empty(),
        "a denied call reached the export queue"
    );
    let mut denials: Vec<Record> = log
        .into_iter()
        .filter(|r| r["message"] == "call denied")
        .collect();
    assert_eq!(denials.len(), 1);
    (serde_json::to_string(&outcome).unwrap(), denials.remove(0))
}

#[test]
fn one_answer_for_the_model_four_reasons_in_the_log() {
    let cases = [
        ("missing", attempt("analyst_1", "acct_404", false)),
        ("other tenant", attempt("analyst_1", "acct_7", false)),
        ("policy", attempt("intruder", "acct_42", false)),
        ("fault", attempt("analyst_1", "acct_42", true)),
    ];
    for (what, (bytes, _)) in &cases {
        assert_eq!(
            bytes,
            r#"{"status":"rejected","code":"NOT_PERMITTED","path":"","safe_message":"This action is not permitted.","retryable":false}"#,
            "{what}"
        );
    }
    let logged: Vec<[&str; 4]> = cases
        .iter()
        .map(|(_, (_, r))| {
            [
                r["gate"].as_str(),
                r["reference"].as_str(),
                r["reason"].as_str(),
                r["request_id"].as_str(),
            ]
        })
        .collect();
    assert_eq!(
        logged,
        [
            [
                "resolve",
                "AccountRef(\"acct_404\")",
                "not found in the caller's tenant",
                "req_acct_404"
            ],
            [
                "resolve",
                "AccountRef(\"acct_7\")",
                "not found in the caller's tenant",
                "req_acct_7"
            ],
            [
                "authorize",
                "AccountRef(\"acct_42\")",
                "intruder is not an exporter of acct_42",
                "req_acct_42"
            ],
            [
                "resolve",
                "AccountRef(\"acct_42\")",
                "resolver failed: accounts database unreachable",
                "req_acct_42"
            ],
        ]
    );
    for (_, (_, record)) in &cases {
        assert_eq!(record["tool"], "schedule_export");
        assert_eq!(record["tenant"], "tenant_a");
        assert_eq!(record["field"], "account_ref");
        assert_eq!(record["target"], "toolgate::audit");
    }
}
