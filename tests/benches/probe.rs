//! A plain loop of valid calls, for counting instructions per call with
//! callgrind (repeatable on a noisy machine, unlike time). Arguments: the
//! number of calls, the path (`toolgate`: gates 1–3, the default; `floor`:
//! serde_json then garde) and the tool (`book_hotel`, the default,
//! `schedule_export` or `refund_invoice`).
//!
//! ```sh
//! cargo bench -p toolgate-tests --bench probe --no-run
//! valgrind --tool=callgrind target/release/deps/probe-<hash> 20000 toolgate refund_invoice
//! callgrind_annotate callgrind.out.<pid> | head -40
//! ```

use std::hint::black_box;

use serde::de::DeserializeOwned;
use toolgate::Toolbox;
use toolgate_examples::{export, hotel, invoice};

fn run<S, A>(toolbox: &Toolbox<S>, tool: &str, bytes: &[u8], calls: usize, floor: bool) -> usize
where
    S: Send + Sync + 'static,
    A: DeserializeOwned + garde::Validate<Context = ()>,
{
    let mut valid = 0;
    for _ in 0..calls {
        let ok = if floor {
            serde_json::from_slice::<A>(black_box(bytes))
                .is_ok_and(|args| garde::Validate::validate(&args).is_ok())
        } else {
            toolgate::testing::check_arguments(toolbox, tool, black_box(bytes))
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
        _ => {
            let mut toolbox = Toolbox::new(hotel::Hotels::demo());
            toolbox.register(hotel::BookHotel).unwrap();
            let bytes = br#"{"hotel_id":"h_seaview1","nights":3}"#;
            run::<_, hotel::BookHotelArgs>(&toolbox, "book_hotel", bytes, calls, floor)
        }
    };
    println!("{valid} of {calls} {tool} calls valid");
}
