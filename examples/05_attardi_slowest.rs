//! The slowest configurations of Attardi's tabular oracle on a walk over a
//! CoNLL-U treebank (unprojectivized; a random step with probability 0.3,
//! else an optimal one), with the size of the table each ran on.
//!
//! `cargo run --release --example 05_attardi_slowest -- de_gsd-ud-test.conllu`

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::time::Instant;
use tabula::oracle::attardi::tabular::TabularOracle;
use tabula::oracle::walk::read_gold;
use tabula::oracle::{Configuration, Step, System};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: 05_attardi_slowest TREEBANK.conllu")?;
    let sentences = read_gold(std::io::BufReader::new(std::fs::File::open(&path)?), &path, false)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut oracle = TabularOracle::new();
    // (seconds, sentence, n, |σ|, |βR|)
    let mut slow: Vec<(f64, usize, usize, usize, usize)> = Vec::new();
    let (mut total, mut count) = (0.0, 0usize);
    for (index, s) in sentences.iter().enumerate() {
        let gold = &s.tree;
        let mut c = Configuration::initial(System::Attardi, gold.len());
        while !c.is_final() {
            let t0 = Instant::now();
            let scores = oracle.scores(&c, gold)?;
            let secs = t0.elapsed().as_secs_f64();
            let (ell, reduced) = oracle.last_size();
            total += secs;
            count += 1;
            slow.push((secs, index + 1, gold.len(), ell, reduced));
            let optimal = scores.optimal();
            let step = if rng.gen_bool(0.3) || optimal.is_empty() {
                *c.applicable_steps().collect::<Vec<Step>>().choose(&mut rng).ok_or("no step")?
            } else {
                *optimal.choose(&mut rng).ok_or("no step")?
            };
            c.apply(step)?;
        }
    }
    slow.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("{count} configurations, mean {:.1} µs", total * 1e6 / count.max(1) as f64);
    println!("seconds\tsentence\tn\t|σ|\t|βR|");
    for (secs, sentence, n, ell, reduced) in slow.iter().take(12) {
        println!("{secs:.3}\t{sentence}\t{n}\t{ell}\t{reduced}");
    }
    let over = slow.iter().filter(|x| x.0 > 1.0).count();
    println!("configurations over 1 s: {over}");
    Ok(())
}
