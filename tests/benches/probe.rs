//! A plain loop of valid calls, for counting instructions per call with
//! callgrind (repeatable on a noisy machine, unlike time). Arguments: the
//! number of calls, the path (`toolgate`: gates 1–3, the default; `floor`:
//! serde_json, then garde with every rule gate 3 runs) and the tool (`book_hotel`, the default,
//! `schedule_export`, `refund_invoice`, `find_notes` with an optional
//! argument left out and `find_notes_null` with it `null`,
//! `find_saved_notes`, the same read gate by gate, or `tag_notes`, an
//! array of strings).
//!
//! ```sh
//! cargo bench -p toolgate-tests --bench probe --no-run
//! valgrind --tool=callgrind target/release/deps/probe-<hash> 20000 toolgate refund_invoice
//! callgrind_annotate callgrind.out.<pid> | head -40
//! ```

use std::hint::black_box;

use toolgate::{ToolError, Toolbox, tool};
use toolgate_examples::{export, hotel, invoice};

/// Find notes: a tool with an optional argument, which a model may leave
/// out or send as `null` (strict providers send every argument).
#[tool(effect = read)]
fn find_notes(
    /// What to look for.
    #[garde(length(chars, min = 1, max = 64))]
    query: String,
    /// At most this many.
    #[garde(inner(range(min = 1, max = 50)))]
    limit: Option<u8>,
) -> Result<usize, ToolError> {
    Ok(query.len() + usize::from(limit.unwrap_or(10)))
}

fn known_query(query: &str, _: &()) -> garde::Result {
    match query {
        "invoices due" | "invoices paid" => Ok(()),
        _ => Err(garde::Error::new("is not a saved search")),
    }
}

/// Find notes by a saved search: `find_notes` with a rule that refuses
/// the simplest call, so registration tries none of its bounds and each
/// call is checked against them before serde reads it, gate by gate.
#[tool(effect = read)]
fn find_saved_notes(
    /// A saved search.
    #[garde(length(chars, min = 1, max = 64), custom(known_query))]
    query: String,
    /// At most this many.
    #[garde(inner(range(min = 1, max = 50)))]
    limit: Option<u8>,
) -> Result<usize, ToolError> {
    Ok(query.len() + usize::from(limit.unwrap_or(10)))
}

/// Tag notes: a tool with an array of plain strings, whose schema is flat
/// (every member a scalar or an array of scalars, none held to choices).
#[tool(effect = read)]
fn tag_notes(
    /// The tags, one to five.
    #[garde(length(min = 1, max = 5), inner(length(chars, min = 1, max = 16)))]
    tags: Vec<String>,
    /// At most this many notes.
    #[garde(range(min = 1, max = 50))]
    limit: u8,
) -> Result<usize, ToolError> {
    Ok(tags.len() + usize::from(limit))
}

fn run<S, A>(toolbox: &Toolbox<S>, tool: &str, bytes: &[u8], calls: usize, floor: bool) -> usize
where
    S: Send + Sync + 'static,
    A: toolgate::__private::Arguments,
{
    // On the heap, as a received document is: a literal's place in the
    // binary moves with the code around it, and with it the instructions
    // UTF-8 validation takes (its fast path reads aligned words).
    let bytes = bytes.to_vec();
    let mut valid = 0;
    for _ in 0..calls {
        let ok = if floor {
            serde_json::from_slice::<A>(black_box(&bytes))
                .is_ok_and(|args| toolgate_tests::floor_rules(&args))
        } else {
            toolgate::testing::check_arguments(toolbox, tool, black_box(&bytes))
                .is_some_and(|r| r.is_ok())
        };
        if ok {
            valid += 1;
        }
    }
    valid
}

fn main() {
    let mut args = std::env::args().skip(1);
    let calls: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let floor = args.next().as_deref() == Some("floor");
    let tool = args.next().unwrap_or_else(|| "book_hotel".to_owned());
    let valid = match tool.as_str() {
        "schedule_export" => {
            let mut toolbox = Toolbox::new(export::Accounts::demo());
            toolbox.register(export::ScheduleExport).unwrap();
            let bytes = br#"{"account_ref":"acct_42","format":"jsonl","columns":["id","status","created_at"]}"#;
            run::<_, export::ScheduleExportArgs>(&toolbox, &tool, bytes, calls, floor)
        }
        "refund_invoice" => {
            let mut toolbox = Toolbox::new(invoice::Billing::demo());
            toolbox.register(invoice::RefundInvoice).unwrap();
            let bytes = br#"{"invoice_id":"inv_88","amount_cents":4500,"reason":{"kind":"goodwill","approver_id":"usr_lena"}}"#;
            run::<_, invoice::RefundInvoiceArgs>(&toolbox, &tool, bytes, calls, floor)
        }
        "tag_notes" => {
            let mut toolbox = Toolbox::new(());
            toolbox.register(TagNotes).unwrap();
            let bytes = br#"{"tags":["billing","q3","overdue"],"limit":20}"#;
            run::<_, TagNotesArgs>(&toolbox, &tool, bytes, calls, floor)
        }
        "find_saved_notes" => {
            let mut toolbox = Toolbox::new(());
            toolbox.register(FindSavedNotes).unwrap();
            assert_eq!(
                toolgate::testing::checked_before_serde(&toolbox, "find_saved_notes"),
                Some(true)
            );
            let bytes = br#"{"query":"invoices due"}"#;
            run::<_, FindSavedNotesArgs>(&toolbox, &tool, bytes, calls, floor)
        }
        "find_notes" | "find_notes_null" => {
            let mut toolbox = Toolbox::new(());
            toolbox.register(FindNotes).unwrap();
            let bytes: &[u8] = if tool == "find_notes" {
                br#"{"query":"invoices due"}"#
            } else {
                br#"{"query":"invoices due","limit":null}"#
            };
            run::<_, FindNotesArgs>(&toolbox, "find_notes", bytes, calls, floor)
        }
        _ => {
            let mut toolbox = Toolbox::new(hotel::Hotels::demo());
            toolbox.register(hotel::BookHotel).unwrap();
            let bytes = br#"{"hotel_id":"h_seaview1","nights":3}"#;
            run::<_, hotel::BookHotelArgs>(&toolbox, "book_hotel", bytes, calls, floor)
        }
    };
    println!("{valid} of {calls} {tool} calls valid");
}
