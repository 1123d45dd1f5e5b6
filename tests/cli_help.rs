//! First contact (issue 10): every subcommand's `--help` documents its input
//! and output formats with an example; the examples in the help are real.

use std::process::Command;

fn help(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_tabula")).args(args).arg("--help").output().unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout).unwrap()
}

fn run(args: &[&str], stdin: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
}

#[test]
fn every_subcommand_documents_its_formats_with_an_example() {
    for (args, needles) in [
        (&["projectivize"][..], &["Input: CoNLL-U", "Output:", "HEAD", "Examples:"][..]),
        (&["count"], &["index", "sent_id", "length", "nonprojective", "best", "count", "Example:"]),
        (&["oracle"], &["stack", "buffer", "gold", "arcs", "strict-lbr", "rbl", "\"optimal\"", "line N", "Example:"]),
        (&["grammar", "check"], &["Input: a grammar file", "Example:"]),
        (&["grammar", "parse"], &["Output:", "Example:"]),
        (&["demo"], &["Output", "Example:"]),
        (&["train"], &["Input: a CoNLL-U treebank", "Output: one model file", "Examples:"]),
        (&["parse"], &["Input: CoNLL-U", "Output: the same bytes", "Examples:"]),
        (&["eval"], &["Input: the gold and the parsed", "Output: UAS and LAS", "Example:"]),
        (&["train-tagger"], &["Input: a CoNLL-U treebank", "Output: one tagger file", "--feats", "Examples:"]),
        (&["tag"], &["Input: CoNLL-U", "Output: the same bytes", "--eval", "Examples:"]),
        (&["parse"], &["--tagger"][..]),
        (&["train"], &["--tagger", "--jackknife"]),
        (
            &["ensemble"],
            &["Input: two or more parsed CoNLL-U files", "Output: the first file", "--weights", "Examples:"],
        ),
    ] {
        let text = help(args);
        for needle in needles {
            assert!(text.contains(needle), "`tabula {} --help` lacks {needle:?}:\n{text}", args.join(" "));
        }
        assert!(!text.contains("..="), "Rust range syntax in `tabula {} --help`", args.join(" "));
    }
}

/// The example outputs printed in the help are what the commands print.
#[test]
fn help_examples_are_real() {
    let count = help(&["count"]);
    let out = run(&["count", "data/sample.conllu"], "");
    for line in out.lines().take(3) {
        assert!(count.contains(&format!("  {line}")), "{line:?} not in count --help");
    }
    let oracle = help(&["oracle"]);
    let line = r#"{"stack":[0,3,5],"buffer":[6,7],"gold":[2,0,2,5,3,5,5]}"#;
    let out = run(&["oracle"], line);
    assert!(oracle.contains(out.trim()), "{out} not in oracle --help");
    let check = help(&["grammar", "check"]);
    let out = run(&["grammar", "check", "grammars/projective.grammar"], "");
    assert!(check.contains(out.trim()), "{out} not in grammar check --help");
    let parse = help(&["grammar", "parse"]);
    let out = run(&["grammar", "parse", "grammars/projective.grammar", "--input", "a a a", "--semiring", "count"], "");
    assert!(parse.contains(&format!("\n  {}", out.trim())), "{out} not in grammar parse --help");
}
