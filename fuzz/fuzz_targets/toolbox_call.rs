//! The whole call path, from a tool name and argument bytes chosen by the
//! fuzzer: admission, the bounded parse, serde, garde, resources, checks and
//! bodies of the example tools. No input may panic, and every refusal must
//! stay in its bounds.
#![no_main]

use std::future::Future;
use std::pin::pin;
use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};

use libfuzzer_sys::fuzz_target;
use toolgate::{MAX_MESSAGE_CHARS, Outcome, ToolContext, Toolbox};
use toolgate_examples::{export, hotel, invoice, refund};

fn ctx() -> &'static ToolContext {
    static CTX: OnceLock<ToolContext> = OnceLock::new();
    CTX.get_or_init(|| {
        ToolContext::new("analyst_1", "tenant_a", "req_fuzz")
            .with_scopes(["bookings:write", "exports:write", "refunds:write", "billing:refund"])
            .allow_all_tools()
    })
}

/// A fresh toolbox per input, so that state written by one input (a
/// booking, a refund) cannot accumulate across millions of runs.
fn call<S: Send + Sync + 'static, T: toolgate::Tool<S>>(state: S, tool: T, name: &str, arguments: &[u8]) -> Outcome {
    let mut toolbox = Toolbox::new(state);
    toolbox.register(tool).expect("one tool");
    now(toolbox.call(ctx(), name, arguments))
}

/// The example tools never wait: one poll completes a call.
fn now<F: Future>(future: F) -> F::Output {
    match pin!(future).as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("an in-memory call waited"),
    }
}

const NAMES: [&str; 5] = ["book_hotel", "schedule_export", "issue_refund", "refund_invoice", "no_such_tool"];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, arguments)) = data.split_first() else { return };
    let name = NAMES[usize::from(selector) % NAMES.len()];
    let outcome = match name {
        "book_hotel" => call(hotel::Hotels::demo(), hotel::BookHotel, name, arguments),
        "schedule_export" => call(export::Accounts::demo(), export::ScheduleExport, name, arguments),
        "issue_refund" => call(refund::Shop::demo(), refund::IssueRefund, name, arguments),
        _ => call(invoice::Billing::demo(), invoice::RefundInvoice, name, arguments),
    };
    if let Outcome::Rejected(rejection) = &outcome {
        assert!(rejection.safe_message().chars().count() <= MAX_MESSAGE_CHARS);
        assert!(rejection.path().len() <= 128);
        assert!(rejection.path().is_empty() || rejection.path().starts_with('/'));
    }
    let _ = serde_json_free(&outcome);
});

/// The outcome always serializes.
fn serde_json_free(outcome: &Outcome) -> String {
    outcome.to_json().to_string()
}
