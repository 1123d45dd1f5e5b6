//! CoNLL-U reading and writing: byte-exact round trips and one test per
//! error case, asserting the message with file and line.

use std::fs;
use tabula::conllu::{ConlluError, ErrorKind, Reader, Sentence};
use tabula::tree::DepTree;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/conllu");

fn read_all(text: &[u8]) -> Vec<Result<Sentence, ConlluError>> {
    Reader::new(text, "bad.conllu").collect()
}

/// The first error of `text`, rendered.
fn first_error(text: &str) -> String {
    read_all(text.as_bytes()).into_iter().find_map(Result::err).expect("an error").to_string()
}

fn round_trip(name: &str) {
    let bytes = fs::read(format!("{DATA}/{name}")).unwrap();
    let mut out = Vec::new();
    for s in read_all(&bytes) {
        let s = s.unwrap();
        s.write_with_heads(&s.tree().clone(), &mut out).unwrap();
    }
    assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&bytes));
}

#[test]
fn projective_file_round_trips_byte_for_byte() {
    round_trip("projective.conllu");
}

#[test]
fn crlf_and_missing_final_blank_line_round_trip() {
    round_trip("crlf-no-final-blank.conllu");
}

#[test]
fn nonprojective_file_round_trips_byte_for_byte() {
    round_trip("nonprojective.conllu");
}

#[test]
fn sentences_expose_words_ids_and_lines() {
    let bytes = fs::read(format!("{DATA}/projective.conllu")).unwrap();
    let s: Vec<Sentence> = read_all(&bytes).into_iter().map(Result::unwrap).collect();
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].sent_id(), Some("a1"));
    assert_eq!(s[0].tree().heads(), &[2, 3, 0, 3]);
    // Multiword-token and empty-node lines are not words.
    assert_eq!(s[1].len(), 3);
    assert_eq!(s[1].first_line(), 9);
}

#[test]
fn only_changed_heads_are_rewritten() {
    let text =
        "# x\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n3\tc\t_\t_\t_\t_\t2\tdep\t_\tZ\n\n";
    let s = read_all(text.as_bytes()).remove(0).unwrap();
    let mut out = Vec::new();
    s.write_with_heads(&DepTree::from_heads(&[0, 1, 1]).unwrap(), &mut out).unwrap();
    let want =
        "# x\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n3\tc\t_\t_\t_\t_\t1\tdep\t_\tZ\n\n";
    assert_eq!(String::from_utf8(out).unwrap(), want);
}

#[test]
fn wrong_column_count() {
    let e = first_error("# c\n1\ta\t_\t_\t_\t_\t0\troot\t_\n\n");
    assert_eq!(e, "bad.conllu:2: expected 10 tab-separated columns, found 9");
}

#[test]
fn non_integer_head() {
    let e = first_error("1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tb\t_\t_\t_\t_\tx\tdep\t_\t_\n\n");
    assert_eq!(e, "bad.conllu:2: HEAD `x` is not a non-negative integer");
}

#[test]
fn negative_head() {
    let e = first_error("1\ta\t_\t_\t_\t_\t-1\troot\t_\t_\n\n");
    assert_eq!(e, "bad.conllu:1: HEAD `-1` is not a non-negative integer");
}

#[test]
fn out_of_range_head() {
    let e = first_error("1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tb\t_\t_\t_\t_\t3\tdep\t_\t_\n\n");
    assert_eq!(e, "bad.conllu:2: HEAD 3 of word 2 is out of range 0 to 2");
}

#[test]
fn cycle() {
    let text = "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tb\t_\t_\t_\t_\t3\tdep\t_\t_\n3\tc\t_\t_\t_\t_\t2\tdep\t_\t_\n\n";
    assert_eq!(first_error(text), "bad.conllu:2: the heads form a cycle through word 2");
}

#[test]
fn self_loop_is_a_cycle() {
    let text = "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tb\t_\t_\t_\t_\t2\tdep\t_\t_\n\n";
    assert_eq!(first_error(text), "bad.conllu:2: the heads form a cycle through word 2");
}

#[test]
fn no_root() {
    // Line numbers count from the start of the file: the bad sentence starts at line 3.
    let text = "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n# sent_id = 2\n1\ta\t_\t_\t_\t_\t2\tdep\t_\t_\n2\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n\n";
    let all = read_all(text.as_bytes());
    assert!(all[0].is_ok());
    // 1 <-> 2 is a cycle and nothing has HEAD 0: the missing root is reported.
    assert_eq!(
        all[1].as_ref().unwrap_err().to_string(),
        "bad.conllu:3: the sentence has no root (no word with HEAD 0)"
    );
}

#[test]
fn block_without_words_is_named() {
    assert_eq!(first_error("# only a comment\n\n"), "bad.conllu:1: the sentence has no words (only comment lines)");
}

#[test]
fn non_integer_id() {
    let e = first_error("x\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n");
    assert_eq!(e, "bad.conllu:1: ID `x` is not an integer, a range n-m or an empty node n.k");
}

#[test]
fn ids_out_of_order() {
    let e = first_error("1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n3\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n\n");
    assert_eq!(e, "bad.conllu:2: word ID 3 out of order: expected 2");
}

#[test]
fn reading_continues_after_a_bad_sentence() {
    let text = "1\ta\t_\t_\t_\t_\t0\troot\n\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n";
    let all = read_all(text.as_bytes());
    assert_eq!(all.len(), 2);
    assert!(matches!(all[0], Err(ConlluError { line: 1, kind: ErrorKind::ColumnCount { found: 8 }, .. })));
    assert!(all[1].is_ok());
}

#[test]
fn invalid_utf8_is_kept_byte_for_byte() {
    let mut text = b"1\t".to_vec();
    text.extend_from_slice(&[0xff, 0xfe]);
    text.extend_from_slice(b"\t_\t_\t_\t_\t0\troot\t_\t_\n\n");
    let s = read_all(&text).remove(0).unwrap();
    let mut out = Vec::new();
    s.write(&mut out).unwrap();
    assert_eq!(out, text);
}

// Regressions of issue 10: edge cases the reader accepted silently or
// reported under a misleading name.

const WORD1: &str = "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n";

#[test]
fn byte_order_mark_is_named() {
    let e = first_error(&format!("\u{feff}{WORD1}\n"));
    assert_eq!(
        e,
        "bad.conllu:1: the file starts with a UTF-8 byte-order mark (bytes EF BB BF), which CoNLL-U does not allow: remove it"
    );
}

#[test]
fn carriage_return_only_line_ends() {
    let e = first_error("# c\r1\ta\t_\t_\t_\t_\t0\troot\t_\t_\r\r");
    assert_eq!(e, "bad.conllu:1: carriage return inside a line: CoNLL-U lines end with LF or CR LF, not CR alone");
}

#[test]
fn comments_only_is_no_words() {
    assert_eq!(first_error("# a\n# b\n"), "bad.conllu:1: the sentence has no words (only comment lines)");
}

#[test]
fn multiword_ranges() {
    let reversed = "3-1\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n";
    assert_eq!(
        first_error(reversed),
        "bad.conllu:1: multiword range `3-1` must be a-b with a < b starting at the next word 1"
    );
    let late = format!("{WORD1}1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n2\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n\n");
    assert_eq!(
        first_error(&late),
        "bad.conllu:2: multiword range `1-2` must be a-b with a < b starting at the next word 2"
    );
    let dangling = format!("{WORD1}2-3\tbc\t_\t_\t_\t_\t_\t_\t_\t_\n2\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n\n");
    assert_eq!(first_error(&dangling), "bad.conllu:2: multiword range `2-3` ends after the last word 2");
    // Valid ranges and empty nodes still pass.
    let ok = "1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n2.1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n\n";
    assert!(read_all(ok.as_bytes())[0].is_ok());
}

#[test]
fn leading_zero_id() {
    let e = first_error("01\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n");
    assert_eq!(e, "bad.conllu:1: ID `01` has a leading zero");
}

#[test]
fn oversized_head() {
    let e = first_error(&format!("{WORD1}2\tb\t_\t_\t_\t_\t99999999999999999999\tdep\t_\t_\n\n"));
    assert_eq!(e, "bad.conllu:2: HEAD 99999999999999999999 of word 2 is out of range (larger than any word number)");
}

#[test]
fn long_fields_are_elided() {
    let long = "x".repeat(100_000);
    let e = first_error(&format!("{long}\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n"));
    assert!(e.len() < 200, "{e}");
    assert!(e.contains("…xxxxxxxxxx (100000 bytes)`"), "{e}");
}

/// Regression: a JSON file read as CoNLL-U gave one "expected 10
/// tab-separated columns" error per line, and an xz file was read as text.
#[test]
fn a_file_of_another_kind_is_one_error_and_ends_the_reading() {
    let json = b"\n{\"stack\":[0]}\n{\"stack\":[1]}\n\n{\"stack\":[2]}\n";
    let all = read_all(json);
    assert_eq!(all.len(), 1);
    let e = all[0].as_ref().unwrap_err();
    assert_eq!((e.line, &e.kind), (2, &ErrorKind::Json));
    let xz = [0xFD, b'7', b'z', b'X', b'Z', 0x00, 1, 2, 3, b'\n', b'\n', b'x'];
    let all = read_all(&xz);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].as_ref().unwrap_err().kind, ErrorKind::Compressed { format: "xz" });
    // Through `compressed::decompress`, the same bytes are read as CoNLL-U.
    let text = "# sent_id = 1\n1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n";
    let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut w, text.as_bytes()).unwrap();
    let gz = w.finish().unwrap();
    let input = tabula::conllu::compressed::decompress(std::io::Cursor::new(gz)).unwrap();
    let sentences: Vec<_> = Reader::new(input, "mem.gz").map(Result::unwrap).collect();
    assert_eq!(sentences.len(), 1);
    assert_eq!(sentences[0].sent_id(), Some("1"));
    // A later line starting with `{` is an ordinary bad line, not JSON.
    let later = "1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n{\"x\":1}\n";
    assert!(matches!(read_all(later.as_bytes())[1].as_ref().unwrap_err().kind, ErrorKind::ColumnCount { .. }));
}
