//! `tabula ensemble` (issue 21, item 4): weighted votes reparsed into the
//! best tree; the majority wins, weights decide, labels follow the vote,
//! and misaligned or meaningless inputs are refused.

mod common;

use common::{fails_in, scratch_in, stderr_of, tabula_in, toy_treebank};
use std::fs;

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
        "--weights: -2 is not a weight (a positive number up to 1000000)",
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
