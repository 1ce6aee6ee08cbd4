//! Short texts compared as words.

/// Whether two short texts (a key and a property's name, a string and a
/// choice, a tool's name and an allowed one) are the same bytes: compared
/// as two overlapping words where they are 4 to 16 bytes long, without a
/// call to `memcmp`, which costs more than the comparing at these lengths.
#[inline(always)]
pub(crate) fn same_text(a: &[u8], b: &[u8]) -> bool {
    fn word<const N: usize>(text: &[u8], last: bool) -> Option<&[u8; N]> {
        if last {
            text.last_chunk::<N>()
        } else {
            text.first_chunk::<N>()
        }
    }
    if a.len() != b.len() {
        return false;
    }
    match a.len() {
        8..=16 => {
            word::<8>(a, false) == word::<8>(b, false) && word::<8>(a, true) == word::<8>(b, true)
        }
        4..8 => {
            word::<4>(a, false) == word::<4>(b, false) && word::<4>(a, true) == word::<4>(b, true)
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_text_is_byte_equality_at_every_length_and_position() {
        for len in 0..=20 {
            let a: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(same_text(&a, &a.clone()), "{len}");
            for at in 0..len {
                let mut b = a.clone();
                b[at] ^= 0x20;
                assert!(!same_text(&a, &b), "{len} {at}");
            }
            let longer = [a.as_slice(), b"a"].concat();
            assert!(!same_text(&a, &longer), "{len}");
            assert!(!same_text(&longer, &a), "{len}");
        }
    }
}
