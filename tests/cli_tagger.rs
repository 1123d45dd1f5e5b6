//! `tabula train-tagger`, `tabula tag`, `tabula parse --tagger` and
//! `tabula train --tagger --jackknife K` on the toy treebank (issue 21,
//! item 3), and their refusals: a file without UPOS is an error for the
//! parser without a tagger, meaningless option combinations are errors,
//! and no command writes over its input.

mod common;

use common::{fails_in, scratch_in, stderr_of, tabula_in, toy_treebank};
use std::fs;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    scratch_in("cli_tagger", name)
}

/// `text` with every UPOS and FEATS blanked (`_`).
fn untagged(text: &str) -> String {
    text.lines()
        .map(|l| {
            let mut c: Vec<&str> = l.split('\t').collect();
            if c.len() == 10 {
                c[3] = "_";
                c[5] = "_";
            }
            c.join("\t") + "\n"
        })
        .collect()
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let o = tabula_in(dir, args);
    assert!(o.status.success(), "{args:?}: {}", stderr_of(&o));
    stderr_of(&o)
}

/// A directory with `train.conllu`, `test.conllu` (gold), `raw.conllu`
/// (test without UPOS and FEATS) and a tagger `t.tagger` trained with FEATS.
fn setup(name: &str) -> PathBuf {
    let dir = scratch(name);
    fs::write(dir.join("train.conllu"), toy_treebank(200, 11)).unwrap();
    let test = toy_treebank(40, 12);
    fs::write(dir.join("test.conllu"), &test).unwrap();
    fs::write(dir.join("raw.conllu"), untagged(&test)).unwrap();
    let err = ok(
        &dir,
        &[
            "train-tagger",
            "train.conllu",
            "-o",
            "t.tagger",
            "--dev",
            "test.conllu",
            "--feats",
            "--epochs",
            "5",
            "--bits",
            "12",
        ],
    );
    assert!(err.contains("train.conllu: 200 sentences, "), "{err}");
    assert!(err.contains("epoch 5: "), "{err}");
    assert!(err.contains("wrote t.tagger (epoch "), "{err}");
    dir
}

#[test]
fn tag_restores_the_gold_tags_and_reports_accuracy() {
    let dir = setup("tag");
    for threads in ["1", "2"] {
        let err = ok(
            &dir,
            &["tag", "--tagger", "t.tagger", "raw.conllu", "-o", "tagged.conllu", "--threads", threads, "--stats"],
        );
        assert!(err.contains("40 sentences, 240 tokens") || err.contains("40 sentences, "), "{err}");
        assert_eq!(
            fs::read_to_string(dir.join("tagged.conllu")).unwrap(),
            fs::read_to_string(dir.join("test.conllu")).unwrap()
        );
    }
    let err =
        ok(&dir, &["tag", "--tagger", "t.tagger", "test.conllu", "--eval", "-o", "/dev/null", "--decode", "viterbi"]);
    assert!(err.contains("UPOS 100.00% FEATS 100.00%"), "{err}");
}

#[test]
fn parse_with_a_tagger_reads_files_without_upos() {
    let dir = setup("parse");
    ok(&dir, &["train", "train.conllu", "-o", "p.model", "--epochs", "3", "--step-bits", "10", "--label-bits", "8"]);
    // Without a tagger: an error naming the file and line, nothing written.
    fails_in(
        &dir,
        &["parse", "--model", "p.model", "raw.conllu", "-o", "out.conllu"],
        "raw.conllu:2: no word of this sentence has a UPOS (the column is `_`): the model reads UPOS; \
         tag first (`tabula parse --tagger TAGGER`, or `tabula tag`)",
    );
    assert!(!dir.join("out.conllu").exists());
    // With one: the same trees as from the gold tags, and the tags written.
    ok(&dir, &["parse", "--model", "p.model", "--tagger", "t.tagger", "raw.conllu", "-o", "a.conllu"]);
    ok(&dir, &["parse", "--model", "p.model", "test.conllu", "-o", "b.conllu"]);
    assert_eq!(fs::read_to_string(dir.join("a.conllu")).unwrap(), fs::read_to_string(dir.join("b.conllu")).unwrap());
}

#[test]
fn train_on_jackknifed_tags() {
    let dir = setup("jackknife");
    let err = ok(
        &dir,
        &[
            "train",
            "train.conllu",
            "-o",
            "j.model",
            "--dev",
            "raw.conllu",
            "--tagger",
            "t.tagger",
            "--jackknife",
            "4",
            "--epochs",
            "2",
            "--step-bits",
            "10",
            "--label-bits",
            "8",
        ],
    );
    assert!(err.contains("4-fold tagging with taggers trained like t.tagger"), "{err}");
    assert!(err.contains("fold 4/4: tagger trained"), "{err}");
    assert!(err.contains("dev UAS 100.00"), "{err}");
    fails_in(
        &dir,
        &["train", "train.conllu", "-o", "k.model", "--jackknife", "4"],
        "--jackknife K tags the training file with taggers trained like --tagger TAGGER: give --tagger",
    );
    assert!(!dir.join("k.model").exists());
}

#[test]
fn bad_taggers_and_options_are_refused() {
    let dir = setup("refused");
    fs::write(dir.join("junk.tagger"), "hello\n").unwrap();
    fails_in(
        &dir,
        &["tag", "--tagger", "junk.tagger", "raw.conllu"],
        "junk.tagger: not a tabula tagger: its first line is not TABULA-TAGGER-MODEL",
    );
    let mut bytes = fs::read(dir.join("t.tagger")).unwrap();
    bytes.truncate(bytes.len() - 10);
    fs::write(dir.join("short.tagger"), &bytes).unwrap();
    fails_in(&dir, &["tag", "--tagger", "short.tagger", "raw.conllu"], "short.tagger: the tagger file is truncated");
    fails_in(
        &dir,
        &["train-tagger", "train.conllu", "-o", "x.tagger", "--dictionary-min-share", "0.4"],
        "--dictionary-min-share 0.4: a share above 0.5 (a dictionary word has one tag most of the time), or above 1 for no dictionary",
    );
    // Options that would do nothing in the mode given.
    fails_in(
        &dir,
        &[
            "train-tagger",
            "train.conllu",
            "-o",
            "x.tagger",
            "--dictionary-min-share",
            "1.5",
            "--dictionary-min-count",
            "3",
        ],
        "--dictionary-min-count 3: --dictionary-min-share 1.5 turns the dictionary off, so no count applies",
    );
    fails_in(
        &dir,
        &["train-tagger", "train.conllu", "-o", "x.tagger", "--threads", "2"],
        "--threads 2: the threads score the dev file (--dev DEV), and none is given",
    );
    // Options that would do nothing in the mode given: train's.
    for (args, message) in [
        (
            &["--beam", "2", "--update", "full", "--restart"][..],
            "--restart: --update full updates on the whole computations, so there is nothing to restart from; restart applies to early and max-violation updates",
        ),
        (&["--epochs", "1", "--explore-p", "0.5"][..], "--explore-p: no epoch explores: exploration starts after epoch 1 and --epochs 1 stops before"),
        (&["--epochs", "3", "--explore-from", "3"][..], "--explore-from: no epoch explores: exploration starts after epoch 3 and --epochs 3 stops before"),
    ] {
        fails_in(&dir, &[&["train", "train.conllu", "-o", "x.model"][..], args].concat(), message);
    }
    assert!(!dir.join("x.tagger").exists() && !dir.join("x.model").exists());
    let o = tabula_in(&dir, &["train-tagger", "raw.conllu", "-o", "x.tagger"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr_of(&o).ends_with("\nerror: raw.conllu:2: UPOS is `_`: a tagger trains on words with gold UPOS\n"));
    assert!(!dir.join("x.tagger").exists());
    fails_in(
        &dir,
        &["train-tagger", "-", "--dev", "-", "-o", "x.tagger"],
        "only one of TRAIN and --dev can be standard input",
    );
    // Outputs that are inputs.
    let same = |p: &str| format!("cannot write {p}: it is the same file as the input {p}, which would be replaced");
    fails_in(&dir, &["tag", "--tagger", "t.tagger", "raw.conllu", "-o", "raw.conllu"], &same("raw.conllu"));
    fails_in(&dir, &["tag", "--tagger", "t.tagger", "raw.conllu", "-o", "t.tagger"], &same("t.tagger"));
    fails_in(&dir, &["train-tagger", "train.conllu", "-o", "train.conllu"], &same("train.conllu"));
    fails_in(
        &dir,
        &["train-tagger", "train.conllu", "--dev", "test.conllu", "-o", "test.conllu"],
        &same("test.conllu"),
    );
    fails_in(
        &dir,
        &["parse", "--model", "t.tagger", "--tagger", "t.tagger", "raw.conllu", "-o", "t.tagger"],
        &same("t.tagger"),
    );
    fails_in(&dir, &["train", "train.conllu", "--tagger", "t.tagger", "-o", "t.tagger"], &same("t.tagger"));
    assert_eq!(fs::read_to_string(dir.join("raw.conllu")).unwrap(), untagged(&toy_treebank(40, 12)));
}

#[test]
fn a_second_pass_tags_as_well_and_its_file_says_so() {
    let dir = setup("passes");
    let err = ok(
        &dir,
        &[
            "train-tagger",
            "train.conllu",
            "-o",
            "two.tagger",
            "--dev",
            "test.conllu",
            "--passes",
            "2",
            "--epochs",
            "4",
            "--bits",
            "12",
        ],
    );
    assert!(err.contains("second pass, epoch 4: "), "{err}");
    assert!(err.contains(", second pass epoch "), "{err}");
    let header = fs::read(dir.join("two.tagger")).unwrap();
    let header = String::from_utf8_lossy(&header[..200]);
    assert!(header.contains("\nversion 4\n") && header.contains("\npasses 2 "), "{header}");
    ok(&dir, &["tag", "--tagger", "two.tagger", "raw.conllu", "-o", "tagged.conllu"]);
    let want: String = fs::read_to_string(dir.join("test.conllu"))
        .unwrap()
        .lines()
        .map(|l| {
            // The two-pass tagger was trained without FEATS: they stay blank.
            let mut c: Vec<&str> = l.split('\t').collect();
            if c.len() == 10 {
                c[5] = "_";
            }
            c.join("\t") + "\n"
        })
        .collect();
    assert_eq!(fs::read_to_string(dir.join("tagged.conllu")).unwrap(), want);
    let o = tabula_in(&dir, &["train-tagger", "train.conllu", "-o", "x.tagger", "--passes", "3"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    assert!(!dir.join("x.tagger").exists());
}

/// `--direction both` (with `--ensemble`): its file says so, it tags the
/// toy treebank, and Viterbi decoding is refused for it in training and in
/// tagging.
#[test]
fn both_directions_from_the_command_line() {
    let dir = setup("both");
    let train = [
        "train-tagger",
        "train.conllu",
        "-o",
        "both.tagger",
        "--dev",
        "test.conllu",
        "--direction",
        "both",
        "--ensemble",
        "2",
        "--epochs",
        "3",
        "--bits",
        "12",
    ];
    let err = ok(&dir, &train);
    assert!(err.contains("right to left, epoch 3: "), "{err}");
    assert!(err.contains(", right-to-left epoch "), "{err}");
    let header = fs::read(dir.join("both.tagger")).unwrap();
    let header = String::from_utf8_lossy(&header[..200]);
    assert!(header.contains("\ndirection both ") && header.contains("\nensemble 2\n"), "{header}");
    let err = ok(&dir, &["tag", "--tagger", "both.tagger", "test.conllu", "-o", "tagged.conllu", "--eval"]);
    assert!(err.contains("UPOS 100.00%"), "{err}");
    let o = tabula_in(&dir, &["tag", "--tagger", "both.tagger", "raw.conllu", "--decode", "viterbi", "-o", "v.conllu"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("decodes greedily"), "{}", stderr_of(&o));
    assert!(!dir.join("v.conllu").exists());
    let mut viterbi = train.to_vec();
    viterbi.extend(["--decode", "viterbi"]);
    viterbi[3] = "v.tagger";
    let o = tabula_in(&dir, &viterbi);
    assert_eq!(o.status.code(), Some(1), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("--direction both: both directions sum"), "{}", stderr_of(&o));
    assert!(!dir.join("v.tagger").exists());
}
