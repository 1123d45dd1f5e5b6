//! Line ends, multiword ranges and empty-node IDs: each input byte builds
//! one line of a CoNLL-U text (a word, a range `a-b`, an empty node `k.m`, a
//! comment, a blank line, each with an LF, CR LF or CR line end), over a
//! seed sentence. Every reader path — `Reader` blocks, `Sentence::parse`
//! and the parser's `Columns::scan`, which share one block check — returns
//! a sentence or a typed error naming a line of the input, never panics and
//! gives the same answer; a block read whole comes back byte for byte, and
//! a sentence read is written back byte for byte (with its heads, and with
//! its HEAD and DEPREL columns rewritten as they were).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::conllu::block::check_block;
use tabula::conllu::{Reader, Sentence};
use tabula::parser::columns::Columns;

/// One line from a byte: its kind (low bits), its numbers (middle bits) and
/// its line end (high bits).
fn line(byte: u8, word: &mut usize, out: &mut Vec<u8>) {
    let small = usize::from((byte >> 3) & 3);
    match byte & 7 {
        0 | 1 | 2 => {
            // A word: the next ID (or, rarely, a wrong one), its head 0 or the previous word.
            *word += 1;
            let id = if byte & 0x18 == 0x18 { *word + 1 } else { *word };
            let head = if *word == 1 || byte & 1 == 0 { 0 } else { *word - 1 };
            let label = if head == 0 { "root" } else { "dep" };
            out.extend_from_slice(format!("{id}\tw{id}\t_\tNOUN\t_\t_\t{head}\t{label}\t_\t_").as_bytes());
        }
        3 => out.extend_from_slice(format!("{}-{}\tmw\t_\t_\t_\t_\t_\t_\t_\t_", *word + 1, *word + small).as_bytes()),
        4 => out.extend_from_slice(
            format!("{}.{}\te\t_\t_\t_\t_\t_\t_\t_\t_", word.saturating_sub(small & 1), small).as_bytes(),
        ),
        5 => out.extend_from_slice(b"# sent_id = s"),
        6 => {}
        _ => {
            *word = 0;
        }
    }
    out.extend_from_slice(match byte >> 6 {
        0 | 1 => b"\n",
        2 => b"\r\n",
        _ => b"\r",
    });
}

fuzz_target!(|data: &[u8]| {
    // The first half of the input builds lines; the rest is appended raw.
    let (program, tail) = data.split_at(data.len().min(64));
    let mut text = Vec::new();
    let mut word = 0;
    for &b in program {
        line(b, &mut word, &mut text);
    }
    text.extend_from_slice(tail);
    let lines = text.iter().filter(|&&b| b == b'\n' || b == b'\r').count() + 1;
    let mut reader = Reader::new(text.as_slice(), "fuzz.conllu");
    let mut read = Vec::new();
    let mut failed = false;
    while let Some(block) = reader.next_raw() {
        let raw = match block {
            Ok(raw) => raw,
            Err(e) => {
                assert!((1..=lines).contains(&e.line), "line {} of {lines}: {e}", e.line);
                failed = true;
                break;
            }
        };
        read.extend_from_slice(&raw.text);
        let file = reader.file().clone();
        let columns = Columns::scan(&raw, &file);
        match Sentence::parse(raw.clone(), &file) {
            Ok(sentence) => {
                // The parser's reader takes it too, unless a field is not
                // UTF-8 (the tree reader copies such bytes; the parser needs text).
                let cols = match columns {
                    Ok(cols) => cols,
                    Err(tabula::parser::ParserError::Conllu { reason, .. }) if reason.contains("not valid UTF-8") => {
                        continue
                    }
                    Err(e) => panic!("a sentence the tree reader takes, the parser's reader refuses: {e}"),
                };
                assert_eq!(cols.len(), sentence.len());
                let mut out = Vec::new();
                sentence.write_with_heads(sentence.tree(), &mut out).unwrap();
                assert_eq!(out, raw.text);
                let labels: Vec<String> = cols
                    .words
                    .iter()
                    .map(|w| String::from_utf8(raw.text[w.deprel.clone()].to_vec()).unwrap())
                    .collect();
                let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
                // The parser's writer writes each HEAD as a plain number: the
                // same bytes where the input's HEADs are written so (a HEAD
                // `02` is read as 2 and comes back as `2`).
                let canonical = cols
                    .words
                    .iter()
                    .zip(sentence.tree().heads())
                    .all(|(w, h)| raw.text[w.head.clone()] == *h.to_string().as_bytes());
                out.clear();
                cols.write_with(&raw.text, sentence.tree().heads(), &labels, &mut out).unwrap();
                assert_eq!(out == raw.text, canonical);
            }
            Err(bad) => {
                let e = &bad.error;
                assert!((1..=lines).contains(&e.line), "line {} of {lines}: {e}", e.line);
                // The block check is the same for both readers: the same line and message.
                if let Err((line, kind)) = check_block(&raw) {
                    assert_eq!((e.line, &e.kind), (line, &kind));
                    let Err(tabula::parser::ParserError::Conllu { line: l, reason, .. }) = &columns else {
                        panic!("the parser's reader took a block the block check refuses: {e}");
                    };
                    assert_eq!((*l, reason.as_str()), (line, kind.to_string().as_str()));
                }
            }
        }
    }
    if !failed {
        assert_eq!(read, text, "the blocks are the input, byte for byte");
    }
});
