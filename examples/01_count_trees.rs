//! Counting projective dependency trees with the engine.
//!
//! The Table 3 grammar of Nederhof (2019) derives every projective tree
//! exactly once, so with every arc weighing one in the counting semiring the
//! engine's value is the number of projective trees over a root and n words
//! (1, 1, 3, 12, 55, …: OEIS A001764), exact at any size.
//!
//! Run with `cargo run --example 01_count_trees`.

use tabula::engine::Parser;
use tabula::grammar::text;
use tabula::semiring::{Count, Semiring};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let grammar = text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE)?.grammar;
    let a = grammar.terminal("a").ok_or("the grammar has no terminal `a`")?;
    // One parser, its chart reused for every length.
    let mut parser = Parser::<Count>::new(&grammar);
    println!("projective trees over a root and n words:");
    for n in [0, 1, 2, 3, 4, 5, 10, 20, 40] {
        // The input is a0 a1 … an: the root and n words, all the terminal `a`.
        let count = parser.parse(&vec![a; n + 1], |_head, _dependent| Count::one())?;
        println!("n = {n:>2}: {count}");
    }
    Ok(())
}
