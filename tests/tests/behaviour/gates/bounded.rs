//! Gate 1: limits before parsing, for every input form, per toolbox and per
//! tool.

use serde_json::value::RawValue;
use toolgate::{Arguments, Code, Limits, Outcome, ToolContext, Toolbox};

use crate::common::block_on;
use crate::common::tools::{Add, Spy};

fn ctx() -> ToolContext {
    ToolContext::new("u", "t", "r").allow_all_tools()
}

fn code(toolbox: &Toolbox<Spy>, args: impl AsRef<[u8]>) -> Option<Code> {
    block_on(toolbox.call(&ctx(), "add", args.as_ref()))
        .rejection()
        .map(|r| r.code())
}

fn toolbox(limits: Limits) -> Toolbox<Spy> {
    let mut toolbox = Toolbox::new(Spy::default()).with_limits(limits);
    toolbox.register(Add).unwrap();
    toolbox
}

#[test]
fn defaults_are_the_documented_ones() {
    let limits = Limits::default();
    assert_eq!(
        (
            limits.bytes(),
            limits.depth(),
            limits.nodes(),
            limits.string_bytes()
        ),
        (64 * 1024, 16, 4096, 8 * 1024)
    );
}

#[test]
fn each_limit_is_enforced_at_its_edge() {
    let tb = toolbox(
        Limits::default()
            .max_bytes(40)
            .max_depth(2)
            .max_nodes(4)
            .max_string_bytes(3),
    );
    let exact = r#"{"a":1,"b":2}"#;
    assert_eq!(code(&tb, exact), None);

    let padded = format!("{{\"a\":1,\"b\":2}}{}", " ".repeat(40 - exact.len()));
    assert_eq!(padded.len(), 40);
    assert_eq!(code(&tb, &padded), None);
    assert_eq!(code(&tb, format!("{padded} ")), Some(Code::PayloadTooLarge));

    // depth 2: the object and one container inside it.
    assert_eq!(code(&tb, r#"{"a":[],"b":2}"#), Some(Code::WrongType));
    assert_eq!(code(&tb, r#"{"a":[[]],"b":2}"#), Some(Code::TooDeep));

    // 4 nodes: the object and three values.
    assert_eq!(
        code(&tb, r#"{"a":1,"b":2,"c":3}"#),
        Some(Code::UnknownField)
    );
    assert_eq!(
        code(&tb, r#"{"a":1,"b":2,"c":3,"d":4}"#),
        Some(Code::TooManyNodes)
    );

    // 3 bytes per string, keys included.
    assert_eq!(code(&tb, r#"{"abc":1}"#), Some(Code::UnknownField));
    assert_eq!(code(&tb, r#"{"abcd":1}"#), Some(Code::StringTooLong));
    assert_eq!(code(&tb, r#"{"a":"\u0041"}"#), Some(Code::StringTooLong));
}

#[test]
fn a_tool_can_have_its_own_limits() {
    let mut tb = Toolbox::new(Spy::default());
    tb.register_with_limits(Add, Limits::default().max_bytes(16))
        .unwrap();
    assert_eq!(code(&tb, r#"{"a":1,"b":2}"#), None);
    assert_eq!(
        code(&tb, r#"{"a":1, "b":2000}"#),
        Some(Code::PayloadTooLarge)
    );
}

#[test]
fn duplicate_keys_are_refused_at_every_depth_and_spelling() {
    let tb = toolbox(Limits::default());
    for doc in [
        r#"{"a":1,"a":1,"b":2}"#,
        r#"{"a":1,"b":2,"\u0062":3}"#,
        r#"{"a":1,"b":2,"x":{"k":1,"k":2}}"#,
        r#"{"a":1,"b":2,"x":[{"k":[{"z":1,"z":1}]}]}"#,
        r#"{"a":1,"b":2,"\ud83d\ude00":1,"😀":2}"#,
    ] {
        assert_eq!(code(&tb, doc), Some(Code::DuplicateKey), "{doc}");
    }
    let mut many = String::from(r#"{"a":1,"b":2"#);
    for _ in 0..1000 {
        many.push_str(r#","c":0"#);
    }
    many.push('}');
    assert_eq!(code(&tb, many), Some(Code::DuplicateKey));
}

#[test]
fn every_input_form_takes_the_same_bounded_path() {
    let tb = toolbox(Limits::default());
    let ctx = ctx();
    let text = r#"{"a":1,"b":2,"a":3}"#;
    let raw: &RawValue = serde_json::from_str(text).unwrap();
    let outcomes: Vec<Outcome> = vec![
        block_on(tb.call(&ctx, "add", text)),
        block_on(tb.call(&ctx, "add", text.as_bytes())),
        block_on(tb.call(&ctx, "add", &text.to_owned())),
        block_on(tb.call(&ctx, "add", &text.as_bytes().to_vec())),
        block_on(tb.call(&ctx, "add", raw)),
    ];
    for outcome in &outcomes {
        assert_eq!(
            outcome.rejection().map(|r| r.code()),
            Some(Code::DuplicateKey)
        );
    }

    // An OpenAI-style envelope: arguments arrive as JSON text inside JSON.
    let envelope = r#"{"name":"add","arguments":"{\"a\":-5,\"b\":7}"}"#;
    let call: serde_json::Value = serde_json::from_str(envelope).unwrap();
    let outcome = block_on(tb.call(&ctx, "add", call["arguments"].as_str().unwrap()));
    assert_eq!(outcome.value(), Some(&serde_json::json!(2)));
}

#[test]
fn an_already_parsed_value_loses_only_duplicate_detection() {
    let tb = toolbox(Limits::default());
    // serde_json kept the last "a"; gate 1 can no longer see that there were two.
    let value: serde_json::Value = serde_json::from_str(r#"{"a":1,"b":2,"a":3}"#).unwrap();
    let outcome = block_on(tb.call(&ctx(), "add", Arguments::from_value(&value)));
    assert_eq!(outcome.value(), Some(&serde_json::json!(5)));
    // The other limits still hold.
    let deep: serde_json::Value =
        serde_json::from_str(&format!("{{\"a\":{}1{}}}", "[".repeat(20), "]".repeat(20))).unwrap();
    let outcome = block_on(tb.call(&ctx(), "add", Arguments::from_value(&deep)));
    assert_eq!(outcome.rejection().map(|r| r.code()), Some(Code::TooDeep));
}

#[test]
fn text_that_is_not_json_is_malformed() {
    let tb = toolbox(Limits::default());
    for doc in [
        &b""[..],
        b"   ",
        b"{",
        b"{\"a\":1,\"b\":2",
        b"{\"a\":1,\"b\":2}}",
        b"{\"a\":1,\"b\":2}\n{}",
        b"{\"a\":1,\"b\":2,}",
        b"{\"a\":01,\"b\":2}",
        b"{\"a\":+1,\"b\":2}",
        b"{\"a\":1e,\"b\":2}",
        b"{\"a\":NaN,\"b\":2}",
        b"{'a':1,'b':2}",
        b"{\"a\":1,\"b\":\"\xc3\x28\"}",
        b"\xef\xbb\xbf{\"a\":1,\"b\":2}",
        b"{\"a\":1,\"b\":\"\\x41\"}",
        b"{\"a\":1,\"b\":\"\\udc00\"}",
        b"{\"a\":1,\"b\":\"\\ud800\\ud800\"}",
        b"{\"a\":1,\"b\":\"line\nbreak\"}",
        b"{\"a\":1,\"b\":2}\x00",
    ] {
        assert_eq!(
            code(&tb, doc),
            Some(Code::MalformedJson),
            "{}",
            String::from_utf8_lossy(doc)
        );
    }
    for doc in [&b"[]"[..], b"1", b"\"x\"", b"null", b"true", b" [1,2]"] {
        assert_eq!(
            code(&tb, doc),
            Some(Code::NotAnObject),
            "{}",
            String::from_utf8_lossy(doc)
        );
    }
}

#[test]
fn whitespace_and_escapes_that_json_allows_are_fine() {
    let tb = toolbox(Limits::default());
    assert_eq!(
        code(&tb, " \t\r\n{ \"a\" : 1 ,\n\"\\u0062\" : 2 } \n"),
        None
    );
}

/// A tool with maps, where serde itself keeps the last of two equal keys
/// without complaint: only gate 1 can refuse those duplicates.
mod labels {
    use std::collections::BTreeMap;

    use schemars::JsonSchema;
    use serde::Deserialize;
    use toolgate::{ToolError, tool};

    use crate::common::tools::Spy;

    /// One item and its free-form attributes.
    #[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
    #[serde(deny_unknown_fields)]
    pub struct Item {
        #[garde(length(chars, min = 1, max = 20))]
        pub name: String,
        #[garde(skip)]
        pub attrs: BTreeMap<String, String>,
    }

    /// Label items.
    #[tool(effect = write)]
    pub fn label(
        spy: &Spy,
        #[garde(skip)] labels: BTreeMap<String, String>,
        #[garde(dive)] items: Vec<Item>,
    ) -> Result<usize, ToolError> {
        spy.calls
            .lock()
            .unwrap()
            .push(format!("{labels:?} {items:?}"));
        Ok(items.iter().map(|i| i.attrs.len()).sum())
    }
}

#[test]
fn duplicate_keys_serde_would_not_see_are_refused_with_their_path() {
    // Each duplicate sits where serde cannot report it: in a map (serde
    // keeps the last value), under a key the tool does not declare (serde
    // would answer UNKNOWN_FIELD), or inside objects and arrays; some are
    // spelled differently. Gate 1 alone must find each one, and point at
    // the object that holds it.
    let mut tb = Toolbox::new(Spy::default());
    tb.register(labels::Label).unwrap().register(Add).unwrap();
    let wide: String = (0..20).map(|i| format!("\"k{i}\":\"v\",")).collect();
    let cases: Vec<(&str, String, &str)> = vec![
        // A map, top level and inside an array.
        ("label", r#"{"labels":{"env":"prod","env":"dev"},"items":[]}"#.into(), "/labels"),
        (
            "label",
            r#"{"labels":{},"items":[{"name":"a","attrs":{}},{"name":"b","attrs":{"k":"1","k":"2"}}]}"#.into(),
            "/items/1/attrs",
        ),
        // More keys than the early check looks at: found when the object closes.
        ("label", format!(r#"{{"labels":{{{wide}"k3":"again"}},"items":[]}}"#), "/labels"),
        (
            "label",
            format!(r#"{{"labels":{{}},"items":[{{"name":"a","attrs":{{{wide}"k19":"again"}}}}]}}"#),
            "/items/0/attrs",
        ),
        // Keys that are not fields, at the top and nested in objects and arrays.
        ("add", r#"{"a":1,"b":2,"zz":1,"zz":2}"#.into(), ""),
        ("add", r#"{"zz":1,"a":1,"b":2,"zz":2}"#.into(), ""),
        ("add", r#"{"a":1,"b":2,"x":{"k":1,"k":2}}"#.into(), "/x"),
        ("add", r#"{"a":1,"b":2,"x":[0,{"y":[{"k":1,"k":2}]}]}"#.into(), "/x/1/y/0"),
        ("label", r#"{"labels":{},"items":[{"name":"a","attrs":{},"extra":1,"extra":2}]}"#.into(), "/items/0"),
        // The same key spelled with escapes.
        ("label", r#"{"labels":{"a":"1","\u0061":"2"},"items":[]}"#.into(), "/labels"),
        ("label", r#"{"labels":{"\u0065nv":"1","e\u006Ev":"2"},"items":[]}"#.into(), "/labels"),
        ("label", r#"{"labels":{"a/b":"1","a\/b":"2"},"items":[]}"#.into(), "/labels"),
        ("label", r#"{"labels":{"é":"1","\u00e9":"2"},"items":[]}"#.into(), "/labels"),
        ("add", r#"{"a":1,"b":2,"\u007a":1,"z":2}"#.into(), ""),
        ("add", r#"{"a":1,"b":2,"x":{"\u006b":1,"k":2}}"#.into(), "/x"),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(tool, doc, path)| {
            let outcome = block_on(tb.call(&ctx(), tool, doc.as_str()));
            match outcome.rejection() {
                Some(r) if (r.code(), r.path()) == (Code::DuplicateKey, *path) => None,
                _ => Some(format!("{doc} -> {}", outcome.to_json())),
            }
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} not refused as DUPLICATE_KEY at their path:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
    assert_eq!(tb.state().count(), 0);
    // The same documents without the repeat go through: the duplicate is
    // the only thing wrong with them.
    for doc in [
        r#"{"labels":{"env":"prod"},"items":[]}"#,
        r#"{"labels":{},"items":[{"name":"a","attrs":{}},{"name":"b","attrs":{"k":"1"}}]}"#,
        r#"{"labels":{"a":"1","b":"2"},"items":[]}"#,
    ] {
        let outcome = block_on(tb.call(&ctx(), "label", doc));
        assert!(outcome.value().is_some(), "{doc}: {outcome:?}");
    }
}
