//! The demo's scripted session, run as a newcomer runs it: every step the
//! README promises is in the transcript, and the audit log is beside it.

use std::process::Command;

fn transcript() -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_toolgate-demo"))
        .output()
        .expect("the demo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the transcript is UTF-8")
}

/// The line that follows the first line containing `call`.
fn answer_to<'a>(transcript: &'a str, call: &str) -> &'a str {
    let mut lines = transcript.lines().skip_while(|line| !line.contains(call));
    lines
        .next()
        .unwrap_or_else(|| panic!("no call {call}:\n{transcript}"));
    lines
        .find(|line| line.trim_start().starts_with('←'))
        .unwrap_or_else(|| panic!("no answer to {call}:\n{transcript}"))
}

#[test]
fn the_scripted_session_shows_every_step() {
    let t = transcript();
    // The tools one caller may call, with their effect class.
    for (tool, effect) in [
        ("book_hotel", "write"),
        ("schedule_export", "write"),
        ("issue_refund", "irreversible"),
        ("refund_invoice", "irreversible"),
    ] {
        assert!(
            t.lines()
                .any(|l| l.split_whitespace().take(2).eq([tool, effect])),
            "{tool} is not listed as {effect}:\n{t}"
        );
    }
    // Valid calls run.
    let booked = answer_to(&t, r#"→ book_hotel {"hotel_id":"h_seaview1","nights":3}"#);
    assert!(booked.contains(r#"done: {"booking_id":"b_1""#), "{booked}");
    let export = answer_to(
        &t,
        r#"→ schedule_export {"account_ref":"acct_42","columns":["id","status"]"#,
    );
    assert!(export.contains("done:"), "{export}");
    // The attacker's calls are refused with their rejections.
    for (call, refusal) in [
        (r#""price":1}"#, "refused UNKNOWN_FIELD at /price"),
        (r#""nights":300}"#, "refused OUT_OF_RANGE at /nights"),
        (
            r#"{"hotel_id":{"$ne":""}"#,
            "refused WRONG_TYPE at /hotel_id",
        ),
        (
            r#"["id","email"]"#,
            "refused PII_EXPORT_DISABLED at /columns",
        ),
        (
            r#"{"amount_cents":20000,"order":"ord_1001"}"#,
            "refused EXCEEDS_REFUNDABLE",
        ),
        (
            r#"{"amount_cents":100,"order":"ord_1002"}"#,
            "refused NOT_PERMITTED",
        ),
        ("→ delete_all_orders", "refused NOT_PERMITTED"),
        (
            r#""amount_cents":100,"amount_cents":50000}"#,
            "refused DUPLICATE_KEY",
        ),
        // Another tenant's order and invoice: refused flat.
        (
            r#"{"amount_cents":100,"order":"ord_2001"}"#,
            "refused NOT_PERMITTED: This action is not permitted.",
        ),
        (
            r#""invoice_id":"inv_90""#,
            "refused NOT_PERMITTED: This action is not permitted.",
        ),
    ] {
        let answer = answer_to(&t, call);
        assert!(answer.contains(refusal), "{call}: {answer}");
    }
    // The audit log says why, where the model reads only NOT_PERMITTED.
    assert!(t.contains("reason=ord_1002 is under dispute"), "{t}");
    assert!(t.contains("reason=not found in the caller's tenant"), "{t}");
    assert!(
        t.contains("gate=admission reason=no tool has this name"),
        "{t}"
    );
    // The refund: held, approved, run once, its retry replayed.
    let held = answer_to(
        &t,
        r#"→ issue_refund {"amount_cents":2500,"order":"ord_1001"}"#,
    );
    assert!(held.contains("held: approval apr_"), "{held}");
    assert!(t.contains("decision=approval_granted"), "{t}");
    assert!(t.contains("decision=approval_used"), "{t}");
    assert!(t.contains(r#""refund_id":"rf_1""#), "{t}");
    let retry = t
        .rsplit(r#"→ issue_refund {"amount_cents":2500,"order":"ord_1001"}"#)
        .next()
        .unwrap();
    assert!(retry.contains("decision=replayed"), "{retry}");
    assert!(
        retry.contains(r#"done: {"amount_cents":2500,"order_id":"ord_1001","refund_id":"rf_1""#),
        "{retry}"
    );
    assert!(
        t.contains("bookings 1, exports queued 1, order refunds 1, invoice refunds 0"),
        "{t}"
    );
}
