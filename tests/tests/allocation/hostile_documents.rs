//! Refusing a hostile document costs what the limits allow, not what the
//! attacker sent: bytes allocated while refusing are counted by a global
//! allocator and must not grow with the payload.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use toolgate::{Code, Limits, Outcome, ToolContext, Toolbox};

use crate::common::tools::{Add, Spy};
use crate::counted;

/// Polls once: every future in these tests completes without waiting, and
/// a runtime would allocate on its own.
fn now<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the call waited"),
    }
}

/// Bytes allocated on this thread while the toolbox refuses `payload`.
fn refusal_cost(toolbox: &Toolbox<Spy>, payload: &[u8], expected: Code) -> usize {
    let ctx = ToolContext::new("u", "t", "r").allow_all_tools();
    let before = counted().asked;
    let outcome: Outcome = now(toolbox.call(&ctx, "add", payload));
    let cost = counted().asked - before;
    assert_eq!(outcome.rejection().map(|r| r.code()), Some(expected));
    drop(outcome);
    cost
}

fn flat_object(bytes: usize) -> Vec<u8> {
    let mut doc = b"{\"a\":1,\"b\":2".to_vec();
    let mut i = 0u64;
    while doc.len() < bytes {
        doc.extend_from_slice(format!(",\"k{i}\":{i}").as_bytes());
        i += 1;
    }
    doc.push(b'}');
    doc
}

fn depth_bomb(bytes: usize) -> Vec<u8> {
    let half = (bytes - 8) / 2;
    let mut doc = b"{\"a\":".to_vec();
    doc.extend(std::iter::repeat_n(b'[', half));
    doc.extend(std::iter::repeat_n(b']', half));
    doc.push(b'}');
    doc
}

fn long_string(bytes: usize) -> Vec<u8> {
    let mut doc = b"{\"a\":\"".to_vec();
    doc.extend(std::iter::repeat_n(b'x', bytes));
    doc.extend_from_slice(b"\"}");
    doc
}

fn toolbox(limits: Limits) -> Toolbox<Spy> {
    let mut toolbox = Toolbox::new(Spy::default()).with_limits(limits);
    toolbox.register(Add).unwrap();
    toolbox
}

const MIB: usize = 1024 * 1024;

/// What refusing an oversize document may allocate: the rejection. With
/// the runtime's metrics on, every call is watched (counted and timed):
/// its future is boxed with the watch and its labels are listed, a fixed
/// cost a call whatever it carries.
const REFUSAL_BYTES: usize = if toolgate::__private::EVERY_CALL_WATCHED {
    3 * 1024
} else {
    1024
};

#[test]
fn oversize_documents_are_refused_before_they_are_read() {
    let tb = toolbox(Limits::default());
    for (small, large) in [
        (flat_object(MIB), flat_object(10 * MIB)),
        (depth_bomb(MIB / 4), depth_bomb(MIB)),
        (long_string(MIB), long_string(5 * MIB)),
    ] {
        let small_cost = refusal_cost(&tb, &small, Code::PayloadTooLarge);
        let large_cost = refusal_cost(&tb, &large, Code::PayloadTooLarge);
        assert_eq!(small_cost, large_cost, "the cost grew with the payload");
        assert!(
            large_cost < REFUSAL_BYTES,
            "refusing cost {large_cost} bytes"
        );
    }
}

#[test]
fn with_a_large_byte_limit_the_other_limits_still_bound_the_cost() {
    // Byte limit raised past every payload: now depth, nodes and string
    // length must stop the scan early.
    let tb = toolbox(Limits::default().max_bytes(64 * MIB));
    for (small, large, code) in [
        (flat_object(MIB), flat_object(10 * MIB), Code::TooManyNodes),
        (depth_bomb(MIB / 4), depth_bomb(MIB), Code::TooDeep),
        (long_string(MIB), long_string(5 * MIB), Code::StringTooLong),
    ] {
        let small_cost = refusal_cost(&tb, &small, code);
        let large_cost = refusal_cost(&tb, &large, code);
        assert_eq!(
            small_cost, large_cost,
            "{code}: the cost grew with the payload"
        );
        assert!(
            large_cost < 64 * 1024,
            "{code}: refusing cost {large_cost} bytes"
        );
    }
}

#[test]
fn a_thousand_duplicate_keys_cost_little() {
    let tb = toolbox(Limits::default());
    let mut doc = String::from("{\"a\":1");
    for _ in 0..1000 {
        doc.push_str(",\"dup\":1");
    }
    doc.push('}');
    let cost = refusal_cost(&tb, doc.as_bytes(), Code::DuplicateKey);
    assert!(cost < 64 * 1024, "refusing cost {cost} bytes");
}

/// A refusal inside a long array allocates nothing for each item but the
/// vector serde reads it into. `schedule_export` is read without its
/// schema (registration proved its rules refuse a repeated column), so
/// an array of one column written over and over is read whole, its rules
/// refuse it, and the schema's walk says why as the gates one by one
/// would: the enum values' names are not copied onto a path, and the walk
/// keeps no more items once it has found the repeat.
#[test]
fn a_long_array_refused_inside_costs_no_allocation_an_item() {
    let mut toolbox = Toolbox::new(toolgate_examples::export::Accounts::demo());
    toolbox
        .register(toolgate_examples::export::ScheduleExport)
        .unwrap();
    let columns = |items: usize| {
        let repeated = vec![r#""id""#; items].join(",");
        format!(r#"{{"account_ref":"acct_42","format":"jsonl","columns":[{repeated}]}}"#)
    };
    let cost = |items: usize| {
        let doc = columns(items);
        let (bytes, count) = (counted().asked, counted().allocations);
        let refused =
            toolgate::testing::check_arguments(&toolbox, "schedule_export", doc.as_bytes())
                .unwrap()
                .unwrap_err();
        let cost = (counted().asked - bytes, counted().allocations - count);
        assert_eq!(
            (refused.code(), refused.path()),
            (Code::InvalidValue, "/columns")
        );
        drop(refused);
        cost
    };
    let (few, many) = (cost(10), cost(1_600));
    // The vector serde reads the columns into grows with them (a byte an
    // item, doubling); nothing else may.
    assert!(many.1 <= few.1 + 16, "{few:?} allocations, then {many:?}");
    assert!(many.0 <= few.0 + 4 * 1_600, "{few:?} bytes, then {many:?}");
}
