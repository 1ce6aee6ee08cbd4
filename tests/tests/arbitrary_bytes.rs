//! Whatever bytes arrive, the call path neither panics nor answers outside
//! its bounds. (The fuzz target in `fuzz/` explores the same path with
//! coverage guidance; this runs on the stable toolchain in every build.)

mod common;

use common::block_on;
use proptest::prelude::*;
use toolgate::{MAX_MESSAGE_CHARS, ToolContext, Toolbox};
use toolgate_examples::invoice::{Billing, RefundInvoice};

fn check(toolbox: &Toolbox<Billing>, name: &str, bytes: &[u8]) -> Result<(), TestCaseError> {
    let ctx = ToolContext::new("u", "tenant_a", "r")
        .with_scopes(["billing:refund"])
        .allow_all_tools();
    let outcome = block_on(toolbox.call(&ctx, name, bytes));
    if let Some(rejection) = outcome.rejection() {
        prop_assert!(rejection.safe_message().chars().count() <= MAX_MESSAGE_CHARS);
        prop_assert!(rejection.path().len() <= 128);
        prop_assert!(rejection.path().is_empty() || rejection.path().starts_with('/'));
    }
    prop_assert!(serde_json::to_string(&outcome).is_ok());
    Ok(())
}

fn toolbox() -> Toolbox<Billing> {
    let mut toolbox = Toolbox::new(Billing::demo());
    toolbox.register(RefundInvoice).unwrap();
    toolbox
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        check(&toolbox(), "refund_invoice", &bytes)?;
    }

    #[test]
    fn json_shaped_text(text in r#"\{("[a-z_]{0,12}":(-?[0-9]{1,25}(\.[0-9]+)?|"[^"\\]{0,20}"|true|null|\[\]|\{\}),?){0,6}\}"#) {
        check(&toolbox(), "refund_invoice", text.as_bytes())?;
    }

    #[test]
    fn arbitrary_tool_names(name in "\\PC{0,80}") {
        check(&toolbox(), &name, b"{}")?;
    }
}
