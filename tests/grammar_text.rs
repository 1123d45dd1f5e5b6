//! The grammar file format: exact rendering of errors and warnings, the
//! print/parse round trip, and robustness against garbage.
//!
//! Each `tests/data/grammars/NAME.grammar` with problems has its expected
//! rendering in `NAME.stderr` (also what `tabula grammar check` prints).
//! After an intended change of the messages, regenerate them with
//! `BLESS=1 cargo test --test grammar_text` and review the diff.

use proptest::prelude::*;
use tabula::grammar::text::{self, parse_str, Severity};

const DIR: &str = "tests/data/grammars";

/// The bad grammars and whether they still load (warnings only).
const CASES: &[(&str, bool)] = &[
    ("syntax", false),
    ("lexical", false),
    ("unproduced", false),
    ("start", false),
    ("no-start", false),
    ("many", false),
    ("tabs", false),
    ("useless", true),
    // A start symbol that derives nothing: an error.
    ("split", false),
];

fn rendered(name: &str) -> (bool, String) {
    let path = format!("{DIR}/{name}.grammar");
    let src = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    match parse_str(&path, &src) {
        Ok(p) => (true, text::render(&p.warnings)),
        Err(e) => (false, e.to_string()),
    }
}

#[test]
fn every_bad_grammar_renders_exactly_as_expected() {
    let bless = std::env::var_os("BLESS").is_some();
    for &(name, loads) in CASES {
        let (ok, got) = rendered(name);
        assert_eq!(ok, loads, "{name}: loads");
        let expected_path = format!("{}/{DIR}/{name}.stderr", env!("CARGO_MANIFEST_DIR"));
        if bless {
            std::fs::write(&expected_path, format!("{got}\n")).unwrap();
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap();
        assert_eq!(got, expected.trim_end_matches('\n'), "{name}");
    }
}

#[test]
fn a_category_used_but_never_produced_is_reported_at_every_use() {
    let (_, got) = rendered("unproduced");
    assert_eq!(
        got,
        "tests/data/grammars/unproduced.grammar:5:18: error: category `Noun` is used but never produced (no rule `Noun -> (B, C)`)
  |
5 | (_, S) -> (_, S) Noun
  |                  ^^^^

tests/data/grammars/unproduced.grammar:6:11: error: category `Noun` is used but never produced (no rule `Noun -> (B, C)`)
  |
6 | (S, _) -> Noun (S, _)
  |           ^^^^

2 errors"
    );
}

#[test]
fn several_errors_of_different_kinds_are_all_reported_in_order() {
    let src = "start S\n(S, S) -> a\n(T, T) -> a\nS -> (S S)\n(_, S) -> (_, S) X\n";
    let e = parse_str("g", src).unwrap_err();
    let lines: Vec<_> = e.diagnostics.iter().map(|d| (d.line, d.column, d.width, d.message.as_str())).collect();
    assert_eq!(
        lines,
        [
            (
                3,
                11,
                1,
                "terminal `a` has a second lexical rule (the first is on line 2); each terminal needs exactly one"
            ),
            (4, 9, 1, "expected `,` in a finish rule `A -> (B, C)`, found `S`"),
            (5, 18, 1, "category `X` is used but never produced (no rule `X -> (B, C)`)"),
        ]
    );
    assert_eq!(e.error_count(), 3);
    assert!(e.to_string().ends_with("\n\n3 errors"));
}

#[test]
fn the_underline_covers_the_whole_token() {
    let e = parse_str("g", "start Sentence\n(Word, Word) -> a\nNoun -> (Word, Word)\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "g:1:7: error: start symbol `Sentence` has no rule `Sentence -> (B, C)`\n  |\n1 | start Sentence\n  |       ^^^^^^^^\n\n1 error"
    );
}

#[test]
fn warnings_do_not_stop_a_grammar_from_loading() {
    let path = format!("{}/{DIR}/useless.grammar", env!("CARGO_MANIFEST_DIR"));
    let p = text::parse_file(std::path::Path::new(&path)).unwrap();
    assert!(p.warnings.iter().all(|w| w.severity == Severity::Warning));
    assert_eq!(p.warnings.len(), 7);
    assert_eq!(p.grammar.num_terminals(), 2);
}

#[test]
fn shipped_grammars_load_without_warnings() {
    for src in [tabula::grammars::PROJECTIVE, tabula::grammars::SHIFT_REDUCE, tabula::grammars::SHIFT_REDUCE_STRICT] {
        let p = parse_str("g", src).unwrap();
        assert_eq!(p.warnings, []);
    }
}

#[test]
fn an_unreadable_file_is_an_io_error() {
    let e = text::parse_file(std::path::Path::new("no/such/file.grammar")).unwrap_err();
    assert!(matches!(e, text::GrammarFileError::Io { .. }));
    assert!(e.to_string().starts_with("cannot read grammar file no/such/file.grammar: "), "{e}");
}

/// Regression (issue 10): invalid UTF-8 in a grammar file had no line number.
#[test]
fn invalid_utf8_is_reported_with_its_line_and_column() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("grammar_text");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("latin1.grammar");
    std::fs::write(&path, b"# comment\nS -> (\xe9, C)\n").unwrap();
    let e = text::parse_file(&path).unwrap_err();
    assert_eq!(e.to_string(), format!("{}:2:7: not UTF-8 text (invalid byte here)", path.display()));
}

/// Regression (issue 10): a 100,000-character name was echoed whole, in the
/// message and in the quoted source line.
#[test]
fn long_names_are_elided() {
    let name = "N".repeat(100_000);
    // Rendered warnings or errors, whichever the text gets.
    let e = match parse_str("long.grammar", &format!("S -> ({name}, C)\n")) {
        Ok(p) => text::render(&p.warnings),
        Err(e) => e.to_string(),
    };
    assert!(e.len() < 3000, "{} characters: {}", e.len(), &e[..300.min(e.len())]);
    assert!(e.contains("(100000 bytes)`"), "{e}");
}

/// parse → print → parse → print gives the same text as the first print.
fn round_trips(src: &str) -> Result<(), String> {
    let g1 = match parse_str("g", src) {
        Ok(p) => p.grammar,
        // A grammar deriving nothing is refused: nothing to print.
        Err(e) if e.error_count() == 1 && e.to_string().contains("the grammar derives no string") => return Ok(()),
        Err(e) => return Err(e.to_string()),
    };
    let printed = g1.to_string();
    let g2 = parse_str("printed", &printed).map_err(|e| format!("{e}\n--- printed:\n{printed}"))?.grammar;
    if g2.to_string() != printed {
        return Err(format!("printed differently:\n{printed}\n---\n{g2}"));
    }
    if (g1.num_terminals(), g1.num_categories(), g1.num_left_states(), g1.num_right_states())
        != (g2.num_terminals(), g2.num_categories(), g2.num_left_states(), g2.num_right_states())
    {
        return Err("symbol counts differ".to_owned());
    }
    if (g1.left_combos().len(), g1.right_combos().len()) != (g2.left_combos().len(), g2.right_combos().len()) {
        return Err("combos differ".to_owned());
    }
    Ok(())
}

#[test]
fn shipped_grammars_round_trip() {
    for src in [tabula::grammars::PROJECTIVE, tabula::grammars::SHIFT_REDUCE, tabula::grammars::SHIFT_REDUCE_STRICT] {
        round_trips(src).unwrap();
    }
}

/// A random well-formed grammar: every terminal has one lexical rule, every
/// category (the start included) has a finish rule.
fn grammar_text() -> impl Strategy<Value = String> {
    let name = "[A-Za-z][A-Za-z0-9_'.-]{0,3}";
    (
        prop::collection::vec(name, 1..4),
        prop::collection::vec(name, 1..4),
        prop::collection::vec(name, 1..3),
        prop::collection::vec(name, 1..3),
        prop::collection::vec((0..8usize, 0..8usize, 0..8usize, 0..4u8), 0..10),
    )
        .prop_map(|(mut terminals, cats, lefts, rights, extra)| {
            terminals.sort();
            terminals.dedup();
            let pick = |v: &Vec<String>, i: usize| v[i % v.len()].clone();
            let mut out = format!("start {}\n", cats[0]);
            for (i, t) in terminals.iter().enumerate() {
                out += &format!("({}, {}) -> {t}  # lexical\n", pick(&lefts, i), pick(&rights, i + 1));
            }
            for (i, c) in cats.iter().enumerate() {
                out += &format!("{c} -> ({}, {})\n", pick(&lefts, i), pick(&rights, i));
            }
            for (x, y, z, form) in extra {
                out += &match form {
                    0 => format!("{} -> ({}, {})\n", pick(&cats, x), pick(&lefts, y), pick(&rights, z)),
                    1 => format!("(_, {}) -> (_, {}) {}\n", pick(&rights, x), pick(&rights, y), pick(&cats, z)),
                    2 => format!("({}, _) -> {} ({}, _)\n", pick(&lefts, x), pick(&cats, y), pick(&lefts, z)),
                    _ => "\n# a comment\n".to_owned(),
                };
            }
            out
        })
}

/// Lines made of the format's tokens and some stray characters.
fn garbage() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just(",".to_owned()),
        Just("->".to_owned()),
        Just("_".to_owned()),
        Just("start".to_owned()),
        Just("#".to_owned()),
        Just("\t".to_owned()),
        Just("\r".to_owned()),
        "[A-Za-z-'.]{1,3}",
        "\\PC",
    ];
    let line = prop::collection::vec(token, 0..14).prop_map(|t| t.join(" "));
    prop::collection::vec(line, 0..8).prop_map(|l| l.join("\n"))
}

proptest! {
    #[test]
    fn random_grammars_round_trip(src in grammar_text()) {
        if let Err(e) = round_trips(&src) {
            prop_assert!(false, "{}\n--- source:\n{}", e, src);
        }
    }

    #[test]
    fn symbols_in_derivations_are_never_reported_useless(src in grammar_text()) {
        analysis_is_sound(&src)?;
    }

    #[test]
    fn garbage_is_reported_never_a_panic(src in garbage()) {
        check_diagnostics(&src)?;
    }

    #[test]
    fn arbitrary_text_is_reported_never_a_panic(src in "\\PC{0,80}(\n\\PC{0,40}){0,4}") {
        check_diagnostics(&src)?;
    }
}

/// Parses `src`; every diagnostic must point into its text.
fn check_diagnostics(src: &str) -> Result<(), TestCaseError> {
    let diagnostics = match parse_str("g", src) {
        Ok(p) => p.warnings,
        Err(e) => {
            prop_assert!(e.error_count() > 0);
            e.diagnostics
        }
    };
    let lines = src.lines().count().max(1);
    for d in &diagnostics {
        prop_assert!(d.line >= 1 && d.line <= lines, "{}", d);
        let len = src.lines().nth(d.line - 1).map_or(0, |l| l.chars().count());
        prop_assert!(d.column >= 1 && d.column <= len + 1, "{}", d);
        prop_assert!(d.width >= 1);
        let _ = d.to_string();
    }
    Ok(())
}

/// A naive reference for the usefulness analysis: parse every input of up to
/// four words; the symbols of each best derivation (the categories and final
/// states of its words) and the terminals of every accepted input must not be
/// reported useless, and if the start symbol is reported unproductive no
/// input may be accepted.
fn analysis_is_sound(src: &str) -> Result<(), TestCaseError> {
    use tabula::engine::Parser;
    use tabula::grammar::analysis::{Symbol, Usefulness};
    use tabula::semiring::{MaxPlus, Semiring};

    let g = match parse_str("g", src) {
        Ok(p) => p.grammar,
        // A start symbol that derives nothing is an error (the only one these grammars can have).
        Err(e) => {
            prop_assert!(e.to_string().contains("the grammar derives no string"), "{}\n{}", e, src);
            return Ok(());
        }
    };
    let u = Usefulness::of(&g);
    let terminals: Vec<_> = g.terminals().collect();
    let mut parser = Parser::<MaxPlus>::new(&g);
    let mut inputs: Vec<Vec<_>> = vec![vec![]];
    for _ in 0..4 {
        inputs = inputs
            .iter()
            .flat_map(|i| terminals.iter().map(move |&t| i.iter().copied().chain([t]).collect::<Vec<_>>()))
            .collect();
        for input in &inputs {
            parser.parse(input, |_, _| MaxPlus::one()).unwrap();
            let Some(d) = parser.best_derivation() else { continue };
            prop_assert!(u.reachable_categories[g.start().index()], "start reported useless\n{}", src);
            for t in input {
                prop_assert!(u.reachable_terminals[t.index()], "{:?} reported useless\n{}", Symbol::Terminal(*t), src);
            }
            for w in &d.words {
                prop_assert!(u.reachable_categories[w.category.index()], "{}\n{}", g.category_name(w.category), src);
                prop_assert!(u.reachable_left[w.left.index()], "{}\n{}", g.left_state_name(w.left), src);
                prop_assert!(u.reachable_right[w.right.index()], "{}\n{}", g.right_state_name(w.right), src);
            }
        }
    }
    Ok(())
}
