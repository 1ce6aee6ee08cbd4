//! Seed 002: an attacker's calls to `book_hotel`, as raw bytes, each refused
//! with the right code while the booking store stays empty.

use toolgate::{Code, Outcome, ToolContext, Toolbox};
use toolgate_examples::hotel::{BookHotel, Hotels, UNKNOWN_HOTEL};

use crate::common::block_on;

fn toolbox() -> Toolbox<Hotels> {
    let mut toolbox = Toolbox::new(Hotels::demo());
    toolbox.register(BookHotel).unwrap();
    toolbox
}

fn ctx() -> ToolContext {
    ToolContext::new("traveller_7", "tenant_a", "req_1")
        .with_scopes(["bookings:write"])
        .allow_tools(["book_hotel"])
}

fn call(toolbox: &Toolbox<Hotels>, args: &[u8]) -> Outcome {
    block_on(toolbox.call(&ctx(), "book_hotel", args))
}

fn assert_refused(args: &[u8], code: Code, path: &str) {
    let toolbox = toolbox();
    let outcome = call(&toolbox, args);
    let rejection = outcome
        .rejection()
        .unwrap_or_else(|| panic!("{outcome:?} for {}", String::from_utf8_lossy(args)));
    assert_eq!(rejection.code(), code, "{rejection}");
    assert_eq!(rejection.path(), path, "{rejection}");
    assert!(
        toolbox.state().bookings().is_empty(),
        "a refused call reached the booking store"
    );
}

#[test]
fn a_valid_call_books_at_the_server_price() {
    let toolbox = toolbox();
    let outcome = call(&toolbox, br#"{"hotel_id":"h_seaview1","nights":3}"#);
    let result = outcome.value().expect("done");
    assert_eq!(result["total_cents"], 36_000);
    assert_eq!(result["guest"], "traveller_7");
    assert_eq!(toolbox.state().bookings().len(), 1);
}

#[test]
fn the_model_cannot_set_the_price() {
    assert_refused(
        br#"{"hotel_id":"h_seaview1","nights":3,"price":1}"#,
        Code::UnknownField,
        "/price",
    );
    assert_refused(
        br#"{"price":1,"hotel_id":"h_seaview1","nights":3}"#,
        Code::UnknownField,
        "/price",
    );
}

#[test]
fn a_hotel_id_that_belongs_to_nothing() {
    assert_refused(
        br#"{"hotel_id":"h_nothing0","nights":3}"#,
        Code::Domain(UNKNOWN_HOTEL),
        "/hotel_id",
    );
}

#[test]
fn nights_out_of_range() {
    assert_refused(
        br#"{"hotel_id":"h_seaview1","nights":-1}"#,
        Code::OutOfRange,
        "/nights",
    );
    assert_refused(
        br#"{"hotel_id":"h_seaview1","nights":0}"#,
        Code::OutOfRange,
        "/nights",
    );
    assert_refused(
        br#"{"hotel_id":"h_seaview1","nights":31}"#,
        Code::OutOfRange,
        "/nights",
    );
    assert_refused(
        br#"{"hotel_id":"h_seaview1","nights":256}"#,
        Code::OutOfRange,
        "/nights",
    );
    assert_refused(
        br#"{"hotel_id":"h_seaview1","nights":18446744073709551616}"#,
        Code::OutOfRange,
        "/nights",
    );
}

#[test]
fn wrong_shapes() {
    assert_refused(
        br#"{"hotel_id":"h_seaview1","nights":2.5}"#,
        Code::WrongType,
        "/nights",
    );
    assert_refused(
        br#"{"hotel_id":"h_seaview1","nights":1e-1}"#,
        Code::WrongType,
        "/nights",
    );
    assert_refused(
        br#"{"hotel_id":"h_seaview1","nights":"2"}"#,
        Code::WrongType,
        "/nights",
    );
    assert_refused(
        br#"{"hotel_id":"h_seaview1","nights":null}"#,
        Code::WrongType,
        "/nights",
    );
    assert_refused(
        br#"{"hotel_id":"h_SEAVIEW1","nights":2}"#,
        Code::PatternMismatch,
        "/hotel_id",
    );
    assert_refused(
        br#"{"hotel_id":"h_seaview1"}"#,
        Code::MissingField,
        "/nights",
    );
    assert_refused(br#"{}"#, Code::MissingField, "/hotel_id");
}

#[test]
fn hostile_documents() {
    assert_refused(
        br#"{"hotel_id":"h_seaview1","nights":1,"nights":30}"#,
        Code::DuplicateKey,
        "",
    );
    let deep = format!("{{\"hotel_id\":{}1{}}}", "[".repeat(20), "]".repeat(20));
    // The object is level 1 and 15 arrays fill levels 2-16: the 16th array,
    // at level 17, is where the scan stops.
    assert_refused(
        deep.as_bytes(),
        Code::TooDeep,
        &format!("/hotel_id{}", "/0".repeat(15)),
    );
    let big = format!(
        "{{\"hotel_id\":\"{}\",\"nights\":1}}",
        "a".repeat(70 * 1024)
    );
    assert_refused(big.as_bytes(), Code::PayloadTooLarge, "");
    let long = format!("{{\"hotel_id\":\"{}\",\"nights\":1}}", "a".repeat(9 * 1024));
    assert_refused(long.as_bytes(), Code::StringTooLong, "/hotel_id");
    assert_refused(b"[\"h_seaview1\",3]", Code::NotAnObject, "");
    assert_refused(
        b"{\"hotel_id\":\"h_seaview1\",\"nights\":3} trailing",
        Code::MalformedJson,
        "",
    );
    assert_refused(
        b"{\"hotel_id\":\"h_seaview\xff\",\"nights\":3}",
        Code::MalformedJson,
        "",
    );
    assert_refused(
        br#"{"hotel_id":"h_seaview\ud800","nights":3}"#,
        Code::MalformedJson,
        "/hotel_id",
    );
}

#[test]
fn rejections_tell_the_model_what_is_allowed() {
    let toolbox = toolbox();
    let outcome = call(&toolbox, br#"{"hotel_id":"h_seaview1","nights":-1}"#);
    assert_eq!(
        serde_json::to_string(&outcome).unwrap(),
        r#"{"status":"rejected","code":"OUT_OF_RANGE","path":"/nights","safe_message":"nights must be between 1 and 30","retryable":true}"#
    );
    let outcome = call(
        &toolbox,
        br#"{"hotel_id":"h_seaview1","nights":3,"price":1}"#,
    );
    assert_eq!(
        outcome.rejection().unwrap().safe_message(),
        "\"price\" is not a field here; allowed: hotel_id, nights"
    );
}

#[test]
fn the_schema_is_closed_and_has_no_price() {
    let schema = BookHotel::definition().schema();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        schema["required"],
        serde_json::json!(["hotel_id", "nights"])
    );
    assert_eq!(
        schema["properties"]["hotel_id"]["pattern"],
        "^h_[a-z0-9]{8}$"
    );
    assert_eq!(schema["properties"]["nights"]["minimum"], 1);
    assert_eq!(schema["properties"]["nights"]["maximum"], 30);
    let text = schema.to_string();
    assert!(!text.contains("price") && !text.contains("total"), "{text}");
}
