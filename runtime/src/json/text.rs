//! Short texts compared as words.

/// Whether two short texts (a key and a property's name, a string and a
/// choice, a tool's name and an allowed one) are the same bytes: compared
/// as two overlapping words where they are 4 to 16 bytes long, and byte by
/// byte below that, without a call to `memcmp`, which costs more than the
/// comparing at these lengths.
#[inline(always)]
pub(crate) fn same_text(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    match a.len() {
        8..=16 => {
            a.first_chunk::<8>() == b.first_chunk::<8>()
                && a.last_chunk::<8>() == b.last_chunk::<8>()
        }
        4..8 => {
            a.first_chunk::<4>() == b.first_chunk::<4>()
                && a.last_chunk::<4>() == b.last_chunk::<4>()
        }
        // The first, middle and last bytes are all of them.
        0..4 => {
            a.first() == b.first()
                && a.get(a.len() / 2) == b.get(b.len() / 2)
                && a.last() == b.last()
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
