//! A plain loop of valid `book_hotel` calls, for counting instructions per
//! call with callgrind (repeatable on a noisy machine, unlike time). The
//! second argument chooses the path: `toolgate` (gates 1–3, the default) or
//! `floor` (serde_json then garde).
//!
//! ```sh
//! cargo bench -p toolgate-tests --bench probe --no-run
//! valgrind --tool=callgrind target/release/deps/probe-<hash> 20000 toolgate
//! callgrind_annotate callgrind.out.<pid> | head -40
//! ```

use std::hint::black_box;

fn main() {
    let bytes = br#"{"hotel_id":"h_seaview1","nights":3}"#;
    let mut toolbox = toolgate::Toolbox::new(toolgate_examples::hotel::Hotels::demo());
    toolbox
        .register(toolgate_examples::hotel::BookHotel)
        .unwrap();
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let floor = std::env::args().nth(2).as_deref() == Some("floor");
    let mut valid = 0;
    for _ in 0..calls {
        let ok = if floor {
            serde_json::from_slice::<toolgate_examples::hotel::BookHotelArgs>(black_box(bytes))
                .is_ok_and(|args| garde::Validate::validate(&args).is_ok())
        } else {
            toolgate::testing::check_arguments(&toolbox, "book_hotel", black_box(bytes))
                .is_some_and(|r| r.is_ok())
        };
        if ok {
            valid += 1;
        }
    }
    println!("{valid} of {calls} calls valid");
}
