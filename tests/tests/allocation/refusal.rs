//! Every refusal costs work bounded by the limits and the schema's size,
//! message and path included, never exponential in the nesting.
//!
//! A refusal deep inside a recursive enum once made the message builder
//! follow every branch of every level: a 163-byte call took seconds and
//! 190 MB to refuse. Here, random nestings of recursive enums in each of
//! serde's four representations end in a refusal at the bottom, and the
//! bytes and allocations spent refusing are counted by a global allocator
//! (counted, not timed: this machine's clock is shared).

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use proptest::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate::{Outcome, ToolContext, ToolError, Toolbox, tool};

use crate::counted;

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum External {
    Leaf,
    One(#[garde(dive)] Box<External>),
    Also(#[garde(dive)] Box<External>),
    Two {
        #[garde(dive)]
        a: Box<External>,
        #[garde(dive)]
        b: Box<External>,
    },
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Internal {
    Leaf,
    One {
        #[garde(dive)]
        next: Box<Internal>,
    },
    Also {
        #[garde(dive)]
        next: Box<Internal>,
    },
    Two {
        #[garde(dive)]
        a: Box<Internal>,
        #[garde(dive)]
        b: Box<Internal>,
    },
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(
    tag = "t",
    content = "c",
    rename_all = "snake_case",
    deny_unknown_fields
)]
pub enum Adjacent {
    Leaf,
    One(#[garde(dive)] Box<Adjacent>),
    Also(#[garde(dive)] Box<Adjacent>),
    Two {
        #[garde(dive)]
        a: Box<Adjacent>,
        #[garde(dive)]
        b: Box<Adjacent>,
    },
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(untagged)]
pub enum Untagged {
    Leaf(#[garde(range(max = 9))] u8),
    One {
        #[garde(dive)]
        next: Box<Untagged>,
    },
    Also {
        #[garde(dive)]
        next: Box<Untagged>,
        #[garde(skip)]
        also: bool,
    },
    Two {
        #[garde(dive)]
        a: Box<Untagged>,
        #[garde(dive)]
        b: Box<Untagged>,
    },
}

/// Take one tree of each representation.
#[tool(effect = read)]
pub fn trees(
    external: External,
    internal: Internal,
    adjacent: Adjacent,
    untagged: Untagged,
) -> Result<(), ToolError> {
    let _ = (external, internal, adjacent, untagged);
    Ok(())
}

/// Take an untagged tree alone: a schema whose only unions are `anyOf`,
/// with no tagged enum beside them.
#[tool(effect = read)]
pub fn untagged_tree(tree: Untagged) -> Result<(), ToolError> {
    let _ = tree;
    Ok(())
}

/// Polls once: these calls complete without waiting, and a runtime would
/// allocate on its own.
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

#[derive(Clone, Copy, Debug)]
enum Shape {
    External,
    Internal,
    Adjacent,
    Untagged,
}

#[derive(Clone, Copy, Debug)]
enum Bottom {
    UnknownTag,
    ArrayForObject,
    ExtraKey,
    WrongType,
}

/// A valid leaf of each representation.
fn leaf(shape: Shape) -> Value {
    match shape {
        Shape::External => json!("leaf"),
        Shape::Internal => json!({"kind": "leaf"}),
        Shape::Adjacent => json!({"t": "leaf"}),
        Shape::Untagged => json!(1),
    }
}

/// What ends the nesting: something each representation refuses.
fn bottom(shape: Shape, bottom: Bottom) -> Value {
    match (shape, bottom) {
        (Shape::External, Bottom::UnknownTag) => json!({"zz": "leaf"}),
        (Shape::Internal, Bottom::UnknownTag) => json!({"kind": "zz"}),
        (Shape::Adjacent, Bottom::UnknownTag) => json!({"t": "zz", "c": 1}),
        (Shape::Untagged, Bottom::UnknownTag) => json!({"zz": 1}),
        (Shape::External, Bottom::ArrayForObject) => json!({"two": [ "leaf", "leaf" ]}),
        (Shape::Internal, Bottom::ArrayForObject) => json!({"kind": "one", "next": ["leaf"]}),
        (Shape::Adjacent, Bottom::ArrayForObject) => {
            json!({"t": "two", "c": [{"t": "leaf"}, {"t": "leaf"}]})
        }
        (Shape::Untagged, Bottom::ArrayForObject) => json!([1, 2]),
        (Shape::External, Bottom::ExtraKey) => json!({"one": "leaf", "x": 1}),
        (Shape::Internal, Bottom::ExtraKey) => json!({"kind": "leaf", "x": 1}),
        (Shape::Adjacent, Bottom::ExtraKey) => json!({"t": "leaf", "c": null}),
        (Shape::Untagged, Bottom::ExtraKey) => json!({"x": 1}),
        (Shape::External, Bottom::WrongType) => json!(7),
        (Shape::Internal, Bottom::WrongType) => json!({"kind": 7}),
        (Shape::Adjacent, Bottom::WrongType) => json!({"t": ["one"]}),
        (Shape::Untagged, Bottom::WrongType) => json!("x"),
    }
}

/// `inner` wrapped in `levels` levels of `shape`, each `One` or `Two`
/// (with the other side of a `Two` a valid leaf). Every representation
/// also has a variant `Also` whose member has the same name and type as
/// `One`'s: a path through them names several subschemas at every level.
fn nest(shape: Shape, levels: &[bool], inner: Value) -> Value {
    levels
        .iter()
        .rev()
        .fold(inner, |inner, two| match (shape, two) {
            (Shape::External, false) => json!({"one": inner}),
            (Shape::External, true) => json!({"two": {"a": leaf(shape), "b": inner}}),
            (Shape::Internal, false) => json!({"kind": "one", "next": inner}),
            (Shape::Internal, true) => json!({"kind": "two", "a": leaf(shape), "b": inner}),
            (Shape::Adjacent, false) => json!({"t": "one", "c": inner}),
            (Shape::Adjacent, true) => json!({"t": "two", "c": {"a": leaf(shape), "b": inner}}),
            (Shape::Untagged, false) => json!({"next": inner}),
            (Shape::Untagged, true) => json!({"a": leaf(shape), "b": inner}),
        })
}

/// Bytes and allocations spent refusing `args`.
fn refusal_cost(toolbox: &Toolbox<()>, args: &str) -> (usize, usize, Outcome) {
    cost_of(toolbox, "trees", args)
}

fn cost_of(toolbox: &Toolbox<()>, tool: &str, args: &str) -> (usize, usize, Outcome) {
    let ctx = ToolContext::new("u", "t", "r").allow_all_tools();
    let before = counted();
    let outcome = now(toolbox.call(&ctx, tool, args));
    let spent = counted() - before;
    (spent.asked, spent.calls(), outcome)
}

/// The most a refusal may cost here: these documents are under 2 KiB and
/// at most 16 levels deep (the default limits), against a schema of four
/// recursive enums; the deepest costs about 260 KB in some 9,000
/// allocations (each level copies the path so far). The exponential message
/// builder this replaced spent 8.2 MB in 451,000 on it.
const MAX_BYTES: usize = 512 * 1024;
const MAX_ALLOCATIONS: usize = 16_000;

fn shapes() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::External),
        Just(Shape::Internal),
        Just(Shape::Adjacent),
        Just(Shape::Untagged),
    ]
}

fn bottoms() -> impl Strategy<Value = Bottom> {
    prop_oneof![
        Just(Bottom::UnknownTag),
        Just(Bottom::ArrayForObject),
        Just(Bottom::ExtraKey),
        Just(Bottom::WrongType),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn deep_refusals_cost_what_the_limits_allow(
        shape in shapes(),
        end in bottoms(),
        // Level 1 is the arguments object; the default depth limit is 16.
        levels in proptest::collection::vec(any::<bool>(), 0..=6),
    ) {
        let mut toolbox = Toolbox::new(());
        toolbox.register(Trees).unwrap();
        let mut args = json!({
            "external": leaf(Shape::External),
            "internal": leaf(Shape::Internal),
            "adjacent": leaf(Shape::Adjacent),
            "untagged": leaf(Shape::Untagged),
        });
        let field = match shape {
            Shape::External => "external",
            Shape::Internal => "internal",
            Shape::Adjacent => "adjacent",
            Shape::Untagged => "untagged",
        };
        args[field] = nest(shape, &levels, bottom(shape, end));
        let args = args.to_string();
        let (bytes, count, outcome) = refusal_cost(&toolbox, &args);
        let rejection = outcome.rejection();
        prop_assert!(rejection.is_some(), "{args} ran: {outcome:?}");
        prop_assert!(bytes <= MAX_BYTES, "{bytes} bytes to refuse {args}");
        prop_assert!(count <= MAX_ALLOCATIONS, "{count} allocations to refuse {args}");
    }
}

/// The case the review found, at the deepest nesting the default limits
/// allow: an unknown tag at the bottom of adjacently tagged `Two`s.
#[test]
fn the_deepest_adjacent_refusal_is_cheap() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Trees).unwrap();
    // Each adjacent `One` adds one level of nesting (`c`).
    let levels = [false; 14];
    let mut args = json!({
        "external": leaf(Shape::External),
        "internal": leaf(Shape::Internal),
        "adjacent": nest(Shape::Adjacent, &levels, bottom(Shape::Adjacent, Bottom::UnknownTag)),
        "untagged": leaf(Shape::Untagged),
    });
    let text = args.to_string();
    let (bytes, count, outcome) = refusal_cost(&toolbox, &text);
    assert!(outcome.rejection().is_some(), "{outcome:?}");
    eprintln!("the deepest adjacent refusal: {bytes} bytes in {count} allocations");
    assert!(
        bytes <= MAX_BYTES && count <= MAX_ALLOCATIONS,
        "{bytes} bytes, {count} allocations"
    );
    args["adjacent"] = leaf(Shape::Adjacent);
    let ok = now(toolbox.call(
        &ToolContext::new("u", "t", "r").allow_all_tools(),
        "trees",
        args.to_string().as_str(),
    ));
    assert!(ok.value().is_some(), "{ok:?}");
}

/// Each level of nesting adds at most a bounded share to the cost: the
/// cost grows at most polynomially (each level copies the path so far),
/// where an exponential builder doubles it or worse at every level.
#[test]
fn each_level_adds_a_bounded_cost() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(Trees).unwrap();
    for shape in [
        Shape::External,
        Shape::Internal,
        Shape::Adjacent,
        Shape::Untagged,
    ] {
        let mut previous: Option<usize> = None;
        for n in 0..15 {
            let mut args = json!({
                "external": leaf(Shape::External),
                "internal": leaf(Shape::Internal),
                "adjacent": leaf(Shape::Adjacent),
                "untagged": leaf(Shape::Untagged),
            });
            let field = ["external", "internal", "adjacent", "untagged"][shape as usize];
            args[field] = nest(shape, &vec![false; n], bottom(shape, Bottom::UnknownTag));
            let (bytes, _, outcome) = refusal_cost(&toolbox, &args.to_string());
            assert!(outcome.rejection().is_some(), "{args} ran");
            // Past the first levels, where fixed costs dominate, a level
            // adds less than 60%: polynomial growth slows, exponential
            // growth does not.
            if let (Some(previous), true) = (previous, n >= 4) {
                assert!(
                    bytes * 10 <= previous * 16,
                    "{shape:?}: level {n} cost {bytes} bytes after {previous}"
                );
            }
            previous = Some(bytes);
        }
    }
}

/// serde tries an untagged enum's variants one by one at every level, so
/// a refusal deep inside one costs variants^depth there. A schema whose
/// unions are all untagged (`anyOf`, nothing else) is walked before serde
/// sees it, like any other with an untagged union: each level adds a
/// bounded share.
#[test]
fn an_untagged_tree_alone_is_walked_before_serde() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(UntaggedTree).unwrap();
    let mut previous: Option<usize> = None;
    for n in 0..15 {
        let tree = nest(
            Shape::Untagged,
            &vec![false; n],
            bottom(Shape::Untagged, Bottom::UnknownTag),
        );
        let args = json!({ "tree": tree }).to_string();
        let (_, count, outcome) = cost_of(&toolbox, "untagged_tree", &args);
        assert!(outcome.rejection().is_some(), "{args} ran");
        if let (Some(previous), true) = (previous, n >= 4) {
            assert!(
                count * 10 <= previous * 16,
                "level {n} took {count} allocations after {previous}"
            );
        }
        previous = Some(count);
    }
}
