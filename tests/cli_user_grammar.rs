//! A grammar file of the user's, end to end through the command line:
//! `count` and `projectivize` with a class of trees no shipped file
//! describes, checked against the trees of that class enumerated directly.

mod common;

use common::{all_trees, is_projective, scratch_in, stderr_of, tabula_in};
use std::fmt::Write as _;
use tabula::tree::DepTree;

/// No left children; every word no child or exactly two right children; the
/// root one child. Sentences of an even number of words have no such tree.
const TWO_RIGHT: &str = "\
start TOP
(RL, Q0) -> root
(L0, R0) -> a
TOP -> (RL, Q1)
(_, Q1) -> (_, Q0) S
(_, Ra) -> (_, R0) S
(_, Rb) -> (_, Ra) S
S -> (L0, R0)
S -> (L0, Rb)
";

/// One child of the root; every word at most one left child.
const ONE_LEFT: &str = include_str!("data/one-left.grammar");

/// The class of TWO_RIGHT, checked directly on the heads.
fn two_right(t: &DepTree) -> bool {
    let n = t.len();
    let heads: Vec<usize> = (1..=n).map(|d| t.head(d)).collect();
    let children = |h: usize| heads.iter().filter(|&&x| x == h).count();
    is_projective(t)
        && heads.iter().enumerate().all(|(i, &h)| h < i + 1)
        && children(0) == 1
        && (1..=n).all(|h| matches!(children(h), 0 | 2))
}

/// CoNLL-U of the given head vectors, one sentence each.
fn conllu(trees: &[Vec<usize>]) -> String {
    let mut s = String::new();
    for (k, heads) in trees.iter().enumerate() {
        writeln!(s, "# sent_id = t{k}").unwrap();
        for (i, h) in heads.iter().enumerate() {
            let rel = if *h == 0 { "root" } else { "dep" };
            writeln!(s, "{}\tw\tw\tX\t_\t_\t{h}\t{rel}\t_\t_", i + 1).unwrap();
        }
        s.push('\n');
    }
    s
}

#[test]
fn count_with_a_users_grammar_matches_its_trees_and_marks_sentences_it_cannot_derive() {
    let dir = scratch_in("cli_user_grammar", "count");
    std::fs::write(dir.join("g.grammar"), TWO_RIGHT).unwrap();
    // Every 3-word tree and a sample of 4- and 5-word ones, projective or not.
    let mut gold: Vec<Vec<usize>> = Vec::new();
    for n in 3..=5 {
        let every = all_trees(n);
        let step = if n == 3 { 1 } else { every.len() / 23 + 1 };
        gold.extend(every.iter().step_by(step).map(|t| (1..=n).map(|d| t.head(d)).collect()));
    }
    std::fs::write(dir.join("gold.conllu"), conllu(&gold)).unwrap();
    let o = tabula_in(&dir, &["count", "gold.conllu", "--grammar", "g.grammar"]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let out = String::from_utf8(o.stdout.clone()).unwrap();
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), gold.len(), "one row per sentence");
    let mut underivable = 0;
    for (row, heads) in rows.iter().zip(&gold) {
        let n = heads.len();
        let fields: Vec<&str> = row.split('\t').collect();
        let class: Vec<DepTree> = all_trees(n).into_iter().filter(two_right).collect();
        let kept = |t: &DepTree| heads.iter().enumerate().filter(|&(i, &h)| t.head(i + 1) == h).count();
        if class.is_empty() {
            underivable += 1;
            assert_eq!(&fields[4..], ["-", "-"], "{row}");
            continue;
        }
        let best = class.iter().map(kept).max().unwrap();
        let count = class.iter().filter(|t| kept(t) == best).count();
        assert_eq!(&fields[4..], [best.to_string(), count.to_string()], "{row}: gold {heads:?}");
    }
    assert!(underivable > 0, "the 4-word sentences have no tree of the class");
    let err = stderr_of(&o);
    assert!(err.starts_with(&format!("warning: {underivable} sentence(s) the grammar derives no tree for")), "{err}");
    assert_eq!(err.matches("gold.conllu:").count(), underivable, "{err}");
}

#[test]
fn count_keep_going_gives_a_bad_sentence_a_row_and_lists_it() {
    let dir = scratch_in("cli_user_grammar", "keep_going");
    let good = conllu(&[vec![0, 1]]);
    let bad = "1\tw\tw\tX\t_\t_\t7\troot\t_\t_\n\n";
    std::fs::write(dir.join("in.conllu"), format!("{good}{bad}{good}")).unwrap();
    let o = tabula_in(&dir, &["count", "in.conllu"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr_of(&o).contains("in.conllu:5:"), "{}", stderr_of(&o));
    let o = tabula_in(&dir, &["count", "in.conllu", "--keep-going"]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let out = String::from_utf8(o.stdout.clone()).unwrap();
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows, ["1\tt0\t2\t0\t2\t1", "2\t\t-\t-\t-\t-", "3\tt0\t2\t0\t2\t1"]);
    let err = stderr_of(&o);
    assert!(
        err.contains("1 bad sentence(s) given a row of `-` (--keep-going)") && err.contains("in.conllu:5:"),
        "{err}"
    );
}

#[test]
fn projectivize_stats_count_the_function_word_arcs_of_the_output() {
    let dir = scratch_in("cli_user_grammar", "leaf");
    // No left children and one root child: "will" (aux) must take "go".
    std::fs::write(
        dir.join("g.grammar"),
        "start TOP\n(RL, Q0) -> root\n(L0, R) -> a\nTOP -> (RL, Q1)\n(_, Q1) -> (_, Q0) S\nS -> (L0, R)\n(_, R) -> (_, R) S\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("in.conllu"),
        "1\twill\twill\tAUX\t_\t_\t2\taux\t_\t_\n2\tgo\tgo\tVERB\t_\t_\t0\troot\t_\t_\n\n",
    )
    .unwrap();
    let o = tabula_in(&dir, &["projectivize", "in.conllu", "--grammar", "g.grammar", "--stats", "-o", "out.conllu"]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let out = std::fs::read_to_string(dir.join("out.conllu")).unwrap();
    assert!(out.contains("2\tgo\tgo\tVERB\t_\t_\t1\troot"), "{out}");
    assert!(stderr_of(&o).contains("(UD, leaf-*): input 0, output 1\n"), "{}", stderr_of(&o));
    // With no left child at all, "von dem Haus" becomes a chain: "dem"
    // (det) under "von" (case) and "Haus" under "dem" (det), both refused.
    let von_dem_haus = "1\tvon\tvon\tADP\t_\t_\t3\tcase\t_\t_\n2\tdem\tder\tDET\t_\t_\t3\tdet\t_\t_\n\
         3\tHaus\tHaus\tNOUN\t_\t_\t0\troot\t_\t_\n\n";
    std::fs::write(dir.join("in.conllu"), von_dem_haus).unwrap();
    let o = tabula_in(&dir, &["projectivize", "in.conllu", "--grammar", "g.grammar", "--stats", "-o", "out.conllu"]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let out = std::fs::read_to_string(dir.join("out.conllu")).unwrap();
    assert!(out.contains("2\tdem\tder\tDET\t_\t_\t1\tdet") && out.contains("3\tHaus\tHaus\tNOUN\t_\t_\t2"), "{out}");
    assert!(stderr_of(&o).contains("(UD, leaf-*): input 0, output 2\n"), "{}", stderr_of(&o));
    // At most one left child: "Haus" keeps "dem", and "von" goes under
    // "dem" rather than "dem" under "von": a determiner may take a case
    // marker (UD), so none is refused.
    std::fs::write(dir.join("one-left.grammar"), ONE_LEFT).unwrap();
    let o =
        tabula_in(&dir, &["projectivize", "in.conllu", "--grammar", "one-left.grammar", "--stats", "-o", "out.conllu"]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let out = std::fs::read_to_string(dir.join("out.conllu")).unwrap();
    assert!(out.contains("1\tvon\tvon\tADP\t_\t_\t2\tcase") && out.contains("2\tdem\tder\tDET\t_\t_\t3\tdet"), "{out}");
    assert!(stderr_of(&o).contains("(UD, leaf-*): input 0, output 0\n"), "{}", stderr_of(&o));
}
