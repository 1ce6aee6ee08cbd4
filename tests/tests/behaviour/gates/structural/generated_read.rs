//! The argument struct `#[tool]` generates reads JSON as serde's derive
//! would with `deny_unknown_fields`, the same values and the same errors,
//! under any deserializer: here serde_json's, as a user's own code or
//! test might read it. (The toolbox reads it with toolgate's single-pass
//! reader, whose gate 1 refuses a repeated key before serde sees it.)

use toolgate::{ToolError, tool};

/// Greet someone.
#[tool(effect = read)]
fn greet(
    /// Who.
    name: String,
    /// How many times.
    #[serde(default)]
    times: u32,
    /// A note, if any.
    note: Option<String>,
) -> Result<String, ToolError> {
    Ok(format!("{name} {times} {note:?}"))
}

/// What serde's derive writes for the same fields, under the same name.
mod mirror {
    use serde::Deserialize;

    #[allow(dead_code)]
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct GreetArgs {
        pub name: String,
        #[serde(default)]
        pub times: Option<u32>,
        pub note: Option<String>,
    }
}

fn both(json: &str) -> (Result<String, String>, Result<String, String>) {
    let ours = serde_json::from_str::<GreetArgs>(json)
        .map(|a| format!("{} {:?} {:?}", a.name, a.times, a.note))
        .map_err(|e| e.to_string());
    let derived = serde_json::from_str::<mirror::GreetArgs>(json)
        .map(|a| format!("{} {:?} {:?}", a.name, a.times, a.note))
        .map_err(|e| e.to_string());
    (ours, derived)
}

#[test]
fn values_and_errors_are_serde_s_derive_s() {
    assert_eq!(greet("Ada".into(), 2, None).unwrap(), "Ada 2 None");
    for json in [
        r#"{"name":"Ada","times":2,"note":"hi"}"#,
        r#"{"name":"Ada"}"#,
        r#"{"name":"Ada","times":null}"#,
        r#"{"name":"Ada","name":"Bob"}"#,
        r#"{"name":"Ada","times":1,"times":2}"#,
        r#"{"times":1}"#,
        r#"{"name":"Ada","price":1}"#,
        r#"{"name":7}"#,
        r#"["Ada",1,null]"#,
        r#""Ada""#,
    ] {
        let (ours, derived) = both(json);
        match (&ours, &derived) {
            // A struct read from an array is refused: the arguments are
            // always an object, and the schema says so.
            (Err(_), Ok(_)) if json.starts_with('[') => {}
            _ => assert_eq!(ours, derived, "{json}"),
        }
    }
    let (repeated, _) = both(r#"{"name":"Ada","name":"Bob"}"#);
    assert_eq!(
        repeated,
        Err("duplicate field `name` at line 1 column 20".to_owned())
    );
}
