//! Gates 1 and 2 in one pass answer as the gates one by one do.
//!
//! A toolbox reads a call's bytes once, with gate 1's limits and the
//! schema's shape enforced as serde reads them; where that reader stops,
//! the call goes gate by gate. Each attack below hides inside an
//! otherwise valid `schedule_export` call, under the byte limit or past
//! it, so that the depth, value, string, duplicate-key and UTF-8 checks
//! must stop it inside the reading. The two paths must give the same
//! rejection, word for word, and the refusal must be the one the attack
//! calls for.

use toolgate::testing::{check_arguments, check_arguments_gate_by_gate};
use toolgate::{Code, Limits, Toolbox};
use toolgate_examples::export;

fn toolbox(limits: Limits) -> Toolbox<export::Accounts> {
    let mut toolbox = Toolbox::new(export::Accounts::demo()).with_limits(limits);
    toolbox.register(export::ScheduleExport).unwrap();
    toolbox
}

/// A valid call whose `columns` are `middle`, padded with spaces (which
/// JSON allows between tokens) to about `bytes`.
fn call_with_columns(middle: &[u8], bytes: usize) -> Vec<u8> {
    let mut doc = br#"{"account_ref":"acct_42","format":"jsonl","columns":"#.to_vec();
    doc.extend_from_slice(middle);
    while doc.len() + 1 < bytes {
        doc.push(b' ');
    }
    doc.push(b'}');
    doc
}

fn attacks(bytes: usize) -> Vec<(&'static str, Vec<u8>, Code)> {
    let deep = [vec![b'['; 40], vec![b']'; 40]].concat();
    let many = [b"[\"id\"".to_vec(), b",\"id\"".repeat(5000), b"]".to_vec()].concat();
    let long = [b"[\"".to_vec(), vec![b'x'; 9000], b"\"]".to_vec()].concat();
    let mut repeated = br#"{"format":"jsonl""#.to_vec();
    for _ in 0..3 {
        repeated.extend_from_slice(br#","format":"jsonl""#);
    }
    repeated.extend_from_slice(br#","account_ref":"acct_42","columns":["id"]}"#);
    let not_text = [b"[\"id\",\"".to_vec(), vec![0xff, 0xfe], b"\"]".to_vec()].concat();
    vec![
        ("nesting", call_with_columns(&deep, bytes), Code::TooDeep),
        (
            "values",
            call_with_columns(&many, bytes),
            Code::TooManyNodes,
        ),
        (
            "string",
            call_with_columns(&long, bytes),
            Code::StringTooLong,
        ),
        ("repeated key", repeated, Code::DuplicateKey),
        (
            "not UTF-8",
            call_with_columns(&not_text, bytes),
            Code::MalformedJson,
        ),
    ]
}

#[test]
fn one_pass_and_gate_by_gate_refuse_each_attack_alike() {
    for limits in [Limits::default(), Limits::default().max_bytes(1 << 20)] {
        let toolbox = toolbox(limits);
        // Short documents are checked for UTF-8 at once, long ones string
        // by string: both sides of the reader's choice.
        for bytes in [0, 40_000] {
            for (attack, doc, code) in attacks(bytes) {
                let one_pass = check_arguments(&toolbox, "schedule_export", &doc).unwrap();
                let gate_by_gate =
                    check_arguments_gate_by_gate(&toolbox, "schedule_export", &doc).unwrap();
                assert_eq!(one_pass, gate_by_gate, "{attack}, {} bytes", doc.len());
                assert_eq!(
                    one_pass.map_err(|r| r.code()),
                    Err(code),
                    "{attack}, {} bytes",
                    doc.len()
                );
            }
        }
    }
}

#[test]
fn a_long_valid_call_is_accepted_both_ways() {
    let toolbox = toolbox(Limits::default());
    // Short and padded past one string's length; one column written with
    // an escape, so that a decoded string is read too.
    for bytes in [0, 40_000] {
        let doc = call_with_columns(br#"["id","st\u0061tus"]"#, bytes);
        let one_pass = check_arguments(&toolbox, "schedule_export", &doc).unwrap();
        let gate_by_gate = check_arguments_gate_by_gate(&toolbox, "schedule_export", &doc).unwrap();
        assert_eq!(one_pass, Ok(()), "{} bytes", doc.len());
        assert_eq!(gate_by_gate, Ok(()), "{} bytes", doc.len());
    }
}

/// serde_json reads an enum's unit variant from an object of one key, the
/// variant's name (`{"id": null}`), which the schema refuses: such an
/// object, in an array of enum values or in place of one, is refused both
/// ways, at its place, as are a nested array and a `null` among the
/// values.
#[test]
fn what_serde_reads_more_laxly_inside_an_array_is_refused_both_ways() {
    let toolbox = toolbox(Limits::default());
    for (columns, format, at) in [
        (r#"["id",{"status":null}]"#, r#""jsonl""#, "/columns/1"),
        (r#"[{"id":null}]"#, r#""jsonl""#, "/columns/0"),
        (r#"["id"]"#, r#"{"jsonl":null}"#, "/format"),
        (r#"[["id"]]"#, r#""jsonl""#, "/columns/0"),
        (r#"["id",null]"#, r#""jsonl""#, "/columns/1"),
    ] {
        let doc = format!(r#"{{"account_ref":"acct_42","format":{format},"columns":{columns}}}"#);
        let one_pass = check_arguments(&toolbox, "schedule_export", doc.as_bytes()).unwrap();
        let gate_by_gate =
            check_arguments_gate_by_gate(&toolbox, "schedule_export", doc.as_bytes()).unwrap();
        assert_eq!(one_pass, gate_by_gate, "{doc}");
        let rejection = one_pass.expect_err(&doc);
        assert_eq!(rejection.path(), at, "{doc}");
    }
}
