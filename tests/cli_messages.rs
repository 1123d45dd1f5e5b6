//! Strict CoNLL-U input and messages that say what is wrong, each checked
//! to the letter.
//!
//! Regression tests: invalid UTF-8 in DEPREL was stored in the model as
//! U+FFFD, an empty DEPREL became the label "", empty nodes `1.0`, a
//! duplicate `1.1` or `5.1` past the last word were copied without a word, a
//! byte-order mark gave "expected 10 columns", `eval` reported LAS 0.00
//! without gold labels and named line 0 at the end of a file; the LR-spine
//! error suggested `--algorithm cubic|auto`, which LR-spine lacks; Attardi
//! with every tree over `--max-gamma` said only "no training sentence"; an
//! out-of-space error named the temporary file.

#![cfg(unix)]

mod common;

use common::{fails_in as fails_with, scratch_in, stderr_of as stderr, tabula_in};

fn scratch(name: &str) -> PathBuf {
    scratch_in("cli_messages", name)
}

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &[u8] = b"1\tA\t_\tX\t_\t_\t0\troot\t_\t_\n";

/// A file `name` in `dir`: the root word, then `rest`, then a blank line.
fn block(dir: &Path, name: &str, rest: &[u8]) {
    let mut text = ROOT.to_vec();
    text.extend_from_slice(rest);
    text.push(b'\n');
    fs::write(dir.join(name), text).unwrap();
}

#[test]
fn malformed_fields_are_errors_in_every_reader() {
    let dir = scratch("fields");
    block(&dir, "utf8.conllu", b"2\tB\t_\tX\t_\t_\t1\tns\xffubj\t_\t_\n");
    block(&dir, "empty.conllu", b"2\tB\t_\tX\t_\t_\t1\t\t_\t_\n");
    let utf8 = "utf8.conllu:2: the DEPREL field is not valid UTF-8 (byte 0xFF)";
    let empty = "empty.conllu:2: empty DEPREL field (CoNLL-U writes `_` for no value)";
    for command in [&["train", "-o", "model.bin"][..], &["eval", "ok.conllu"][..]] {
        block(&dir, "ok.conllu", b"2\tB\t_\tX\t_\t_\t1\tnsubj\t_\t_\n");
        let with = |file: &str| -> Vec<String> {
            let mut v: Vec<String> = command.iter().map(|s| s.to_string()).collect();
            v.insert(1, file.to_owned());
            v
        };
        let args = with("utf8.conllu");
        fails_with(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>(), utf8);
        let args = with("empty.conllu");
        fails_with(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>(), empty);
    }
    // The projectivizer copies other bytes through unchanged, but an empty field is an error there too.
    fails_with(&dir, &["projectivize", "empty.conllu"], empty);
    assert!(!dir.join("model.bin").exists());
}

#[test]
fn a_byte_order_mark_is_named() {
    let dir = scratch("bom");
    let mut text = b"\xEF\xBB\xBF".to_vec();
    text.extend_from_slice(ROOT);
    text.push(b'\n');
    fs::write(dir.join("bom.conllu"), text).unwrap();
    let message = "bom.conllu:1: the file starts with a UTF-8 byte-order mark (bytes EF BB BF), which CoNLL-U does not allow: remove it";
    fails_with(&dir, &["train", "bom.conllu", "-o", "model.bin"], message);
    fails_with(&dir, &["projectivize", "bom.conllu"], message);
}

#[test]
fn empty_nodes_are_checked() {
    let dir = scratch("empty_nodes");
    let node = |id: &str| format!("{id}\tE\t_\tX\t_\t_\t_\t_\t1:dep\t_\n");
    block(&dir, "zero.conllu", node("1.0").as_bytes());
    block(&dir, "twice.conllu", (node("1.1") + &node("1.1")).as_bytes());
    block(&dir, "after.conllu", node("5.1").as_bytes());
    block(&dir, "good.conllu", (node("1.1") + &node("1.2")).as_bytes());
    let cases = [
        ("zero.conllu", "zero.conllu:2: empty node `1.0`: the part after the dot must be 1 or more"),
        ("twice.conllu", "twice.conllu:3: empty node `1.1` already given on line 2"),
        ("after.conllu", "after.conllu:2: empty node `5.1` comes after word 5, but the last word is 1"),
    ];
    for (file, message) in cases {
        fails_with(&dir, &["train", file, "-o", "model.bin"], message);
        fails_with(&dir, &["projectivize", file], message);
        fails_with(&dir, &["count", file], message);
    }
    let o = tabula_in(&dir, &["projectivize", "good.conllu"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn eval_without_gold_labels_reports_no_las_and_never_line_0() {
    let dir = scratch("eval");
    fs::write(dir.join("nolabels.conllu"), "1\tA\t_\tX\t_\t_\t0\t_\t_\t_\n2\tB\t_\tX\t_\t_\t1\t_\t_\t_\n\n").unwrap();
    let o = tabula_in(&dir, &["eval", "nolabels.conllu", "nolabels.conllu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "warning: every DEPREL of nolabels.conllu is `_`: LAS is not reported\n");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("all words:          UAS 100.00  LAS      -\n"), "{out}");
    let o = tabula_in(&dir, &["eval", "nolabels.conllu", "nolabels.conllu", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["all"]["las"], serde_json::Value::Null);
    assert_eq!(json["all"]["uas"], 100.0);
    let two = [fs::read(dir.join("nolabels.conllu")).unwrap(), fs::read(dir.join("nolabels.conllu")).unwrap()].concat();
    fs::write(dir.join("two.conllu"), two).unwrap();
    fails_with(
        &dir,
        &["eval", "two.conllu", "nolabels.conllu"],
        "the files do not align at two.conllu:4 and the end of nolabels.conllu: the predicted file has fewer sentences",
    );
    fails_with(
        &dir,
        &["eval", "nolabels.conllu", "two.conllu"],
        "the files do not align at the end of nolabels.conllu and two.conllu:4: the predicted file has more sentences",
    );
}

const CROSSING: &str =
    "1\tw1\t_\tX\t_\t_\t0\troot\t_\t_\n2\tw2\t_\tX\t_\t_\t0\tparataxis\t_\t_\n3\tw3\t_\tX\t_\t_\t1\tobj\t_\t_\n\n";

#[test]
fn non_projective_errors_suggest_only_what_applies() {
    let dir = scratch("nonprojective");
    fs::write(dir.join("np.conllu"), CROSSING).unwrap();
    let base = ["train", "np.conllu", "-o", "model.bin", "--projectivize", "none"];
    let run = |extra: &[&str], message: &str| {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        fails_with(&dir, &args, message);
    };
    let head = "np.conllu:1: a non-projective tree, but";
    run(
        &["--system", "lr-spine"],
        &format!(
            "{head} lr-spine's oracle needs projective trees (use --projectivize optimal|lift or --skip-nonprojective)"
        ),
    );
    run(&["--oracle", "static"], &format!("{head} the static oracle needs projective trees (use --projectivize optimal|lift or --skip-nonprojective, or the dynamic oracle with --algorithm cubic|auto)"));
    run(&["--algorithm", "linear"], &format!("{head} the linear algorithm needs projective trees (use --projectivize optimal|lift or --skip-nonprojective, or --algorithm cubic|auto)"));
}

/// Heads [5, 6, 6, 0, 0, 0]: Attardi's oracle needs its table at the
/// initial configuration (no greedy computation reaches the upper bound of 6
/// arcs, nor 5 with one arc given up, nor the best, 4), so `--max-gamma 1`
/// refuses the tree.
const NEEDS_TABLE: &str = "1\tw1\t_\tX\t_\t_\t5\tdep\t_\t_\n2\tw2\t_\tX\t_\t_\t6\tdep\t_\t_\n\
    3\tw3\t_\tX\t_\t_\t6\tdep\t_\t_\n4\tw4\t_\tX\t_\t_\t0\troot\t_\t_\n\
    5\tw5\t_\tX\t_\t_\t0\troot\t_\t_\n6\tw6\t_\tX\t_\t_\t0\troot\t_\t_\n\n";

#[test]
fn attardi_says_why_no_sentence_is_left() {
    let dir = scratch("attardi");
    fs::write(dir.join("np.conllu"), NEEDS_TABLE).unwrap();
    // Trains on np.conllu with `--option value`: the error's end.
    let refused = |option: &str, value: &str| {
        let args = ["train", "np.conllu", "-o", "model.bin", "--system", "attardi", "--projectivize", "none"];
        let o = tabula_in(&dir, &[&args[..], &[option, value]].concat());
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(!dir.join("model.bin").exists());
        let text = stderr(&o);
        text.split_once("error: np.conllu: no training sentence: every tree was left out: ")
            .map_or(text.clone(), |(_, why)| why.to_owned())
    };
    assert_eq!(
        refused("--max-gamma", "1"),
        "1 beyond the tabular oracle's limit on |γ| (--max-gamma 1; raise it to keep them)\n"
    );
    // The budget of pairs likewise; a budget large enough lets the check
    // finish: the tree is outside the class.
    assert_eq!(
        refused("--max-pairs", "1"),
        "1 past the tabular oracle's budget (--max-pairs 1; raise it to keep them)\n"
    );
    assert_eq!(refused("--max-pairs", "1000000"), "1 outside the trees attardi can build\n");
}

/// A write that fails for want of space names the output, not the temporary file.
#[test]
fn a_full_disk_is_reported_on_the_output() {
    let dir = scratch("full");
    let mut text = String::new();
    for s in 0..3000 {
        text.push_str(&format!("# sent_id = s{s}\n"));
        text.push_str(std::str::from_utf8(ROOT).unwrap());
        text.push_str("2\tB\t_\tX\t_\t_\t1\tdep\t_\t_\n\n");
    }
    fs::write(dir.join("in.conllu"), text).unwrap();
    // A file-size limit of 100 blocks stands for a full disk (EFBIG instead of ENOSPC).
    let o = Command::new("sh")
        .current_dir(&dir)
        .args([
            "-c",
            &format!(
                "ulimit -f 100 && trap '' XFSZ && exec {} projectivize in.conllu -o out.conllu",
                env!("CARGO_BIN_EXE_tabula")
            ),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stderr(&o), "error: cannot write out.conllu: File too large (os error 27)\n");
    let mut names: Vec<String> =
        fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    names.sort();
    assert_eq!(names, ["in.conllu"]);
}

/// Regression: `projectivize --stats` of an input without tokens printed an
/// attachment score of 100 %.
#[test]
fn projectivize_stats_of_no_tokens_prints_no_score() {
    let dir = scratch("no_tokens");
    fs::write(dir.join("empty.conllu"), "").unwrap();
    let o = tabula_in(&dir, &["projectivize", "--stats", "empty.conllu", "-o", "/dev/null"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("tokens: 0\n") && err.contains("attachment score: - (no tokens)\n"), "{err}");
    assert!(!err.contains("100"), "{err}");
}

#[test]
fn a_file_of_another_kind_given_as_a_model_is_named() {
    let dir = scratch("other_kind");
    block(&dir, "gold.conllu", b"");
    fs::write(dir.join("lines.jsonl"), "{\"stack\":[0]}\n").unwrap();
    fails_with(
        &dir,
        &["parse", "--model", "gold.conllu", "gold.conllu"],
        "gold.conllu: not a tabula parser model: line 1 shows a CoNLL-U treebank",
    );
    fails_with(
        &dir,
        &["tag", "--tagger", "lines.jsonl", "gold.conllu"],
        "lines.jsonl: not a tabula tagger: line 1 shows JSON",
    );
    fs::write(dir.join("junk.model"), "hello\n").unwrap();
    fails_with(
        &dir,
        &["parse", "--model", "junk.model", "gold.conllu"],
        "junk.model: not a tabula parser model: its first line is not TABULA-PARSER-MODEL",
    );
}

/// Regression: terminal escapes in a field (OSC 52 sets the clipboard,
/// `ESC [ 2 J` clears the screen, U+009B is a one-character CSI) reached
/// the terminal as they were, in `draw --text` and in the messages of
/// `eval`, `draw` and every CoNLL-U reader that quote a field.
#[test]
fn terminal_escapes_in_fields_are_shown_not_sent() {
    let dir = scratch("escapes");
    let raw = |o: &std::process::Output| {
        let mut all = o.stdout.clone();
        all.extend_from_slice(&o.stderr);
        String::from_utf8(all).unwrap()
    };
    let no_control = |s: &str| assert!(!s.contains(|c: char| c.is_control() && c != '\n'), "{s:?}");
    let gold = "# sent_id = \u{1b}]52;c;aGk=\u{7}\n1\t\u{1b}[2J\t_\tX\t_\t_\t0\t\u{9b}31m\t_\t_\n2\tb\u{8}\t_\tX\t_\t_\t1\tdep\t_\t_\n\n";
    fs::write(dir.join("gold.conllu"), gold).unwrap();
    let o = tabula_in(&dir, &["draw", "--text", "gold.conllu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = raw(&o);
    no_control(&out);
    for shown in ["# \\x1b]52;c;aGk=\\x07\n", "\\x1b[2J X \\x9b31m\n", "b\\x08 X dep\n"] {
        assert!(out.contains(shown), "{shown} not in {out}");
    }
    // The breakdown by relation names them.
    let o = tabula_in(&dir, &["eval", "--breakdown", "gold.conllu", "gold.conllu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    no_control(&raw(&o));
    assert!(raw(&o).contains("\n   \\x9b31m "), "{}", raw(&o));
    // `eval` and `draw` quoting a FORM that differs.
    fs::write(dir.join("pred.conllu"), gold.replace("\u{1b}[2J", "\u{9b}2J")).unwrap();
    let o = tabula_in(&dir, &["eval", "gold.conllu", "pred.conllu"]);
    no_control(&raw(&o));
    assert!(stderr(&o).contains("FORM `\\x1b[2J` in the gold file, `\\x9b2J` in the predicted one"), "{}", stderr(&o));
    let o = tabula_in(&dir, &["draw", "--text", "gold.conllu", "pred.conllu"]);
    no_control(&raw(&o));
    assert!(stderr(&o).contains("word 1 is `\\x9b2J`, but gold.conllu:2 has `\\x1b[2J`"), "{}", stderr(&o));
    // The readers' own messages: a HEAD and an ID.
    fs::write(dir.join("head.conllu"), "1\ta\t_\tX\t_\t_\t\u{1b}[2J\troot\t_\t_\n\n").unwrap();
    fs::write(dir.join("id.conllu"), "1\ta\t_\tX\t_\t_\t0\troot\t_\t_\n\u{9b}2\tb\t_\tX\t_\t_\t1\tdep\t_\t_\n\n")
        .unwrap();
    for (file, message) in [
        ("head.conllu", "head.conllu:1: HEAD `\\x1b[2J` is not a "),
        ("id.conllu", "id.conllu:2: ID `\\x9b2` is not an integer, a range n-m or an empty node n.k"),
    ] {
        for command in [&["draw", "--text", file][..], &["eval", file, file], &["projectivize", file]] {
            let o = tabula_in(&dir, command);
            no_control(&raw(&o));
            assert!(stderr(&o).contains(message), "{command:?}: {}", stderr(&o));
        }
    }
}

/// Regression (issue 49, re-run): a file name with terminal escapes reached
/// the terminal as it was in the messages of the commands that quote it
/// themselves (`eval`'s and `ensemble`'s alignment, `deprojectivize`,
/// `train`, a missing file): every error message now shows control
/// characters visibly, whatever part of it they are in.
#[test]
fn terminal_escapes_in_file_names_are_shown_not_sent() {
    let dir = scratch("escaped-names");
    let name = "n\u{1b}]0;T\u{7}.conllu";
    let shown = "n\\x1b]0;T\\x07.conllu";
    fs::write(dir.join(name), "1\ta\t_\tX\t_\t_\tx\troot\t_\t_\n\n").unwrap();
    fs::write(dir.join("two.conllu"), "1\ta\t_\tX\t_\t_\t0\troot\t_\t_\n2\tb\t_\tX\t_\t_\t1\tdep\t_\t_\n\n").unwrap();
    let missing = "zz\u{1b}[2J.conllu";
    for command in [
        &["eval", "two.conllu", name][..],
        &["ensemble", "two.conllu", name],
        &["deprojectivize", name],
        &["train", name, "-o", "x.model"],
        &["draw", "--text", missing],
        &["count", missing],
    ] {
        let o = tabula_in(&dir, command);
        assert_eq!(o.status.code(), Some(1), "{command:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(!err.contains(|c: char| c.is_control() && c != '\n'), "{command:?}: {err:?}");
        assert!(err.contains(shown) || err.contains("zz\\x1b[2J.conllu"), "{command:?}: {err}");
    }
}

/// Warnings and reports name files too: their control characters are shown
/// as in the errors, in the lines of commands that succeed.
#[test]
fn terminal_escapes_in_file_names_are_shown_in_every_line() {
    let dir = scratch("escaped-names-reports");
    let name = "n\u{1b}]0;T\u{7}.conllu";
    let shown = "n\\x1b]0;T\\x07.conllu";
    fs::write(dir.join(name), "1\ta\t_\tX\t_\t_\t0\t_\t_\t_\n\n").unwrap();
    for command in [&["train-tagger", name, "-o", "x.tagger"][..], &["eval", name, name]] {
        let o = tabula_in(&dir, command);
        assert!(o.status.success(), "{command:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(!err.contains(|c: char| c.is_control() && c != '\n'), "{command:?}: {err:?}");
        assert!(err.contains(shown), "{command:?}: {err}");
    }
}

/// A count of one said "1 sentences, 1 words".
#[test]
fn a_count_of_one_is_singular() {
    let dir = scratch("singular");
    fs::write(dir.join("one.conllu"), "1\ta\t_\tX\t_\t_\t0\troot\t_\t_\n\n").unwrap();
    let o = tabula_in(&dir, &["train-tagger", "one.conllu", "-o", "one.tagger"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("one.conllu: 1 sentence, 1 word;"), "{}", stderr(&o));
    let o = tabula_in(&dir, &["ensemble", "one.conllu", "one.conllu", "-o", "e.conllu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).starts_with("1 sentence, 1 word: 2 files"), "{}", stderr(&o));
}
