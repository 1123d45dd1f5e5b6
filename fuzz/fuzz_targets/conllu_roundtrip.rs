//! The CoNLL-U reader and writer: any bytes are read without panicking;
//! every sentence read is written back byte for byte, with its own heads or
//! with the lifted (projective) heads, and the written text reads back to
//! the same tree. On each gold tree (up to 40 words) the top-down counter of
//! optimal projective trees equals the forward (max, count) semiring over
//! big integers, and an optimal projectivization keeps `best` heads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use tabula::conllu::Reader;
use tabula::engine::Parser;
use tabula::grammar::{text, Grammar};
use tabula::projectivize::{lift, Counter, OptimalProjectivizer, TreeClass};
use tabula::semiring::{Count, MaxCount};

fn grammar() -> &'static Grammar {
    static G: OnceLock<Grammar> = OnceLock::new();
    G.get_or_init(|| text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE).unwrap().grammar)
}

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

        let gold = sentence.tree();
        if gold.len() <= 40 {
            let g = grammar();
            let counted = Counter::new(g, TreeClass::Unknown).unwrap().count(gold).unwrap();
            let a = g.terminal("a").unwrap();
            let input = vec![a; gold.len() + 1];
            let forward = Parser::<MaxCount<Count>>::new(g)
                .parse(&input, |h, d| MaxCount::new(i64::from(d >= 1 && gold.head(d) == h)))
                .unwrap();
            assert_eq!(counted.count, forward.count.0);
            assert_eq!(forward.score.finite(), Some(counted.best as i64));
            let best = OptimalProjectivizer::new(g, TreeClass::Unknown).unwrap().projectivize(gold).unwrap();
            assert_eq!(best.score, counted.best);
            assert_eq!(best.tree.common_arcs(gold), counted.best);
        }
    }
});
