//! What a toolbox shows of the tools registered in it: its `Debug`, each
//! tool's definition, and the limits a transport bounds whole messages by.

use toolgate::{Limits, ToolError, Toolbox, tool};

/// Echo a note and a count.
#[tool(effect = read)]
pub fn echo_note(note: String, count: i32) -> Result<String, ToolError> {
    Ok(format!("{note}|{count}"))
}

// Gate 0: a toolbox's Debug names its limits and tools, never its state.
#[test]
fn a_toolbox_debugs_as_its_limits_and_tool_names() {
    let mut toolbox = Toolbox::new(()).with_limits(Limits::default().max_depth(3));
    toolbox.register(EchoNote).unwrap();
    let text = format!("{toolbox:?}");
    assert!(text.starts_with("Toolbox {"), "{text}");
    assert!(text.contains("depth: 3"), "{text}");
    assert!(text.contains("tools: [\"echo_note\"]"), "{text}");
}

// A definition compares equal to its copy: the compiled shape is derived
// from the schema, which the comparison already covers.
#[test]
fn a_definition_equals_its_copy() {
    let mut toolbox = Toolbox::new(());
    toolbox.register(EchoNote).unwrap();
    let definition = toolbox.definition("echo_note").expect("registered");
    assert_eq!(definition.clone(), *definition);
}

/// Read the weather.
#[tool(effect = read)]
pub fn weather(city: String) -> Result<String, ToolError> {
    Ok(city)
}

// A transport bounds whole messages by `Toolbox::limits`: the widest of the
// toolbox's own limits and every tool's, bound by bound.
#[test]
fn a_toolbox_s_limits_are_the_widest_of_its_own_and_its_tools() {
    let own = Limits::default().max_bytes(1_000).max_depth(4);
    let mut toolbox = Toolbox::new(()).with_limits(own);
    assert_eq!(toolbox.limits(), own);
    toolbox
        .register(EchoNote)
        .unwrap()
        .register_with_limits(Weather, Limits::default().max_bytes(500).max_depth(9))
        .unwrap();
    let widest = toolbox.limits();
    assert_eq!(widest.bytes(), 1_000);
    assert_eq!(widest.depth(), 9);
    assert_eq!(widest.nodes(), Limits::default().nodes());
}

// Every registered tool's definition, by name: what a server lists.
#[test]
fn a_toolbox_lists_the_definition_of_every_tool() {
    let mut toolbox = Toolbox::new(());
    toolbox
        .register(Weather)
        .unwrap()
        .register(EchoNote)
        .unwrap();
    let names: Vec<&str> = toolbox.definitions().map(|d| d.name()).collect();
    assert_eq!(names, ["echo_note", "weather"]);
}
