//! Text from a file as a terminal, a message or a picture shows it.
//!
//! A CoNLL-U field can hold any character but tab and newline: an escape
//! sequence (`ESC ] 52 ; c ; …` sets the clipboard, `ESC [ 2 J` clears the
//! screen), a C1 control (`U+009B` is a one-character CSI), a backspace.
//! Written as they are, they act on the terminal instead of being read;
//! in an SVG, most C0 controls make the whole file not well-formed XML
//! (XML 1.0 forbids them even as character references), so a browser shows
//! nothing. [`shown`] writes each of them visibly instead, as a Rust or
//! Python string literal would: `\x1b`, `\x9b`, `\x08`; the two
//! noncharacters XML forbids, U+FFFE and U+FFFF, as `\u{fffe}` and
//! `\u{ffff}`. A backslash stays as it is: the result is for reading, not
//! for parsing back.

use std::borrow::Cow;

/// Whether `c` is written escaped by [`shown`]: a control character (C0,
/// DEL, C1, tab and newline included) or U+FFFE / U+FFFF.
pub fn is_hidden(c: char) -> bool {
    c.is_control() || c == '\u{fffe}' || c == '\u{ffff}'
}

/// `s` with every [`is_hidden`] character written visibly (`\x1b`,
/// `\x9b`, `\u{fffe}`); borrowed when there is none. O(bytes).
///
/// ```
/// use tabula::shown::shown;
/// assert_eq!(shown("a\u{1b}[2Jb"), "a\\x1b[2Jb");
/// assert_eq!(shown("\u{9b}31m"), "\\x9b31m");
/// assert!(matches!(shown("plain"), std::borrow::Cow::Borrowed("plain")));
/// ```
pub fn shown(s: &str) -> Cow<'_, str> {
    let Some(first) = s.find(is_hidden) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        push_shown(&mut out, c);
    }
    Cow::Owned(out)
}

/// Appends `c` to `out` as [`shown`] writes it.
pub fn push_shown(out: &mut String, c: char) {
    use std::fmt::Write;
    let code = u32::from(c);
    let _ = match c {
        c if !is_hidden(c) => {
            out.push(c);
            Ok(())
        }
        _ if code < 0x100 => write!(out, "\\x{code:02x}"),
        _ => write!(out, "\\u{{{code:x}}}"),
    };
}

/// Bytes from a file for a message: decoded lossily (an invalid sequence
/// becomes U+FFFD), then [`shown`]. O(bytes).
pub fn shown_bytes(b: &[u8]) -> String {
    shown(&String::from_utf8_lossy(b)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn terminal_escapes_are_written_visibly() {
        assert_eq!(shown("\u{1b}]52;c;aGk=\u{7}"), "\\x1b]52;c;aGk=\\x07");
        assert_eq!(shown("\u{1b}[2J"), "\\x1b[2J");
        assert_eq!(shown("\u{9b}31m"), "\\x9b31m");
        assert_eq!(shown("ab\u{8}c"), "ab\\x08c");
        assert_eq!(shown("a\tb\nc\u{7f}"), "a\\x09b\\x0ac\\x7f");
        assert_eq!(shown("\u{fffe}\u{ffff}\u{fffd}"), "\\u{fffe}\\u{ffff}\u{fffd}");
        assert_eq!(shown("naïve \\ 狗 ✓"), "naïve \\ 狗 ✓");
        assert_eq!(shown_bytes(b"\x1b[1m\xff"), "\\x1b[1m\u{fffd}");
    }

    proptest! {
        /// Nothing hidden is left, and text without hidden characters is unchanged.
        #[test]
        fn leaves_no_hidden_character(s in any::<String>()) {
            let out = shown(&s);
            prop_assert!(!out.contains(is_hidden));
            if !s.contains(is_hidden) {
                prop_assert_eq!(out.as_ref(), s.as_str());
            }
        }
    }
}
