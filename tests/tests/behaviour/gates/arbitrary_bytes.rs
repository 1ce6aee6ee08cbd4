//! Whatever bytes arrive, the call path neither panics nor answers outside
//! its bounds, and nothing it refuses reaches the side effect. (The fuzz
//! target in `fuzz/` explores the same path with coverage guidance; this
//! runs on the stable toolchain in every build.)

use proptest::prelude::*;
use toolgate::{Code, MAX_MESSAGE_CHARS, Outcome, ToolContext, Toolbox};
use toolgate_examples::invoice::{Billing, RefundInvoice};

use crate::common::block_on;

/// Gate 1: what the bounded parse refuses.
const GATE_1: [Code; 7] = [
    Code::PayloadTooLarge,
    Code::TooDeep,
    Code::TooManyNodes,
    Code::StringTooLong,
    Code::DuplicateKey,
    Code::MalformedJson,
    Code::NotAnObject,
];

/// Gate 2: what the closed args struct refuses.
const GATE_2: [Code; 5] = [
    Code::UnknownField,
    Code::MissingField,
    Code::WrongType,
    Code::InvalidValue,
    Code::OutOfRange,
];

/// Gate 3: the field rules.
const GATE_3: [Code; 5] = [
    Code::InvalidValue,
    Code::OutOfRange,
    Code::InvalidLength,
    Code::PatternMismatch,
    Code::InvalidFormat,
];

/// A refusal is a code, a pointer of at most 128 bytes and a message of at
/// most `MAX_MESSAGE_CHARS` characters: a few hundred bytes.
const MAX_REJECTION_BYTES: usize = 1024;

/// Calls `name` with `bytes` on a fresh toolbox, checks the properties
/// every answer has, and returns the rejection's code. Every input here is
/// one the tool must refuse: none of them is a complete valid call.
fn refused(name: &str, bytes: &[u8]) -> Result<Code, TestCaseError> {
    let mut toolbox = Toolbox::new(Billing::demo());
    toolbox.register(RefundInvoice).unwrap();
    let ctx = ToolContext::new("u", "tenant_a", "r")
        .with_scopes(["billing:refund"])
        .allow_all_tools();
    let outcome = block_on(toolbox.call(&ctx, name, bytes));
    prop_assert!(
        toolbox.state().refunds().is_empty(),
        "the refund was recorded: {outcome:?}"
    );
    let Outcome::Rejected(rejection) = &outcome else {
        return Err(TestCaseError::fail(format!("not refused: {outcome:?}")));
    };
    prop_assert!(rejection.safe_message().chars().count() <= MAX_MESSAGE_CHARS);
    prop_assert!(!rejection.safe_message().is_empty());
    prop_assert!(rejection.path().len() <= 128);
    prop_assert!(rejection.path().is_empty() || rejection.path().starts_with('/'));
    let json = serde_json::to_string(&outcome).unwrap();
    prop_assert!(
        json.len() <= MAX_REJECTION_BYTES,
        "{} bytes: {json}",
        json.len()
    );
    Ok(rejection.code())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        // Bytes are refused before the rules run: by the bounded parse or,
        // for the rare JSON object, by the closed args struct.
        let code = refused("refund_invoice", &bytes)?;
        prop_assert!(GATE_1.contains(&code) || GATE_2.contains(&code), "{code}");
    }

    #[test]
    fn json_shaped_text(text in r#"\{("[a-z_]{0,12}":(-?[0-9]{1,25}(\.[0-9]+)?|"[^"\\]{0,20}"|true|null|\[\]|\{\}),?){0,6}\}"#) {
        // A `reason` is never a valid tagged object here, so every call is
        // refused by gates 1 to 3, before any resource is looked up.
        let code = refused("refund_invoice", text.as_bytes())?;
        prop_assert!(
            GATE_1.contains(&code) || GATE_2.contains(&code) || GATE_3.contains(&code),
            "{code}: {text}"
        );
    }

    #[test]
    fn arbitrary_tool_names(name in "\\PC{0,80}") {
        prop_assume!(name != "refund_invoice");
        prop_assert_eq!(refused(&name, b"{}")?, Code::NotPermitted);
    }
}
