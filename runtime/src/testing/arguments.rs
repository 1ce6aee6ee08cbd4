//! What gates 1–3 make of a call's argument bytes, and how the toolbox
//! reads a tool's calls: for differential tests and fuzzing.

use crate::Toolbox;

/// Gates 1–3 alone for a call of `tool`: what the server decides about
/// these argument bytes, without admission, resources or the body. `None`
/// if no tool has the name. For differential tests against a JSON Schema
/// validator.
pub fn check_arguments<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    tool: &str,
    arguments: &[u8],
) -> Option<Result<(), crate::Rejection>> {
    toolbox.check_arguments(tool, arguments)
}

/// Whether each call of `tool` is checked against every bound its schema
/// states before serde reads it, and so goes gate by gate rather than in
/// one pass: where the schema has an untagged union (`anyOf`), or states
/// a bound registration could not try (see
/// [`RegisterError::UnenforcedBound`](crate::RegisterError::UnenforcedBound)).
/// `None` for a tool the toolbox does not have.
///
/// ```
/// # use toolgate::{tool, ToolError, Toolbox};
/// /// Book a hotel.
/// #[tool(effect = read)]
/// fn book(#[garde(range(min = 1, max = 30))] nights: u8) -> Result<u8, ToolError> {
///     Ok(nights)
/// }
/// let mut toolbox = Toolbox::new(());
/// toolbox.register(Book).unwrap();
/// assert_eq!(toolgate::testing::checked_before_serde(&toolbox, "book"), Some(false));
/// ```
pub fn checked_before_serde<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    tool: &str,
) -> Option<bool> {
    toolbox.checked_before_serde(tool)
}

/// Whether the single pass reads the calls of `tool` without its schema:
/// every member a scalar or an array of scalars, of types whose verdict is
/// the schema's, and each other member read against its own subschema.
/// Where the schema lists choices or says an array's items must differ,
/// registration proves that serde and the tool's rules hold them as the
/// schema does, or the calls are read with the schema. `None` for a tool
/// the toolbox does not have.
///
/// ```
/// # use toolgate::{tool, ToolError, Toolbox};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(rename_all = "snake_case")]
/// enum Size {
///     Small,
///     Large,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(rename_all = "snake_case")]
/// enum Roast {
///     Light,
///     #[serde(alias = "espresso")]
///     Dark,
/// }
///
/// /// Order a coffee.
/// #[tool(effect = read)]
/// fn order(#[garde(skip)] size: Size) -> Result<(), ToolError> {
///     Ok(())
/// }
///
/// /// Order beans: serde reads `espresso` as `dark`, which the schema
/// /// does not list.
/// #[tool(effect = read)]
/// fn order_beans(#[garde(skip)] roast: Roast) -> Result<(), ToolError> {
///     Ok(())
/// }
///
/// let mut toolbox = Toolbox::new(());
/// toolbox.register(Order).unwrap();
/// toolbox.register(OrderBeans).unwrap();
/// assert_eq!(toolgate::testing::read_without_schema(&toolbox, "order"), Some(true));
/// assert_eq!(toolgate::testing::read_without_schema(&toolbox, "order_beans"), Some(false));
/// ```
pub fn read_without_schema<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    tool: &str,
) -> Option<bool> {
    toolbox.read_without_schema(tool)
}

/// [`check_arguments`] gate by gate: gate 1's full scan first, then serde,
/// the shape check and the rules, as the toolbox decides a call its
/// single-pass reader stops on. Every call must get the same answer from
/// both, rejections word for word; for differential tests and fuzzing of
/// the single-pass reader.
pub fn check_arguments_gate_by_gate<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    tool: &str,
    arguments: &[u8],
) -> Option<Result<(), crate::Rejection>> {
    toolbox.check_arguments_gate_by_gate(tool, arguments)
}
