//! The `projectivize` and `count` commands end to end.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tabula::conllu::{Reader, Sentence};
use tabula::grammar::text;
use tabula::projectivize::{Counter, TreeClass};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/conllu");

fn tabula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabula")).args(args).output().unwrap()
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_projectivize").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn data(name: &str) -> String {
    format!("{DATA}/{name}")
}

fn sentences(path: &Path) -> Vec<Sentence> {
    Reader::new(fs::read(path).unwrap().as_slice(), "out").map(Result::unwrap).collect()
}

/// Random trees (projective or not), deterministic, as CoNLL-U.
fn random_treebank(path: &Path, count: usize, seed: u64) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut text = String::new();
    for s in 0..count {
        let n = rng.gen_range(1..=14);
        let tree = common::random_tree(n, 0.0, &mut rng);
        text.push_str(&format!("# sent_id = r{s}\n"));
        for (d, h) in tree.heads().iter().enumerate().map(|(i, h)| (i + 1, h)) {
            text.push_str(&format!("{d}\tw{d}\t_\t_\t_\t_\t{h}\tdep{d}\t_\t_\n"));
        }
        text.push('\n');
    }
    fs::write(path, text).unwrap();
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn projective_file_comes_back_byte_for_byte() {
    let dir = scratch("projective");
    for method in ["optimal", "lift"] {
        let out = dir.join(format!("{method}.conllu"));
        let o = tabula(&["projectivize", &data("projective.conllu"), "-o", out.to_str().unwrap(), "--method", method]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(fs::read(&out).unwrap(), fs::read(data("projective.conllu")).unwrap());
    }
    let o = tabula(&["projectivize", &data("crlf-no-final-blank.conllu")]);
    assert_eq!(o.stdout, fs::read(data("crlf-no-final-blank.conllu")).unwrap());
}

#[test]
fn output_trees_are_projective_optimal_and_keep_everything_else() {
    let dir = scratch("optimal");
    let input = dir.join("in.conllu");
    random_treebank(&input, 300, 1);
    let g = text::parse_str("p", tabula::grammars::PROJECTIVE).unwrap().grammar;
    let mut counter = Counter::new(&g, TreeClass::Projective).unwrap();
    let gold = sentences(&input);
    let mut scores = Vec::new();
    for method in ["optimal", "lift"] {
        let out = dir.join(format!("{method}.conllu"));
        let o = tabula(&["projectivize", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--method", method]);
        assert!(o.status.success(), "{}", stderr(&o));
        let got = sentences(&out);
        assert_eq!(got.len(), gold.len());
        let mut total = 0;
        for (g, s) in gold.iter().zip(&got) {
            assert!(s.tree().is_projective());
            let kept = s.tree().common_arcs(g.tree());
            let best = counter.count(g.tree()).unwrap().best;
            if method == "optimal" {
                assert_eq!(kept, best);
            } else {
                assert!(kept <= best);
            }
            total += kept;
            // Everything but HEAD is unchanged.
            let strip = |s: &Sentence| -> Vec<String> {
                String::from_utf8_lossy(&s.raw().text)
                    .lines()
                    .map(|l| {
                        let mut f: Vec<&str> = l.split('\t').collect();
                        if f.len() == 10 {
                            f.remove(6);
                        }
                        f.join("\t")
                    })
                    .collect()
            };
            assert_eq!(strip(g), strip(s));
        }
        scores.push(total);
    }
    assert!(scores[0] >= scores[1]);
}

#[test]
fn stats_report_the_attachment_score() {
    let o = tabula(&["projectivize", &data("nonprojective.conllu"), "--stats"]);
    assert!(o.status.success());
    let e = stderr(&o);
    for line in [
        "trees: 3",
        "non-projective trees: 2",
        "tokens: 10",
        "tokens whose head was kept: 7",
        "attachment score: 70.0000 %",
    ] {
        assert!(e.contains(line), "missing {line:?} in\n{e}");
    }
    assert!(e.contains("time: "));
}

#[test]
fn threads_do_not_change_the_output() {
    let dir = scratch("threads");
    let input = dir.join("in.conllu");
    random_treebank(&input, 2500, 2);
    for extra in [&[][..], &["--sample", "7"][..], &["--method", "lift"][..]] {
        let mut outs = Vec::new();
        for threads in ["1", "2", "3"] {
            let out = dir.join(format!("out{threads}.conllu"));
            let mut args =
                vec!["projectivize", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--threads", threads];
            args.extend_from_slice(extra);
            let o = tabula(&args);
            assert!(o.status.success(), "{}", stderr(&o));
            outs.push(fs::read(&out).unwrap());
        }
        assert_eq!(outs[0], outs[1], "{extra:?}");
        assert_eq!(outs[0], outs[2], "{extra:?}");
    }
}

#[test]
fn sampling_is_reproducible_and_optimal() {
    let dir = scratch("sample");
    let input = dir.join("in.conllu");
    random_treebank(&input, 200, 3);
    let run = |seed: &str| {
        let o = tabula(&["projectivize", input.to_str().unwrap(), "--sample", seed]);
        assert!(o.status.success(), "{}", stderr(&o));
        o.stdout
    };
    let (a, b, c) = (run("1"), run("1"), run("2"));
    assert_eq!(a, b);
    assert_ne!(a, c, "200 random trees should give some choice");
    let g = text::parse_str("p", tabula::grammars::PROJECTIVE).unwrap().grammar;
    let mut counter = Counter::new(&g, TreeClass::Projective).unwrap();
    let gold = sentences(&input);
    for out in [a, c] {
        let got: Vec<Sentence> = Reader::new(out.as_slice(), "out").map(Result::unwrap).collect();
        for (g, s) in gold.iter().zip(&got) {
            assert!(s.tree().is_projective());
            assert_eq!(s.tree().common_arcs(g.tree()), counter.count(g.tree()).unwrap().best);
        }
    }
}

#[test]
fn single_root_gives_the_root_one_child() {
    let dir = scratch("single_root");
    let input = dir.join("in.conllu");
    random_treebank(&input, 200, 4);
    let o = tabula(&["projectivize", input.to_str().unwrap(), "--single-root"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let got: Vec<Sentence> = Reader::new(o.stdout.as_slice(), "out").map(Result::unwrap).collect();
    assert_eq!(got.len(), 200);
    for s in &got {
        assert!(s.tree().is_projective());
        assert_eq!(s.tree().heads().iter().filter(|&&h| h == 0).count(), 1);
    }
}

const BAD: &str = "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n1\tb\t_\t_\t_\t_\t0\troot\n\n1\tc\t_\t_\t_\t_\t0\troot\t_\t_\n2\td\t_\t_\t_\t_\t0\tdep\t_\t_\n3\te\t_\t_\t_\t_\t1\tdep\t_\t_\n\n";

#[test]
fn a_failure_leaves_the_output_untouched() {
    let dir = scratch("atomic");
    let input = dir.join("bad.conllu");
    fs::write(&input, BAD).unwrap();
    let out = dir.join("out.conllu");
    fs::write(&out, "OLD").unwrap();
    let o = tabula(&["projectivize", input.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(!o.status.success());
    assert_eq!(stderr(&o), format!("error: {}:3: expected 10 tab-separated columns, found 8\n", input.display()));
    assert_eq!(fs::read_to_string(&out).unwrap(), "OLD");
    let new = dir.join("new.conllu");
    let o = tabula(&["projectivize", input.to_str().unwrap(), "-o", new.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(!new.exists());
    // No temporary file is left behind.
    let names: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn keep_going_copies_bad_sentences_and_lists_them() {
    let dir = scratch("keep_going");
    let input = dir.join("bad.conllu");
    fs::write(&input, BAD).unwrap();
    let out = dir.join("out.conllu");
    let o = tabula(&[
        "projectivize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--keep-going",
        "--prefer",
        "none",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The third sentence (1 -> 3 crosses 0 -> 2) keeps 0 -> 1 and 1 -> 3 and,
    // by the deterministic tie-break (no preference), hangs word 2 from word 3.
    let want = BAD.replace("2\td\t_\t_\t_\t_\t0\t", "2\td\t_\t_\t_\t_\t3\t");
    assert_eq!(fs::read_to_string(&out).unwrap(), want);
    let e = stderr(&o);
    assert!(e.contains("1 bad sentence(s) copied unchanged"), "{e}");
    assert!(e.contains(&format!("{}:3: expected 10 tab-separated columns, found 8", input.display())), "{e}");
}

#[test]
fn lift_rejects_grammar_options_and_bad_grammars_are_reported() {
    let o = tabula(&["projectivize", &data("projective.conllu"), "--method", "lift", "--single-root"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("apply to --method optimal only"));
    let dir = scratch("grammar");
    let g = dir.join("b.grammar");
    fs::write(&g, "(S, S) -> b\nS -> (S, S)\n(_, S) -> (_, S) S\n(S, _) -> S (S, _)\n").unwrap();
    let o = tabula(&["projectivize", &data("projective.conllu"), "--grammar", g.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("the grammar has no terminal `a`"), "{}", stderr(&o));
}

#[test]
fn count_writes_the_tsv_and_the_plot() {
    let dir = scratch("count");
    let tsv = dir.join("c.tsv");
    let svg = dir.join("c.svg");
    let o = tabula(&[
        "count",
        &data("nonprojective.conllu"),
        &data("projective.conllu"),
        "--tsv",
        tsv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = "index\tsent_id\tlength\tnonprojective\tbest\tcount\n\
                1\tn1\t3\t1\t2\t4\n\
                2\tn2\t5\t1\t3\t16\n\
                3\tp1\t2\t0\t2\t1\n\
                4\ta1\t4\t0\t4\t1\n\
                5\ta2\t3\t0\t3\t1\n";
    assert_eq!(fs::read_to_string(&tsv).unwrap(), want);
    assert!(fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    let o = tabula(&["count", &data("nonprojective.conllu"), "--single-root"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("1\tn1\t3\t1\t2\t"));
}
