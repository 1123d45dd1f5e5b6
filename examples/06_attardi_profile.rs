//! Where the time of Attardi's tabular oracle goes on a walk over a CoNLL-U
//! treebank (unprojectivized; a random step with probability 0.3, else an
//! optimal one, as `tabula oracle --walk … --stray 0.3 --seed 1`): per
//! k + m, the configurations, the tables run, the items kept and dropped,
//! the pairs of items combined and the time.
//!
//! `cargo run --release --example 06_attardi_profile -- de_gsd-ud-test.conllu`

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::time::Instant;
use tabula::oracle::attardi::tabular::TabularOracle;
use tabula::oracle::walk::read_gold;
use tabula::oracle::{Configuration, Step, System};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: 06_attardi_profile TREEBANK.conllu")?;
    let sentences = read_gold(std::io::BufReader::new(std::fs::File::open(&path)?), &path, false)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut oracle = TabularOracle::new();
    // Per bucket of k + m (by tens): configurations, tables, items, dropped,
    // pairs, seconds, configurations that ran a table.
    let mut rows = vec![(0u64, 0u64, 0u64, 0u64, 0u64, 0f64, 0u64); 20];
    for s in &sentences {
        let gold = &s.tree;
        let mut c = Configuration::initial(System::Attardi, gold.len());
        while !c.is_final() {
            let t0 = Instant::now();
            let scores = oracle.scores(&c, gold)?;
            let secs = t0.elapsed().as_secs_f64();
            let st = oracle.last_stats();
            let length = c.stack().len() - 1 + c.buffer().count();
            let r = &mut rows[(length.saturating_sub(1) / 10).min(19)];
            *r = (
                r.0 + 1,
                r.1 + st.tables as u64,
                r.2 + st.items,
                r.3 + st.dropped,
                r.4 + st.pairs,
                r.5 + secs,
                r.6 + (st.tables > 0) as u64,
            );
            let optimal = scores.optimal();
            let step = if rng.gen_bool(0.3) || optimal.is_empty() {
                *c.applicable_steps().collect::<Vec<Step>>().choose(&mut rng).ok_or("no step")?
            } else {
                *optimal.choose(&mut rng).ok_or("no step")?
            };
            c.apply(step)?;
        }
    }
    let total: f64 = rows.iter().map(|r| r.5).sum();
    println!("k+m\tconfigs\twith a table\ttables\titems\tdropped\tpairs\tseconds\tshare");
    for (b, r) in rows.iter().enumerate().filter(|(_, r)| r.0 > 0) {
        println!(
            "{}-{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.3}\t{:.1} %",
            b * 10 + 1,
            b * 10 + 10,
            r.0,
            r.6,
            r.1,
            r.2,
            r.3,
            r.4,
            r.5,
            100.0 * r.5 / total
        );
    }
    println!("total {:.3} s", total);
    Ok(())
}
