//! What a valid call allocates, counted: exactly what serde_json and garde
//! allocate for the same arguments (the values the struct owns), and all
//! of it freed once the call is checked. Gate 3's report of an accepted
//! call is never dropped (it holds nothing), so a report that allocated
//! while empty would leak here on every call.

use toolgate::Toolbox;
use toolgate_examples::{export, hotel, invoice};

use crate::counted;

/// (allocations, bytes allocated, bytes freed) while `run` runs.
fn cost(run: impl FnOnce() -> bool) -> (usize, usize, usize) {
    let before = counted();
    assert!(run(), "the call is valid");
    let spent = counted() - before;
    (spent.calls(), spent.asked, spent.freed)
}

/// A valid call of `tool` through the toolbox's gates 1–3, and the same
/// arguments read by serde_json and checked by garde, alone.
fn same_as_the_floor<S, A>(toolbox: &Toolbox<S>, tool: &str, arguments: &[u8])
where
    S: Send + Sync + 'static,
    A: toolgate::__private::Arguments,
{
    let gates = || toolgate::testing::check_arguments(toolbox, tool, arguments) == Some(Ok(()));
    let floor = || {
        serde_json::from_slice::<A>(arguments).is_ok_and(|args| toolgate_tests::floor_rules(&args))
    };
    // Once each first, so that what is made once (a pattern's regex
    // cache) is not counted.
    assert!(gates() && floor());
    for _ in 0..3 {
        let (allocations, allocated, freed) = cost(gates);
        assert_eq!(allocated, freed, "{tool}: every byte allocated is freed");
        assert!(allocations > 0, "{tool}: the struct owns a string");
        let (floor_allocations, floor_allocated, _) = cost(floor);
        assert_eq!(
            (allocations, allocated),
            (floor_allocations, floor_allocated),
            "{tool}: allocations (count, bytes) against serde_json and garde"
        );
    }
}

#[test]
fn a_valid_call_allocates_what_serde_json_and_garde_allocate_and_frees_it() {
    let mut hotels = Toolbox::new(hotel::Hotels::demo());
    hotels.register(hotel::BookHotel).unwrap();
    same_as_the_floor::<_, hotel::BookHotelArgs>(
        &hotels,
        "book_hotel",
        br#"{"hotel_id":"h_seaview1","nights":3}"#,
    );

    let mut exports = Toolbox::new(export::Accounts::demo());
    exports.register(export::ScheduleExport).unwrap();
    same_as_the_floor::<_, export::ScheduleExportArgs>(
        &exports,
        "schedule_export",
        br#"{"account_ref":"acct_42","format":"jsonl","columns":["id","status","created_at"]}"#,
    );

    let mut billing = Toolbox::new(invoice::Billing::demo());
    billing.register(invoice::RefundInvoice).unwrap();
    same_as_the_floor::<_, invoice::RefundInvoiceArgs>(
        &billing,
        "refund_invoice",
        br#"{"invoice_id":"inv_88","amount_cents":4500,"reason":{"kind":"goodwill","approver_id":"usr_lena"}}"#,
    );
}
