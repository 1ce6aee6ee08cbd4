//! Gate 2's output: arguments that serde read into the closed struct. Its
//! own module, below both the reader that makes it and the gate that hands
//! it on.

/// Arguments that deserialized into the tool's closed struct: every required
/// field present, no unknown field, every value of the right type and within
/// the range of its Rust type. Not yet checked against the rules.
///
/// Made only by the toolbox's gate 2; consumed by gate 3.
///
/// ```compile_fail
/// let forged = toolgate::Parsed(1u8);
/// ```
#[derive(Debug)]
pub struct Parsed<A>(pub(crate) A);

impl<A> Parsed<A> {
    /// The parsed arguments.
    pub fn get(&self) -> &A {
        &self.0
    }
}
