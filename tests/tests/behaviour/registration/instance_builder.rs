//! Registration's instance builder (`runtime/src/register/instance.rs`).
//!
//! Registration builds an instance of each tool's schema and fills each
//! string to its `maxLength` with two-byte characters: a nested rule that
//! counts bytes is refused. The builder must reach every kind of value,
//! stop recursion through every kind of container, and satisfy every
//! constraint it reads, or the check silently decides nothing.

use schemars::JsonSchema;
use serde::Deserialize;
use toolgate::{ToolError, Toolbox, tool};

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Folder {
    /// garde's `length` without `chars` counts bytes.
    #[garde(length(max = 8))]
    pub name: String,
    #[garde(skip)]
    pub hidden: bool,
    #[garde(dive)]
    pub children: Vec<Folder>,
    #[garde(dive)]
    pub by_tag: std::collections::BTreeMap<String, Folder>,
    /// A required tuple holding an optional folder: past the depth where
    /// optional fields are left out, it is still built, and its option
    /// must be `null` for the recursion to end.
    #[garde(skip)]
    pub link: (u8, Option<Box<Folder>>),
}

/// File a folder tree.
#[tool(effect = write)]
pub fn file_tree(root: Folder) -> Result<usize, ToolError> {
    Ok(root.children.len())
}

#[test]
fn a_byte_length_deep_in_a_recursive_tree_is_found() {
    let mut toolbox = Toolbox::new(());
    let error = toolbox.register(FileTree).unwrap_err();
    assert!(
        matches!(
            &error,
            toolgate::RegisterError::LengthInBytes { tool: "file_tree", at } if at.starts_with("/root") && at.ends_with("/name")
        ),
        "{error:?}"
    );
}

fn above_five(n: &f64, _: &()) -> garde::Result {
    if *n > 5.0 {
        Ok(())
    } else {
        Err(garde::Error::new("must be above 5"))
    }
}

#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Dated {
    #[garde(length(max = 8))]
    pub label: String,
    #[garde(skip)]
    #[schemars(extend("format" = "email"))]
    pub mail: String,
    #[garde(skip)]
    #[schemars(extend("format" = "date"))]
    pub day: String,
    #[garde(skip)]
    #[schemars(extend("format" = "date-time"))]
    pub at: String,
    #[garde(skip)]
    #[schemars(extend("format" = "time"))]
    pub clock: String,
    #[garde(skip)]
    #[schemars(extend("format" = "uuid"))]
    pub id: String,
    #[garde(skip)]
    #[schemars(extend("format" = "ipv4"))]
    pub v4: String,
    #[garde(skip)]
    #[schemars(extend("format" = "ipv6"))]
    pub v6: String,
    #[garde(skip)]
    #[schemars(extend("format" = "uri"))]
    pub link: String,
    #[garde(skip)]
    #[schemars(extend("format" = "hostname"))]
    pub host: String,
    /// A pattern the builder writes a match for.
    #[garde(pattern(r"^[a-z]{3}-[0-9]{2}$"))]
    pub code: String,
    /// Stated as an exclusive minimum alone (a float's type publishes no
    /// range of its own): the instance holds 6.
    #[garde(custom(above_five))]
    #[schemars(extend("exclusiveMinimum" = 5))]
    pub weight: f64,
}

/// File a dated record.
#[tool(effect = write)]
pub fn file_dated(record: Dated) -> Result<f64, ToolError> {
    Ok(record.weight)
}

#[test]
fn the_instance_builder_writes_each_format_and_an_exclusive_minimum() {
    let mut toolbox = Toolbox::new(());
    let error = toolbox.register(FileDated).unwrap_err();
    assert_eq!(
        error,
        toolgate::RegisterError::LengthInBytes {
            tool: "file_dated",
            at: "/record/label".to_owned()
        }
    );
}
