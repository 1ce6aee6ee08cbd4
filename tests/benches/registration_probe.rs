//! Registration's cost, for callgrind: a loop that registers one example
//! tool in a new toolbox, with every check `Toolbox::register` makes
//! (trusted names, patterns, parsed map keys, 128-bit integers, byte
//! lengths, map sizes, unenforced bounds). Arguments: the number of
//! registrations, then `book_hotel` (the default), `schedule_export` or
//! `refund_invoice`, then `new` to make the toolbox (its demo state
//! included) without registering: the baseline to subtract.
//!
//! ```sh
//! cargo bench -p toolgate-tests --bench registration_probe --no-run
//! valgrind --tool=callgrind target/release/deps/registration_probe-<hash> 200 schedule_export
//! valgrind --tool=callgrind target/release/deps/registration_probe-<hash> 200 schedule_export new
//! ```

use std::hint::black_box;

use toolgate::{RegisterError, Toolbox};
use toolgate_examples::{export, hotel, invoice};

fn register<S, T>(state: S, tool: T, only_new: bool) -> Result<(), RegisterError>
where
    S: Send + Sync + 'static,
    T: toolgate::Tool<S> + 'static,
{
    let mut toolbox = Toolbox::new(state);
    if !only_new {
        toolbox.register(tool)?;
    }
    black_box(&toolbox);
    Ok(())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let times: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let tool = args.next().unwrap_or_else(|| "book_hotel".to_owned());
    let only_new = args.next().as_deref() == Some("new");
    let mut registered = 0;
    for _ in 0..times {
        let done = match tool.as_str() {
            "schedule_export" => {
                register(export::Accounts::demo(), export::ScheduleExport, only_new)
            }
            "refund_invoice" => {
                register(invoice::Billing::demo(), invoice::RefundInvoice, only_new)
            }
            _ => register(hotel::Hotels::demo(), hotel::BookHotel, only_new),
        };
        registered += usize::from(done.is_ok());
    }
    println!("{registered} of {times} {tool} registrations");
}
