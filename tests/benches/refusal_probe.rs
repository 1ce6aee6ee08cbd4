//! A plain loop of refusals, for counting instructions per refusal with
//! callgrind: `book_hotel`'s hostile payload of 100 repeated keys (the
//! boundary benchmark's "duplicate keys"), which the single pass stops on
//! and the gates one by one refuse with `DUPLICATE_KEY`. A program of its
//! own, so that it moves no other probe's code. Argument: the number of
//! calls.
//!
//! ```sh
//! cargo bench -p toolgate-tests --bench refusal_probe --no-run
//! valgrind --tool=callgrind target/release/deps/refusal_probe-<hash> 20000
//! ```

use std::hint::black_box;

use toolgate::{Code, Toolbox};
use toolgate_examples::hotel;

fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let mut toolbox = Toolbox::new(hotel::Hotels::demo());
    toolbox.register(hotel::BookHotel).unwrap();
    let mut bytes = br#"{"hotel_id":"h_seaview1""#.to_vec();
    for _ in 0..100 {
        bytes.extend_from_slice(br#","nights":1"#);
    }
    bytes.push(b'}');
    let mut refused = 0;
    for _ in 0..calls {
        let code = toolgate::testing::check_arguments(&toolbox, "book_hotel", black_box(&bytes))
            .and_then(Result::err)
            .map(|r| r.code());
        if code == Some(Code::DuplicateKey) {
            refused += 1;
        }
    }
    println!("{refused} of {calls} refused with DUPLICATE_KEY");
}
