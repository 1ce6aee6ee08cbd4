//! The conformance checkers themselves: each must refuse tools that break
//! its dialect's rules, or it proves nothing when it accepts ours.

use serde_json::{Value, json};
use toolgate_tests::conformance::{CLOSED, Dialect, check, check_meaning, check_request};

const OPENAI_STRICT: Dialect = Dialect::OpenAiChat { strict: true };
const ANTHROPIC_STRICT: Dialect = Dialect::Anthropic { strict: true };

fn openai(parameters: Value) -> Value {
    json!({"type":"function","function":{"name":"t","description":"d","parameters":parameters,"strict":true}})
}

fn anthropic(schema: Value) -> Value {
    json!({"name":"t","description":"d","input_schema":schema,"strict":true})
}

fn gemini(schema: Value) -> Value {
    json!({"name":"t","description":"d","parametersJsonSchema":schema})
}

fn legacy(schema: Value) -> Value {
    json!({"name":"t","description":"d","parameters":schema})
}

#[track_caller]
fn fails(dialect: Dialect, tool: Value, expected: &str) {
    let problems = check(dialect, &tool);
    assert!(
        problems.iter().any(|p| p.contains(expected)),
        "{dialect:?} should report `{expected}` for {tool}, got {problems:?}"
    );
}

#[track_caller]
fn passes(dialect: Dialect, tool: Value) {
    let problems = check(dialect, &tool);
    assert!(problems.is_empty(), "{dialect:?}: {problems:?}");
}

fn closed(properties: Value, required: &[&str]) -> Value {
    json!({"type":"object","properties":properties,"required":required,"additionalProperties":false})
}

#[test]
fn a_well_formed_tool_passes() {
    passes(
        OPENAI_STRICT,
        openai(closed(json!({"n":{"type":"integer","minimum":1}}), &["n"])),
    );
    passes(
        ANTHROPIC_STRICT,
        anthropic(closed(json!({"n":{"type":"integer"}}), &["n"])),
    );
    passes(
        Dialect::Anthropic { strict: false },
        json!({"name":"t","description":"d","input_schema":{"type":"object"}}),
    );
    passes(
        Dialect::Gemini,
        gemini(json!({"type":"object","properties":{"n":{"type":"integer"}}})),
    );
    passes(
        Dialect::GeminiLegacy,
        legacy(json!({"type":"OBJECT","properties":{"n":{"type":"INTEGER","nullable":true}}})),
    );
}

#[test]
fn openai_strict_rules() {
    fails(
        OPENAI_STRICT,
        openai(json!({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]})),
        "additionalProperties: false",
    );
    fails(
        OPENAI_STRICT,
        openai(closed(
            json!({"n":{"type":"integer"},"m":{"type":"string"}}),
            &["n"],
        )),
        "`m` is not required",
    );
    fails(
        OPENAI_STRICT,
        openai(closed(json!({"n":{"type":"string","minLength":1}}), &["n"])),
        "`minLength`",
    );
    fails(
        OPENAI_STRICT,
        openai(closed(
            json!({"n":{"oneOf":[{"type":"string"},{"type":"integer"}]}}),
            &["n"],
        )),
        "`oneOf`",
    );
    fails(
        OPENAI_STRICT,
        openai(closed(
            json!({"n":{"type":"string","format":"uri"}}),
            &["n"],
        )),
        "format `uri`",
    );
    fails(
        OPENAI_STRICT,
        openai(closed(json!({"n":{"type":"array"}}), &["n"])),
        "array without items",
    );
    fails(
        OPENAI_STRICT,
        openai(
            json!({"type":"object","properties":{"n":{"$ref":"#/$defs/N","description":"x"}},"required":["n"],"additionalProperties":false,"$defs":{"N":{"type":"string"}}}),
        ),
        "$ref has siblings",
    );
    fails(
        OPENAI_STRICT,
        openai(json!({"anyOf":[{"type":"object"}]})),
        "root type is not object",
    );
    fails(
        OPENAI_STRICT,
        openai(closed(
            json!({"n":{"type":"string","uniqueItems":true}}),
            &["n"],
        )),
        "`uniqueItems`",
    );
    let many: serde_json::Map<String, Value> =
        (0..1001).map(|i| (format!("v{i}"), json!(i))).collect();
    let values: Vec<Value> = many.keys().map(|k| json!(k)).collect();
    fails(
        OPENAI_STRICT,
        openai(closed(json!({"n":{"type":"string","enum":values}}), &["n"])),
        "1000 enum values",
    );
    let name = json!({"type":"function","function":{"name":"get weather","description":"d","parameters":closed(json!({}), &[]),"strict":true}});
    fails(OPENAI_STRICT, name, "tool name");
    let not_strict = json!({"type":"function","function":{"name":"t","description":"d","parameters":closed(json!({}), &[]),"strict":false}});
    fails(OPENAI_STRICT, not_strict, "`strict`");
    let long = json!({"type":"function","function":{"name":"t","description":"x".repeat(1025),"parameters":closed(json!({}), &[]),"strict":true}});
    fails(OPENAI_STRICT, long, "1024");
    let mut deep = json!({"type":"string"});
    for _ in 0..11 {
        deep = closed(json!({"n": deep}), &["n"]);
    }
    fails(OPENAI_STRICT, openai(deep), "nest more than 10");
}

#[test]
fn anthropic_strict_rules() {
    fails(
        ANTHROPIC_STRICT,
        anthropic(closed(json!({"n":{"type":"integer","minimum":1}}), &["n"])),
        "`minimum`",
    );
    fails(
        ANTHROPIC_STRICT,
        anthropic(closed(
            json!({"n":{"type":"array","items":{"type":"string"},"minItems":2}}),
            &["n"],
        )),
        "minItems above 1",
    );
    fails(
        ANTHROPIC_STRICT,
        anthropic(closed(
            json!({"n":{"type":"array","items":{},"maxItems":2}}),
            &["n"],
        )),
        "`maxItems`",
    );
    fails(
        ANTHROPIC_STRICT,
        anthropic(closed(
            json!({"n":{"type":"string","pattern":"^(?!x).*$"}}),
            &["n"],
        )),
        "simple regex",
    );
    fails(
        ANTHROPIC_STRICT,
        anthropic(closed(json!({"bad name":{"type":"string"}}), &["bad name"])),
        "property name",
    );
    fails(
        ANTHROPIC_STRICT,
        anthropic(json!({"type":"object","properties":{}})),
        "additionalProperties: false",
    );
    fails(
        ANTHROPIC_STRICT,
        anthropic(closed(json!({"n":{"enum":[{"a":1}]}}), &["n"])),
        "not primitives",
    );
    let optional: serde_json::Map<String, Value> = (0..25)
        .map(|i| (format!("p{i}"), json!({"type":"string"})))
        .collect();
    fails(
        ANTHROPIC_STRICT,
        anthropic(closed(Value::Object(optional), &[])),
        "24 optional",
    );
    fails(
        Dialect::Anthropic { strict: false },
        anthropic(json!({"type":"object"})),
        "`strict`",
    );
}

#[test]
fn gemini_rules() {
    fails(
        Dialect::Gemini,
        gemini(
            json!({"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"string"}}}),
        ),
        "`$ref`",
    );
    fails(
        Dialect::Gemini,
        gemini(json!({"type":"object","properties":{"n":{"const":"x"}}})),
        "`const`",
    );
    fails(
        Dialect::Gemini,
        gemini(json!({"type":"object","properties":{"n":{"type":"integer","enum":[1,2]}}})),
        "not strings",
    );
    fails(
        Dialect::Gemini,
        gemini(json!({"type":"object","properties":{"n":{"type":"integer","exclusiveMinimum":0}}})),
        "`exclusiveMinimum`",
    );
    fails(
        Dialect::Gemini,
        gemini(json!({"type":"object","properties":{"n":{"type":"string","format":"email"}}})),
        "format `email`",
    );
    fails(
        Dialect::Gemini,
        gemini(json!({"type":"object","properties":{"page-size":{"type":"integer"}}})),
        "property name",
    );
    fails(
        Dialect::Gemini,
        gemini(
            json!({"type":"object","properties":{"n":{"description":"x","anyOf":[{"type":"string"},{"type":"integer"}]}}}),
        ),
        "not alone",
    );
    fails(
        Dialect::Gemini,
        json!({"name":"t","description":"d","parameters":{},"parametersJsonSchema":{"type":"object"}}),
        "exclusive",
    );
    fails(
        Dialect::Gemini,
        gemini(
            json!({"type":"object","properties":{"n":{"type":"array","items":{},"uniqueItems":true}}}),
        ),
        "`uniqueItems`",
    );
}

#[test]
fn gemini_legacy_rules() {
    fails(
        Dialect::GeminiLegacy,
        legacy(json!({"type":"OBJECT","properties":{},"additionalProperties":false})),
        "`additionalProperties`",
    );
    fails(
        Dialect::GeminiLegacy,
        legacy(json!({"type":"OBJECT","properties":{"n":{"type":["STRING","NULL"]}}})),
        "type array",
    );
    fails(
        Dialect::GeminiLegacy,
        legacy(json!({"type":"object","properties":{}})),
        "root type is not OBJECT",
    );
    fails(
        Dialect::GeminiLegacy,
        legacy(json!({"type":"OBJECT","properties":{"n":{"type":"string"}}})),
        "not uppercase",
    );
    fails(
        Dialect::GeminiLegacy,
        legacy(json!({"$schema":"x","type":"OBJECT","properties":{}})),
        "`$schema`",
    );
}

#[test]
fn mcp_rules() {
    let tool = |input: Value, extra: Value| {
        let mut t = json!({"name":"t","description":"d","inputSchema":input});
        for (k, v) in extra.as_object().unwrap() {
            t[k] = v.clone();
        }
        t
    };
    passes(
        Dialect::Mcp,
        tool(
            json!({"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}]}),
            json!({}),
        ),
    );
    fails(
        Dialect::Mcp,
        tool(json!({"type":"string"}), json!({})),
        "root type",
    );
    fails(
        Dialect::Mcp,
        tool(
            json!({"type":"object"}),
            json!({"outputSchema":{"type":"string"}}),
        ),
        "outputSchema",
    );
    fails(
        Dialect::Mcp,
        tool(
            json!({"type":"object"}),
            json!({"annotations":{"readOnlyHint":"yes"}}),
        ),
        "not a boolean",
    );
    fails(
        Dialect::Mcp,
        tool(
            json!({"type":"object","properties":{"n":{"$ref":"https://example.com/n.json"}}}),
            json!({}),
        ),
        "not local",
    );
    fails(
        Dialect::Mcp,
        json!({"name":"a b","description":"d","inputSchema":{"type":"object"}}),
        "tool name",
    );
}

#[test]
fn strict_rules_refuse_a_value_of_any_type() {
    for (dialect, wrap) in [
        (OPENAI_STRICT, openai as fn(Value) -> Value),
        (ANTHROPIC_STRICT, anthropic),
    ] {
        fails(
            dialect,
            wrap(closed(json!({"n": true}), &["n"])),
            "takes any value",
        );
        fails(
            dialect,
            wrap(closed(json!({"n": {"description": "anything"}}), &["n"])),
            "without a type",
        );
        fails(
            dialect,
            wrap(closed(
                json!({"m": {"type": "object", "additionalProperties": {"type": "string"}}}),
                &["m"],
            )),
            "additionalProperties: false",
        );
    }
    // Outside strict mode a value of any type is fine.
    passes(
        Dialect::Gemini,
        gemini(json!({"type":"object","properties":{"n":{"description":"anything"}}})),
    );
}

#[test]
fn anthropic_non_strict_has_no_strict_key() {
    fails(
        Dialect::Anthropic { strict: false },
        json!({"name":"t","description":"d","input_schema":{"type":"object"},"strict":false}),
        "`strict`",
    );
}

#[test]
fn anthropic_strict_refuses_recursion_and_counts_every_depth() {
    fails(
        ANTHROPIC_STRICT,
        anthropic(json!({
            "type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"required":["n"],"additionalProperties":false,
            "$defs":{"N":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/N"}}},"required":["kids"],"additionalProperties":false}}
        })),
        "`N` is recursive",
    );
    // 25 optional parameters, all nested one level down.
    let optional: serde_json::Map<String, Value> = (0..25)
        .map(|i| (format!("p{i}"), json!({"type":"string"})))
        .collect();
    fails(
        ANTHROPIC_STRICT,
        anthropic(closed(
            json!({"inner": closed(Value::Object(optional), &[])}),
            &["inner"],
        )),
        "24 optional",
    );
    let unions: serde_json::Map<String, Value> = (0..17)
        .map(|i| (format!("u{i}"), json!({"type":["string","null"]})))
        .collect();
    let names: Vec<String> = unions.keys().cloned().collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    fails(
        ANTHROPIC_STRICT,
        anthropic(closed(Value::Object(unions), &names)),
        "16 union-typed",
    );
}

#[test]
fn request_rules_count_every_strict_tool_together() {
    let unions = |n: usize| {
        let properties: serde_json::Map<String, Value> = (0..n)
            .map(|i| {
                (
                    format!("u{i}"),
                    json!({"anyOf":[{"type":"string"},{"type":"null"}]}),
                )
            })
            .collect();
        let names: Vec<String> = properties.keys().cloned().collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        anthropic(closed(Value::Object(properties), &names))
    };
    let optional = |n: usize| {
        let properties: serde_json::Map<String, Value> = (0..n)
            .map(|i| (format!("p{i}"), json!({"type":"string"})))
            .collect();
        anthropic(closed(Value::Object(properties), &[]))
    };
    assert!(check_request(ANTHROPIC_STRICT, &[unions(8), unions(8)]).is_empty());
    let problems = check_request(ANTHROPIC_STRICT, &[unions(8), unions(9)]);
    assert!(
        problems.iter().any(|p| p.contains("17 union-typed")),
        "{problems:?}"
    );
    let problems = check_request(ANTHROPIC_STRICT, &[optional(12), optional(13)]);
    assert!(
        problems.iter().any(|p| p.contains("25 optional")),
        "{problems:?}"
    );
    let many: Vec<Value> = (0..21).map(|_| optional(0)).collect();
    let problems = check_request(ANTHROPIC_STRICT, &many);
    assert!(
        problems.iter().any(|p| p.contains("21 strict tools")),
        "{problems:?}"
    );
    // Non-strict tools do not count.
    let loose: Vec<Value> = (0..21)
        .map(|_| json!({"name":"t","description":"d","input_schema":{"type":"object"}}))
        .collect();
    assert!(check_request(Dialect::Anthropic { strict: false }, &loose).is_empty());
}

#[test]
fn meaning_rules_compare_the_export_with_the_canonical_schema() {
    let canonical = json!({
        "type":"object","additionalProperties":false,"required":["r","m","v"],
        "properties":{
            "r":{"$ref":"#/$defs/R"},
            "m":{"type":"object","additionalProperties":{"type":"integer"}},
            "v":true
        },
        "$defs":{"R":{"type":"object","additionalProperties":false,"properties":{"k":{"type":"string"}}}}
    });
    // The legacy form drops `additionalProperties`: each closed object must say so.
    let said = format!("Server checks: {CLOSED}.");
    let faithful = legacy(json!({
        "type":"OBJECT","description":said,
        "properties":{
            "r":{"type":"OBJECT","description":said,"properties":{"k":{"type":"STRING"}}},
            "m":{"type":"OBJECT","additionalProperties":{"type":"INTEGER"}},
            "v":{}
        }
    }));
    assert_eq!(
        check_meaning(Dialect::GeminiLegacy, &canonical, &faithful),
        Vec::<String>::new()
    );
    let silent = legacy(json!({
        "type":"OBJECT","description":said,
        "properties":{
            "r":{"type":"OBJECT","properties":{"k":{"type":"STRING"}}},
            "m":{"type":"OBJECT","properties":{},"additionalProperties":false},
            "v":{"type":"STRING"}
        }
    }));
    let problems = check_meaning(Dialect::GeminiLegacy, &canonical, &silent);
    for expected in [
        "#/properties/r: closed",
        "#/properties/m: a map",
        "#/properties/v: takes any value",
    ] {
        assert!(
            problems.iter().any(|p| p.starts_with(expected)),
            "{expected}: {problems:?}"
        );
    }
}

#[test]
fn a_map_keyed_by_a_pattern_must_keep_it_or_say_it() {
    let keys = "^(0|[1-9][0-9]?|1[0-9]{2}|2[0-4][0-9]|25[0-5])$";
    let canonical = json!({
        "type":"object",
        "properties":{"m":{"type":"object","additionalProperties":false,"patternProperties":{keys:{"type":"integer"}}}},
        "required":["m"],"additionalProperties":false
    });
    let tool = |m: Value| {
        gemini(
            json!({"type":"object","properties":{"m":m},"required":["m"],"additionalProperties":false}),
        )
    };
    for faithful in [
        json!({"type":"object","additionalProperties":false,"patternProperties":{keys:{"type":"integer"}}}),
        json!({"type":"object","additionalProperties":{"type":"integer"},"description":"Server checks: keys must be whole numbers from 0 to 255, written in digits."}),
    ] {
        assert_eq!(
            check_meaning(Dialect::Gemini, &canonical, &tool(faithful.clone())),
            Vec::<String>::new(),
            "{faithful}"
        );
    }
    // Dropped, the map reads as an object that takes no key; its values
    // without the rule for its keys say less than the canonical schema.
    for silent in [
        json!({"type":"object","additionalProperties":false}),
        json!({"type":"object","additionalProperties":{"type":"integer"}}),
    ] {
        let problems = check_meaning(Dialect::Gemini, &canonical, &tool(silent.clone()));
        assert!(!problems.is_empty(), "{silent}");
    }
}

#[test]
fn a_map_whose_keys_property_names_states_must_keep_it_or_say_it() {
    let canonical = json!({
        "type":"object",
        "properties":{"m":{"type":"object","additionalProperties":{"type":"integer"},"propertyNames":{"minLength":1,"maxLength":1}}},
        "required":["m"],"additionalProperties":false
    });
    let tool = |m: Value| {
        gemini(
            json!({"type":"object","properties":{"m":m},"required":["m"],"additionalProperties":false}),
        )
    };
    let faithful = json!({"type":"object","additionalProperties":{"type":"integer"},"description":"Server checks: keys must be single characters."});
    assert_eq!(
        check_meaning(Dialect::Gemini, &canonical, &tool(faithful.clone())),
        Vec::<String>::new(),
        "{faithful}"
    );
    // Kept, it is no keyword Gemini accepts; dropped without a word, the
    // map takes keys of any length.
    let kept = json!({"type":"object","additionalProperties":{"type":"integer"},"propertyNames":{"minLength":1,"maxLength":1}});
    assert!(!check(Dialect::Gemini, &tool(kept)).is_empty());
    let silent = json!({"type":"object","additionalProperties":{"type":"integer"}});
    let problems = check_meaning(Dialect::Gemini, &canonical, &tool(silent.clone()));
    assert!(!problems.is_empty(), "{silent}");
}
