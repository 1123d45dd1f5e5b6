//! `tabula ensemble` (issue 21, item 4): weighted votes reparsed into the
//! best tree; the majority wins, weights decide, labels follow the vote,
//! and misaligned or meaningless inputs are refused.

mod common;

use common::{all_trees, fails_in, scratch_in, stderr_of, tabula_in, toy_treebank};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fs;
use tabula::arborescence::{max_arborescence, max_single_root_tree};
use tabula::tree::DepTree;

/// `text` with the HEAD and DEPREL of word `word` of every sentence set to `head` and `deprel`.
fn with_arc(text: &str, word: &str, head: &str, deprel: &str) -> String {
    text.lines()
        .map(|l| {
            let mut c: Vec<&str> = l.split('\t').collect();
            if c.len() == 10 && c[0] == word {
                c[6] = head;
                c[7] = deprel;
            }
            c.join("\t") + "\n"
        })
        .collect()
}

#[test]
fn the_weighted_majority_wins() {
    let dir = scratch_in("cli_ensemble", "majority");
    let gold = toy_treebank(20, 3);
    fs::write(dir.join("a.conllu"), &gold).unwrap();
    // b and c each move a different word: every arc keeps a majority.
    fs::write(dir.join("b.conllu"), with_arc(&gold, "1", "3", "dep")).unwrap();
    fs::write(dir.join("c.conllu"), with_arc(&gold, "3", "1", "x")).unwrap();
    for extra in [&[][..], &["--projective"][..]] {
        let mut args = vec!["ensemble", "a.conllu", "b.conllu", "c.conllu", "-o", "v.conllu"];
        args.extend_from_slice(extra);
        let o = tabula_in(&dir, &args);
        assert!(o.status.success(), "{}", stderr_of(&o));
        assert!(stderr_of(&o).starts_with("20 sentences, "), "{}", stderr_of(&o));
        assert_eq!(fs::read_to_string(dir.join("v.conllu")).unwrap(), gold, "{extra:?}");
    }
    // Regression: weights were rounded to millionths, so 1e-7 each voted
    // nothing (exit 0, UAS 62.59 → 11.56 on a real treebank). Tiny or huge
    // weights now vote exactly as weight 1 does.
    for w in ["1e-7,1e-7,1e-7", "1e300,1e300,1e300", "0.1,0.1,0.1"] {
        let o = tabula_in(&dir, &["ensemble", "a.conllu", "b.conllu", "c.conllu", "--weights", w, "-o", "t.conllu"]);
        assert!(o.status.success(), "{}", stderr_of(&o));
        assert_eq!(fs::read_to_string(dir.join("t.conllu")).unwrap(), gold, "{w}");
    }
    // Weights: b alone outweighs a and c together on word 1's arc.
    let o =
        tabula_in(&dir, &["ensemble", "a.conllu", "b.conllu", "c.conllu", "--weights", "1,2.5,1", "-o", "w.conllu"]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    assert_eq!(fs::read_to_string(dir.join("w.conllu")).unwrap(), with_arc(&gold, "1", "3", "dep"));
}

#[test]
fn bad_inputs_are_refused() {
    let dir = scratch_in("cli_ensemble", "refused");
    let gold = toy_treebank(5, 4);
    fs::write(dir.join("a.conllu"), &gold).unwrap();
    fs::write(dir.join("b.conllu"), &gold).unwrap();
    fs::write(dir.join("other.conllu"), toy_treebank(5, 5)).unwrap();
    fs::write(dir.join("short.conllu"), toy_treebank(4, 4)).unwrap();
    fails_in(
        &dir,
        &["ensemble", "a.conllu", "b.conllu", "--weights", "1"],
        "--weights gives 1 weights for 2 files: one per file",
    );
    fails_in(
        &dir,
        &["ensemble", "a.conllu", "b.conllu", "--weights", "1,-2"],
        "--weights: -2 is not a weight (a positive finite number)",
    );
    fails_in(
        &dir,
        &["ensemble", "a.conllu", "b.conllu", "--weights", "1,1e-300"],
        "--weights: the weights 1e-300 and 1 are too far apart to add exactly (more than 18 decimal digits between them)",
    );
    fails_in(
        &dir,
        &["ensemble", "a.conllu", "b.conllu", "--max-words", "3"],
        "a.conllu:1: a sentence of 5 words, longer than --max-words 3",
    );
    fails_in(
        &dir,
        &["ensemble", "a.conllu", "other.conllu"],
        "the files do not align: a.conllu:1 and other.conllu:1 have other words",
    );
    fails_in(
        &dir,
        &["ensemble", "a.conllu", "short.conllu"],
        "short.conllu ends before the other files (after 4 sentences)",
    );
    fails_in(
        &dir,
        &["ensemble", "a.conllu", "b.conllu", "-o", "b.conllu"],
        "cannot write b.conllu: it is the same file as the input b.conllu, which would be replaced",
    );
    assert_eq!(fs::read_to_string(dir.join("b.conllu")).unwrap(), gold);
    let o = tabula_in(&dir, &["ensemble", "a.conllu"]);
    assert_eq!(o.status.code(), Some(2), "one file is not an ensemble");
}

/// The score of the tree `heads` under arc scores `score[h * (n + 1) + d]`.
fn total(n: usize, score: &[i64], heads: &[usize]) -> i64 {
    heads.iter().enumerate().map(|(i, &h)| score[h * (n + 1) + i + 1]).sum()
}

/// The reparser's arborescence, on random scores (small ranges, so ties are
/// frequent) for 1–6 words: a tree that scores as much as the best of all
/// trees; with one root child, as much as the best such tree.
#[test]
fn chu_liu_edmonds_equals_the_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for n in 1..=6 {
        let trees: Vec<Vec<usize>> = all_trees(n).iter().map(|t| t.heads().to_vec()).collect();
        for _ in 0..if n <= 4 { 300 } else { 60 } {
            let range = if rng.gen_bool(0.5) { 3 } else { 1000 };
            let score: Vec<i64> = (0..(n + 1) * (n + 1)).map(|_| rng.gen_range(-range..=range)).collect();
            let got = max_arborescence(n, &score);
            assert!(DepTree::from_heads(&got).is_ok(), "{got:?}");
            let want = trees.iter().map(|t| total(n, &score, t)).max().unwrap();
            assert_eq!(total(n, &score, &got), want, "n {n}: {score:?}");
            let single = max_single_root_tree(n, &score);
            assert!(DepTree::from_heads(&single).is_ok());
            assert_eq!(single.iter().filter(|&&h| h == 0).count(), 1, "{single:?}");
            let want = trees
                .iter()
                .filter(|t| t.iter().filter(|&&h| h == 0).count() == 1)
                .map(|t| total(n, &score, t))
                .max()
                .unwrap();
            assert_eq!(total(n, &score, &single), want, "single root, n {n}: {score:?}");
        }
    }
}

/// Regression: a file with CR-only line ends was one comment line to
/// `ensemble`, `eval` and `deprojectivize` ("0 sentences", exit 0); every
/// command now refuses it at its line, as `projectivize` did.
#[test]
fn carriage_return_line_ends_are_refused_by_every_reader() {
    let dir = scratch_in("cli_ensemble", "carriage_return");
    let gold = toy_treebank(3, 4);
    fs::write(dir.join("a.conllu"), &gold).unwrap();
    fs::write(dir.join("cr.conllu"), gold.replace('\n', "\r")).unwrap();
    let message = "cr.conllu:1: carriage return inside a line: CoNLL-U lines end with LF or CR LF, not CR alone";
    for args in [
        &["ensemble", "cr.conllu", "a.conllu"][..],
        &["eval", "a.conllu", "cr.conllu"],
        &["deprojectivize", "cr.conllu"],
        &["projectivize", "cr.conllu"],
    ] {
        let o = tabula_in(&dir, args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr_of(&o));
        assert!(stderr_of(&o).contains(message), "{args:?}: {}", stderr_of(&o));
    }
}
