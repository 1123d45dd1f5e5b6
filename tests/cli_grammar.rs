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

/// A scratch directory for this file's tests.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_grammar").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Regression: a model given to `grammar check` said "error: …: error: not
/// UTF-8 text"; a text file that is no grammar printed an error per line.
#[test]
fn a_file_that_is_not_a_grammar_says_what_it_is_and_stops_early() {
    let dir = scratch("not_a_grammar");
    let model = dir.join("m.model");
    std::fs::write(&model, b"TABULA-PARSER-MODEL\nversion 4\n\xff\xfe\x00binary").unwrap();
    let svg = dir.join("plot.svg");
    std::fs::write(&svg, "<svg xmlns=\"http://www.w3.org/2000/svg\">\n</svg>\n").unwrap();
    for (path, what) in [(&model, "a tabula parser model (tabula train)"), (&svg, "an SVG image")] {
        let o = tabula(&["grammar", "check", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            stderr(&o),
            format!("error: {}:1: this is {what}, not a grammar file (grammar files: see grammars/)\n", path.display())
        );
    }
    let latin1 = dir.join("latin1.grammar");
    std::fs::write(&latin1, b"start S\n(\xe9, S) -> a\n").unwrap();
    let o = tabula(&["grammar", "check", latin1.to_str().unwrap()]);
    assert_eq!(stderr(&o).matches("error:").count(), 1, "{}", stderr(&o));
    let prose = dir.join("notes.txt");
    std::fs::write(&prose, "Some notes\nabout this and that\n".repeat(40)).unwrap();
    let o = tabula(&["grammar", "check", prose.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err.ends_with(&format!("is {} a grammar file? (grammar files: see grammars/)\n", prose.display())),
        "{err}"
    );
    assert_eq!(err.matches(": error: ").count(), 10, "{err}");
}

/// Regression: a start symbol that derives nothing was a warning, then every
/// count was 0.
#[test]
fn a_start_symbol_that_derives_nothing_is_an_error() {
    let dir = scratch("derives_nothing");
    let g = dir.join("empty.grammar");
    std::fs::write(&g, "start S\n(L, R) -> a\nS -> (X, Y)\n").unwrap();
    let o = tabula(&["grammar", "check", g.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with(&format!("{}:1:7: error: start symbol `S` is unproductive", g.display())), "{err}");
    assert!(err.ends_with("1 error, 5 warnings\n"), "{err}");
    let o = tabula(&["grammar", "parse", g.to_str().unwrap(), "--input", "a a"]);
    assert_eq!(o.status.code(), Some(1));
}

/// The distribution over trees from the command line, on all-zero scores:
/// the uniform distribution over the 3 projective trees of two words
/// (0→1→2, 0→2→1, 0→1 and 0→2), counted by hand.
#[test]
fn the_distribution_semirings_on_uniform_scores() {
    let run = |args: &[&str]| {
        let mut all = vec!["grammar", "parse", "grammars/projective.grammar", "--input", "a a a"];
        all.extend_from_slice(args);
        let o = tabula(&all);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        stdout(&o)
    };
    let ln3 = 3f64.ln();
    let close = |text: &str, want: f64| (text.trim().parse::<f64>().unwrap() - want).abs() < 1e-12;
    assert!(close(&run(&["--semiring", "log-partition"]), ln3));
    assert!(close(&run(&["--semiring", "entropy"]), ln3), "uniform over 3 trees");
    let m: Vec<Vec<f64>> =
        run(&["--semiring", "marginals"]).lines().map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect()).collect();
    let want = [[0.0, 2.0 / 3.0, 2.0 / 3.0], [0.0, 0.0, 1.0 / 3.0], [0.0, 1.0 / 3.0, 0.0]];
    for (row, w) in m.iter().zip(want) {
        assert!(row.iter().zip(w).all(|(a, b)| (a - b).abs() < 1e-12), "{m:?}");
    }
    assert_eq!(run(&["--semiring", "kbest", "--k", "5"]).lines().count(), 3, "only 3 trees");
    let drawn = run(&["--semiring", "sample", "--count", "20", "--seed", "4"]);
    assert_eq!(drawn, run(&["--semiring", "sample", "--count", "20", "--seed", "4"]), "reproducible");
    assert!(drawn.lines().all(|l| ["0 1", "2 0", "0 0"].contains(&l)), "{drawn}");
    let o = tabula(&["grammar", "parse", "grammars/projective.grammar", "--input", "a a", "--seed", "1"]);
    assert_eq!(stderr(&o), "error: --seed applies to --semiring sample only\n");
}
