//! Bounded time: `--max-words` on every command whose cost per sentence
//! grows faster than n² (projectivize, count, oracle --walk, train). A
//! sentence over the limit is counted on stderr and never dropped from an
//! output file: `projectivize` copies it unchanged, `count` gives it a row
//! with `-`. Small limits here; no timing.
//!
//! Regression: `oracle --walk` on a 2,000-word non-projective sentence
//! printed nothing for minutes, `projectivize` of a 10,000-word sentence
//! took 9 minutes and 6 GB, and LR-spine training grew as n⁴.

mod common;

use common::{scratch_in, stderr_of as stderr, tabula_in};
use std::fs;
use tabula::oracle::walk::{WalkOptions, DEFAULT_MAX_WORDS, DEFAULT_MAX_WORDS_TABLE};
use tabula::oracle::{Algorithm, Strategy, System};
use tabula::parser::train::{read_gold, OracleKind, Projectivize, TrainOptions, Trainer};

/// One sentence of `n` words, non-projective when n ≥ 5 (a chain with a
/// crossing at the start), with sent_id `id`.
fn sentence(id: &str, n: usize) -> String {
    let mut s = format!("# sent_id = {id}\n");
    for i in 1..=n {
        let h = match i {
            1 => 0,
            3 if n >= 5 => 5,
            4 | 5 => 1,
            _ => i - 1,
        };
        s.push_str(&format!("{i}\tw{i}\t_\tNOUN\t_\t_\t{h}\tdep\t_\t_\n"));
    }
    s.push('\n');
    s
}

/// A short non-projective sentence, a long one, a short one.
fn treebank(long: usize) -> String {
    format!("{}{}{}", sentence("a", 6), sentence("long", long), sentence("b", 7))
}

#[test]
fn projectivize_copies_a_long_sentence_unchanged_and_says_so() {
    let dir = scratch_in("cli_max_words", "projectivize");
    let text = treebank(30);
    fs::write(dir.join("in.conllu"), &text).unwrap();
    for method in ["optimal", "lift"] {
        let o = tabula_in(
            &dir,
            &["projectivize", "in.conllu", "--method", method, "--max-words", "20", "-o", "out.conllu"],
        );
        // The output is written, but it is not all projective: exit status 1 (0 with --allow-long).
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert_eq!(
            stderr(&o),
            "warning: 1 non-projective sentence(s) longer than 20 words copied unchanged, not projectivized (--max-words 20):\n  in.conllu:9: 30 words\n\
             error: in.conllu: 1 non-projective sentence(s) longer than --max-words 20 copied unchanged: the output is not all \
             projective (raise --max-words, or accept them with --allow-long)\n"
        );
        let out = fs::read_to_string(dir.join("out.conllu")).unwrap();
        // The long sentence is there, byte for byte; the short ones were projectivized.
        assert!(out.contains(&sentence("long", 30)), "{out}");
        assert!(!out.contains(&sentence("a", 6)), "{out}");
        assert_eq!(out.lines().count(), text.lines().count());
    }
    // Under the limit: projectivized like the others.
    let o = tabula_in(&dir, &["projectivize", "in.conllu", "--max-words", "30", "-o", "out.conllu"]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", stderr(&o));
    assert!(!fs::read_to_string(dir.join("out.conllu")).unwrap().contains(&sentence("long", 30)));
    // --stats counts it, but not its tokens as kept; --allow-long: status 0.
    let o = tabula_in(
        &dir,
        &["projectivize", "in.conllu", "--max-words", "20", "--stats", "--allow-long", "-o", "out.conllu"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("non-projective trees: 3\nof which longer than --max-words, copied unchanged: 1\n"), "{err}");
    assert!(err.contains("tokens (of the trees not copied unchanged): 13\n"), "{err}");
    // No tokens: no attachment score.
    fs::write(dir.join("empty.conllu"), "").unwrap();
    let o = tabula_in(&dir, &["projectivize", "empty.conllu", "--stats", "-o", "out.conllu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("attachment score: - (no tokens)\n"), "{}", stderr(&o));
    let o = tabula_in(&dir, &["projectivize", "in.conllu", "--max-words", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn count_gives_a_long_tree_a_row_without_numbers() {
    let dir = scratch_in("cli_max_words", "count");
    fs::write(dir.join("in.conllu"), treebank(30)).unwrap();
    let o = tabula_in(&dir, &["count", "in.conllu", "--max-words", "20"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let tsv = String::from_utf8(o.stdout.clone()).unwrap();
    let rows: Vec<&str> = tsv.lines().collect();
    assert_eq!(rows.len(), 4, "{tsv}");
    assert_eq!(rows[2], "2\tlong\t30\t1\t-\t-");
    assert!(rows[1].starts_with("1\ta\t6\t1\t5\t"), "{tsv}");
    assert_eq!(
        stderr(&o),
        "warning: 1 tree(s) longer than 20 words not counted (`-` in their rows; --max-words 20):\n  in.conllu:9: 30 words\n"
    );
}

/// Regression: a projective tree longer than --max-words got `-`, though
/// its count is 1 without a table (it is the only tree keeping its arcs).
#[test]
fn count_answers_a_projective_tree_of_any_length_at_once() {
    let dir = scratch_in("cli_max_words", "count_projective");
    // A chain of 5,000 words (each word the head of the next): projective.
    let mut text = String::from("# sent_id = chain\n");
    for i in 1..=5000 {
        text.push_str(&format!("{i}\tw{i}\t_\tNOUN\t_\t_\t{}\tdep\t_\t_\n", i - 1));
    }
    text.push('\n');
    fs::write(dir.join("in.conllu"), text).unwrap();
    let o = tabula_in(&dir, &["count", "in.conllu"]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", stderr(&o));
    let tsv = String::from_utf8(o.stdout.clone()).unwrap();
    assert_eq!(tsv.lines().nth(1), Some("1\tchain\t5000\t0\t5000\t1"), "{tsv}");
}

#[test]
fn a_walk_skips_long_trees_and_counts_them() {
    let dir = scratch_in("cli_max_words", "walk");
    fs::write(dir.join("in.conllu"), treebank(30)).unwrap();
    let o = tabula_in(&dir, &["oracle", "--walk", "in.conllu", "--algorithm", "cubic", "--max-words", "20", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "in.conllu: skipped 1 of 3 trees longer than 20 words (--max-words)\n");
    // --json: standard output is the JSON line only.
    let out = String::from_utf8(o.stdout.clone()).unwrap();
    assert_eq!(out.lines().count(), 1, "{out}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((json["trees"].as_u64(), json["skipped"].as_u64()), (Some(2), Some(1)));
    let o = tabula_in(&dir, &["oracle", "--walk", "in.conllu", "--algorithm", "cubic", "--max-words", "20"]);
    assert!(String::from_utf8(o.stdout).unwrap().starts_with("# arc-standard: 2 trees (1 longer ones skipped), "));
    // Without --walk the option means nothing.
    let o = tabula_in(&dir, &["oracle", "--max-words", "20"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--max-words applies to --walk only"), "{}", stderr(&o));
}

#[test]
fn the_walks_default_limit_depends_on_the_algorithm() {
    let opts = |algorithm, check_agreement, max_words| WalkOptions {
        system: System::ArcStandard,
        strategy: Strategy::Lbr,
        algorithm,
        stray: 0.0,
        check_agreement,
        session: false,
        max_words,
    };
    for a in [Algorithm::Cubic, Algorithm::Goldberg, Algorithm::Tabular] {
        assert_eq!(opts(a, false, None).limit(a), DEFAULT_MAX_WORDS_TABLE);
    }
    for a in [Algorithm::Linear, Algorithm::Quadratic] {
        assert_eq!(opts(a, false, None).limit(a), DEFAULT_MAX_WORDS);
        assert_eq!(opts(a, true, None).limit(a), DEFAULT_MAX_WORDS_TABLE);
        assert_eq!(opts(a, true, Some(7)).limit(a), 7);
    }
}

#[test]
fn training_leaves_out_long_sentences_and_counts_them() {
    let dir = scratch_in("cli_max_words", "train");
    fs::write(dir.join("in.conllu"), treebank(30)).unwrap();
    let o = tabula_in(
        &dir,
        &[
            "train",
            "in.conllu",
            "-o",
            "m",
            "--epochs",
            "1",
            "--step-bits",
            "8",
            "--label-bits",
            "8",
            "--max-words",
            "20",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with(
            "in.conllu: left out 1 sentence longer than 20 words (--max-words)\nin.conllu: 2 sentences, 13 tokens,"
        ),
        "{err}"
    );
    let o = tabula_in(&dir, &["train", "in.conllu", "-o", "m", "--max-words", "5"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: in.conllu: no training sentence: every tree was left out: 3 longer than --max-words (raise it to keep them)\n"
    );
}

#[test]
fn the_training_default_is_lower_where_the_oracle_builds_a_table_per_step() {
    // A 201-word tree (projective) and a short one; only the regimes whose
    // oracle builds a table at every configuration leave the long one out.
    let mut text = sentence("short", 4);
    text.push_str("# sent_id = chain\n");
    for i in 1..=201 {
        text.push_str(&format!("{i}\tw\t_\tNOUN\t_\t_\t{}\tdep\t_\t_\n", i - 1));
    }
    text.push('\n');
    let gold = read_gold(text.as_bytes(), "mem").unwrap();
    let left_out = |system, oracle, algorithm, projectivize| {
        let options = TrainOptions {
            system,
            oracle,
            algorithm,
            projectivize,
            strategy: if matches!(system, System::LrSpine | System::Attardi) { Strategy::None } else { Strategy::Lbr },
            step_bits: 8,
            label_bits: 8,
            ..TrainOptions::default()
        };
        Trainer::new(options, gold.clone(), "mem").unwrap().prepared().too_long
    };
    use Algorithm::{Auto, Cubic, Linear};
    use OracleKind::{Dynamic, Static};
    use Projectivize::{None as Keep, Optimal};
    assert_eq!(left_out(System::ArcHybrid, Dynamic, Auto, Optimal), 0);
    assert_eq!(left_out(System::ArcHybrid, Dynamic, Linear, Optimal), 0);
    assert_eq!(left_out(System::ArcHybrid, Dynamic, Cubic, Optimal), 1);
    assert_eq!(left_out(System::ArcStandard, Static, Auto, Optimal), 0);
    assert_eq!(left_out(System::LrSpine, Static, Auto, Optimal), 0);
    assert_eq!(left_out(System::LrSpine, Dynamic, Auto, Optimal), 1);
    assert_eq!(left_out(System::Attardi, Static, Auto, Keep), 1);
    assert_eq!(left_out(System::Attardi, Dynamic, Auto, Keep), 1);
    // An explicit limit applies to every regime.
    let options =
        TrainOptions { max_words: Some(300), algorithm: Cubic, step_bits: 8, label_bits: 8, ..TrainOptions::default() };
    assert_eq!(Trainer::new(options, gold.clone(), "mem").unwrap().prepared().too_long, 0);
    let options = TrainOptions { max_words: Some(100), step_bits: 8, label_bits: 8, ..TrainOptions::default() };
    assert_eq!(Trainer::new(options, gold, "mem").unwrap().prepared().too_long, 1);
}
