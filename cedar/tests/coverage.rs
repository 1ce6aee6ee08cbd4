//! Every tool of the test toolboxes is decided by Cedar: for each one, a
//! call that runs under a policy permitting everything is denied once a
//! `forbid` names the tool. The calls are made from each tool's own
//! definition (`toolbox.definitions()`), so a tool added to one of these
//! toolboxes is covered without a line here: its arguments are the least
//! its schema accepts, and the objects it names are ones the toolbox has.

mod common;

use std::any::TypeId;
use std::sync::Arc;

use common::{audit, block_on, desk};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value, json};
use toolgate::{Outcome, ToolContext, ToolDef, Toolbox};
use toolgate_cedar::Policies;
use toolgate_examples::export::{Account, Accounts, ScheduleExport};
use toolgate_examples::invoice::{Billing, Invoice, RefundInvoice};
use toolgate_examples::refund::{IssueRefund, Order, Shop};

const PERMIT_ALL: &str = "@id(\"all\")\npermit (principal, action, resource);\n";

/// One call of a tool: its arguments, and whether it names an object.
struct Call {
    what: String,
    arguments: Value,
    names_an_object: bool,
}

/// A toolbox, the policies it decides by, and an object of each resource
/// type its tools take that exists in `tenant_a`.
struct Fixture<S> {
    name: &'static str,
    toolbox: Toolbox<S>,
    policies: Arc<Policies>,
    objects: Vec<(TypeId, &'static str)>,
}

fn examples() -> Arc<Policies> {
    let schema = toolgate_examples::policies::schema().unwrap();
    Arc::new(Policies::from_text(schema, "all.cedar", PERMIT_ALL).unwrap())
}

fn shop() -> Fixture<Shop> {
    let policies = examples();
    let mut toolbox = Toolbox::new(Shop::demo().with_policies(Arc::clone(&policies)))
        .with_call_policy(Arc::clone(&policies));
    toolbox.register(IssueRefund).unwrap();
    Fixture {
        name: "shop",
        toolbox,
        policies,
        objects: vec![(TypeId::of::<Order>(), "ord_1001")],
    }
}

fn accounts() -> Fixture<Accounts> {
    let policies = examples();
    let mut toolbox = Toolbox::new(Accounts::demo().with_policies(Arc::clone(&policies)))
        .with_call_policy(Arc::clone(&policies));
    toolbox.register(ScheduleExport).unwrap();
    Fixture {
        name: "accounts",
        toolbox,
        policies,
        objects: vec![(TypeId::of::<Account>(), "acct_42")],
    }
}

fn billing() -> Fixture<Billing> {
    let policies = examples();
    let mut toolbox = Toolbox::new(Billing::demo().with_policies(Arc::clone(&policies)))
        .with_call_policy(Arc::clone(&policies));
    toolbox.register(RefundInvoice).unwrap();
    Fixture {
        name: "billing",
        toolbox,
        policies,
        objects: vec![(TypeId::of::<Invoice>(), "inv_88")],
    }
}

fn desk() -> Fixture<desk::Desk> {
    let policies = Arc::new(Policies::from_text(desk::schema(), "all.cedar", PERMIT_ALL).unwrap());
    Fixture {
        name: "desk",
        toolbox: desk::toolbox(Arc::clone(&policies)),
        policies,
        objects: vec![
            (TypeId::of::<desk::Document>(), "doc_1"),
            (TypeId::of::<desk::Folder>(), "fld_1"),
        ],
    }
}

/// The calls of `def` to make: every resource it takes named, and each
/// optional one also left out.
fn calls(def: &ToolDef, objects: &[(TypeId, &str)]) -> Result<Vec<Call>, String> {
    let schema = def.schema();
    let Value::Object(mut arguments) = least(schema, schema, 0)? else {
        return Err(format!("`{}`: its arguments are no object", def.name()));
    };
    let required = |field: &str| {
        schema["required"]
            .as_array()
            .is_some_and(|r| r.iter().any(|name| name == field))
    };
    let mut optional = Vec::new();
    for field in def.resources() {
        let Some((_, id)) = objects.iter().find(|(ty, _)| *ty == field.type_id()) else {
            return Err(format!(
                "`{}` takes `{}`, of which the fixture names no object",
                def.name(),
                field.type_name()
            ));
        };
        arguments.insert(field.field().to_owned(), json!(id));
        if !required(field.field()) {
            optional.push(field.field());
        }
    }
    let named = !def.resources().is_empty();
    let mut calls = vec![Call {
        what: if named {
            "every object named"
        } else {
            "no object to name"
        }
        .to_owned(),
        arguments: Value::Object(arguments.clone()),
        names_an_object: named,
    }];
    if !optional.is_empty() {
        for field in &optional {
            arguments.remove(*field);
        }
        calls.push(Call {
            what: format!("without {optional:?}"),
            names_an_object: def.resources().len() > optional.len(),
            arguments: Value::Object(arguments),
        });
    }
    Ok(calls)
}

/// A small value `schema` accepts: required properties only, the first
/// of each choice, the lower bound of each range (or 1), the fewest items,
/// a string of each pattern.
fn least(schema: &Value, root: &Value, depth: usize) -> Result<Value, String> {
    if depth > 16 {
        return Err("the schema nests too deep".to_owned());
    }
    let go = |s: &Value| least(s, root, depth + 1);
    if let Some(Value::String(target)) = schema.get("$ref") {
        let name = target.trim_start_matches("#/$defs/");
        return go(&root["$defs"][name]);
    }
    if let Some(constant) = schema.get("const") {
        return Ok(constant.clone());
    }
    if let Some(Value::Array(choices)) = schema.get("enum") {
        return choices.first().cloned().ok_or("an empty enum".to_owned());
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(Value::Array(variants)) = schema.get(key) {
            let first = variants
                .iter()
                .find(|v| v.get("type") != Some(&json!("null")))
                .ok_or(format!("a `{key}` of nulls"))?;
            return go(first);
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .ok_or("a type of null only")?,
        _ if schema.get("properties").is_some() => "object",
        _ => return Err(format!("no type in {schema}")),
    };
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    Ok(match kind {
        "null" => Value::Null,
        "boolean" => json!(false),
        "integer" => json!(
            bound("minimum")
                .unwrap_or(1.0)
                .max(bound("exclusiveMinimum").map_or(f64::MIN, |m| m + 1.0)) as i64
        ),
        "number" => json!(bound("minimum").unwrap_or(1.0)),
        "string" => match schema.get("pattern").and_then(Value::as_str) {
            Some(pattern) => json!(matching(pattern)?),
            None => json!("x".repeat(bound("minLength").unwrap_or(1.0).max(1.0) as usize)),
        },
        "array" => {
            let n = bound("minItems").unwrap_or(0.0) as usize;
            let item = go(&schema["items"])?;
            Value::Array(vec![item; n])
        }
        "object" => {
            let mut out = Map::new();
            let required = schema["required"].as_array().cloned().unwrap_or_default();
            for name in required.iter().filter_map(Value::as_str) {
                out.insert(name.to_owned(), go(&schema["properties"][name])?);
            }
            Value::Object(out)
        }
        other => return Err(format!("a type `{other}`")),
    })
}

/// A string `pattern` matches.
fn matching(pattern: &str) -> Result<String, String> {
    let bare = pattern.trim_start_matches('^').trim_end_matches('$');
    let strategy = proptest::string::string_regex(bare).map_err(|e| e.to_string())?;
    let tree = strategy
        .new_tree(&mut TestRunner::deterministic())
        .map_err(|e| e.to_string())?;
    Ok(tree.current())
}

/// The calls of `fixture`'s tools that a `forbid` naming the tool did not
/// deny, each with why; `only_objects`: only calls that name an object.
fn uncovered<S: Send + Sync + 'static>(fixture: &Fixture<S>, only_objects: bool) -> Vec<String> {
    let mut found = Vec::new();
    let mut request = 0;
    let mut checked = 0;
    for def in fixture.toolbox.definitions() {
        let tool = def.name();
        let calls = match calls(def, &fixture.objects) {
            Ok(calls) => calls,
            Err(why) => {
                found.push(format!("{}: {why}", fixture.name));
                continue;
            }
        };
        for call in calls.iter().filter(|c| c.names_an_object || !only_objects) {
            let args = call.arguments.to_string();
            let mut ask = || {
                request += 1;
                let ctx = ToolContext::new("agent_1", "tenant_a", format!("req_{request}"))
                    .with_scopes(def.scope())
                    .allow_tools([tool]);
                audit(|| block_on(fixture.toolbox.call(&ctx, tool, args.as_str())))
            };
            let at = format!("{} `{tool}` ({}, {args})", fixture.name, call.what);
            checked += 1;

            fixture.policies.replace("all.cedar", PERMIT_ALL).unwrap();
            let (allowed, _) = ask();
            if !matches!(allowed, Outcome::Done(_) | Outcome::ApprovalRequired(_)) {
                found.push(format!(
                    "{at}: does not run when everything is permitted: {allowed:?}"
                ));
                continue;
            }
            let cover = format!(
                "{PERMIT_ALL}@id(\"cover\")\nforbid (principal, action == Action::\"{tool}\", resource);\n"
            );
            if let Err(refused) = fixture.policies.replace("cover.cedar", &cover) {
                found.push(format!(
                    "{at}: a forbid naming the tool does not load: {refused}"
                ));
                continue;
            }
            let (denied, log) = ask();
            let code = denied.rejection().map(|r| r.code().as_str());
            let by_cover = log.iter().any(|e| {
                e.get("reason")
                    .is_some_and(|r| r.contains("forbidden by `cover`"))
            });
            if code != Some("NOT_PERMITTED") || !by_cover {
                found.push(format!(
                    "{at}: a forbid naming the tool did not deny it: {denied:?}"
                ));
            }
        }
    }
    if checked == 0 {
        found.push(format!("{}: no call was made", fixture.name));
    }
    found
}

fn every_fixture(only_objects: bool) -> Vec<String> {
    let mut found = uncovered(&shop(), only_objects);
    found.extend(uncovered(&accounts(), only_objects));
    found.extend(uncovered(&billing(), only_objects));
    found.extend(uncovered(&desk(), only_objects));
    found
}

#[test]
fn a_forbid_naming_a_tool_denies_every_call_of_it_that_names_an_object() {
    let found = every_fixture(true);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

// A call that names no object (a tool without resources, an optional one
// left out) is decided by the toolbox's call policy, with the tenant as the
// resource: the fixtures install the policies as that too.
#[test]
fn a_forbid_naming_a_tool_denies_every_call_of_it() {
    let found = every_fixture(false);
    assert!(found.is_empty(), "{}", found.join("\n"));
}
