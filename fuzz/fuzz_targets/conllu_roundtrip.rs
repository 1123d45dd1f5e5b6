//! The CoNLL-U reader and writer: any bytes are read without panicking;
//! every sentence read is written back byte for byte, with its own heads or
//! with the lifted (projective) heads, and the written text reads back to
//! the same tree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::conllu::Reader;
use tabula::projectivize::lift;

fuzz_target!(|data: &[u8]| {
    let mut reader = Reader::new(data, "fuzz.conllu");
    while let Some(raw) = reader.next_raw() {
        let Ok(raw) = raw else { return };
        let file = reader.file().clone();
        let Ok(sentence) = tabula::conllu::Sentence::parse(raw.clone(), &file) else { continue };
        let mut out = Vec::new();
        sentence.write(&mut out).unwrap();
        assert_eq!(out, raw.text);
        out.clear();
        sentence.write_with_heads(sentence.tree(), &mut out).unwrap();
        assert_eq!(out, raw.text);
        let lifted = lift(sentence.tree());
        assert!(lifted.is_projective());
        out.clear();
        sentence.write_with_heads(&lifted, &mut out).unwrap();
        let again: Vec<_> = Reader::new(out.as_slice(), "again").collect();
        assert_eq!(again.len(), 1, "one block in, one block out");
        assert_eq!(again[0].as_ref().expect("rewritten sentence reads").tree(), &lifted);
    }
});
