//! Gate 6's cost on a call that needs no approval, for callgrind: a loop of
//! whole `Toolbox::call`s of two tools with the same arguments and body, one
//! `read` (gate 6 lets it straight through) and one `write` (it claims an
//! idempotency key in the memory store, runs the body and records the
//! outcome). Each call carries its own call id, so every `write` is a new
//! action; `replay` repeats one id, so every call after the first returns
//! the stored outcome; `gates` checks the same arguments with gates 1–3
//! only, and `floor` reads them with serde_json and garde alone; `async`
//! is `read` with an async body. Arguments: the number of calls, then
//! `read`, `async`, `write`, `replay`, `gates` or `floor`,
//! then optionally `subscribed`: the calls run under a tracing subscriber
//! (tracing-subscriber's registry, which every layer builds on, with no
//! layer), so that each call's span is made, entered and closed; without
//! it no subscriber is installed, as in a host that traces nothing.
//!
//! ```sh
//! cargo bench -p toolgate-tests --bench effect_probe --no-run
//! valgrind --tool=callgrind target/release/deps/effect_probe-<hash> 20000 write
//! ```

use std::future::Future;
use std::hint::black_box;
use std::task::{Context, Poll, Waker};

use toolgate::{ToolContext, ToolError, Toolbox, tool};

/// Note a number.
#[tool(effect = read)]
fn note_read(#[garde(range(min = 1, max = 100))] n: u8) -> Result<u8, ToolError> {
    Ok(n)
}

/// Note a number, with an async body.
#[tool(effect = read)]
async fn note_read_async(#[garde(range(min = 1, max = 100))] n: u8) -> Result<u8, ToolError> {
    Ok(n)
}

/// Note a number, for keeps.
#[tool(effect = write)]
fn note_write(#[garde(range(min = 1, max = 100))] n: u8) -> Result<u8, ToolError> {
    Ok(n)
}

fn now<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let calls: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let mode = args.next().unwrap_or_else(|| "write".to_owned());
    if args.next().as_deref() == Some("subscribed") {
        tracing::subscriber::set_global_default(tracing_subscriber::registry()).unwrap();
    }
    let mut toolbox = Toolbox::new(());
    toolbox
        .register(NoteRead)
        .unwrap()
        .register(NoteWrite)
        .unwrap()
        .register(NoteReadAsync)
        .unwrap();
    let tool = match mode.as_str() {
        "read" => "note_read",
        "async" => "note_read_async",
        _ => "note_write",
    };
    let mut done = 0;
    // The same arguments without the toolbox's call around them: gates 1–3
    // alone, and the floor (serde_json, then garde). `Toolbox::call`'s
    // own cost is `read` less `gates`.
    if mode == "gates" || mode == "floor" {
        // On the heap, as a received document is: a literal's place in
        // the binary moves with the code around it, and with it the
        // instructions UTF-8 validation takes.
        let bytes = br#"{"n":7}"#.to_vec();
        for _ in 0..calls {
            let ok = if mode == "gates" {
                toolgate::testing::check_arguments(&toolbox, "note_read", black_box(&bytes))
                    .is_some_and(|r| r.is_ok())
            } else {
                serde_json::from_slice::<NoteReadArgs>(black_box(&bytes))
                    .is_ok_and(|args| garde::Validate::validate(&args).is_ok())
            };
            if ok {
                done += 1;
            }
        }
        println!("{done} of {calls} {mode} checks passed");
        return;
    }
    // One context serves every call, so that the count is
    // `Toolbox::call`'s and not the context's making: a `read` call needs
    // no call id, and a `write` call is given a new one on that context
    // each time (as a host sets the id its client sent), so that each is
    // a new action.
    let mut ctx = ToolContext::new("u", "t", "r").allow_tools([tool]);
    let arguments = String::from(r#"{"n":7}"#);
    for i in 0..calls {
        if mode != "read" && mode != "async" {
            let id = if mode == "replay" { 0 } else { i };
            ctx = ctx.with_call_id(format!("call_{id}"));
        }
        let outcome = now(toolbox.call(&ctx, black_box(tool), black_box(arguments.as_str())));
        if outcome.value().is_some() {
            done += 1;
        }
    }
    println!("{done} of {calls} {mode} calls done");
}
