//! A dynamic oracle in a training loop: follow one computation, let a (here:
//! deliberately bad) "model" choose each step, and ask an [`OracleSession`]
//! which steps are still optimal — the training signal of a parser trained
//! with a dynamic oracle. For arc-standard the session is incremental
//! (Nederhof 2019, Sec. 6 and 7).
//!
//! Run with `cargo run --example 03_dynamic_oracle [arc-standard|arc-hybrid|arc-eager]`.

use tabula::oracle::session::OracleSession;
use tabula::oracle::{Algorithm, Oracle, Step, Strategy, System};
use tabula::tree::DepTree;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let system: System = std::env::args().nth(1).as_deref().unwrap_or("arc-standard").parse()?;
    // Heads of words 1 … 6 (projective, so `auto` picks the fastest exact algorithm).
    let gold = DepTree::from_heads(&[2, 0, 4, 2, 6, 2])?;
    let mut oracle = Oracle::new();
    let mut session = OracleSession::new(&mut oracle, system, gold.clone(), Strategy::Lbr, Algorithm::Auto)?;
    println!("{system}: gold {gold}, algorithm {:?}, incremental: {}", session.algorithm(), session.is_incremental());

    let mut mistakes = 0;
    while !session.configuration().is_final() {
        let scores = session.scores()?;
        let optimal = scores.optimal();
        // The "model": shift whenever it can, a mistake whenever shifting is not optimal.
        let chosen = if session.configuration().is_applicable(Step::Shift) { Step::Shift } else { optimal[0] };
        let verdict = if optimal.contains(&chosen) { "ok" } else { "mistake" };
        mistakes += usize::from(verdict == "mistake");
        println!(
            "stack {:?}  scores {scores:?}  optimal {optimal:?}  model: {chosen} ({verdict})",
            session.configuration().stack(),
        );
        session.apply(chosen)?;
    }
    println!("{mistakes} mistakes; the oracle kept answering from each configuration the model reached");
    Ok(())
}
