//! Integration tests for toolgate live in `tests/`.
