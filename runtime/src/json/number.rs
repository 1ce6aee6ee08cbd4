//! Numbers that are integers by value without being written as one: `2.0`,
//! `1e2`, `10e-1`, `-0`. JSON Schema compares numbers by value, so each is
//! an `"integer"` there, while serde reads all but the plain digits as a
//! float and refuses them for an integer field. Gate 1 notes whether a
//! document holds one; gate 2 then writes each that the schema reads as an
//! integer as the integer it equals before serde reads the document, so an
//! integer field accepts exactly the numbers the schema calls integers,
//! and a free-form value receives the number as sent.

/// The integer a number token (as gate 1 accepted it) equals, when the
/// token is not written as that integer: `2.0` → 2, `1e2` → 100, `10e-1`
/// → 1, `-0` and `-0.0` → 0. A token with a fraction or an exponent is
/// read as the double it rounds to, as JSON parsers and schema validators
/// read it (`9007199254740993.0` is 9007199254740992). `None` for plain
/// integers, fractions (`2.5`, `1e-300`) and numbers past 64 bits, which no
/// integer field takes.
pub(crate) fn integral(token: &[u8]) -> Option<i128> {
    let exponent = token.iter().any(|b| matches!(b, b'e' | b'E'));
    match token.iter().position(|&b| b == b'.') {
        // Digits alone are the integer already, but for `-0`.
        None if !exponent => return (token == b"-0").then_some(0),
        // A fraction with a digit other than 0, no exponent and at most 15
        // digits (`12.5`, the common float) is no integer: no need to read
        // it as a double. (Any 15 significant digits survive the trip
        // through a double, so such a fraction cannot round to an integer;
        // `1.00000000000000000001` can, and is read.)
        Some(dot)
            if !exponent
                && token.iter().filter(|b| b.is_ascii_digit()).count() <= 15
                && token
                    .get(dot + 1..)
                    .unwrap_or_default()
                    .iter()
                    .any(|&b| b != b'0') =>
        {
            return None;
        }
        _ => {}
    }
    let value: f64 = core::str::from_utf8(token).ok()?.parse().ok()?;
    #[allow(clippy::cast_possible_truncation)] // integral and within 64 bits: exact
    ((-9_223_372_036_854_775_808.0..18_446_744_073_709_551_616.0).contains(&value)
        && value.fract() == 0.0)
        .then_some(value as i128)
}

/// Whether an integer's text is one of `i64` or `u64`: past them, serde
/// reads it as a double, and the schema of a 128-bit integer states no
/// more.
pub(crate) fn fits_64_bits(raw: &[u8]) -> bool {
    core::str::from_utf8(raw)
        .is_ok_and(|text| text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(token: &str) -> Option<i128> {
        integral(token.as_bytes())
    }

    #[test]
    fn an_integer_written_otherwise_is_read_as_the_integer() {
        for (token, integer) in [
            ("2.0", 2),
            ("-2.50e1", -25),
            ("1e2", 100),
            ("1E+2", 100),
            ("1.0e1", 10),
            ("10e-1", 1),
            ("1200e-2", 12),
            ("0.05e2", 5),
            ("0.0", 0),
            ("-0", 0),
            ("-0.0", 0),
            ("0e5", 0),
            ("0e-99999999999999999999", 0),
            ("9007199254740993.0", 9_007_199_254_740_992),
            ("-9.223372036854776e+18", i128::from(i64::MIN)),
            ("1.8446744073709550e19", 18_446_744_073_709_549_568),
            // Fractions the double rounds away, as every JSON Schema
            // validator that reads doubles sees them.
            ("1.00000000000000000001", 1),
            ("4.9999999999999999", 5),
            ("-7.0000000000000001", -7),
        ] {
            assert_eq!(plain(token), Some(integer), "{token}");
        }
    }

    #[test]
    fn fractions_plain_integers_and_numbers_past_64_bits_are_left_alone() {
        for token in [
            "2",
            "-2",
            "0",
            "10",
            "2.5",
            "123456789012345.6",
            "0.000000000000001",
            "1e-300",
            "5e-324",
            "10e-2",
            "1.05e1",
            "1.8446744073709552e19",
            "-9.3e18",
            "1e400",
            "1e99999999999999999999",
        ] {
            assert_eq!(plain(token), None, "{token}");
        }
    }
}
