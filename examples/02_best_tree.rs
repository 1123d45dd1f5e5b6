//! The best projective tree for a non-projective gold tree: optimal
//! projectivization with the max-plus semiring and a backtrace.
//!
//! Each arc scores 1 if the gold tree has it and 0 otherwise, so a best
//! derivation of the projective grammar (Nederhof 2019, Table 3) is a
//! projective tree sharing as many arcs as possible with the gold tree.
//!
//! Run with `cargo run --example 02_best_tree`.

use tabula::engine::Parser;
use tabula::grammar::text;
use tabula::semiring::MaxPlus;
use tabula::tree::DepTree;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let grammar = text::parse_str("projective.grammar", tabula::grammars::PROJECTIVE)?.grammar;
    let a = grammar.terminal("a").ok_or("the grammar has no terminal `a`")?;

    // Heads of words 1 … 5; the arc 1 → 3 crosses 0 → 2 and 2 → 4.
    let gold = DepTree::from_heads(&[0, 0, 1, 2, 4])?;
    println!("gold:       {gold}  (projective: {})", gold.is_projective());

    let mut parser = Parser::<MaxPlus>::new(&grammar);
    let input = vec![a; gold.len() + 1];
    let score = parser.parse(&input, |h, d| MaxPlus::new(gold.has_arc(h, d) as i64))?;
    let best = parser.best_derivation().ok_or("no projective tree")?;

    println!("projective: {}  (projective: {})", best.tree, best.tree.is_projective());
    println!("arcs kept:  {score} of {}", gold.len());
    Ok(())
}
