//! No silent wrong answers: an option that does nothing in the mode used is
//! an error naming it; an unknown JSON key is an error listing the known
//! ones; a file of the wrong kind (CoNLL-U for JSON, JSON for CoNLL-U, a
//! treebank for a grammar, bzip2) is one error naming what reads it;
//! xz- and gzip-compressed treebanks are read wherever CoNLL-U is, whatever
//! their name; a sentence without UPOS is not parsed; a final configuration
//! offers no step.
//!
//! Regressions: each of these used to exit 0 with a wrong or empty answer
//! (`oracle --plot x.svg --stray 0.5` without `--walk` wrote nothing; `oracle
//! --walk F extra.jsonl` ignored the extra file; `"sytem"` answered with the
//! default system; `parse` on `_` UPOS scored UAS 7.69), or printed one error
//! per line (`oracle data/sample.conllu`, `grammar check` on a treebank), or
//! read a `.conllu.xz` as text.

mod common;

use common::{gz, scratch_in, tabula_with_stdin, tabula_with_stdin_bytes, xz};

fn scratch(name: &str) -> PathBuf {
    scratch_in("cli_wrong_input", name)
}
use std::path::{Path, PathBuf};
use std::process::Output;

const SAMPLE: &str = "data/sample.conllu";

fn run(args: &[&str], stdin: &str) -> Output {
    tabula_with_stdin(args, stdin)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `args` and expects exit status 1 with exactly `error: {message}` on stderr.
fn fails_with(args: &[&str], message: &str) {
    let o = run(args, "");
    assert_eq!(o.status.code(), Some(1), "tabula {args:?}: {}", stderr(&o));
    assert_eq!(stderr(&o), format!("error: {message}\n"), "tabula {args:?}");
}

#[test]
fn walk_options_without_walk_are_errors_naming_them() {
    for (option, value) in [
        ("--stray", Some("0.5")),
        ("--seed", Some("3")),
        ("--projectivize", None),
        ("--check-agreement", None),
        ("--session", None),
        ("--json", None),
        ("--plot", Some("x.svg")),
    ] {
        let mut args = vec!["oracle", option];
        args.extend(value);
        fails_with(
            &args,
            &format!("{option} applies to --walk only (without --walk, tabula oracle answers JSON configurations)"),
        );
    }
    assert!(!Path::new("x.svg").exists());
}

#[test]
fn oracle_options_without_effect_in_a_walk_are_errors() {
    fails_with(
        &["oracle", "--walk", SAMPLE, "extra.jsonl"],
        "--walk data/sample.conllu reads the treebank only: the input extra.jsonl would not be read \
         (JSON configurations are answered without --walk)",
    );
    fails_with(
        &["oracle", "--walk", SAMPLE, "--max-gamma", "10"],
        "--max-gamma applies to --system attardi only (the walk uses arc-standard)",
    );
    fails_with(
        &[
            "oracle",
            "--walk",
            SAMPLE,
            "--projectivize",
            "--algorithm",
            "linear",
            "--grammar",
            "grammars/shift-reduce.grammar",
        ],
        "--grammar replaces the grammar of the cubic algorithm, which --algorithm linear does not use",
    );
    fails_with(
        &["oracle", "--walk", SAMPLE, "--strict-grammar", "grammars/shift-reduce-strict.grammar"],
        "--strict-grammar is the grammar of strategy strict-lbr; the walk uses strategy lbr",
    );
    fails_with(
        &["oracle", "--system", "lr-spine", "--grammar", "grammars/arc-eager.grammar"],
        "--grammar: lr-spine has no grammar oracle (only arc-standard, arc-hybrid and arc-eager have one)",
    );
    // Still allowed: what has an effect.
    let o = run(&["oracle", "--walk", SAMPLE, "--system", "attardi", "--max-gamma", "20", "--stray", "0.2"], "");
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_line_of_another_system_than_the_grammar_is_an_error() {
    let line = r#"{"system":"arc-eager","stack":[0],"buffer":[1,2],"gold":[-1,2,0],"arcs":[]}"#;
    let o = run(&["oracle", "--system", "arc-hybrid", "--grammar", "grammars/arc-hybrid.grammar"], line);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "line 1: `system` is arc-eager, but --grammar replaces the grammar of arc-hybrid (--system)\nerror: 1 bad line\n"
    );
}

#[test]
fn unknown_json_keys_are_errors_listing_the_known_ones() {
    let line = r#"{"sytem":"arc-eager","stack":[0],"buffer":[1,2],"gold":[-1,2,0]}"#;
    let o = run(&["oracle"], line);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        "line 1: unknown key `sytem` (the keys are `stack`, `buffer`, `unshifted`, `gold`, `arcs`, `system`, `strategy`, `id`; \
         put your own data under `id`)\nerror: 1 bad line\n"
    );
}

#[test]
fn a_treebank_given_to_the_json_oracle_is_one_error_suggesting_walk() {
    let dir = scratch("conllu-as-json");
    let compressed = dir.join("sample.jsonl");
    std::fs::write(&compressed, xz(&std::fs::read(SAMPLE).unwrap())).unwrap();
    for file in [SAMPLE, compressed.to_str().unwrap()] {
        fails_with(
            &["oracle", file],
            &format!(
                "{file}:1: this is CoNLL-U, not JSON configurations (one JSON object per line); \
                 to walk parser computations over a treebank, use `tabula oracle --walk {file}`"
            ),
        );
    }
    // From standard input too.
    let o = run(&["oracle"], &std::fs::read_to_string(SAMPLE).unwrap());
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

#[test]
fn json_or_bzip2_where_conllu_is_read_is_one_error() {
    let dir = scratch("json-as-conllu");
    let json = dir.join("c.jsonl");
    std::fs::write(&json, "{\"stack\":[0],\"buffer\":[1],\"gold\":[-1,0]}\n{\"stack\":[0]}\n").unwrap();
    let j = json.to_str().unwrap();
    let message = format!(
        "{j}:1: this is JSON, not CoNLL-U (JSON configurations, one per line, are the input of `tabula oracle` without --walk)"
    );
    fails_with(&["projectivize", j], &message);
    fails_with(&["projectivize", "--keep-going", j], &message);
    fails_with(&["oracle", "--walk", j], &message);
    let o = run(&["count", j], "");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), format!("error: {message}\n"));
    let o = run(&["train", j, "-o", dir.join("m").to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("this is JSON, not CoNLL-U"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    let bz = dir.join("s.conllu");
    std::fs::write(&bz, b"BZh91AY&SY\x00\x01binary").unwrap();
    let b = bz.to_str().unwrap();
    fails_with(
        &["projectivize", b],
        &format!("{b}:1: the file is bzip2-compressed: decompress it first (xz and gzip files are read directly)"),
    );
}

#[test]
fn a_treebank_or_json_given_as_a_grammar_is_one_error() {
    fails_with(
        &["grammar", "check", SAMPLE],
        "data/sample.conllu:4: this is a CoNLL-U treebank, not a grammar file (grammar files: see grammars/)",
    );
    let dir = scratch("grammar");
    let json = dir.join("g.grammar");
    std::fs::write(&json, "\n{\"stack\":[0]}\n").unwrap();
    let j = json.to_str().unwrap();
    fails_with(
        &["grammar", "check", j],
        &format!("{j}:2: this is JSON, not a grammar file (grammar files: see grammars/)"),
    );
    fails_with(
        &["projectivize", "--grammar", SAMPLE, SAMPLE],
        "data/sample.conllu:4: this is a CoNLL-U treebank, not a grammar file (grammar files: see grammars/)",
    );
}

#[test]
fn xz_and_gzip_treebanks_are_read_wherever_conllu_is_whatever_their_name() {
    let dir = scratch("compressed");
    let plain = std::fs::read(SAMPLE).unwrap();
    // Named after neither format: the first bytes decide.
    let x = dir.join("x.conllu");
    let g = dir.join("g.txt");
    std::fs::write(&x, xz(&plain)).unwrap();
    std::fs::write(&g, gz(&plain)).unwrap();
    let (x, g) = (x.to_str().unwrap(), g.to_str().unwrap());
    for args in [
        vec!["projectivize", "FILE"],
        vec!["projectivize", "--method", "lift", "--threads", "2", "FILE"],
        vec!["count", "FILE"],
        vec!["eval", SAMPLE, "FILE"],
        vec!["eval", "FILE", SAMPLE, "--json"],
        vec!["oracle", "--walk", "FILE", "--system", "arc-hybrid", "--check-agreement", "--projectivize"],
    ] {
        let want = stdout(&run(&args.iter().map(|a| if *a == "FILE" { SAMPLE } else { a }).collect::<Vec<_>>(), ""));
        for file in [x, g] {
            let o = run(&args.iter().map(|a| if *a == "FILE" { file } else { a }).collect::<Vec<_>>(), "");
            assert!(o.status.success(), "{args:?} {file}: {}", stderr(&o));
            let got = stdout(&o);
            if args[0] == "oracle" {
                // Timings differ: compare the counts of trees and steps.
                assert_eq!(got.lines().next(), want.lines().next());
            } else {
                assert_eq!(got, want, "{args:?} {file}");
            }
        }
    }
    // Standard input, compressed.
    let o = tabula_with_stdin_bytes(&["projectivize"], &gz(&plain));
    assert_eq!(stdout(&o), stdout(&run(&["projectivize", SAMPLE], "")));
    // Training and parsing read them too.
    let model = dir.join("m.model");
    let m = model.to_str().unwrap();
    let o = run(&["train", x, "-o", m, "--epochs", "1"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["parse", "--model", m, g], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), stdout(&run(&["parse", "--model", m, SAMPLE], "")));
    // Corrupt data is an error, not a panic.
    let mut bad = xz(&plain);
    let mid = bad.len() / 2;
    bad[mid] ^= 0xFF;
    let b = dir.join("bad.xz");
    std::fs::write(&b, bad).unwrap();
    let o = run(&["projectivize", b.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with(&format!("error: {}:", b.display())), "{}", stderr(&o));
}

/// `data/sample.conllu` with column `col` (0-based) set to `_` on every word line.
fn blank_column(col: usize) -> String {
    set_column(col, "_")
}

/// `data/sample.conllu` with column `col` (0-based) set to `value` on every word line.
fn set_column(col: usize, value: &str) -> String {
    std::fs::read_to_string(SAMPLE)
        .unwrap()
        .lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split('\t').collect();
            if f.len() == 10 {
                f[col] = value;
            }
            f.join("\t") + "\n"
        })
        .collect()
}

#[test]
fn parsing_without_upos_is_an_error_and_without_feats_a_warning() {
    let dir = scratch("upos");
    let model = dir.join("m.model");
    let m = model.to_str().unwrap();
    // The sample has no FEATS: training with --feats is an error there.
    fails_with(
        &["train", SAMPLE, "-o", m, "--epochs", "1", "--feats"],
        &format!("{SAMPLE}: every FEATS is `_`, but the features were asked to read FEATS: leave that option out"),
    );
    let with_feats = dir.join("feats.conllu");
    std::fs::write(&with_feats, set_column(5, "Case=Nom")).unwrap();
    let o = run(&["train", with_feats.to_str().unwrap(), "-o", m, "--epochs", "1", "--feats"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let no_upos = dir.join("no-upos.conllu");
    std::fs::write(&no_upos, blank_column(3)).unwrap();
    let n = no_upos.to_str().unwrap();
    fails_with(
        &["parse", "--model", m, n],
        &format!(
            "{n}:4: no word of this sentence has a UPOS (the column is `_`): the model reads UPOS; \
             tag first (`tabula parse --tagger TAGGER`, or `tabula tag`)"
        ),
    );
    let no_feats = dir.join("no-feats.conllu");
    std::fs::write(&no_feats, blank_column(5)).unwrap();
    let f = no_feats.to_str().unwrap();
    let o = run(&["parse", "--model", m, f], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "warning: {f}: every FEATS is `_`, but {m} was trained with --feats: if the treebank has morphological \
             features, add them first (accuracy suffers without them)\n"
        )
    );
    // Training on a column that is `_` everywhere: an error naming it.
    let no_lemma = dir.join("no-lemma.conllu");
    std::fs::write(&no_lemma, blank_column(2)).unwrap();
    let l = no_lemma.to_str().unwrap();
    fails_with(
        &["train", l, "-o", dir.join("l.model").to_str().unwrap(), "--epochs", "1", "--lemma"],
        &format!("{l}: every LEMMA is `_`, but the features were asked to read LEMMA: leave that option out"),
    );
    // One word without UPOS: parsed, with a warning.
    let one = std::fs::read_to_string(SAMPLE).unwrap().replacen("\tPROPN\t", "\t_\t", 1);
    let o = run(&["parse", "--model", m, "-"], &one);
    assert!(o.status.success(), "{}", stderr(&o));
    // (The sample has no FEATS at all: the FEATS warning follows.)
    assert!(stderr(&o).starts_with("warning: <stdin>: 1 of 41 words have no UPOS (`_`); the model reads UPOS\n"));
}

#[test]
fn train_options_without_effect_are_errors() {
    let dir = scratch("train");
    let m = dir.join("m.model");
    let m = m.to_str().unwrap();
    for option in [["--algorithm", "cubic"], ["--strategy", "lbr"]] {
        fails_with(
            &["train", SAMPLE, "-o", m, "--oracle", "static", option[0], option[1]],
            &format!(
                "{} applies to the dynamic oracle (--oracle dynamic); the static oracle follows the canonical computation",
                option[0]
            ),
        );
    }
    fails_with(
        &["train", SAMPLE, "-o", m, "--max-gamma", "10"],
        "--max-gamma applies to --system attardi only (its tabular oracle), not arc-hybrid",
    );
    fails_with(
        &["train", SAMPLE, "-o", m, "--skip-nonprojective", "--projectivize", "lift"],
        "--projectivize lift: with --skip-nonprojective no tree is left to projectivize",
    );
    fails_with(
        &["train", SAMPLE, "-o", m, "--beam-labels", "2"],
        "--beam-labels 2: with --beam 1 no labels compete for a beam; it needs --beam 2 or more",
    );
    assert!(!Path::new(m).exists());
}

#[test]
fn a_final_configuration_offers_no_step_and_every_answer_says_whether_it_is_final() {
    // Arc-eager: the input is empty, word 2 has its head: final, though `reduce` applies.
    let line = r#"{"system":"arc-eager","stack":[0,2],"buffer":[],"gold":[-1,2,0],"arcs":[[2,1],[0,2]]}"#;
    let o = run(&["oracle"], line);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        r#"{"system":"arc-eager","stack":[0,2],"buffer":[],"gold":[-1,2,0],"arcs":[[2,1],[0,2]],"final":true,"steps":{"shift":null,"left_arc":null,"right_arc":null,"reduce":null},"optimal":[]}"#
            .to_owned()
            + "\n"
    );
    for system in ["arc-standard", "arc-hybrid", "arc-eager", "lr-spine", "attardi"] {
        let line = format!(r#"{{"system":"{system}","stack":[0,1],"buffer":[2],"gold":[-1,2,0],"arcs":[]}}"#);
        let o = run(&["oracle"], &line);
        assert!(o.status.success(), "{system}: {}", stderr(&o));
        assert!(stdout(&o).contains(r#""final":false,"steps""#), "{system}: {}", stdout(&o));
        // Arc-eager ends with the last word on the stack (no step applies once the input is empty).
        let stack = if system == "arc-eager" { "[0,1]" } else { "[0]" };
        let line = format!(r#"{{"system":"{system}","stack":{stack},"buffer":[],"gold":[-1,0],"arcs":[[0,1]]}}"#);
        let o = run(&["oracle"], &line);
        assert!(o.status.success(), "{system}: {}", stderr(&o));
        assert!(stdout(&o).contains(r#""final":true,"steps""#), "{system}: {}", stdout(&o));
        assert!(stdout(&o).ends_with("\"optimal\":[]}\n"), "{system}: {}", stdout(&o));
    }
}

/// Regression: a truncated `.xz` or `.gz` treebank failed with the
/// decoder's words and a line number (`trunc.xz:401: failed to fill whole
/// buffer`, `trunc.gz:1: incomplete deflate stream`); every command that
/// reads CoNLL-U now names the file and says the stream is truncated, once.
#[test]
fn a_truncated_compressed_treebank_says_so_in_every_command() {
    let dir = scratch("truncated");
    let text: String = (0..300).map(|i| format!("# sent_id = {i}\n1\tw\t_\tX\t_\t_\t0\troot\t_\t_\n\n")).collect();
    let (xz_data, gz_data) = (xz(text.as_bytes()), gz(text.as_bytes()));
    let x = dir.join("trunc.xz");
    let g = dir.join("trunc.gz");
    std::fs::write(&x, &xz_data[..xz_data.len() / 2]).unwrap();
    std::fs::write(&g, &gz_data[..gz_data.len() / 2]).unwrap();
    let model = dir.join("m.model");
    let o = run(&["train", SAMPLE, "-o", model.to_str().unwrap(), "--epochs", "1"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    for (file, format) in [(x.to_str().unwrap(), "xz"), (g.to_str().unwrap(), "gzip")] {
        let out = dir.join("out.conllu");
        let out = out.to_str().unwrap();
        let m = model.to_str().unwrap();
        for args in [
            vec!["projectivize", file, "-o", out],
            vec!["count", file],
            vec!["eval", file, file],
            vec!["deprojectivize", file, "-o", out],
            vec!["train", file, "-o", out],
            vec!["train-tagger", file, "-o", out],
            vec!["parse", "--model", m, file, "-o", out],
            vec!["oracle", "--walk", file],
        ] {
            let o = run(&args, "");
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            let message = format!("{file}: the {format} stream is truncated");
            let err = stderr(&o);
            assert!(err.contains(&format!("error: {message}")), "{args:?}: {err}");
            assert_eq!(err.matches(&message).count(), 1, "{args:?}: {err}");
        }
    }
}

/// Regression: a parser model, a tagger or a grammar given where CoNLL-U is
/// read failed with what the CoNLL-U reader made of its lines ("carriage
/// return inside a line" at line 44 of a model, "expected 10 tab-separated
/// columns" for a tagger or a grammar); the file is named for what it is.
#[test]
fn a_model_tagger_or_grammar_where_conllu_is_read_is_named_as_such() {
    let dir = scratch("other_files");
    let model = dir.join("m.model");
    let tagger = dir.join("t.tagger");
    let (m, t) = (model.to_str().unwrap(), tagger.to_str().unwrap());
    assert!(run(&["train", SAMPLE, "-o", m, "--epochs", "1"], "").status.success());
    assert!(run(&["train-tagger", SAMPLE, "-o", t, "--epochs", "1"], "").status.success());
    let svg = dir.join("p.svg");
    std::fs::write(&svg, "<svg xmlns=\"http://www.w3.org/2000/svg\">\n</svg>\n").unwrap();
    let files = [
        (m.to_owned(), 1, "a tabula parser model (written by tabula train)"),
        (t.to_owned(), 1, "a tabula tagger (written by tabula train-tagger)"),
        ("grammars/projective.grammar".to_owned(), 7, "a grammar file"),
        ("grammars/arc-eager.grammar".to_owned(), 28, "a grammar file"),
        (svg.to_str().unwrap().to_owned(), 1, "an SVG image"),
    ];
    for (file, line, what) in &files {
        let f = file.as_str();
        for args in [
            vec!["projectivize", f],
            vec!["count", f],
            vec!["eval", SAMPLE, f],
            vec!["train", f, "-o", "/dev/null"],
            vec!["parse", "--model", m, f],
            vec!["tag", "--tagger", t, f],
            vec!["deprojectivize", f],
            vec!["oracle", "--walk", f],
        ] {
            let o = run(&args, "");
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            assert_eq!(stderr(&o), format!("error: {f}:{line}: this is {what}, not CoNLL-U\n"), "{args:?}");
        }
    }
    // A CoNLL-U file whose comments hold `->` or `start` is CoNLL-U.
    let text = "# text = a -> b\n# start here\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n";
    let o = tabula_with_stdin(&["count"], text);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A scratch folder and in it a tagged sentence whose every HEAD is `_`.
fn without_heads(name: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    let file = dir.join("no-heads.conllu");
    std::fs::write(&file, "1\ta\t_\tX\t_\t_\t_\t_\t_\t_\n2\tb\t_\tX\t_\t_\t_\t_\t_\t_\n\n").unwrap();
    (dir, file)
}

#[test]
fn a_dev_file_without_gold_heads_is_an_error_before_training() {
    // Its scores would be over no word, and the epoch kept chosen blindly.
    let (dir, dev) = without_heads("dev-without-heads");
    let model = dir.join("no-heads.model");
    let d = dev.to_str().unwrap();
    fails_with(
        &["train", SAMPLE, "-o", model.to_str().unwrap(), "--dev", d],
        &format!(
            "{d}: no word has a gold HEAD (every HEAD is `_`): the dev file scores the epochs to choose the model \
             to keep; give a treebank with trees, or leave --dev out"
        ),
    );
    assert!(!model.exists());
    // Some words with gold heads are enough: those are scored.
    let mixed = dir.join("some-heads.conllu");
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    std::fs::write(&mixed, text + &std::fs::read_to_string(&dev).unwrap()).unwrap();
    let o =
        run(&["train", SAMPLE, "-o", model.to_str().unwrap(), "--dev", mixed.to_str().unwrap(), "--epochs", "1"], "");
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn training_on_no_gold_head_is_an_error_not_an_empty_model() {
    // It wrote a model that had learnt nothing, and said `wrote` as usual.
    let (dir, data) = without_heads("train-without-heads");
    let model = dir.join("m.model");
    let (d, m) = (data.to_str().unwrap(), model.to_str().unwrap());
    fails_with(
        &["train", d, "-o", m],
        &format!("{d}: no word has a gold HEAD (every HEAD is `_`): nothing to train on"),
    );
    fails_with(
        &["train", SAMPLE, "-o", m, "--subsample", "0.0001"],
        &format!("{SAMPLE}: no word has a gold HEAD (--subsample 0.0001 kept none of the arcs): nothing to train on"),
    );
    assert!(!model.exists());
}
