//! A dynamic oracle in a training loop: follow one computation of
//! arc-standard parsing, let a (here: deliberately bad) "model" choose each
//! step, and ask an incremental [`OracleSession`] (Nederhof 2019, Sec. 6 and
//! 7) which steps are still optimal — the training signal of a parser
//! trained with a dynamic oracle.
//!
//! Run with `cargo run --example 03_dynamic_oracle`.

use tabula::oracle::session::OracleSession;
use tabula::oracle::{Algorithm, Oracle, Step, Strategy};
use tabula::tree::DepTree;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Heads of words 1 … 6 (projective, so `auto` picks the linear algorithm).
    let gold = DepTree::from_heads(&[2, 0, 4, 2, 6, 2])?;
    let mut oracle = Oracle::new();
    let mut session = OracleSession::new(&mut oracle, gold.clone(), Strategy::Lbr, Algorithm::Auto);
    println!("gold {gold}, algorithm {:?}, incremental: {}", session.algorithm(), session.is_incremental());

    let mut mistakes = 0;
    while !session.configuration().is_final() {
        let scores = session.scores()?;
        let optimal = scores.optimal();
        // The "model": shift whenever it can, a mistake whenever shifting is not optimal.
        let chosen = if session.configuration().is_applicable(Step::Shift) { Step::Shift } else { optimal[0] };
        let verdict = if optimal.contains(&chosen) { "ok" } else { "mistake" };
        mistakes += usize::from(verdict == "mistake");
        println!(
            "stack {:?}  shift {:?}  reduce_left {:?}  reduce_right {:?}  optimal {:?}  model: {chosen:?} ({verdict})",
            session.configuration().stack(),
            scores.get(Step::Shift),
            scores.get(Step::ReduceLeft),
            scores.get(Step::ReduceRight),
            optimal,
        );
        session.apply(chosen)?;
    }
    println!("{mistakes} mistakes; the oracle kept answering from each configuration the model reached");
    Ok(())
}
