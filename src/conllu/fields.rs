//! The one line scanner of a CoNLL-U block for readers that only need some
//! columns as byte ranges (the parser's [`Columns`](crate::parser::columns::Columns),
//! the projectivizer's [`WordLabels`](crate::projectivize::prefer::WordLabels)):
//! each non-blank, non-comment line, split at its tabs, without copying.
//! What a line must look like is the caller's rule.

use std::ops::Range;

/// The most fields a line is split into; later tabs are only counted.
pub const MAX_FIELDS: usize = 10;

/// One non-blank line of a block that is not a comment (`#`), split at
/// its tabs (a final `\r` is not part of the last field).
#[derive(Clone, Debug)]
pub struct FieldLine {
    /// 0-based index of the line in the block.
    pub index: usize,
    /// Byte offsets in the block where the first [`MAX_FIELDS`] fields end
    /// (a field starts one byte after the previous one ends).
    ends: [usize; MAX_FIELDS],
    start: usize,
    /// Number of fields (tabs + 1), counting those past [`MAX_FIELDS`].
    pub fields: usize,
}

impl FieldLine {
    /// The byte range in the block of field `i` (0-based), if the line has it
    /// and `i` < [`MAX_FIELDS`].
    pub fn field(&self, i: usize) -> Option<Range<usize>> {
        if i >= self.fields.min(MAX_FIELDS) {
            return None;
        }
        let start = if i == 0 { self.start } else { self.ends[i - 1] + 1 };
        Some(start..self.ends[i])
    }

    /// Whether the ID (first field) is a plain integer: a syntactic word,
    /// not a range `n-m` or an empty node `n.k`.
    pub fn is_word(&self, block: &[u8]) -> bool {
        self.field(0).is_some_and(|r| !r.is_empty() && block[r].iter().all(u8::is_ascii_digit))
    }
}

impl FieldLine {
    /// Splits the line `range` of `block` (without its line end), the
    /// `index`-th of the block, at its tabs. O(bytes of the line).
    pub fn split(block: &[u8], index: usize, range: Range<usize>) -> FieldLine {
        let (line_start, stop) = (range.start, range.end);
        let mut line = FieldLine { index, ends: [stop; MAX_FIELDS], start: line_start, fields: 1 };
        for k in memchr::memchr_iter(b'\t', &block[line_start..stop]) {
            if line.fields <= MAX_FIELDS {
                line.ends[line.fields - 1] = line_start + k;
            }
            line.fields += 1;
        }
        if line.fields <= MAX_FIELDS {
            line.ends[line.fields - 1] = stop;
        }
        line
    }
}

/// The non-blank, non-comment lines of `block`. O(bytes), no allocation.
pub fn field_lines(block: &[u8]) -> impl Iterator<Item = FieldLine> + '_ {
    let mut start = 0;
    let mut index = 0;
    std::iter::from_fn(move || {
        while start < block.len() {
            let end = memchr::memchr(b'\n', &block[start..]).map_or(block.len(), |i| start + i);
            let mut stop = end;
            if stop > start && block[stop - 1] == b'\r' {
                stop -= 1;
            }
            let (line_start, line_index) = (start, index);
            start = end + 1;
            index += 1;
            if stop == line_start || block[line_start] == b'#' {
                continue;
            }
            return Some(FieldLine::split(block, line_index, line_start..stop));
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lines_skipping_comments_and_blanks() {
        let block = b"# c\n1\ta\tb\r\n2-3\tx\n\n4\n";
        let lines: Vec<FieldLine> = field_lines(block).collect();
        assert_eq!(lines.len(), 3);
        let f = |l: &FieldLine, i| l.field(i).map(|r| &block[r]);
        assert_eq!((lines[0].index, lines[0].fields), (1, 3));
        assert_eq!((f(&lines[0], 0), f(&lines[0], 2), f(&lines[0], 3)), (Some(&b"1"[..]), Some(&b"b"[..]), None));
        assert!(lines[0].is_word(block) && !lines[1].is_word(block) && lines[2].is_word(block));
        assert_eq!((lines[2].index, f(&lines[2], 0)), (4, Some(&b"4"[..])));
        let many = b"1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12";
        let l = field_lines(many).next().unwrap();
        assert_eq!((l.fields, f(&l, 9).map(|_| &many[l.field(9).unwrap()])), (12, Some(&b"10"[..])));
    }
}
