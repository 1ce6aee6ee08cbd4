//! A plain loop of refusals, for counting instructions per refusal with
//! callgrind. A program of its own, so that it moves no other probe's
//! code. Arguments: the number of calls, then the payload:
//!
//! - `keys` (the default): `book_hotel`'s hostile payload of 100 repeated
//!   keys (the boundary benchmark's "duplicate keys"), which the single
//!   pass stops on and the gates one by one refuse with `DUPLICATE_KEY`;
//! - `columns`: `schedule_export`'s columns filled with `"id"` to 8 KiB
//!   (the boundary benchmark's "values" inside a valid call), which the
//!   single pass stops on at the second item and the gates one by one
//!   refuse with `INVALID_VALUE`, a repeat.
//!
//! ```sh
//! cargo bench -p toolgate-tests --bench refusal_probe --no-run
//! valgrind --tool=callgrind target/release/deps/refusal_probe-<hash> 20000
//! valgrind --tool=callgrind target/release/deps/refusal_probe-<hash> 200 columns
//! ```

use std::hint::black_box;

use toolgate::{Code, Toolbox};
use toolgate_examples::{export, hotel};

fn refusals<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    tool: &str,
    bytes: &[u8],
    calls: usize,
    expected: Code,
) -> usize {
    let mut refused = 0;
    for _ in 0..calls {
        let code = toolgate::testing::check_arguments(toolbox, tool, black_box(bytes))
            .and_then(Result::err)
            .map(|r| r.code());
        if code == Some(expected) {
            refused += 1;
        }
    }
    refused
}

fn main() {
    let mut args = std::env::args().skip(1);
    let calls: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    if args.next().as_deref() == Some("columns") {
        let mut toolbox = Toolbox::new(export::Accounts::demo());
        toolbox.register(export::ScheduleExport).unwrap();
        let mut doc = r#"{"account_ref":"acct_42","format":"jsonl","columns":["id""#.to_owned();
        while doc.len() < 8 * 1024 {
            doc.push_str(r#","id""#);
        }
        doc.push_str("]}");
        let refused = refusals(
            &toolbox,
            "schedule_export",
            doc.as_bytes(),
            calls,
            Code::InvalidValue,
        );
        println!("{refused} of {calls} refused with INVALID_VALUE");
        return;
    }
    let mut toolbox = Toolbox::new(hotel::Hotels::demo());
    toolbox.register(hotel::BookHotel).unwrap();
    let mut bytes = br#"{"hotel_id":"h_seaview1""#.to_vec();
    for _ in 0..100 {
        bytes.extend_from_slice(br#","nights":1"#);
    }
    bytes.push(b'}');
    let refused = refusals(&toolbox, "book_hotel", &bytes, calls, Code::DuplicateKey);
    println!("{refused} of {calls} refused with DUPLICATE_KEY");
}
