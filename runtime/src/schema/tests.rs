use super::*;
use serde_json::json;

#[test]
fn fingerprint_ignores_key_order_and_annotations() {
    let a = json!({"type":"object","properties":{"n":{"type":"integer","description":"x"}},"required":["n"]});
    let b = json!({"required":["n"],"properties":{"n":{"description":"y","type":"integer"}},"type":"object"});
    assert_eq!(fingerprint(&a), fingerprint(&b));
    let c =
        json!({"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]});
    assert_ne!(fingerprint(&a), fingerprint(&c));
}

#[test]
fn a_property_named_like_an_annotation_counts() {
    let a = json!({"type":"object","properties":{"description":{"type":"string"}}});
    let b = json!({"type":"object","properties":{}});
    assert_ne!(fingerprint(&a), fingerprint(&b));
}

#[test]
fn lookup_follows_refs_and_options() {
    let root = json!({
        "type":"object",
        "properties":{"a":{"anyOf":[{"$ref":"#/$defs/A"},{"type":"null"}]}},
        "$defs":{"A":{"type":"object","properties":{"b":{"type":"array","items":{"type":"integer","minimum":1}}}}}
    });
    assert_eq!(
        node_at(&root, "/a/b/0"),
        Some(&json!({"type":"integer","minimum":1}))
    );
    assert_eq!(node_at(&root, "/zzz"), None);
}

fn tightened(node: Value) -> Value {
    let mut node = node;
    tighten(&mut node);
    node
}

#[test]
fn each_integer_format_states_its_range() {
    for (format, lo, hi) in [
        ("int8", json!(-128), json!(127)),
        ("int16", json!(-32768), json!(32767)),
        ("int32", json!(-2_147_483_648_i64), json!(2_147_483_647)),
        ("int64", json!(i64::MIN), json!(i64::MAX)),
        ("int", json!(i64::MIN), json!(i64::MAX)),
        ("int128", json!(i64::MIN), json!(u64::MAX)),
        ("uint8", json!(0), json!(255)),
        ("uint16", json!(0), json!(65535)),
        ("uint32", json!(0), json!(4_294_967_295_u32)),
        ("uint64", json!(0), json!(u64::MAX)),
        ("uint", json!(0), json!(u64::MAX)),
        ("uint128", json!(0), json!(u64::MAX)),
    ] {
        assert_eq!(
            tightened(json!({"type": "integer", "format": format})),
            json!({"type": "integer", "format": format, "minimum": lo, "maximum": hi}),
            "{format}"
        );
        // An optional integer's type is a list.
        assert_eq!(
            tightened(json!({"type": ["integer", "null"], "format": format})),
            json!({"type": ["integer", "null"], "format": format, "minimum": lo, "maximum": hi}),
            "{format}"
        );
    }
    // Only integers, and only the formats of integers.
    for untouched in [
        json!({"type": "number", "format": "uint8"}),
        json!({"type": ["number", "null"], "format": "uint8"}),
        json!({"format": "uint8"}),
        json!({"type": "integer", "format": "double"}),
        json!({"type": "integer"}),
    ] {
        assert_eq!(tightened(untouched.clone()), untouched);
    }
}

#[test]
fn a_rule_s_bound_is_kept_where_it_is_tighter_than_the_type_s() {
    let cases = [
        // Tighter on both sides: kept.
        (json!(5), json!(10), json!(5), json!(10)),
        // Looser on both sides: the type's.
        (json!(-1000), json!(1000), json!(0), json!(255)),
        // Fractions, compared by value.
        (json!(0.5), json!(254.5), json!(0.5), json!(254.5)),
        (json!(-0.5), json!(255.5), json!(0), json!(255)),
        // Past 64 bits, as serde_json reads it: a float.
        (json!(-1e30), json!(1e30), json!(0), json!(255)),
    ];
    for (min, max, lo, hi) in cases {
        let node = json!({"type": "integer", "format": "uint8", "minimum": min, "maximum": max});
        assert_eq!(
            tightened(node),
            json!({"type": "integer", "format": "uint8", "minimum": lo, "maximum": hi}),
            "{min} {max}"
        );
    }
    // A bound on one side only keeps the other side's.
    assert_eq!(
        tightened(json!({"type": "integer", "format": "int8", "maximum": 3})),
        json!({"type": "integer", "format": "int8", "minimum": -128, "maximum": 3})
    );
    assert_eq!(
        tightened(json!({"type": "integer", "format": "int8", "minimum": 3})),
        json!({"type": "integer", "format": "int8", "minimum": 3, "maximum": 127})
    );
    // Above and below an unsigned 64-bit type's range.
    assert_eq!(
        tightened(json!({"type": "integer", "format": "uint64", "minimum": -5, "maximum": 7})),
        json!({"type": "integer", "format": "uint64", "minimum": 0, "maximum": 7})
    );
}

#[test]
fn integers_are_tightened_everywhere_in_the_schema_and_keys_spelled_as_read() {
    let u8_ = || json!({"type": "integer", "format": "uint8"});
    let u8_ranged = || json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255});
    let schema = json!({
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [u8_(), u8_()]},
            "either": {"anyOf": [u8_(), {"type": "null"}]},
            "counts": {"type": "object", "patternProperties": {r"^\d+$": u8_()}},
            "signed": {"type": "object", "patternProperties": {r"^-?\d+$": u8_()}},
            "named": {"type": "object", "patternProperties": {"^[a-z]+$": u8_()}}
        },
        "$defs": {"Deep": {"type": "array", "items": u8_()}}
    });
    assert_eq!(
        canonical_of(schema),
        json!({
            "type": "object",
            "properties": {
                "pair": {"type": "array", "prefixItems": [u8_ranged(), u8_ranged()]},
                "either": {"anyOf": [u8_ranged(), {"type": "null"}]},
                "counts": {"type": "object", "patternProperties": {"^(0|[1-9][0-9]*)$": u8_ranged()}},
                "signed": {"type": "object", "patternProperties": {"^(0|-?[1-9][0-9]*)$": u8_ranged()}},
                "named": {"type": "object", "patternProperties": {"^[a-z]+$": u8_ranged()}}
            },
            "$defs": {"Deep": {"type": "array", "items": u8_ranged()}}
        })
    );
    // The root's title and description go; a property's stay.
    assert_eq!(
        canonical_of(
            json!({"title": "Args", "description": "d", "type": "object",
            "properties": {"a": {"title": "t", "description": "kept"}}})
        ),
        json!({"type": "object", "properties": {"a": {"title": "t", "description": "kept"}}})
    );
}

#[test]
fn integer_keys_add_their_note_to_the_description_wherever_they_are() {
    let plain = json!({"type": "object", "patternProperties": {"^[a-z]+$": {}}});
    assert!(matches!(
        described("Book.", &plain),
        std::borrow::Cow::Borrowed("Book.")
    ));
    for keys in [r"^(0|[1-9][0-9]*)$", "^(0|-?[1-9][0-9]*)$"] {
        let map = json!({"type": "object", "patternProperties": {keys: {}}});
        for schema in [
            map.clone(),
            json!({"properties": {"a": map.clone()}}),
            json!({"anyOf": [{"type": "null"}, map.clone()]}),
        ] {
            assert_eq!(
                described("Book.", &schema),
                format!("Book. {INTEGER_KEYS_FIT}"),
                "{schema}"
            );
        }
    }
}

#[test]
fn defaults_are_stated_on_their_properties_only() {
    fn one() -> Option<Value> {
        Some(json!(1))
    }
    fn none() -> Option<Value> {
        None
    }
    let mut schema = json!({"type": "object", "properties": {
        "a": {"type": "integer"}, "b": {"type": "integer"}, "c": true}});
    state_defaults(
        &mut schema,
        &[("a", one), ("b", none), ("c", one), ("zz", one)],
    );
    assert_eq!(
        schema,
        json!({"type": "object", "properties": {
            "a": {"type": "integer", "default": 1}, "b": {"type": "integer"}, "c": true}})
    );
}

#[test]
fn trusted_names_are_found_anywhere_after_normalizing() {
    assert_eq!(normalized(" Tenant-ID_\t"), "tenantid");
    assert_eq!(normalized("ACTOR id"), "actorid");
    assert_eq!(normalized("Straße"), "straße");
    let nested = json!({
        "type": "object",
        "properties": {"note": {"type": "string"}},
        "$defs": {"A/b~c": {"anyOf": [
            {"type": "null"},
            {"properties": {"ok": {}, "User_Id": {"type": "string"}}}
        ]}}
    });
    assert_eq!(
        trusted_name(&nested, &[]),
        Some((
            "User_Id".to_owned(),
            "/$defs/A~1b~0c/anyOf/1/properties/User_Id".to_owned()
        ))
    );
    // Declared business data, under any spelling.
    assert_eq!(trusted_name(&nested, &["user-id"]), None);
    assert_eq!(
        trusted_name(
            &json!({"properties": {"role": {}, "userId": {}}}),
            &["userid"]
        ),
        Some(("role".to_owned(), "/properties/role".to_owned()))
    );
    assert_eq!(
        trusted_name(&json!({"properties": {"tenancy": {}, "actors": {}}}), &[]),
        None
    );
    // A key named like context that is not a property is not one.
    assert_eq!(trusted_name(&json!({"$defs": {"tenant": {}}}), &[]), None);
}

#[test]
fn a_result_publishes_a_schema_only_if_it_is_an_object() {
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Receipt {
        id: u32,
    }
    let schema = output::<Receipt>().expect("an object");
    assert_eq!(schema.get("type"), Some(&json!("object")));
    assert_eq!(schema.get("title"), None);
    assert!(schema.pointer("/properties/id").is_some());
    assert_eq!(output::<u32>(), None);
    assert_eq!(output::<Vec<Receipt>>(), None);
}

#[test]
fn a_fingerprint_is_sha256_in_lower_hex_of_the_sorted_compact_schema() {
    // `{}` written canonically is `{}`; its SHA-256 is well known.
    assert_eq!(
        fingerprint(&json!({})),
        "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    );
    assert_eq!(
        fingerprint(&json!({"b": 1, "a": [1, 2]})),
        fingerprint(&json!({"a": [1, 2], "b": 1}))
    );
    assert_ne!(
        fingerprint(&json!({"a": [1, 2]})),
        fingerprint(&json!({"a": [2, 1]}))
    );
    assert_ne!(
        fingerprint(&json!({"a": [1, 2]})),
        fingerprint(&json!({"a": [12]}))
    );
    assert_ne!(
        fingerprint(&json!({"a": 1, "b": 2})),
        fingerprint(&json!({"ab": 12}))
    );
}

#[test]
fn the_canonical_form_is_compact_json_with_keys_in_byte_order() {
    let written = |value: Value| {
        let mut out = Vec::new();
        crate::json::canonical::write(&value, Context::Schema, &mut out);
        String::from_utf8(out).expect("JSON is text")
    };
    assert_eq!(
        written(json!({"b": [1, "x", null], "a": {"d": true, "c": 1.5}, "B": {}})),
        r#"{"B":{},"a":{"c":1.5,"d":true},"b":[1,"x",null]}"#
    );
    assert_eq!(written(json!({"k": []})), r#"{"k":[]}"#);
    assert_eq!(
        written(json!({"description": "gone", "enum": [{"description": "kept"}]})),
        r#"{"enum":[{"description":"kept"}]}"#
    );
}

#[test]
fn a_fingerprint_drops_annotations_on_schemas_only() {
    let same = |a: Value, b: Value| assert_eq!(fingerprint(&a), fingerprint(&b), "{a} {b}");
    let differ = |a: Value, b: Value| assert_ne!(fingerprint(&a), fingerprint(&b), "{a} {b}");
    let noted = json!({"type": "integer", "description": "n", "title": "N",
        "examples": [1], "$comment": "c"});
    let bare = json!({"type": "integer"});
    let of = |holds| {
        keywords::TABLE
            .iter()
            .filter(move |keyword| keyword.holds == holds)
            .map(|keyword| keyword.name)
    };
    // Wherever a schema is: under each map, schema and list keyword.
    for place in of(keywords::Holds::SchemaMap) {
        same(
            json!({place: {"x": noted.clone()}}),
            json!({place: {"x": bare.clone()}}),
        );
    }
    for place in of(keywords::Holds::Schema) {
        same(json!({place: noted.clone()}), json!({place: bare.clone()}));
    }
    for place in of(keywords::Holds::SchemaList) {
        same(
            json!({place: [noted.clone()]}),
            json!({place: [bare.clone()]}),
        );
    }
    // In data, the same words are values that count.
    differ(
        json!({"enum": [{"description": "a"}]}),
        json!({"enum": [{}]}),
    );
    differ(json!({"const": {"title": "a"}}), json!({"const": {}}));
    differ(
        json!({"default": {"description": 1}}),
        json!({"default": {}}),
    );
    differ(
        json!({"items": {"enum": [{"title": 1}]}}),
        json!({"items": {"enum": [{}]}}),
    );
    differ(
        json!({"anyOf": [{"enum": [{"title": 1}]}]}),
        json!({"anyOf": [{"enum": [{}]}]}),
    );
    differ(
        json!({"properties": {"x": {"const": {"title": 1}}}}),
        json!({"properties": {"x": {"const": {}}}}),
    );
    // A list that is data keeps each item whole.
    differ(
        json!({"examples_of": [{"description": 1}]}),
        json!({"examples_of": [{}]}),
    );
    // A property named like an annotation is a property.
    differ(
        json!({"properties": {"title": bare.clone()}}),
        json!({"properties": {}}),
    );
}

#[test]
fn lookups_follow_items_tuples_maps_and_every_branch() {
    let root = json!({
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "list": {"type": "array", "items": {"type": "boolean"}},
            "map": {"type": "object", "additionalProperties": {"type": "number"}},
            "closed": {"type": "object", "additionalProperties": false},
            "tagged": {"oneOf": [
                {"properties": {"t": {"const": "a"}, "c": {"type": "string"}}},
                {"properties": {"t": {"const": "b"}, "c": {"$ref": "#/$defs/Span"}}}
            ]}
        },
        "$defs": {"Span": {"properties": {"last": {"type": "string", "format": "date"}}}}
    });
    assert_eq!(node_at(&root, "/pair/1"), Some(&json!({"type": "integer"})));
    assert_eq!(node_at(&root, "/list/7"), Some(&json!({"type": "boolean"})));
    assert_eq!(
        node_at(&root, "/map/any key"),
        Some(&json!({"type": "number"}))
    );
    assert_eq!(node_at(&root, "/closed/x"), None);
    assert_eq!(node_at(&root, "/pair/x"), None);
    // The first branch has `c` but not `c/last`: the second has both.
    assert_eq!(
        node_at(&root, "/tagged/c/last"),
        Some(&json!({"type": "string", "format": "date"}))
    );
    assert_eq!(
        node_at(&root, "/tagged/c"),
        Some(&json!({"type": "string"}))
    );
    assert_eq!(
        nodes_at(&root, "/tagged/t"),
        [&json!({"const": "a"}), &json!({"const": "b"})]
    );
    assert_eq!(nodes_at(&root, "/tagged/zz"), Vec::<&Value>::new());
    assert_eq!(nodes_at(&root, ""), [&root]);
}

#[test]
fn branches_are_followed_a_bounded_number_of_levels() {
    // A union of a union of … eight levels down still has its member.
    let mut deep = json!({"properties": {"x": {"type": "string"}}});
    for _ in 0..8 {
        deep = json!({"anyOf": [deep, {"type": "null"}]});
    }
    assert_eq!(nodes_at(&deep, "/x"), [&json!({"type": "string"})]);
    // A union that refers to itself ends.
    let looping = json!({"anyOf": [{"$ref": "#"}, {"properties": {"x": true}}]});
    assert_eq!(nodes_at(&looping, "/x"), [&json!(true)]);
    // Seven references in a row are followed, not eight; they must be
    // local.
    let mut chain = json!({"$defs": {}});
    for i in 0..8 {
        chain["$defs"][format!("d{i}")] = json!({"$ref": format!("#/$defs/d{}", i + 1)});
    }
    chain["$defs"]["d8"] = json!({"type": "string"});
    assert_eq!(
        resolve(&chain, &json!({"$ref": "#/$defs/d2"})),
        Some(&json!({"type": "string"}))
    );
    assert_eq!(resolve(&chain, &json!({"$ref": "#/$defs/d1"})), None);
    assert_eq!(resolve(&chain, &json!({"$ref": "other.json#/x"})), None);
    assert_eq!(resolve(&chain, &json!({"$ref": "#/$defs/none"})), None);
}

fn wire(root: &Value, renames: &[(&str, &str)], path: &[(&str, &str)]) -> String {
    wire_on(root, renames, path, &|_| true)
}

fn wire_on(
    root: &Value,
    renames: &[(&str, &str)],
    path: &[(&str, &str)],
    states: &dyn Fn(&Value) -> bool,
) -> String {
    let path: Vec<(String, String)> = path
        .iter()
        .map(|(k, c)| ((*k).to_owned(), (*c).to_owned()))
        .collect();
    wire_pointer(root, renames, &path, states)
}

#[test]
fn garde_s_paths_become_wire_pointers() {
    let root = json!({
        "type": "object",
        "properties": {
            "accountRef": {"type": "string"},
            "to": {"anyOf": [{"$ref": "#/$defs/To"}, {"type": "null"}]},
            "rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}},
            "by_room": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Row"}},
            "choice": {"oneOf": [
                {"type": "object", "properties": {"Go": {"type": "string"}}},
                {"type": "object", "properties": {"Stop": {"$ref": "#/$defs/Row"}}}
            ]},
            "id": {"type": "string"},
            "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}
        },
        "$defs": {
            "To": {"type": "object", "properties": {"mail": {"type": "string", "maxLength": 5}}},
            "Row": {"type": "object", "properties": {"max_rows": {"type": "integer", "maximum": 9}}}
        }
    });
    let range = |n: &Value| n.get("maximum").is_some();
    // A top-level rename the macro recorded, which folding would not find.
    assert_eq!(
        wire(&root, &[("account", "accountRef")], &[("key", "account")]),
        "/accountRef"
    );
    // The recorded renames are the top level's only.
    assert_eq!(
        wire(
            &root,
            &[("mail", "nope")],
            &[("key", "to"), ("key", "mail")]
        ),
        "/to/mail"
    );
    // Case and `_`/`-` folded: a nested rename_all.
    assert_eq!(
        wire(
            &root,
            &[],
            &[("key", "rows"), ("index", "2"), ("key", "maxRows")]
        ),
        "/rows/2/max_rows"
    );
    // A map's keys are the model's own.
    assert_eq!(
        wire(
            &root,
            &[],
            &[("key", "by_room"), ("key", "r 2"), ("key", "max_rows")]
        ),
        "/by_room/r 2/max_rows"
    );
    // An externally tagged variant's name, which garde does not report.
    assert_eq!(
        wire_on(
            &root,
            &[],
            &[("key", "choice"), ("key", "max_rows")],
            &range
        ),
        "/choice/Stop/max_rows"
    );
    // A newtype variant's inner value is the value itself, a string or
    // an object.
    assert_eq!(wire(&root, &[], &[("key", "id"), ("index", "0")]), "/id");
    assert_eq!(
        wire_on(
            &root,
            &[],
            &[("key", "choice"), ("index", "0"), ("key", "max_rows")],
            &range
        ),
        "/choice/Stop/max_rows"
    );
    // garde's component with no key (an `Option`'s value) is no step.
    assert_eq!(
        wire(&root, &[], &[("key", "to"), ("none", ""), ("key", "mail")]),
        "/to/mail"
    );
    // Arrays of arrays: each index in its place.
    assert_eq!(
        wire(
            &root,
            &[],
            &[("key", "grid"), ("index", "1"), ("index", "2")]
        ),
        "/grid/1/2"
    );
    // Nothing decides: the pointer ends at the last place known.
    assert_eq!(
        wire_on(&root, &[], &[("key", "to"), ("key", "nowhere")], &|_| false),
        "/to"
    );
    // The one property there, where it states the rule.
    assert_eq!(
        wire(&root, &[], &[("key", "to"), ("key", "nowhere")]),
        "/to/mail"
    );
    assert_eq!(wire(&root, &[], &[]), "");
    // Below a string there is nothing more.
    assert_eq!(wire(&root, &[], &[("key", "id"), ("key", "x")]), "/id");
}

#[test]
fn an_unnamed_field_is_the_one_property_that_states_the_rule() {
    let root = json!({
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {
                "x_renamed": {"type": "string", "maxLength": 3},
                "y_renamed": {"type": "integer", "maximum": 3}
            }},
            "b": {"type": "object", "properties": {
                "one": {"type": "object", "properties": {"z": {"type": "string"}}},
                "two": {"type": "object", "properties": {"z": {"type": "string"}}}
            }}
        }
    });
    let length = |n: &Value| n.get("maxLength").is_some();
    let range = |n: &Value| n.get("maximum").is_some();
    assert_eq!(
        wire_on(&root, &[], &[("key", "a"), ("key", "x")], &length),
        "/a/x_renamed"
    );
    assert_eq!(
        wire_on(&root, &[], &[("key", "a"), ("key", "y")], &range),
        "/a/y_renamed"
    );
    // Two candidates: neither is chosen.
    assert_eq!(
        wire_on(&root, &[], &[("key", "a"), ("key", "y")], &|_| true),
        "/a"
    );
    // Below the unnamed field, the rest decides; two that fit decide nothing.
    assert_eq!(
        wire_on(
            &root,
            &[],
            &[("key", "b"), ("key", "w"), ("key", "z")],
            &|_| true
        ),
        "/b"
    );
}

#[test]
fn the_shape_of_a_subschema() {
    let root = json!({"$defs": {"L": {"type": "array"}}});
    for array in [
        json!({"items": {}}),
        json!({"prefixItems": []}),
        json!({"type": "array"}),
        json!({"type": ["null", "array"]}),
        json!({"anyOf": [{"type": "null"}, {"items": true}]}),
        json!({"oneOf": [{"prefixItems": []}]}),
        json!({"allOf": [{"items": true}]}),
        json!({"$ref": "#/$defs/L"}),
    ] {
        assert!(is_array(&root, &array), "{array}");
    }
    for other in [
        json!({"type": "object"}),
        json!({"type": ["null", "string"]}),
        json!({"anyOf": [{"type": "null"}, {"type": "string"}]}),
        json!({"$ref": "#/$defs/none"}),
    ] {
        assert!(!is_array(&root, &other), "{other}");
    }
    for scalar in [
        json!({"type": "string"}),
        json!({"type": ["integer", "null"]}),
        json!({"type": "boolean", "description": "x"}),
    ] {
        assert!(has_no_members(&scalar), "{scalar}");
    }
    for container in [
        json!({"type": "object"}),
        json!({"type": "array"}),
        json!({"type": ["object", "null"]}),
        json!({"type": ["null", "array"]}),
        json!({"type": "string", "anyOf": []}),
        json!({"type": "string", "$ref": "#"}),
        json!({"properties": {}}),
        json!({}),
        json!(true),
    ] {
        assert!(!has_no_members(&container), "{container}");
    }
    // An optional's value is its one other branch; a wider union is itself.
    let optional = json!({"anyOf": [{"type": "null"}, {"type": "string"}]});
    assert_eq!(non_null(&root, &optional), Some(&json!({"type": "string"})));
    let wide = json!({"anyOf": [{"type": "null"}, {"type": "string"}, {"type": "integer"}]});
    assert_eq!(non_null(&root, &wide), Some(&wide));
    let alone = json!({"oneOf": [{"type": "string"}]});
    assert_eq!(non_null(&root, &alone), Some(&alone));
}

#[test]
fn a_property_is_matched_exactly_else_by_one_folded_spelling() {
    let root = json!({});
    let node = json!({"anyOf": [
        {"properties": {"maxRows": {}, "max_rows_x": {}}},
        {"properties": {"MAXROWSX": {}, "Plain": {}}}
    ]});
    assert_eq!(property_name(&root, &node, "maxRows"), Some("maxRows"));
    assert_eq!(property_name(&root, &node, "max_rows"), Some("maxRows"));
    assert_eq!(property_name(&root, &node, "plain"), Some("Plain"));
    // Two spellings fold alike: neither.
    assert_eq!(property_name(&root, &node, "max-rows-x"), None);
    // An exact match wins over folded ones.
    assert_eq!(property_name(&root, &node, "MAXROWSX"), Some("MAXROWSX"));
    assert_eq!(property_name(&root, &node, "other"), None);
    let all = properties(&root, &node).expect("properties");
    assert_eq!(
        all.keys()
            .map(String::as_str)
            .collect::<std::collections::BTreeSet<_>>(),
        ["MAXROWSX", "Plain", "maxRows", "max_rows_x"]
            .into_iter()
            .collect()
    );
    assert_eq!(properties(&root, &json!({"type": "string"})), None);
    // A member's own properties come before its branches'.
    let own = json!({"properties": {"a": {}}, "anyOf": [{"properties": {"b": {}}}]});
    assert_eq!(property_maps(&root, &own, 8).len(), 1);
    assert_eq!(property_maps(&root, &json!({"anyOf": [own]}), 0).len(), 0);
    // A union that refers to itself is followed as deep as it is asked
    // to go, and no deeper.
    let looping = json!({"anyOf": [{"$ref": "#"}, {"properties": {"a": {}}}]});
    assert_eq!(property_maps(&looping, &looping, 8).len(), 8);
    assert_eq!(property_name(&looping, &looping, "a"), Some("a"));
}
