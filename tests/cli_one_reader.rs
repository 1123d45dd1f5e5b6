//! One strict CoNLL-U reader: each bad input below gets the same error,
//! with the same `file:line`, from every command that reads CoNLL-U, and
//! the parsers write DEPREL `root` exactly under the root.
//!
//! Regressions: bad multiword ranges (`3-1`, overlapping ones), the empty
//! node `0.1` and comment-only blocks were accepted by `tag`, `parse`,
//! `train`, `train-tagger`, `ensemble`, `eval` (and some by all commands);
//! a truncated `.xz` said "failed to fill whole buffer"; a model file read as
//! CoNLL-U said "carriage return inside a line"; a line without end was read
//! whole into memory; parsers wrote `root` under words.

mod common;

use common::{gz, scratch_in, stderr_of, tabula_in, toy_treebank, xz};
use std::path::Path;

const WORD: &str = "\t_\t_\tNOUN\t_\t_\t0\troot\t_\t_";

/// Every command that reads CoNLL-U, with what it needs besides the file.
fn commands() -> Vec<Vec<&'static str>> {
    vec![
        vec!["projectivize"],
        vec!["deprojectivize"],
        vec!["count"],
        vec!["oracle", "--walk"],
        vec!["draw", "--text"],
        vec!["train", "-o", "out.model", "--epochs", "1"],
        vec!["train-tagger", "-o", "out.tagger", "--epochs", "1"],
        vec!["parse", "--model", "m.model"],
        vec!["tag", "--tagger", "t.tagger"],
        vec!["eval", "ok.conllu"],
        vec!["ensemble", "ok.conllu"],
    ]
}

/// A folder with a model, a tagger, a good file and the bad ones: (file, message).
fn setup(dir: &Path) -> Vec<(&'static str, String)> {
    std::fs::write(dir.join("train.conllu"), toy_treebank(30, 1)).unwrap();
    for args in [
        ["train", "train.conllu", "-o", "m.model", "--epochs", "1"],
        ["train-tagger", "train.conllu", "-o", "t.tagger", "--epochs", "1"],
    ] {
        let o = tabula_in(dir, &args);
        assert!(o.status.success(), "{args:?}: {}", stderr_of(&o));
    }
    let ok = format!("1{WORD}\n\n");
    std::fs::write(dir.join("ok.conllu"), &ok).unwrap();
    let files: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "reversed.conllu",
            format!("3-1\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1{WORD}\n\n").into_bytes(),
            "reversed.conllu:1: multiword range `3-1` must be a-b with a < b starting at the next word 1",
        ),
        (
            "single.conllu",
            format!("2-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1{WORD}\n\n").into_bytes(),
            "single.conllu:1: multiword range `2-2` must be a-b with a < b starting at the next word 1",
        ),
        (
            "overlap.conllu",
            format!("1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1{WORD}\n2\tb\t_\tNOUN\t_\t_\t1\tdep\t_\t_\n\n").into_bytes(),
            "overlap.conllu:2: multiword range `1-2` overlaps the range `1-2` on line 1",
        ),
        (
            "dangling.conllu",
            format!("1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1{WORD}\n\n").into_bytes(),
            "dangling.conllu:1: multiword range `1-2` ends after the last word 1",
        ),
        (
            "empty0.conllu",
            format!("1{WORD}\n0.1\te\t_\t_\t_\t_\t_\t_\t_\t_\n\n").into_bytes(),
            "empty0.conllu:2: empty node `0.1`: an empty node k.m comes after word k, so k must be 1 or more",
        ),
        (
            "misplaced.conllu",
            format!("1.1\te\t_\t_\t_\t_\t_\t_\t_\t_\n1{WORD}\n\n").into_bytes(),
            "misplaced.conllu:1: empty node `1.1` must come right after word 1, but it follows word 0",
        ),
        (
            "comments.conllu",
            format!("# only a comment\n\n1{WORD}\n\n").into_bytes(),
            "comments.conllu:1: the sentence has no words (only comment lines)",
        ),
        (
            "cr.conllu",
            format!("# a\r1{WORD}\r\r").into_bytes(),
            "cr.conllu:1: carriage return inside a line: CoNLL-U lines end with LF or CR LF, not CR alone",
        ),
        ("trunc.xz", { let x = xz(ok.as_bytes()); x[..x.len() - 10].to_vec() }, "trunc.xz: the xz stream is truncated"),
        ("trunc.gz", gz(ok.as_bytes())[..20].to_vec(), "trunc.gz: the gzip stream is truncated"),
        (
            "long.conllu",
            vec![b'x'; tabula::conllu::MAX_LINE_BYTES + 10],
            "long.conllu:1: a line longer than 64.0 MiB without a line end: this is not CoNLL-U",
        ),
    ];
    let mut out = Vec::new();
    for (name, bytes, message) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
        out.push((name, message.to_owned()));
    }
    let model = "m.model:1: this is a tabula parser model (written by tabula train), not CoNLL-U";
    out.push(("m.model", model.to_owned()));
    let tagger = "t.tagger:1: this is a tabula tagger (written by tabula train-tagger), not CoNLL-U";
    out.push(("t.tagger", tagger.to_owned()));
    out
}

#[test]
fn every_command_gives_the_same_error_for_each_bad_input() {
    let dir = scratch_in("cli_one_reader", "bad");
    for (file, message) in setup(&dir) {
        for command in commands() {
            let mut args = command.clone();
            args.push(file);
            let o = tabula_in(&dir, &args);
            let err = stderr_of(&o);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains(&message), "{args:?}: expected `{message}`, got {err}");
            assert!(err.contains(&format!("{file}:")), "{args:?}: {err}");
        }
    }
}

#[test]
fn a_model_left_weak_writes_root_exactly_under_the_root() {
    let dir = scratch_in("cli_one_reader", "root");
    std::fs::write(dir.join("train.conllu"), toy_treebank(5, 2)).unwrap();
    std::fs::write(dir.join("test.conllu"), toy_treebank(300, 3)).unwrap();
    for extra in [&[][..], &["--beam", "4"][..]] {
        let mut args = vec!["train", "train.conllu", "-o", "weak.model", "--epochs", "1"];
        args.extend_from_slice(extra);
        let o = tabula_in(&dir, &args);
        assert!(o.status.success(), "{}", stderr_of(&o));
        let o = tabula_in(&dir, &["parse", "--model", "weak.model", "test.conllu", "-o", "out.conllu"]);
        assert!(o.status.success(), "{}", stderr_of(&o));
        let o = tabula_in(&dir, &["ensemble", "out.conllu", "test.conllu", "out.conllu", "-o", "ens.conllu"]);
        assert!(o.status.success(), "{}", stderr_of(&o));
        for file in ["out.conllu", "ens.conllu"] {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            let mut words = 0;
            for line in text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
                let f: Vec<&str> = line.split('\t').collect();
                assert_eq!(f[7] == "root", f[6] == "0", "{file} {extra:?}: {line}");
                words += 1;
            }
            assert!(words > 1000, "{words}");
        }
    }
}
