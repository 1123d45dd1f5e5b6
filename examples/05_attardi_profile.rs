//! Where the time of Attardi's tabular oracle goes on a walk over a CoNLL-U
//! treebank (unprojectivized; a random step with probability 0.3, else an
//! optimal one, as `tabula oracle --walk … --stray 0.3 --seed 1`): per
//! k + m, the configurations, the tables run, the items kept and dropped,
//! the pairs of items combined and the time; then the slowest
//! configurations, with the size of the table each ran on, and the
//! sentences whose computations cost the most, with their share of the
//! time (how much the few costliest sentences weigh). With
//! `--optimal`, the walk asks `optimal` (as a training loop does) instead of
//! `scores`, and the time is also split by whether the best was known from
//! the step before; `--stray P` sets the share of random steps;
//! `--max-pairs P` gives the oracle that budget per call (a sentence past
//! it is abandoned, as a training loop with `--max-pairs` abandons it). With
//! `--replay STEPS.jsonl` instead of a treebank, the walks follow recorded
//! computations, one JSON object per line, `{"heads": [...], "steps":
//! [...]}` (the gold heads of words 1…n, the step names), as
//! `python/bench/record_steps.py` writes them from the neural parser's
//! training loop; the steps open at each table are counted too.
//!
//! `cargo run --release --example 05_attardi_profile -- de_gsd-ud-test.conllu`

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::time::Instant;
use tabula::oracle::attardi::tabular::TabularOracle;
use tabula::oracle::walk::read_gold;
use tabula::oracle::{Configuration, OracleError, Step, System};
use tabula::tree::DepTree;

/// The figures of one bucket of k + m.
#[derive(Clone, Copy, Default)]
struct Bucket {
    configurations: u64,
    with_a_table: u64,
    tables: u64,
    items: u64,
    dropped: u64,
    pairs: u64,
    seconds: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: 05_attardi_profile (TREEBANK.conllu | --replay STEPS.jsonl) [--optimal] [--stray P] [--max-pairs P]";
    let replay = match args.iter().position(|a| a == "--replay") {
        Some(i) => Some(args.get(i + 1).ok_or(usage)?.clone()),
        None => None,
    };
    let path = replay.as_ref().or(args.first()).ok_or(usage)?;
    if replay.is_some() && args.iter().any(|a| a == "--stray") {
        return Err("--stray is for random walks; --replay follows the recorded steps".into());
    }
    let only_optimal = args.iter().any(|a| a == "--optimal");
    let stray: f64 = match args.iter().position(|a| a == "--stray") {
        Some(i) => args.get(i + 1).ok_or(usage)?.parse()?,
        None => 0.3,
    };
    // (configurations, seconds) with the best known, and without.
    let mut split = [(0u64, 0f64); 2];
    // `optimal`: the steps left open by the bounds, and of them the optimal.
    let mut open = (0u64, 0u64);
    let max_pairs: Option<u64> = match args.iter().position(|a| a == "--max-pairs") {
        Some(i) => Some(args.get(i + 1).ok_or(usage)?.parse()?),
        None => None,
    };
    let mut abandoned = 0;
    let walks: Vec<Walk> = match &replay {
        Some(path) => recorded(path)?,
        None => read_gold(std::io::BufReader::new(std::fs::File::open(path)?), path, false)?
            .into_iter()
            .map(|s| (s.tree, None))
            .collect(),
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut oracle = TabularOracle::new();
    oracle.set_max_pairs(max_pairs);
    // Buckets of k + m by tens; (seconds, sentence, n, |σ|, |βR|) of every configuration.
    let mut buckets = [Bucket::default(); 20];
    let mut slow: Vec<(f64, usize, usize, usize, usize)> = Vec::new();
    // Seconds per sentence.
    let mut by_sentence = vec![0f64; walks.len()];
    for (index, (gold, steps)) in walks.iter().enumerate() {
        let mut c = Configuration::initial(System::Attardi, gold.len());
        let mut recorded = steps.iter().flatten();
        while !c.is_final() {
            let t0 = Instant::now();
            let scores = match if only_optimal { oracle.optimal(&c, gold) } else { oracle.scores(&c, gold) } {
                Ok(scores) => scores,
                // Past the table's limit: the sentence is abandoned there,
                // as a training loop abandons it.
                Err(OracleError::TooLarge { .. } | OracleError::TooMuchWork { .. }) => {
                    abandoned += 1;
                    break;
                }
                Err(e) => return Err(e.into()),
            };
            let secs = t0.elapsed().as_secs_f64();
            let st = oracle.last_stats();
            open.0 += u64::from(st.open_steps);
            open.1 += u64::from(st.open_optimal);
            let part = &mut split[usize::from(st.best_known)];
            part.0 += 1;
            part.1 += secs;
            let length = c.stack().len() - 1 + c.buffer().count();
            let b = &mut buckets[(length.saturating_sub(1) / 10).min(19)];
            b.configurations += 1;
            b.with_a_table += u64::from(st.tables > 0);
            b.tables += st.tables as u64;
            b.items += st.items;
            b.dropped += st.dropped;
            b.pairs += st.pairs;
            b.seconds += secs;
            let (ell, reduced) = oracle.last_size();
            slow.push((secs, index + 1, gold.len(), ell, reduced));
            by_sentence[index] += secs;
            let optimal = scores.optimal();
            let step = if steps.is_some() {
                match recorded.next() {
                    Some(&step) => step,
                    None => break,
                }
            } else if rng.gen_bool(stray) || optimal.is_empty() {
                *c.applicable_steps().collect::<Vec<Step>>().choose(&mut rng).ok_or("no step")?
            } else {
                *optimal.choose(&mut rng).ok_or("no step")?
            };
            c.apply(step)?;
        }
    }
    let total: f64 = buckets.iter().map(|b| b.seconds).sum();
    println!("k+m\tconfigs\twith a table\ttables\titems\tdropped\tpairs\tseconds\tshare");
    for (k, b) in buckets.iter().enumerate().filter(|(_, b)| b.configurations > 0) {
        println!(
            "{}-{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.3}\t{:.1} %",
            k * 10 + 1,
            k * 10 + 10,
            b.configurations,
            b.with_a_table,
            b.tables,
            b.items,
            b.dropped,
            b.pairs,
            b.seconds,
            100.0 * b.seconds / total
        );
    }
    println!(
        "{} configurations, {total:.3} s, mean {:.1} µs; {abandoned} sentences abandoned (|γ| past the limit, or the budget)",
        slow.len(),
        total * 1e6 / slow.len().max(1) as f64
    );
    if only_optimal {
        for (part, name) in split.iter().zip(["best unknown", "best known"]) {
            println!("{name}: {} configurations, {:.3} s", part.0, part.1);
        }
        let with_a_table: u64 = buckets.iter().map(|b| b.with_a_table).sum();
        println!(
            "steps left open by the bounds: {} ({:.2} per configuration with a table), of them optimal: {} ({:.1} %)",
            open.0,
            open.0 as f64 / with_a_table.max(1) as f64,
            open.1,
            100.0 * open.1 as f64 / open.0.max(1) as f64
        );
    }
    slow.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("seconds\tsentence\tn\t|σ|\t|βR|");
    for (secs, sentence, n, ell, reduced) in slow.iter().take(12) {
        println!("{secs:.3}\t{sentence}\t{n}\t{ell}\t{reduced}");
    }
    println!("configurations over 1 s: {}", slow.iter().filter(|x| x.0 > 1.0).count());
    let mut sentences: Vec<(f64, usize)> = by_sentence.iter().copied().zip(1..).collect();
    sentences.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("seconds\tsentence\tn\tshare of the time, with the costlier ones");
    let mut sum = 0.0;
    for &(secs, sentence) in sentences.iter().take(10) {
        sum += secs;
        println!(
            "{secs:.3}\t{sentence}\t{}\t{:.1} %",
            walks[sentence - 1].0.len(),
            100.0 * sum / total.max(f64::MIN_POSITIVE)
        );
    }
    Ok(())
}

/// A gold tree, and the steps to follow (none: a random walk).
type Walk = (DepTree, Option<Vec<Step>>);

/// The recorded computations of `path` (see the module documentation).
fn recorded(path: &str) -> Result<Vec<Walk>, Box<dyn std::error::Error>> {
    #[derive(serde::Deserialize)]
    struct Line {
        heads: Vec<usize>,
        steps: Vec<String>,
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut walks = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = |e: &dyn std::fmt::Display| format!("{path}:{}: {e}", i + 1);
        let walk: Line = serde_json::from_str(line).map_err(|e| at(&e))?;
        let tree = DepTree::from_heads(&walk.heads).map_err(|e| at(&e))?;
        let steps = walk
            .steps
            .iter()
            .map(|s| System::Attardi.parse_step(s).ok_or_else(|| at(&format!("not an Attardi step: {s}"))))
            .collect::<Result<_, _>>()?;
        walks.push((tree, Some(steps)));
    }
    Ok(walks)
}
