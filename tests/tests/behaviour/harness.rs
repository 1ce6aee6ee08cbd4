//! `toolgate::testing` on every example tool: the valid call succeeds and
//! moves the side-effect count, the generated attack cases are all refused
//! with an expected code, and none of them moves the count. Then the
//! harness itself: it must fail on a lax tool, on a leak after a refusal,
//! on a count that cannot see the side effect and on a valid call that does
//! not go through.

use serde_json::json;
use toolgate::testing::{self, Attacks};
use toolgate::{Code, ToolContext, Toolbox};
use toolgate_examples::{export, hotel, invoice, refund};

use crate::common;
use crate::common::block_on;

fn ctx(actor: &str, scope: &str, tool: &str) -> ToolContext {
    ToolContext::new(actor, "tenant_a", "req_attack")
        .with_scopes([scope])
        .allow_tools([tool])
}

#[test]
fn book_hotel_refuses_every_attack() {
    let mut toolbox = Toolbox::new(hotel::Hotels::demo());
    toolbox.register(hotel::BookHotel).unwrap();
    let attacks = testing::attacks(
        hotel::BookHotel::definition(),
        r#"{"hotel_id":"h_seaview1","nights":2}"#,
    )
    .unwrap();
    assert!(attacks.cases.len() > 40, "{}", attacks.cases.len());
    let ctx = ctx("u", "bookings:write", "book_hotel");
    block_on(testing::assert_all_rejected(
        &toolbox,
        &ctx,
        &attacks,
        |h| h.bookings().len(),
    ));
}

#[test]
fn schedule_export_refuses_every_attack() {
    let mut toolbox = Toolbox::new(export::Accounts::demo());
    toolbox.register(export::ScheduleExport).unwrap();
    let attacks = Attacks::new(
        export::ScheduleExport::definition(),
        r#"{"account_ref":"acct_42","format":"csv","columns":["id","status"]}"#,
    )
    .unwrap()
    .cross_tenant("/account_ref", json!("acct_7"))
    .build();
    let ctx = ctx("analyst_1", "exports:write", "schedule_export");
    block_on(testing::assert_all_rejected(
        &toolbox,
        &ctx,
        &attacks,
        |a| a.queued().len(),
    ));
}

#[test]
fn issue_refund_refuses_every_attack() {
    let mut toolbox = Toolbox::new(refund::Shop::demo());
    toolbox.register(refund::IssueRefund).unwrap();
    let attacks = Attacks::new(
        refund::IssueRefund::definition(),
        r#"{"order":"ord_1001","amount_cents":100}"#,
    )
    .unwrap()
    .cross_tenant("/order", json!("ord_2001"))
    .build();
    let ctx = ctx("agent", "refunds:write", "issue_refund");
    block_on(testing::assert_all_rejected(
        &toolbox,
        &ctx,
        &attacks,
        |s| s.refunds().len(),
    ));
}

#[test]
fn refund_invoice_refuses_every_attack() {
    let mut toolbox = Toolbox::new(invoice::Billing::demo());
    toolbox.register(invoice::RefundInvoice).unwrap();
    let attacks = Attacks::new(
        invoice::RefundInvoice::definition(),
        r#"{"invoice_id":"inv_88","amount_cents":100,"reason":{"kind":"goodwill","approver_id":"usr_lena"}}"#,
    )
    .unwrap()
    .cross_tenant("/invoice_id", json!("inv_90"))
    .build();
    let ctx = ctx("agent", "billing:refund", "refund_invoice");
    block_on(testing::assert_all_rejected(
        &toolbox,
        &ctx,
        &attacks,
        |b| b.refunds().len(),
    ));
}

#[test]
fn the_generator_covers_each_kind_of_attack() {
    let attacks = Attacks::new(
        invoice::RefundInvoice::definition(),
        r#"{"invoice_id":"inv_88","amount_cents":100,"reason":{"kind":"goodwill","approver_id":"usr_lena"}}"#,
    )
    .unwrap()
    .cross_tenant("/invoice_id", json!("inv_90"))
    .build();
    let names: Vec<&str> = attacks.cases.iter().map(|a| a.name.as_str()).collect();
    for expected in [
        "/invoice_id removed",
        "/reason/approver_id removed",
        "unknown field price",
        "unknown field tenant_id",
        "unknown field admin",
        "unknown field __proto__",
        "/amount_cents: a string",
        "/amount_cents: null",
        "/amount_cents: 0 (below the minimum)",
        "/amount_cents: 50001 (above the maximum)",
        "/amount_cents: beyond 64 bits",
        "/amount_cents: a float for an integer",
        "/invoice_id: \"\" (pattern breaker)",
        "/reason/kind: \"__not_one_of_them__\" (not in the enum)",
        "duplicate key amount_cents",
        "depth bomb",
        "1 MiB of arguments",
        "root []",
        "trailing garbage",
        "invalid UTF-8",
        "a lone surrogate",
        "another tenant's object at /invoice_id",
    ] {
        assert!(
            names.contains(&expected),
            "missing {expected:?} in {names:#?}"
        );
    }
    let beyond = attacks
        .cases
        .iter()
        .find(|a| a.name == "/amount_cents: beyond 64 bits")
        .unwrap();
    assert!(
        String::from_utf8_lossy(&beyond.arguments)
            .contains("\"amount_cents\":18446744073709551616")
    );
    assert!(
        attacks
            .cases
            .iter()
            .all(|a| !a.expected.is_empty() && !a.expected.contains(&Code::Internal))
    );
}

/// Runs the harness and returns its panic message (or `None` if it passed).
fn harness_panic<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    ctx: &ToolContext,
    suite: &testing::AttackSuite,
    side_effects: impl Fn(&S) -> usize,
) -> Option<String> {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        block_on(testing::assert_all_rejected(
            toolbox,
            ctx,
            suite,
            side_effects,
        ))
    }));
    result
        .err()
        .map(|e| *e.downcast::<String>().expect("a formatted panic message"))
}

#[test]
fn the_assertion_fails_when_an_attack_gets_through() {
    // A tool that validates nothing: the harness must catch it.
    #[toolgate::tool(effect = write)]
    /// Accept anything.
    fn lax(spy: &common::tools::Spy, note: Option<String>) -> Result<(), toolgate::ToolError> {
        spy.calls.lock().unwrap().push(note.unwrap_or_default());
        Ok(())
    }
    let mut toolbox = Toolbox::new(common::tools::Spy::default());
    toolbox.register(Lax).unwrap();
    let mut attacks = testing::attacks(Lax::definition(), r#"{"note":"hi"}"#).unwrap();
    // An "attack" that is in fact a valid call.
    attacks.cases.push(testing::Attack {
        tool: "lax",
        name: "a valid call".into(),
        arguments: br#"{"note":null}"#.to_vec(),
        expected: vec![Code::InvalidValue],
    });
    let ctx = ToolContext::new("u", "t", "r").allow_tools(["lax"]);
    let message = harness_panic(&toolbox, &ctx, &attacks, |s| s.count()).unwrap();
    assert!(message.contains("a valid call: not rejected"), "{message}");
    // The example call moved the count from 0 to 1; the attack, from 1 to 2.
    assert!(
        message.contains("a valid call: the side effect happened: 1 before, 2 after"),
        "{message}"
    );
}

#[test]
fn the_assertion_names_a_rejected_attack_that_still_moved_the_count() {
    // A body that writes first and refuses afterwards: every answer is a
    // rejection with the expected code, yet one attack reached the effect.
    const TOO_MANY: toolgate::DomainCode = toolgate::DomainCode::new("TOO_MANY");
    #[toolgate::tool(effect = write)]
    /// Record a number.
    fn write_then_check(
        spy: &common::tools::Spy,
        #[garde(range(min = 1, max = 30))] n: u8,
    ) -> Result<(), toolgate::ToolError> {
        spy.calls.lock().unwrap().push(n.to_string());
        if n > 5 {
            return Err(toolgate::ToolError::reject(TOO_MANY, "n must be at most 5").at("/n"));
        }
        Ok(())
    }
    let mut toolbox = Toolbox::new(common::tools::Spy::default());
    toolbox.register(WriteThenCheck).unwrap();
    let mut attacks = testing::attacks(WriteThenCheck::definition(), r#"{"n":2}"#).unwrap();
    attacks.cases.push(testing::Attack {
        tool: "write_then_check",
        name: "n above 5".into(),
        arguments: br#"{"n":6}"#.to_vec(),
        expected: vec![Code::Domain(TOO_MANY)],
    });
    let ctx = ToolContext::new("u", "t", "r").allow_tools(["write_then_check"]);
    let message = harness_panic(&toolbox, &ctx, &attacks, |s| s.count()).unwrap();
    assert!(
        message.contains("n above 5: the side effect happened: 1 before, 2 after"),
        "{message}"
    );
    assert!(message.starts_with("1 failures in"), "{message}");
}

#[test]
fn the_assertion_fails_when_the_count_never_moves() {
    // A count that reads the wrong thing: every attack would look refused
    // without a side effect, whatever the tool did.
    let mut toolbox = Toolbox::new(hotel::Hotels::demo());
    toolbox.register(hotel::BookHotel).unwrap();
    let attacks = testing::attacks(
        hotel::BookHotel::definition(),
        r#"{"hotel_id":"h_seaview1","nights":2}"#,
    )
    .unwrap();
    let ctx = ctx("u", "bookings:write", "book_hotel");
    let message = harness_panic(&toolbox, &ctx, &attacks, |_| 0).unwrap();
    assert!(
        message.contains(
            "the valid call to `book_hotel` succeeded but the side-effect count stayed at 0"
        ),
        "{message}"
    );
    // The same suite with a count that sees the bookings passes.
    let mut toolbox = Toolbox::new(hotel::Hotels::demo());
    toolbox.register(hotel::BookHotel).unwrap();
    assert_eq!(
        harness_panic(&toolbox, &ctx, &attacks, |h| h.bookings().len()),
        None
    );
}

#[test]
fn the_assertion_fails_when_the_valid_call_does_not_go_through() {
    // Without the tool's scope every call is refused, attacks included: the
    // harness must not mistake that for a tool that refuses attacks.
    let mut toolbox = Toolbox::new(hotel::Hotels::demo());
    toolbox.register(hotel::BookHotel).unwrap();
    let attacks = testing::attacks(
        hotel::BookHotel::definition(),
        r#"{"hotel_id":"h_seaview1","nights":2}"#,
    )
    .unwrap();
    let no_scope = ToolContext::new("u", "tenant_a", "r").allow_tools(["book_hotel"]);
    let message = harness_panic(&toolbox, &no_scope, &attacks, |h| h.bookings().len()).unwrap();
    assert!(
        message.contains("the valid call to `book_hotel` did not succeed"),
        "{message}"
    );
    assert!(message.contains("NOT_PERMITTED"), "{message}");
}
