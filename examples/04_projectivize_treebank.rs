//! Projectivize a CoNLL-U treebank from Rust: read sentences, replace each
//! non-projective gold tree by an optimal projective one (most gold heads
//! kept, Nederhof 2019 Sec. 3), count the optimal trees, and write the
//! treebank back with only the changed HEAD fields rewritten.
//!
//! Run with `cargo run --release --example 04_projectivize_treebank [FILE.conllu]`
//! (without a file it uses the embedded sample, `data/sample.conllu`).

use std::io::Write;
use tabula::conllu::Reader;
use tabula::grammar::text;
use tabula::projectivize::{Counter, OptimalProjectivizer, TreeClass};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = match std::env::args().nth(1) {
        Some(path) => std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?,
        None => include_bytes!("../data/sample.conllu").to_vec(),
    };
    // The grammar of all projective trees (Table 3), embedded in the library.
    let grammar = text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE)?.grammar;
    // Reusable: one chart for every sentence.
    let mut projectivizer = OptimalProjectivizer::new(&grammar, TreeClass::Projective)?;
    let mut counter = Counter::new(&grammar, TreeClass::Projective)?;

    let mut out = Vec::new();
    for sentence in Reader::new(text.as_slice(), "input") {
        let sentence = sentence?; // errors name the file and line
        let gold = sentence.tree();
        let best = projectivizer.projectivize(gold)?;
        let counted = counter.count(gold)?;
        eprintln!(
            "{}: {} words, {} of them keep their head, {} optimal projective tree(s)",
            sentence.sent_id().unwrap_or("-"),
            gold.len(),
            best.score,
            counted.count
        );
        sentence.write_with_heads(&best.tree, &mut out)?;
    }
    std::io::stdout().write_all(&out)?;
    Ok(())
}
