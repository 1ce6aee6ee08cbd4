//! The schema we publish and the server we run agree.
//!
//! For every example tool, instances are generated around its canonical
//! schema (valid ones, boundary values, mutations) and decided twice: by
//! the server's gates 1–3 (`toolgate::testing::check_arguments`) and by an
//! independent draft 2020-12 validator (the jsonschema crate, format
//! assertion on, no remote references). Both directions count. The only
//! disagreements allowed are the rules listed in
//! `toolgate::KNOWN_DIFFERENCES`, matched by name.
//!
//! CI runs 10,000 instances per tool. For a million:
//!
//! ```sh
//! TOOLGATE_DIFFERENTIAL_CASES=1000000 cargo test --release -p toolgate-tests --test differential
//! ```

use serde_json::Value;
use toolgate::testing::check_arguments;
use toolgate::{KNOWN_DIFFERENCES, Toolbox};
use toolgate_examples::{export, hotel, invoice, refund};
use toolgate_tests::instances::Generator;

fn cases() -> usize {
    std::env::var("TOOLGATE_DIFFERENTIAL_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000)
}

/// The known difference an instance shows, if any.
fn known_difference(instance: &Value) -> Option<&'static str> {
    fn has_integral_float(value: &Value) -> bool {
        match value {
            Value::Number(n) => n.is_f64() && n.as_f64().is_some_and(|f| f.fract() == 0.0),
            Value::Array(items) => items.iter().any(has_integral_float),
            Value::Object(map) => map.values().any(has_integral_float),
            _ => false,
        }
    }
    has_integral_float(instance).then_some("integral-float")
}

#[derive(Default, Debug)]
struct Tally {
    accepted_by_both: usize,
    rejected_by_both: usize,
    known: usize,
    disagreements: Vec<String>,
}

fn differential<S: Send + Sync + 'static>(toolbox: &Toolbox<S>, tool: &str, seed: u64) -> Tally {
    let def = toolbox.definition(tool).unwrap();
    let schema = def.schema();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap();
    let mut generator = Generator::new(schema, seed);
    let mut tally = Tally::default();
    for _ in 0..cases() {
        let instance = generator.instance();
        let text = serde_json::to_vec(&instance).unwrap();
        let server = check_arguments(toolbox, tool, &text).unwrap();
        let published = validator.is_valid(&instance);
        match (server.is_ok(), published) {
            (true, true) => tally.accepted_by_both += 1,
            (false, false) => tally.rejected_by_both += 1,
            (server_ok, _) => match known_difference(&instance) {
                Some(rule) if !server_ok && KNOWN_DIFFERENCES.contains(&rule) => tally.known += 1,
                _ => {
                    if tally.disagreements.len() < 20 {
                        tally.disagreements.push(format!(
                            "{tool}: server {} but schema {}: {}",
                            match &server {
                                Ok(()) => "accepts".to_owned(),
                                Err(r) => format!("rejects ({r})"),
                            },
                            if published { "accepts" } else { "rejects" },
                            String::from_utf8_lossy(&text)
                        ));
                    } else {
                        tally.disagreements.push(String::new());
                    }
                }
            },
        }
    }
    tally
}

#[track_caller]
fn assert_agree(tally: Tally) {
    let total =
        tally.accepted_by_both + tally.rejected_by_both + tally.known + tally.disagreements.len();
    assert_eq!(total, cases());
    assert!(
        tally.disagreements.is_empty(),
        "{} disagreements in {total} instances:\n{}",
        tally.disagreements.len(),
        tally
            .disagreements
            .iter()
            .filter(|d| !d.is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    // Both sides of the boundary are exercised, not just one.
    assert!(tally.accepted_by_both > total / 10, "{tally:?}");
    assert!(tally.rejected_by_both > total / 10, "{tally:?}");
}

#[test]
fn book_hotel() {
    let mut toolbox = Toolbox::new(hotel::Hotels::demo());
    toolbox.register(hotel::BookHotel).unwrap();
    assert_agree(differential(&toolbox, "book_hotel", 1));
}

#[test]
fn schedule_export() {
    let mut toolbox = Toolbox::new(export::Accounts::demo());
    toolbox.register(export::ScheduleExport).unwrap();
    assert_agree(differential(&toolbox, "schedule_export", 2));
}

#[test]
fn issue_refund() {
    let mut toolbox = Toolbox::new(refund::Shop::demo());
    toolbox.register(refund::IssueRefund).unwrap();
    assert_agree(differential(&toolbox, "issue_refund", 3));
}

#[test]
fn refund_invoice() {
    let mut toolbox = Toolbox::new(invoice::Billing::demo());
    toolbox.register(invoice::RefundInvoice).unwrap();
    assert_agree(differential(&toolbox, "refund_invoice", 4));
}

/// A rule the schema does not state: the harness must see the difference.
mod unstated {
    use toolgate::{ToolError, tool};

    fn even(n: &u32, _: &()) -> garde::Result {
        if n.is_multiple_of(2) {
            Ok(())
        } else {
            Err(garde::Error::new("must be even"))
        }
    }

    /// Take an even number.
    #[tool(effect = read)]
    pub fn take_even(#[garde(custom(even))] n: u32) -> Result<u32, ToolError> {
        Ok(n)
    }
}

#[test]
fn the_harness_finds_a_rule_the_schema_does_not_state() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(unstated::TakeEven).unwrap();
    let tally = differential(&toolbox, "take_even", 5);
    assert!(!tally.disagreements.is_empty(), "{tally:?}");
    assert!(
        tally.disagreements[0].contains("server rejects"),
        "{}",
        tally.disagreements[0]
    );
}

#[test]
fn a_known_difference_is_stated_in_the_description() {
    let def = hotel::BookHotel::definition();
    assert!(
        def.description()
            .ends_with("Write whole numbers without a decimal point.")
    );
}
