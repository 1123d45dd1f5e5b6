//! `tabula grammar check` and `tabula grammar parse`, run as the built binary:
//! exit codes, the value on the last line of stdout, messages on stderr.

use std::process::{Command, Output};

fn tabula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn last_line(o: &Output) -> String {
    stdout(o).lines().last().unwrap_or("").to_owned()
}

/// Runs `parse` and expects success; returns the last line of stdout.
fn parse_ok(args: &[&str]) -> String {
    let mut all = vec!["grammar", "parse"];
    all.extend_from_slice(args);
    let o = tabula(&all);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    last_line(&o)
}

/// Runs `parse` and expects failure; returns stderr.
fn parse_err(args: &[&str]) -> String {
    let mut all = vec!["grammar", "parse"];
    all.extend_from_slice(args);
    let o = tabula(&all);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stdout(&o));
    stderr(&o)
}

#[test]
fn check_prints_a_summary_of_a_good_grammar() {
    let o = tabula(&["grammar", "check", "grammars/projective.grammar"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        "grammars/projective.grammar: ok — 1 terminal, 1 category, 1 left state, 1 right state, 4 rules\n"
    );
    assert_eq!(stderr(&o), "");
    let o = tabula(&["grammar", "check", "grammars/shift-reduce.grammar"]);
    assert_eq!(
        stdout(&o),
        "grammars/shift-reduce.grammar: ok — 2 terminals, 2 categories, 2 left states, 2 right states, 10 rules\n"
    );
}

#[test]
fn check_prints_every_error_and_fails() {
    for name in ["syntax", "lexical", "unproduced", "start", "no-start", "many", "tabs"] {
        let path = format!("tests/data/grammars/{name}.grammar");
        let o = tabula(&["grammar", "check", &path]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        assert_eq!(stdout(&o), "", "{name}");
        let expected = std::fs::read_to_string(format!("tests/data/grammars/{name}.stderr")).unwrap();
        assert_eq!(stderr(&o), expected, "{name}");
    }
}

#[test]
fn check_prints_warnings_to_stderr_and_succeeds() {
    let o = tabula(&["grammar", "check", "tests/data/grammars/useless.grammar"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        "tests/data/grammars/useless.grammar: ok with 7 warnings — 2 terminals, 3 categories, 3 left states, 2 right states, 8 rules\n"
    );
    let expected = std::fs::read_to_string("tests/data/grammars/useless.stderr").unwrap();
    assert_eq!(stderr(&o), expected);
}

#[test]
fn check_of_an_unreadable_file_is_one_line() {
    let o = tabula(&["grammar", "check", "no/such.grammar"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("error: cannot read grammar file no/such.grammar: "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn count_is_the_default_and_exact() {
    assert_eq!(parse_ok(&["grammars/projective.grammar", "--input", "a a a a"]), "12");
    assert_eq!(parse_ok(&["grammars/projective.grammar", "--input", "a"]), "1");
    // 40 words: C(120, 40) / 81 (A001764) needs more than 64 bits.
    let long = vec!["a"; 41].join(" ");
    assert_eq!(
        parse_ok(&["grammars/projective.grammar", "--input", &long, "--semiring", "count"]),
        "1414282077098335379544565517191"
    );
}

#[test]
fn shift_reduce_counts_and_recognition() {
    // Stack a0 a1, one input word b1: the trees the parser can still build are
    // {0→1, 1→2}, {0→1, 0→2} and {0→2, 2→1}.
    assert_eq!(parse_ok(&["grammars/shift-reduce-strict.grammar", "--input", "p s s"]), "3");
    assert_eq!(parse_ok(&["grammars/shift-reduce.grammar", "--input", "p s s"]), "3");
    assert_eq!(parse_ok(&["grammars/shift-reduce.grammar", "--input", "p p s s", "--semiring", "bool"]), "true");
    assert_eq!(parse_ok(&["grammars/shift-reduce-strict.grammar", "--input", "s p", "--semiring", "bool"]), "false");
    assert_eq!(parse_ok(&["grammars/shift-reduce-strict.grammar", "--input", "s p"]), "0");
}

#[test]
fn max_and_best_with_a_weight_matrix() {
    let w = "tests/data/grammars/weights-4.txt";
    let g = "grammars/projective.grammar";
    // 0 -> 2 (5), 2 -> 1 (3), 2 -> 3 (7).
    assert_eq!(parse_ok(&[g, "--input", "a a a a", "--semiring", "max", "--weights", w]), "15");
    assert_eq!(parse_ok(&[g, "--input", "a a a a", "--semiring", "best", "--weights", w]), "2 0 2");
    // Without weights every arc weighs 0.
    assert_eq!(parse_ok(&[g, "--input", "a a a a", "--semiring", "max"]), "0");
    assert_eq!(parse_ok(&[g, "--input", "a a a a", "--semiring", "best"]).split(' ').count(), 3);
}

#[test]
fn max_without_a_derivation_is_minus_infinity_and_best_fails() {
    let g = "grammars/shift-reduce-strict.grammar";
    assert_eq!(parse_ok(&[g, "--input", "s p", "--semiring", "max"]), "-inf");
    let err = parse_err(&[g, "--input", "s p", "--semiring", "best"]);
    assert_eq!(err, "error: no derivation: the grammar derives no tree for this input\n");
}

#[test]
fn input_errors() {
    let g = "grammars/shift-reduce.grammar";
    assert_eq!(
        parse_err(&[g, "--input", "p x s"]),
        "error: unknown terminal `x` at position 1 of --input (the grammar's terminals: `p`, `s`)\n"
    );
    assert_eq!(parse_err(&[g, "--input", "  "]), "error: --input is empty: it needs at least the root terminal a0\n");
}

#[test]
fn weight_matrix_errors_name_the_file_and_line() {
    let dir = std::env::temp_dir().join(format!("tabula-cli-grammar-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let g = "grammars/projective.grammar";
    let short = write("short.txt", "0 1 1\n1 0 1\n1 1\n");
    assert_eq!(
        parse_err(&[g, "--input", "a a a", "--semiring", "max", "--weights", &short]),
        format!("error: {short}:3: expected 3 entries, found 2\n")
    );
    let bad = write("bad.txt", "0 1 1\n1 x 1\n1 1 0\n");
    assert_eq!(
        parse_err(&[g, "--input", "a a a", "--semiring", "best", "--weights", &bad]),
        format!("error: {bad}:2: not an integer or -inf: \"x\"\n")
    );
    let rows = write("rows.txt", "0 1 1\n1 0 1\n");
    assert_eq!(
        parse_err(&[g, "--input", "a a a", "--semiring", "max", "--weights", &rows]),
        format!("error: {rows}: expected 3 rows (one per input terminal), found 2\n")
    );
    assert_eq!(
        parse_err(&[g, "--input", "a a a", "--weights", &rows]),
        "error: --weights needs --semiring max or best (count and bool give every arc weight one)\n"
    );
    let missing = dir.join("missing.txt").display().to_string();
    let err = parse_err(&[g, "--input", "a a a", "--semiring", "max", "--weights", &missing]);
    assert!(err.starts_with(&format!("error: cannot read weight matrix {missing}: ")), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn parse_with_a_bad_grammar_prints_its_errors() {
    let err = parse_err(&["tests/data/grammars/lexical.grammar", "--input", "a"]);
    assert_eq!(err, std::fs::read_to_string("tests/data/grammars/lexical.stderr").unwrap());
}
