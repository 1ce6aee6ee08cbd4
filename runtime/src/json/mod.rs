//! JSON at the level of its text, shared by the gates and by the words of
//! their refusals: numbers read by value, pointers into the arguments,
//! short texts compared as words, and the one canonical text of a value.

pub(crate) mod canonical;
pub(crate) mod number;
pub(crate) mod pointer;
pub(crate) mod text;
