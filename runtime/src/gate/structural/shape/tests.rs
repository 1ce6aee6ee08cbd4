use serde_json::{Value, json};

use super::*;
use crate::Code;

fn check(schema: &Value, doc: &str) -> Result<(), Code> {
    Shape::new(schema).check(doc, schema).map_err(|r| r.code())
}

#[test]
fn an_object_is_never_an_array() {
    let schema = json!({"type":"object","properties":{"w":{"$ref":"#/$defs/W"}},"$defs":{"W":{"type":"object","properties":{"d":{"type":"integer"}},"required":["d"]}}});
    assert_eq!(check(&schema, r#"{"w":{"d":1}}"#), Ok(()));
    assert_eq!(check(&schema, r#"{"w":[1]}"#), Err(Code::WrongType));
}

#[test]
fn a_tag_selects_a_closed_branch() {
    let schema = json!({"oneOf":[
        {"type":"object","properties":{"kind":{"const":"dot"}},"required":["kind"],"additionalProperties":false},
        {"type":"object","properties":{"kind":{"const":"circle"},"radius":{"type":"integer"}},"required":["kind","radius"],"additionalProperties":false}
    ]});
    assert_eq!(check(&schema, r#"{"kind":"dot"}"#), Ok(()));
    assert_eq!(check(&schema, r#"{"kind":"circle","radius":2}"#), Ok(()));
    assert_eq!(
        check(&schema, r#"{"kind":"dot","radius":5}"#),
        Err(Code::UnknownField)
    );
    assert_eq!(
        check(&schema, r#"{"radius":5,"kind":"dot"}"#),
        Err(Code::UnknownField)
    );
}

#[test]
fn a_union_accepts_a_value_that_only_a_later_branch_takes() {
    // The quick walk's answer for a union is its branches' answers
    // combined, not the first branch's alone.
    let union = json!({"anyOf":[{"type":"integer"},{"type":"string"}]});
    assert_eq!(check(&union, r#""s""#), Ok(()));
    assert_eq!(check(&union, "1"), Ok(()));
    assert_eq!(check(&union, "true"), Err(Code::WrongType));
    let nested = json!({"type":"object","properties":{
        "v":{"anyOf":[{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false},
                      {"type":"array","items":{"type":"string"}}]}
    }});
    assert_eq!(check(&nested, r#"{"v":["x"]}"#), Ok(()));
    assert_eq!(check(&nested, r#"{"v":{"a":1}}"#), Ok(()));
    assert!(check(&nested, r#"{"v":{"b":1}}"#).is_err());
}

#[test]
fn objects_and_arrays_are_held_to_their_choices() {
    // `enum` and `const` may list objects and arrays; the walk
    // compares them by value (numbers by value, keys in any order).
    let schema = json!({"type":"object","properties":{
        "o":{"const":{"a":1,"b":[1,2]}},
        "l":{"enum":[[1,2],[3]]},
        "t":{"type":"object","enum":[{"k":"x"}]},
        "u":{"type":"array","items":{"type":"integer"},"const":[1.0]}
    }});
    assert_eq!(check(&schema, r#"{"o":{"b":[1,2.0],"a":1}}"#), Ok(()));
    assert_eq!(
        check(&schema, r#"{"o":{"a":1,"b":[2,1]}}"#),
        Err(Code::InvalidValue)
    );
    assert_eq!(check(&schema, r#"{"o":{"a":1}}"#), Err(Code::InvalidValue));
    assert_eq!(check(&schema, r#"{"l":[3]}"#), Ok(()));
    assert_eq!(check(&schema, r#"{"l":[1]}"#), Err(Code::InvalidValue));
    assert_eq!(check(&schema, r#"{"l":{"a":1}}"#), Err(Code::InvalidValue));
    assert_eq!(check(&schema, r#"{"t":{"k":"x"}}"#), Ok(()));
    assert_eq!(
        check(&schema, r#"{"t":{"k":"y"}}"#),
        Err(Code::InvalidValue)
    );
    assert_eq!(check(&schema, r#"{"u":[1]}"#), Ok(()));
    assert_eq!(check(&schema, r#"{"u":[2]}"#), Err(Code::InvalidValue));
    let union = json!({"anyOf":[{"const":{"a":1}},{"const":[1]}]});
    assert_eq!(check(&union, r#"{"a":1}"#), Ok(()));
    assert_eq!(check(&union, "[1]"), Ok(()));
    assert!(check(&union, r#"{"a":2}"#).is_err());
    assert!(check(&union, "[2]").is_err());
}

#[test]
fn a_branch_past_the_first_that_lacks_a_required_key_refuses() {
    let union = json!({"anyOf":[
        {"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false},
        {"type":"object","properties":{"b":{"type":"integer"}},"required":["b"]}
    ]});
    assert_eq!(check(&union, r#"{"b":1,"c":1}"#), Ok(()));
    assert!(check(&union, r#"{"c":1}"#).is_err());
}

#[test]
fn each_item_of_a_lone_array_schema_is_checked() {
    let list = json!({"type":"array","items":{"type":"string"}});
    assert_eq!(check(&list, r#"["a","b"]"#), Ok(()));
    assert_eq!(check(&list, r#"["a",1]"#), Err(Code::WrongType));
    let nested =
        json!({"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}});
    assert_eq!(check(&nested, r#"{"tags":[1]}"#), Err(Code::WrongType));
}

/// The walk that explains a refusal, bounds included: its code and path.
fn explain(schema: &Value, doc: &str) -> Result<(), (Code, String)> {
    Shape::new(schema)
        .explain(doc, schema)
        .map_err(|r| (r.code(), r.path().to_owned()))
}

fn refused(code: Code, path: &str) -> Result<(), (Code, String)> {
    Err((code, path.to_owned()))
}

#[test]
fn an_explanation_reads_past_nested_values_and_names_what_is_missing() {
    let schema = json!({"type":"object","properties":{
        "w":{"type":"object","properties":{"d":{"type":"integer"}}},
        "l":{"type":"array","items":{"type":"integer"}},
        "n":{"type":"integer"},
        "a":{"type":"integer"},
        "b":{"type":"integer"}
    },"required":["a","b"],"additionalProperties":false});
    // The reason lies after an object and an array that are fine.
    assert_eq!(
        explain(&schema, r#"{"w":{"d":1},"l":[1],"n":"x","a":1,"b":1}"#),
        refused(Code::WrongType, "/n")
    );
    assert_eq!(
        explain(&schema, r#"{"l":[1],"w":{"d":1},"n":1,"a":1,"b":1,"c":1}"#),
        refused(Code::UnknownField, "/c")
    );
    // The required key that is missing, not one that was sent.
    assert_eq!(
        explain(&schema, r#"{"l":[1],"w":{"d":1},"a":1}"#),
        refused(Code::MissingField, "/b")
    );
    assert_eq!(
        explain(&schema, r#"{"b":1,"l":[2]}"#),
        refused(Code::MissingField, "/a")
    );
}

#[test]
fn an_explanation_names_the_item_of_a_list_or_tuple() {
    let schema = json!({"type":"object","properties":{
        "l":{"type":"array","items":{"type":"integer"}},
        "t":{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}
    }});
    assert_eq!(
        explain(&schema, r#"{"l":[1,2,"x"]}"#),
        refused(Code::WrongType, "/l/2")
    );
    assert_eq!(
        explain(&schema, r#"{"t":[1,"a"],"l":[true]}"#),
        refused(Code::WrongType, "/l/0")
    );
    assert_eq!(
        explain(&schema, r#"{"t":[1,2]}"#),
        refused(Code::WrongType, "/t/1")
    );
    assert_eq!(
        explain(&schema, r#"{"t":[1,"a",3]}"#),
        refused(Code::InvalidLength, "/t/2")
    );
}

#[test]
fn a_wrong_constant_is_reported_only_when_nothing_else_is_wrong() {
    // A tag that names another variant says less than a value of the
    // wrong shape.
    let schema = json!({"type":"object","properties":{
        "kind":{"const":"a"},
        "n":{"type":"integer"}
    }});
    assert_eq!(
        explain(&schema, r#"{"kind":"b","n":"x"}"#),
        refused(Code::WrongType, "/n")
    );
    assert_eq!(
        explain(&schema, r#"{"kind":"b","n":1}"#),
        refused(Code::InvalidValue, "/kind")
    );
}

#[test]
fn a_number_past_a_double_is_left_to_serde() {
    // `1e400` is no double: the walk takes it as an integer or a
    // fraction, whichever the schema wants, and serde says it is out
    // of range.
    let schema = json!({"type":"object","properties":{
        "i":{"type":"integer"},
        "f":{"type":"number"}
    }});
    assert_eq!(explain(&schema, r#"{"i":1e400,"f":-1e400}"#), Ok(()));
    assert_eq!(
        explain(&schema, r#"{"i":1.5}"#),
        refused(Code::WrongType, "/i")
    );
}

#[test]
fn an_explanation_reads_a_reference_with_sibling_keywords() {
    // `$ref` beside other keywords is a conjunction: the reference
    // refuses for itself.
    let schema = json!({"type":"object","properties":{
        "w":{"$ref":"#/$defs/W","type":"object","minProperties":1}
    },"$defs":{"W":{"type":"object","properties":{"d":{"type":"integer"}}}}});
    assert_eq!(explain(&schema, r#"{"w":{"d":1}}"#), Ok(()));
    assert_eq!(
        explain(&schema, r#"{"w":{"d":"x"}}"#),
        refused(Code::WrongType, "/w/d")
    );
}

#[test]
fn of_union_branches_that_refuse_alike_the_first_is_the_reason() {
    let schema = json!({"anyOf":[
        {"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},
        {"type":"object","properties":{
            "b":{"type":"object","properties":{"c":{"type":"integer"}}}
        },"required":["b"]}
    ]});
    assert_eq!(explain(&schema, "{}"), refused(Code::MissingField, "/a"));
    assert_eq!(explain(&schema, r#"{"b":{"c":1}}"#), Ok(()));
    // One that got further into the value is the better reason.
    assert_eq!(
        explain(&schema, r#"{"b":{"c":"x"}}"#),
        refused(Code::WrongType, "/b/c")
    );
}

#[test]
fn a_union_that_refers_back_to_itself_is_settled_once() {
    // U's first branch is U: asked again while U is being settled, it
    // accepts, and the other branch decides.
    let schema = json!({"$ref":"#/$defs/U","$defs":{
        "U":{"anyOf":[{"$ref":"#/$defs/U"},{"type":"integer"}]}
    }});
    assert_eq!(check(&schema, "1"), Ok(()));
    let wrapped = json!({"type":"object","properties":{"u":{"$ref":"#/$defs/U"}},"$defs":{
        "U":{"anyOf":[{"$ref":"#/$defs/U"},{"type":"integer"}]}
    }});
    assert_eq!(check(&wrapped, r#"{"u":1}"#), Ok(()));
}

#[test]
fn integer_choices_past_a_double_compare_exactly() {
    // Neighbours that one double cannot tell apart.
    let schema = json!({"type":"object","properties":{
        "u":{"const":18_446_744_073_709_551_615_u64},
        "i":{"const":-9_007_199_254_740_993_i64}
    }});
    assert_eq!(check(&schema, r#"{"u":18446744073709551615}"#), Ok(()));
    assert_eq!(
        check(&schema, r#"{"u":18446744073709551614}"#),
        Err(Code::InvalidValue)
    );
    assert_eq!(check(&schema, r#"{"i":-9007199254740993}"#), Ok(()));
    assert_eq!(
        check(&schema, r#"{"i":-9007199254740992}"#),
        Err(Code::InvalidValue)
    );
}

#[test]
fn a_missing_tag_is_the_reason_whatever_else_a_branch_lacks() {
    let schema = json!({"oneOf":[
        {"type":"object","properties":{"kind":{"const":"dot"}},"required":["kind"],"additionalProperties":false},
        {"type":"object","properties":{"kind":{"const":"circle"},"radius":{"type":"integer"}},"required":["kind","radius"],"additionalProperties":false}
    ]});
    assert_eq!(
        explain(&schema, r#"{"radius":1}"#),
        refused(Code::MissingField, "/kind")
    );
    // Another missing key, where a branch's tag matched, is that
    // branch's reason.
    assert_eq!(
        explain(&schema, r#"{"kind":"circle"}"#),
        refused(Code::MissingField, "/radius")
    );
}

#[test]
fn an_explanation_takes_a_union_branch_whose_array_is_fine() {
    let schema = json!({"type":"object","properties":{
        "v":{"anyOf":[
            {"type":"array","items":{"type":"integer"}},
            {"type":"object","properties":{"a":{"type":"integer"}}}
        ]},
        "n":{"type":"integer"}
    }});
    assert_eq!(
        explain(&schema, r#"{"v":[1],"n":"x"}"#),
        refused(Code::WrongType, "/n")
    );
    assert_eq!(
        explain(&schema, r#"{"v":{"a":1},"n":"x"}"#),
        refused(Code::WrongType, "/n")
    );
}

#[test]
fn whole_numbers_are_integers() {
    let schema = json!({"type":"object","properties":{"n":{"type":"integer"}},"anyOf":[{}]});
    assert_eq!(check(&schema, r#"{"n":-0}"#), Ok(()));
    assert_eq!(check(&schema, r#"{"n":1.0}"#), Ok(()));
    assert_eq!(check(&schema, r#"{"n":1.5}"#), Err(Code::WrongType));
}

#[test]
fn bounds_are_checked_before_serde_reads_and_left_to_serde_and_garde_after() {
    let schema = json!({"type":"object","properties":{
        "n":{"type":"integer","minimum":1,"maximum":30},
        "s":{"type":"string","minLength":2,"maxLength":3},
        "o":{"type":"object"}
    }});
    assert_eq!(
        explain(&schema, r#"{"n":0}"#),
        refused(Code::OutOfRange, "/n")
    );
    assert_eq!(
        explain(&schema, r#"{"n":31}"#),
        refused(Code::OutOfRange, "/n")
    );
    assert_eq!(explain(&schema, r#"{"n":1}"#), Ok(()));
    assert_eq!(explain(&schema, r#"{"n":30}"#), Ok(()));
    // Compared by value: 1.5e1 is 15.
    assert_eq!(explain(&schema, r#"{"n":1.5e1}"#), Ok(()));
    assert_eq!(
        explain(&schema, r#"{"n":3.1e1}"#),
        refused(Code::OutOfRange, "/n")
    );
    assert_eq!(
        explain(&schema, r#"{"s":"a"}"#),
        refused(Code::InvalidLength, "/s")
    );
    assert_eq!(
        explain(&schema, r#"{"s":"abcd"}"#),
        refused(Code::InvalidLength, "/s")
    );
    assert_eq!(explain(&schema, r#"{"s":"ab"}"#), Ok(()));
    assert_eq!(explain(&schema, r#"{"s":"abc"}"#), Ok(()));
    // Characters, an escape counting as the one it stands for.
    assert_eq!(explain(&schema, r#"{"s":"\u00e9\u00e9"}"#), Ok(()));
    assert_eq!(explain(&schema, r#"{"s":"éé"}"#), Ok(()));
    // After serde accepted, the walk looks at the structure only.
    assert_eq!(check(&schema, r#"{"n":0,"s":"a","o":{}}"#), Ok(()));
}

#[test]
fn exclusive_bounds_patterns_and_item_counts_are_bounds_too() {
    let schema = json!({"type":"object","properties":{
        "n":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":10},
        "s":{"type":"string","pattern":"^a+$"},
        "a":{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2}
    }});
    for (json, code, at) in [
        (r#"{"n":0}"#, Code::OutOfRange, "/n"),
        (r#"{"n":10}"#, Code::OutOfRange, "/n"),
        (r#"{"n":-1.5}"#, Code::OutOfRange, "/n"),
        (r#"{"s":"ab"}"#, Code::PatternMismatch, "/s"),
        (r#"{"s":""}"#, Code::PatternMismatch, "/s"),
        // Matched as decoded: `\u0062` is `b`.
        (r#"{"s":"a\u0062"}"#, Code::PatternMismatch, "/s"),
        (r#"{"a":[]}"#, Code::InvalidLength, "/a"),
        (r#"{"a":[1,2,3]}"#, Code::InvalidLength, "/a"),
    ] {
        assert_eq!(explain(&schema, json), refused(code, at), "{json}");
    }
    for json in [
        r#"{"n":0.5}"#,
        r#"{"n":9.99}"#,
        r#"{"s":"aaa"}"#,
        r#"{"s":"\u0061"}"#,
        r#"{"a":[1]}"#,
        r#"{"a":[1,2]}"#,
    ] {
        assert_eq!(explain(&schema, json), Ok(()), "{json}");
    }
    // After serde accepted, they are left to serde and garde.
    assert_eq!(check(&schema, r#"{"n":0,"s":"b","a":[]}"#), Ok(()));
    let multiple = json!({"type":"object","properties":{
        "i":{"type":"integer","multipleOf":5},
        "f":{"type":"number","multipleOf":0.25},
        "t":{"type":"number","multipleOf":0.1}
    }});
    for json in [
        r#"{"i":10}"#,
        r#"{"i":-5}"#,
        r#"{"i":0}"#,
        r#"{"i":1e1}"#,
        r#"{"f":0.75}"#,
        r#"{"f":-7}"#,
        r#"{"f":1e300}"#,
        r#"{"t":0.5}"#,
    ] {
        assert_eq!(explain(&multiple, json), Ok(()), "{json}");
    }
    // As decimals: 0.3 is a multiple of 0.1; the double after 2 is no
    // multiple of 0.25; past 128 bits, as the doubles are exactly.
    for json in [r#"{"t":0.3}"#, r#"{"t":-12.7}"#] {
        assert_eq!(explain(&multiple, json), Ok(()), "{json}");
    }
    for (json, at) in [
        (r#"{"i":7}"#, "/i"),
        (r#"{"i":12.5}"#, "/i"),
        (r#"{"f":0.3}"#, "/f"),
        (r#"{"f":2.0000000000000004}"#, "/f"),
        (r#"{"f":1e-300}"#, "/f"),
        (r#"{"t":0.35}"#, "/t"),
        (r#"{"t":1e-300}"#, "/t"),
    ] {
        let refused = explain(&multiple, json).err().map(|(_, path)| path);
        assert_eq!(refused.as_deref(), Some(at), "{json}");
    }
    let message = Shape::new(&multiple).explain(r#"{"i":7}"#, &multiple);
    assert_eq!(
        message.map_err(|r| (r.code(), r.safe_message().to_owned())),
        Err((
            Code::InvalidValue,
            "i must be an integer that is a multiple of 5".to_owned()
        ))
    );
    // Inside a union, a branch whose bound refuses the value is not
    // the one that takes it.
    let union = json!({"type":"object","properties":{"v":{"anyOf":[
        {"type":"string","pattern":"^[0-9]+$"},
        {"type":"array","maxItems":1}
    ]}}});
    assert_eq!(explain(&union, r#"{"v":"12"}"#), Ok(()));
    assert_eq!(explain(&union, r#"{"v":[1]}"#), Ok(()));
    assert!(explain(&union, r#"{"v":"1x"}"#).is_err());
    assert!(explain(&union, r#"{"v":[1,2]}"#).is_err());
}

#[test]
fn choices_compare_numbers_by_value_and_strings_unescaped() {
    let schema = json!({"type":"object","properties":{
        "n":{"enum":[1,2]},
        "k":{"const":"dot"}
    }});
    assert_eq!(check(&schema, r#"{"n":1}"#), Ok(()));
    assert_eq!(check(&schema, r#"{"n":2.0}"#), Ok(()));
    assert_eq!(check(&schema, r#"{"n":3}"#), Err(Code::InvalidValue));
    assert_eq!(check(&schema, r#"{"k":"dot"}"#), Ok(()));
    assert_eq!(check(&schema, r#"{"k":"\u0064ot"}"#), Ok(()));
    assert_eq!(
        check(&schema, r#"{"k":"\u0064og"}"#),
        Err(Code::InvalidValue)
    );
    assert_eq!(check(&schema, r#"{"k":"dog"}"#), Err(Code::InvalidValue));
}

/// Which unions are told apart by a tag: every branch that takes an
/// object requires the same member with a constant string of its own.
#[test]
fn a_union_is_tagged_when_each_object_branch_names_itself() {
    let branch = |tag: Value, required: bool| {
        serde_json::json!({
            "type": "object",
            "properties": {"kind": {"type": "string", "const": tag}, "n": {"type": "integer"}},
            "required": if required { vec!["kind"] } else { vec![] },
            "additionalProperties": false,
        })
    };
    let tagged = |union: Value| {
        let shape = Shape::new(&serde_json::json!({"type": "object", "properties": {"u": union}}));
        shape
            .nodes
            .iter()
            .filter_map(|n| n.tagged.as_deref())
            .map(|t| t.branches.len())
            .max()
    };
    let a = branch(serde_json::json!("a"), true);
    let b = branch(serde_json::json!("b"), true);
    assert_eq!(tagged(serde_json::json!({"oneOf": [a, b]})), Some(2));
    // An optional one: the null branch takes no object.
    assert_eq!(
        tagged(serde_json::json!({"anyOf": [{"oneOf": [a, b]}, {"type": "null"}]})),
        Some(2)
    );
    // Not tagged: two branches with one tag, a tag not required, a tag
    // that is not a string, a branch that is not an object's, or the
    // union beside other keywords.
    assert_eq!(tagged(serde_json::json!({"oneOf": [a, a]})), None);
    let loose = branch(serde_json::json!("b"), false);
    assert_eq!(tagged(serde_json::json!({"oneOf": [a, loose]})), None);
    let number = branch(serde_json::json!(2), true);
    assert_eq!(tagged(serde_json::json!({"oneOf": [a, number]})), None);
    let any = serde_json::json!({"type": ["object", "string"]});
    assert_eq!(tagged(serde_json::json!({"oneOf": [a, any]})), None);
    let beside = serde_json::json!({"oneOf": [a, b], "required": ["kind"]});
    assert_eq!(tagged(beside), None);
    // A branch named twice, through a reference, is one branch; unions
    // that name the same ones many times over are looked at once each.
    let shape = Shape::new(&serde_json::json!({
        "type": "object",
        "properties": {"u": {"oneOf": [
            {"$ref": "#/$defs/U"}, {"$ref": "#/$defs/U"}, {"$ref": "#/$defs/A"},
        ]}},
        "$defs": {
            "A": a,
            "B": b,
            "U": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}, {"$ref": "#/$defs/U"}]},
        },
    }));
    let sizes: Vec<usize> = shape
        .nodes
        .iter()
        .filter_map(|n| n.tagged.as_deref())
        .map(|t| t.branches.len())
        .collect();
    assert_eq!(sizes, [2, 2], "{sizes:?}");
}

#[test]
fn only_an_untagged_union_walks_before_serde() {
    let first = |schema: Value| Shape::new(&schema).walks_first();
    // Two readings serde tries one by one.
    assert!(first(
        json!({"anyOf":[{"type":"string"},{"type":"integer"}]})
    ));
    // A union of constants is one list of choices,
    assert!(!first(json!({"anyOf":[{"const":"a"},{"const":"b"}]})));
    assert!(!first(
        json!({"anyOf":[{"enum":["a"]},{"type":"string","const":"b"}]})
    ));
    // an Option is one reading or null,
    assert!(!first(
        json!({"anyOf":[{"type":"object","properties":{"a":{}}},{"type":"null"}]})
    ));
    // and a tagged enum's `oneOf` is read by its tag.
    assert!(!first(json!({"oneOf":[
        {"type":"object","properties":{"kind":{"const":"a"}}},
        {"type":"object","properties":{"kind":{"const":"b"}}}
    ]})));
}

#[test]
fn a_union_of_typed_constants_takes_only_their_type() {
    let schema = json!({"type":"object","properties":{"k":{"anyOf":[
        {"type":"string","const":"a"},
        {"type":"string","const":"b"}
    ]}}});
    assert_eq!(explain(&schema, r#"{"k":"a"}"#), Ok(()));
    assert_eq!(
        explain(&schema, r#"{"k":"c"}"#),
        refused(Code::InvalidValue, "/k")
    );
    assert_eq!(
        explain(&schema, r#"{"k":5}"#),
        refused(Code::WrongType, "/k")
    );
}

#[test]
fn a_reference_keeps_its_sibling_keywords_and_false_refuses() {
    let schema = json!({"type":"object","properties":{
        "n":{"$ref":"#/$defs/N","enum":[1,2]},
        "d":{"$ref":"#/$defs/N","description":"documented"},
        "x":{"$ref":"#/$defs/No"}
    },"$defs":{"N":{"type":"integer"},"No":false}});
    assert_eq!(check(&schema, r#"{"n":1,"d":5}"#), Ok(()));
    assert_eq!(check(&schema, r#"{"n":3}"#), Err(Code::InvalidValue));
    assert_eq!(check(&schema, r#"{"d":"five"}"#), Err(Code::WrongType));
    assert_eq!(check(&schema, r#"{"x":1}"#), Err(Code::WrongType));
}

#[test]
fn every_required_name_counts_once() {
    let schema = json!({"type":"object","properties":{"a":{},"b":{}},"required":["a","b","a"]});
    assert_eq!(check(&schema, r#"{"a":1,"b":2}"#), Ok(()));
    assert_eq!(check(&schema, r#"{"a":1}"#), Err(Code::MissingField));
    assert_eq!(check(&schema, r#"{"b":1}"#), Err(Code::MissingField));
}

#[test]
fn each_type_admits_its_own_kind_only() {
    let values = [
        ("null", "null"),
        ("boolean", "true"),
        ("integer", "1"),
        ("number", "1.5"),
        ("string", "\"s\""),
        ("array", "[]"),
        ("object", "{}"),
    ];
    for (name, _) in values {
        let schema = json!({"type":"object","properties":{"v":{"type":name}}});
        for (kind, value) in values {
            let admitted = kind == name || (name == "number" && kind == "integer");
            let verdict = check(&schema, &format!("{{\"v\":{value}}}"));
            let expected = if admitted {
                Ok(())
            } else {
                Err(Code::WrongType)
            };
            assert_eq!(verdict, expected, "{value} for {name}");
        }
    }
    let either = json!({"type":"object","properties":{"v":{"type":["integer","number"]}}});
    assert_eq!(check(&either, r#"{"v":1}"#), Ok(()));
    assert_eq!(check(&either, r#"{"v":1.5}"#), Ok(()));
    let or_null = json!({"type":"object","properties":{"v":{"type":["string","null"]}}});
    assert_eq!(check(&or_null, r#"{"v":null}"#), Ok(()));
    assert_eq!(check(&or_null, r#"{"v":5}"#), Err(Code::WrongType));
}

/// A tagged union with `variants` object variants.
fn tagged(variants: usize) -> Value {
    let branches: Vec<Value> = (0..variants)
        .map(|i| json!({"type":"object","properties":{"kind":{"const":format!("v{i}")}},"required":["kind"]}))
        .collect();
    json!({"oneOf":branches})
}

#[test]
fn a_union_of_sixty_four_subschemas_or_more_is_walked_in_full() {
    // The quick walk keeps one bit per subschema: 64 at most.
    for variants in [62, 63, 64, 80] {
        let schema = tagged(variants);
        assert_eq!(check(&schema, r#"{"kind":"v7"}"#), Ok(()), "{variants}");
        assert_eq!(
            check(&schema, r#"{"kind":"none"}"#),
            Err(Code::InvalidValue),
            "{variants}"
        );
    }
    // The full walk reads arrays too, against a union and without.
    let mut schema = tagged(80);
    if let Some(Value::Array(branches)) = schema.get_mut("oneOf") {
        branches.push(json!({"type":"array","items":{"type":"integer"}}));
        branches.push(json!({"type":"object","properties":{
            "list":{"type":"array","items":{"type":"integer"}},
            "any":{"anyOf":[{"type":"array"},{"type":"string"}]}
        },"required":["list"],"additionalProperties":false}));
    }
    assert_eq!(check(&schema, "[1,2]"), Ok(()));
    assert_eq!(check(&schema, r#"{"list":[1],"any":[true]}"#), Ok(()));
    assert_eq!(check(&schema, r#"["x"]"#), Err(Code::WrongType));
    assert_eq!(check(&schema, r#"{"list":["x"]}"#), Err(Code::WrongType));
}

#[test]
fn a_member_read_against_a_union_and_its_branch_at_once() {
    // `x` is read against U and V together, and U is a union over V.
    let schema = json!({"anyOf":[
        {"type":"object","properties":{"x":{"$ref":"#/$defs/U"},"y":{}},"required":["x","y"]},
        {"type":"object","properties":{"x":{"$ref":"#/$defs/V"}},"required":["x"]}
    ],"$defs":{"U":{"anyOf":[{"$ref":"#/$defs/V"}]},"V":{"type":"integer"}}});
    // Only the second branch accepts,
    assert_eq!(check(&schema, r#"{"x":1}"#), Ok(()));
    // and U is no better than V.
    assert!(check(&schema, r#"{"x":"s","y":1}"#).is_err());
}

#[test]
fn array_members_are_read_against_every_branch_of_a_union() {
    let pair =
        json!({"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false});
    let schema = json!({"type":"object","properties":{"v":{"anyOf":[
        pair,
        {"type":"array","items":{"type":"boolean"}}
    ]}}});
    assert_eq!(check(&schema, r#"{"v":[1,"s"]}"#), Ok(()));
    assert_eq!(check(&schema, r#"{"v":[true,false]}"#), Ok(()));
    assert!(check(&schema, r#"{"v":[1,"s",3]}"#).is_err());
    assert!(check(&schema, r#"{"v":[1,true]}"#).is_err());
    // The pair ends at its third member; the other branch reads on.
    let schema = json!({"type":"object","properties":{"v":{"anyOf":[
        pair,
        {"type":"array","items":{"type":["integer","string"]}}
    ]}}});
    assert_eq!(check(&schema, r#"{"v":[1,"s",3]}"#), Ok(()));
}
