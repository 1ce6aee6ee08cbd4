//! Seed 004: `refund_invoice` with a tagged-union reason.

use toolgate::{Code, Outcome, ToolContext, Toolbox};
use toolgate_examples::invoice::{Billing, RefundInvoice};

use crate::common;
use crate::common::block_on;

fn toolbox() -> Toolbox<Billing> {
    let mut toolbox = Toolbox::new(Billing::demo()).with_effect_policy(common::no_approvals());
    toolbox.register(RefundInvoice).unwrap();
    toolbox
}

fn call(toolbox: &Toolbox<Billing>, args: &str) -> Outcome {
    let ctx = ToolContext::new("agent_2", "tenant_a", "req_3")
        .with_scopes(["billing:refund"])
        .allow_tools(["refund_invoice"]);
    block_on(toolbox.call(&ctx, "refund_invoice", args))
}

#[test]
fn each_reason_in_its_own_shape() {
    let toolbox = toolbox();
    for reason in [
        r#"{"kind":"duplicate"}"#,
        r#"{"kind":"error"}"#,
        r#"{"kind":"goodwill","approver_id":"usr_lena"}"#,
    ] {
        let args = format!(r#"{{"invoice_id":"inv_88","amount_cents":4500,"reason":{reason}}}"#);
        let outcome = call(&toolbox, &args);
        assert!(outcome.value().is_some(), "{args}: {outcome:?}");
    }
    assert_eq!(toolbox.state().refunds().len(), 3);
}

#[test]
fn goodwill_needs_an_approver_and_nothing_else_may_have_one() {
    let toolbox = toolbox();
    for (reason, code, path) in [
        (
            r#"{"kind":"goodwill"}"#,
            Code::MissingField,
            "/reason/approver_id",
        ),
        (
            r#"{"kind":"goodwill","approver_id":"lena"}"#,
            Code::PatternMismatch,
            "/reason/approver_id",
        ),
        (
            r#"{"kind":"duplicate","approver_id":"usr_lena"}"#,
            Code::UnknownField,
            "/reason/approver_id",
        ),
        (
            r#"{"kind":"error","approver_id":"usr_lena"}"#,
            Code::UnknownField,
            "/reason/approver_id",
        ),
        (r#"{"kind":"because"}"#, Code::InvalidValue, "/reason/kind"),
        (r#"{}"#, Code::MissingField, "/reason/kind"),
        (r#""goodwill""#, Code::WrongType, "/reason"),
    ] {
        let args = format!(r#"{{"invoice_id":"inv_88","amount_cents":4500,"reason":{reason}}}"#);
        let outcome = call(&toolbox, &args);
        let r = outcome
            .rejection()
            .unwrap_or_else(|| panic!("{args}: {outcome:?}"));
        assert_eq!((r.code(), r.path()), (code, path), "{args}: {r}");
    }
    assert!(toolbox.state().refunds().is_empty());
}

#[test]
fn the_schema_states_the_union() {
    let schema = RefundInvoice::definition().schema();
    let reason = &schema["$defs"]["RefundReason"]["oneOf"];
    assert_eq!(reason.as_array().unwrap().len(), 3);
    for branch in reason.as_array().unwrap() {
        assert_eq!(branch["additionalProperties"], false, "{branch}");
    }
}

#[test]
fn another_tenants_invoice_a_void_one_and_a_missing_one_look_the_same() {
    let toolbox = toolbox();
    let bytes = |invoice: &str| {
        let args = format!(
            r#"{{"invoice_id":"{invoice}","amount_cents":100,"reason":{{"kind":"error"}}}}"#
        );
        serde_json::to_string(&call(&toolbox, &args)).unwrap()
    };
    let missing = bytes("inv_1");
    assert!(missing.contains("NOT_PERMITTED"));
    assert_eq!(bytes("inv_90"), missing);
    assert_eq!(bytes("inv_89"), missing);
    assert!(toolbox.state().refunds().is_empty());
}

#[test]
fn an_unknown_reason_lists_every_kind() {
    let toolbox = toolbox();
    let outcome = call(
        &toolbox,
        r#"{"invoice_id":"inv_88","amount_cents":1,"reason":{"kind":"because"}}"#,
    );
    assert_eq!(
        outcome.rejection().unwrap().safe_message(),
        "reason/kind must be one of: duplicate, error, goodwill"
    );
}
