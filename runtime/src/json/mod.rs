//! JSON at the level of its text, shared by the gates and by the words of
//! their refusals: numbers read by value, pointers into the arguments, and
//! short texts compared as words.

pub(crate) mod number;
pub(crate) mod pointer;
pub(crate) mod text;
