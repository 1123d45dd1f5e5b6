//! `tabula oracle`: JSON lines in and out, errors by line, and `--walk`.

mod common;

use common::tabula_with_stdin;
use std::io::Write;
use std::process::{Command, Stdio};
use tabula::oracle::{exhaustive, Configuration, Step, Strategy, System};
use tabula::tree::DepTree;

fn data(name: &str) -> String {
    format!("{}/tests/data/oracle/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn adds_steps_and_optimal_keeping_other_keys_in_order() {
    let line = r#"{"id":7,"stack":[0,3,5],"buffer":[6,7],"gold":[-1,2,0,2,5,3,5,5],"strategy":"lbr"}"#;
    let out = tabula_with_stdin(&["oracle"], line);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    // The same answer as the brute force.
    let gold = DepTree::from_heads(&[2, 0, 2, 5, 3, 5, 5]).unwrap();
    let c = Configuration::new(System::ArcStandard, &[0, 3, 5], &[6, 7], 7).unwrap();
    let s = exhaustive::step_scores(&c, &gold, Strategy::Lbr).unwrap();
    let show = |v: Option<u32>| v.map_or("null".to_string(), |v| v.to_string());
    let optimal: Vec<String> = s.optimal().iter().map(|s| format!("\"{s}\"")).collect();
    let want = format!(
        "{{\"id\":7,\"stack\":[0,3,5],\"buffer\":[6,7],\"gold\":[-1,2,0,2,5,3,5,5],\"strategy\":\"lbr\",\"final\":false,\"steps\":{{\"shift\":{},\"reduce_left\":{},\"reduce_right\":{}}},\"optimal\":[{}]}}\n",
        show(s.get(Step::Shift)),
        show(s.get(Step::ReduceLeft)),
        show(s.get(Step::ReduceRight)),
        optimal.join(",")
    );
    assert_eq!(stdout, want);
}

#[test]
fn the_strategy_option_is_the_default_and_a_line_overrides_it() {
    let base = r#"{"stack":[0,1,2],"buffer":[3],"gold":[-1,2,0,0]}"#;
    let over = r#"{"stack":[0,1,2],"buffer":[3],"gold":[-1,2,0,0],"strategy":"lbr"}"#;
    let out = tabula_with_stdin(&["oracle", "--strategy", "strict-lbr", "-"], &format!("{base}\n{over}\n"));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    let gold = DepTree::from_heads(&[2, 0, 0]).unwrap();
    let c = Configuration::new(System::ArcStandard, &[0, 1, 2], &[3], 3).unwrap();
    for (line, strategy) in lines.iter().zip([Strategy::StrictLbr, Strategy::Lbr]) {
        let s = exhaustive::step_scores(&c, &gold, strategy).unwrap();
        assert!(line.contains(&format!("\"shift\":{}", s.get(Step::Shift).unwrap())), "{line} vs {s:?}");
    }
}

#[test]
fn bad_lines_are_reported_by_number_and_good_lines_still_answered() {
    let out = tabula_with_stdin(&["oracle", &data("configurations.jsonl")], "");
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    assert!(stdout.lines().nth(1).unwrap().starts_with(r#"{"id":"rbl, keys first","strategy":"rbl","gold""#));
    // A file's errors name it; a JSON error names the file's line only (not serde's "line 1").
    let stderr = String::from_utf8(out.stderr).unwrap();
    let f = data("configurations.jsonl");
    assert_eq!(
        stderr,
        format!(
            "{f}:3: node 3 appears twice in the configuration\n\
             {f}:5: bad JSON: expected ident at column 2\n\
             {f}:6: `gold` is not a tree: the heads form a cycle through word 1\n\
             {f}:7: unknown strategy `sideways` (expected none, lbr, strict-lbr or rbl)\n\
             {f}:8: node 3 is out of range for a sentence of 2 words\n\
             error: 5 bad lines\n"
        )
    );
    // Standard input: `line N`.
    let text = std::fs::read_to_string(&f).unwrap();
    let out = tabula_with_stdin(&["oracle"], &text);
    assert!(String::from_utf8(out.stderr).unwrap().starts_with("line 3: node 3 appears twice"));
}

/// Regression: an empty input printed nothing and succeeded.
#[test]
fn an_empty_input_is_an_error() {
    let out = tabula_with_stdin(&["oracle"], "\n\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: <stdin>: no configurations (the input is empty; one JSON object per line)\n"
    );
}

#[test]
fn a_grammar_file_without_the_role_terminals_is_an_error() {
    let g = format!("{}/grammars/projective.grammar", env!("CARGO_MANIFEST_DIR"));
    let out = tabula_with_stdin(&["oracle", "--grammar", &g], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no terminal `p`"));
}

#[test]
fn the_embedded_grammar_given_as_a_file_gives_the_same_answers() {
    let g = format!("{}/grammars/shift-reduce.grammar", env!("CARGO_MANIFEST_DIR"));
    let line = r#"{"stack":[0,3,5],"buffer":[6,7],"gold":[-1,2,0,2,5,3,5,5]}"#;
    let a = tabula_with_stdin(&["oracle"], line);
    let b = tabula_with_stdin(&["oracle", "--grammar", &g], line);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn walk_prints_buckets_a_json_summary_and_a_plot() {
    let svg = std::env::temp_dir().join(format!("tabula-walk-{}.svg", std::process::id()));
    let out = tabula_with_stdin(
        &[
            "oracle",
            "--walk",
            &data("small.conllu"),
            "--stray",
            "0.3",
            "--seed",
            "3",
            "--check-agreement",
            "--projectivize",
            "--json",
            "--plot",
            svg.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let last = stdout.lines().last().unwrap();
    let v: serde_json::Value = serde_json::from_str(last).unwrap();
    assert_eq!(v["trees"], 2);
    assert_eq!(v["steps"], 20, "2n steps per tree");
    assert!(v["configurations"].as_u64().unwrap() > 0);
    assert!(v["mean_us"].as_f64().unwrap() > 0.0);
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.contains("<svg"));
    // The title names the system and the file; no yellow; no `.0` on tick labels.
    assert!(plot.contains("Mean time per configuration: arc-standard, small.conllu"), "{plot}");
    assert!(!plot.contains("#F0E442") && !plot.contains("#FFFF00"), "no yellow");
    let decimal_zero =
        |l: &str| l.strip_suffix(".0").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    assert!(!plot.lines().any(|l| decimal_zero(l.trim())), "integer tick labels");
    // (A label the x axis always has: the y axis is time, whose range
    // depends on the machine and the oracle's speed.)
    assert!(plot.lines().any(|l| l.trim() == "1"), "tick labels as text lines");
    let _ = std::fs::remove_file(svg);
}

#[test]
fn walk_errors_name_the_line() {
    let bad = std::env::temp_dir().join(format!("tabula-bad-{}.conllu", std::process::id()));
    std::fs::write(&bad, "1\ta\t_\t_\t_\t_\t0\t_\t_\t_\n2\tb\t_\t_\t_\t_\t9\t_\t_\t_\n").unwrap();
    let out = tabula_with_stdin(&["oracle", "--walk", bad.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let expected = format!("error: {}:2: HEAD 9 of word 2 is out of range 0 to 2", bad.display());
    assert_eq!(stderr.trim_end(), expected);
    let _ = std::fs::remove_file(bad);
}

/// Every reachable configuration of a gold tree, for each system, sent as
/// JSON lines with `system` and `arcs` to `tabula oracle` with `args`: every
/// answer is the brute force's, `steps` lists every step of the system.
fn every_configuration_as_the_brute_force(heads: &[usize], args: &[&str]) {
    let gold = DepTree::from_heads(heads).unwrap();
    let gold_json = format!("[-1,{}]", heads.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(","));
    // LR-spine (projective gold trees, spine steps): tests/lr_spine.rs.
    for system in System::ALL.into_iter().filter(|&s| s != System::LrSpine) {
        // Attardi and arc-eager-nm have one algorithm (auto = tabular): tests/attardi.rs, tests/arc_eager_nm.rs.
        if matches!(system, System::Attardi | System::ArcEagerNm) && !args.is_empty() {
            continue;
        }
        let mut configs = vec![Configuration::initial(system, gold.len())];
        let mut i = 0;
        while i < configs.len() {
            let c = configs[i].clone();
            for step in c.applicable_steps().collect::<Vec<_>>() {
                let mut d = c.clone();
                d.apply(step).unwrap();
                if !d.is_final() && !configs.contains(&d) {
                    configs.push(d);
                }
            }
            i += 1;
        }
        let lines: String = configs
            .iter()
            .map(|c| {
                let arcs: Vec<[usize; 2]> = c.arcs().map(|(h, d)| [h, d]).collect();
                // Arc-eager-nm right after an unshift: the word moved back, and an empty buffer.
                let (buffer, unshifted) = match c.unshifted() {
                    Some(w) => (Vec::new(), format!(",\"unshifted\":{w}")),
                    None => (c.buffer().collect::<Vec<_>>(), String::new()),
                };
                format!(
                    "{{\"system\":\"{system}\",\"stack\":{:?},\"buffer\":{buffer:?}{unshifted},\"gold\":{gold_json},\"arcs\":{arcs:?}}}\n",
                    c.stack(),
                )
            })
            .collect();
        // Strategy none: arc-standard's to choose; the others' default (their
        // strategies are all one, or only none), where --strategy is refused.
        let strategy: &[&str] = if system == System::ArcStandard { &["--strategy", "none"] } else { &[] };
        let out = tabula_with_stdin(&[&["oracle"], strategy, args].concat(), &lines);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(stdout.lines().count(), configs.len());
        for (c, line) in configs.iter().zip(stdout.lines()) {
            let s = exhaustive::step_scores(c, &gold, Strategy::None).unwrap();
            let steps: Vec<String> = system
                .steps()
                .iter()
                .map(|&st| format!("\"{st}\":{}", s.get(st).map_or("null".to_owned(), |v| v.to_string())))
                .collect();
            assert!(line.contains(&format!("\"steps\":{{{}}}", steps.join(","))), "{system}: {line} vs {s:?}");
        }
    }
}

#[test]
fn every_system_answers_json_lines_with_arcs_as_the_brute_force() {
    let non_projective = [3, 4, 0, 3, 2];
    assert!(!DepTree::from_heads(&non_projective).unwrap().is_projective());
    every_configuration_as_the_brute_force(&non_projective, &[]);
    every_configuration_as_the_brute_force(&non_projective, &["--algorithm", "cubic"]);
    let projective = [2, 0, 4, 2, 4, 2];
    assert!(DepTree::from_heads(&projective).unwrap().is_projective());
    every_configuration_as_the_brute_force(&projective, &["--algorithm", "linear"]);
    every_configuration_as_the_brute_force(&projective, &["--algorithm", "cubic"]);
}

#[test]
fn linear_on_a_non_projective_gold_tree_is_an_error_naming_the_line() {
    for system in ["arc-standard", "arc-hybrid", "arc-eager"] {
        let input = format!(
            "{{\"system\":\"{system}\",\"stack\":[0],\"buffer\":[1,2,3],\"gold\":[-1,0,0,0]}}\n\
             {{\"system\":\"{system}\",\"stack\":[0],\"buffer\":[1,2,3,4],\"gold\":[-1,3,4,0,3]}}\n"
        );
        let out = tabula_with_stdin(&["oracle", "--algorithm", "linear"], &input);
        assert_eq!(out.status.code(), Some(1), "{system}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(stdout.lines().count(), 1, "{system}: the good line is answered: {stdout}");
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            "line 2: the linear algorithm needs a projective gold tree; use cubic (or auto) for non-projective ones\nerror: 1 bad line\n"
        );
    }
}

#[test]
fn the_system_option_is_the_default_and_bad_systems_or_arcs_name_the_line() {
    let input = concat!(
        r#"{"stack":[0,1],"buffer":[2],"gold":[-1,0,1]}"#,
        "\n",
        r#"{"system":"arc-standard","stack":[0,1],"buffer":[2],"gold":[-1,0,1]}"#,
        "\n",
        r#"{"system":"arc-eager","stack":[0,1],"buffer":[2],"gold":[-1,0,1]}"#,
        "\n",
        r#"{"system":"arc-eager","stack":[0,2],"buffer":[3],"gold":[-1,0,1,2],"arcs":[[0,2]]}"#,
        "\n",
        r#"{"system":"arc-hybrid","stack":[0,1],"buffer":[2],"gold":[-1,0,1],"arcs":[[0,1]]}"#,
        "\n",
        r#"{"system":"arc-hybrid","stack":[0],"buffer":[1],"gold":[-1,0],"arcs":[1,0]}"#,
        "\n",
        r#"{"system":"arc-sideways","stack":[0],"buffer":[1],"gold":[-1,0]}"#,
        "\n",
    );
    let out = tabula_with_stdin(&["oracle", "--system", "arc-hybrid"], input);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].ends_with(r#""steps":{"shift":2,"left_arc":0,"right_arc":1},"optimal":["shift"]}"#),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].ends_with(r#""steps":{"shift":2,"reduce_left":1,"reduce_right":null},"optimal":["shift"]}"#),
        "{}",
        lines[1]
    );
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "line 3: arc-eager needs the arcs built so far (which stack words have a head) for a stack of more than the root\n\
         line 4: the arcs are inconsistent with this arc-eager configuration: word 1 has left the stack but has no head\n\
         line 5: the arcs are inconsistent with this arc-hybrid configuration: stack word 1 has head 0, but words on the stack have no head yet\n\
         line 6: `arcs` must be an array of [head, dependent] pairs of node numbers, found [1,0]\n\
         line 7: unknown system `arc-sideways` (expected arc-standard, arc-hybrid, arc-eager, lr-spine, attardi or arc-eager-nm)\n\
         error: 5 bad lines\n"
    );
}

#[test]
fn walks_run_for_every_system() {
    for system in ["arc-hybrid", "arc-eager"] {
        let out = tabula_with_stdin(
            &[
                "oracle",
                "--walk",
                &data("small.conllu"),
                "--system",
                system,
                "--algorithm",
                "cubic",
                "--stray",
                "0.5",
                "--check-agreement",
                "--json",
            ],
            "",
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).unwrap();
        // --json: the JSON line only.
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        assert!(stdout.contains(&format!("\"system\":\"{system}\"")), "{stdout}");
    }
    let out = tabula_with_stdin(
        &["oracle", "--walk", &data("small.conllu"), "--system", "arc-eager", "--algorithm", "quadratic"],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: the quadratic algorithm is not available for arc-eager (use cubic, linear or auto)\n"
    );
}

/// Regression (issue 10): one non-UTF-8 line stopped the whole run with
/// "stream did not contain valid UTF-8" and no line number.
#[test]
fn invalid_utf8_line_is_reported_and_the_rest_answered() {
    let good = r#"{"stack":[0],"buffer":[1],"gold":[-1,0]}"#;
    let mut input = Vec::new();
    input.extend_from_slice(good.as_bytes());
    input.extend_from_slice(b"\n{\"stack\":[0],\"note\":\"\xff\xfe\"}\n");
    input.extend_from_slice(good.as_bytes());
    input.extend_from_slice(b"\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .arg("oracle")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 2: not UTF-8 (invalid byte at column 22)"), "{err}");
    assert!(err.contains("error: 1 bad line"), "{err}");
}

/// Regression (issue 10): a long non-projective gold tree aborted the
/// process while allocating the cubic chart; now that line is refused with
/// the estimate and the limit, and the other lines are answered.
#[test]
fn too_large_a_line_is_refused_not_aborted() {
    let n = 3000;
    let mut heads: Vec<i64> = vec![-1, 0, 4, 1, 1];
    heads.extend(4..n as i64);
    let buffer: Vec<usize> = (1..=n).collect();
    let big = format!(r#"{{"stack":[0],"buffer":{buffer:?},"gold":{heads:?}}}"#);
    let small = r#"{"stack":[0],"buffer":[1],"gold":[-1,0]}"#;
    let out = tabula_with_stdin(&["oracle", "--max-memory", "100M"], &format!("{big}\n{small}\n"));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 1);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("line 1: "), "{err}");
    assert!(
        err.contains("the chart for 3001 terminals would need about") && err.contains("limit of 100.0 MiB"),
        "{err}"
    );
    let out = tabula_with_stdin(&["oracle", "--max-memory", "lots"], small);
    assert_eq!(out.status.code(), Some(2));
}

/// JSON mode: `--max-gamma` and `--strict-grammar` apply to the lines of
/// one system and strategy; a run in which no line used them answers every
/// line and then fails, saying so. `--walk --seed` without `--stray` is
/// refused before any work.
#[test]
fn options_no_line_used_are_errors() {
    let line = r#"{"stack":[0,3,5],"buffer":[6,7],"gold":[2,0,2,5,3,5,5]}"#;
    let strict = concat!(env!("CARGO_MANIFEST_DIR"), "/grammars/shift-reduce-strict.grammar");
    for (args, message) in [
        (
            &["oracle", "--max-gamma", "5"][..],
            "error: --max-gamma bounds Attardi's oracle, which no line used (--system arc-standard; no line with \"system\": \"attardi\")\n",
        ),
        (
            &["oracle", "--strict-grammar", strict][..],
            "error: --strict-grammar is the grammar of arc-standard's strategy strict-lbr, which no line used (--strategy lbr; no line with \"strategy\": \"strict-lbr\")\n",
        ),
    ] {
        let o = tabula_with_stdin(args, &format!("{line}\n"));
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&o.stderr), message);
        assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 1, "every line is answered");
    }
    let attardi = r#"{"stack":[0,3,5],"buffer":[6,7],"gold":[2,0,2,5,3,5,5],"system":"attardi"}"#;
    assert!(tabula_with_stdin(&["oracle", "--max-gamma", "5"], &format!("{line}\n{attardi}\n")).status.success());
    let strict_line = r#"{"stack":[0,3,5],"buffer":[6,7],"gold":[2,0,2,5,3,5,5],"strategy":"strict-lbr"}"#;
    assert!(tabula_with_stdin(&["oracle", "--strict-grammar", strict], &format!("{strict_line}\n")).status.success());
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample.conllu");
    let o = tabula_with_stdin(&["oracle", "--walk", sample, "--seed", "3"], "");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: --seed 3 draws the random steps of --stray P, and --stray is 0: no random step is taken\n"
    );
    assert!(tabula_with_stdin(&["oracle", "--walk", sample, "--seed", "3", "--stray", "0.2"], "").status.success());
}

/// A grammar file for a new strategy decides the answer: the shipped
/// shift-reduce grammar less one rule (a word on top of the stack takes no
/// second right child) gives another optimal count under `auto` than the
/// shipped one — the cubic algorithm's with the file — and an algorithm
/// that would compute the shipped grammar's answer in closed form is
/// refused; in the library, a session and one-shot calls alike.
#[test]
fn a_grammar_file_decides_the_answer() {
    use tabula::grammar::text;
    use tabula::oracle::arc_standard::cubic::{shift_reduce_strict_grammar, CubicOracle};
    use tabula::oracle::{session::OracleSession, Algorithm, Configuration, Oracle, OracleError, Strategy, System};
    use tabula::tree::DepTree;

    let shipped = include_str!("../grammars/shift-reduce.grammar");
    let variant: String =
        shipped.lines().filter(|l| !l.starts_with("(_, S) -> (_, S) S")).map(|l| format!("{l}\n")).collect();
    assert_ne!(variant.len(), shipped.len(), "one rule removed");
    let dir = std::env::temp_dir().join(format!("tabula-grammar-decides-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("variant.grammar");
    std::fs::write(&path, &variant).unwrap();
    let file = path.to_str().unwrap();
    let line = "{\"stack\":[0,3,5],\"buffer\":[6,7],\"gold\":[2,0,2,5,3,5,5]}\n";
    let answer = |args: &[&str]| {
        let o = tabula_with_stdin(args, line);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let with_file = answer(&["oracle", "--grammar", file]);
    assert!(with_file.contains("\"shift\":2"), "{with_file}");
    assert_eq!(with_file, answer(&["oracle", "--grammar", file, "--algorithm", "cubic"]));
    assert!(answer(&["oracle"]).contains("\"shift\":3"), "the shipped grammar's answer");
    // Strategy strict-lbr reads --strict-grammar: --grammar that no line
    // read is an error after the answers (it gave the shipped answer, exit 0),
    // and a walk with strict-lbr refuses it at once.
    let o = tabula_with_stdin(&["oracle", "--grammar", file, "--strategy", "strict-lbr"], line);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: --grammar is arc-standard's grammar for the strategies none, lbr and rbl, which no line used \
         (--strategy strict-lbr; strict-lbr reads --strict-grammar)\n"
    );
    let strict_line = "{\"stack\":[0,3,5],\"buffer\":[6,7],\"gold\":[2,0,2,5,3,5,5],\"strategy\":\"strict-lbr\"}\n";
    let o = tabula_with_stdin(&["oracle", "--grammar", file], &format!("{strict_line}{line}"));
    assert!(o.status.success(), "a line of lbr read it: {}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        answer(&["oracle", "--strict-grammar", file, "--strategy", "strict-lbr"]),
        with_file,
        "--strict-grammar decides strict-lbr's answer"
    );
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample.conllu");
    let o = tabula_with_stdin(&["oracle", "--walk", sample, "--grammar", file, "--strategy", "strict-lbr"], "");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: --grammar is arc-standard's grammar for the strategies none, lbr and rbl; \
         the walk uses strategy strict-lbr, whose grammar is --strict-grammar\n"
    );
    for algorithm in ["linear", "quadratic", "goldberg"] {
        let o = tabula_with_stdin(&["oracle", "--grammar", file, "--algorithm", algorithm], line);
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!("error: --grammar replaces the grammar of the cubic algorithm, which --algorithm {algorithm} does not use\n")
        );
    }
    // The library: one-shot calls and a session under auto read the file.
    let g = text::parse_str("variant.grammar", &variant).unwrap().grammar;
    let mut oracle = Oracle::with_cubic(CubicOracle::new(&g, shift_reduce_strict_grammar()).unwrap());
    assert!(oracle.has_user_grammar(System::ArcStandard, Strategy::Lbr));
    assert!(!oracle.has_user_grammar(System::ArcStandard, Strategy::StrictLbr));
    let gold = DepTree::from_heads(&[2, 0, 2, 5, 3, 5, 5]).unwrap();
    let config = Configuration::new(System::ArcStandard, &[0, 3, 5], &[6, 7], 7).unwrap();
    let auto = oracle.scores(&config, &gold, Strategy::Lbr, Algorithm::Auto).unwrap();
    assert_eq!(auto, oracle.scores(&config, &gold, Strategy::Lbr, Algorithm::Cubic).unwrap());
    assert_eq!(
        oracle.scores(&config, &gold, Strategy::Lbr, Algorithm::Linear).unwrap_err(),
        OracleError::GrammarNotRead { system: System::ArcStandard, algorithm: Algorithm::Linear }
    );
    let mut session =
        OracleSession::at(&mut oracle, gold.clone(), config.clone(), Strategy::Lbr, Algorithm::Auto).unwrap();
    assert_eq!(session.scores().unwrap(), auto);
    std::fs::remove_dir_all(&dir).ok();
}

/// A system name one or two edits from a real one is a typo: the message
/// says which was meant.
#[test]
fn a_mistyped_system_is_named() {
    let o = tabula_with_stdin(&["oracle", "--system", "arc-hybird"], "");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("unknown system `arc-hybird`: did you mean `arc-hybrid`?"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = tabula_with_stdin(&["oracle", "--system", "shift-reduce"], "");
    assert!(!String::from_utf8_lossy(&o.stderr).contains("did you mean"));
}

/// `--walk --projectivize --grammar G` under auto: every tree is projective
/// after projectivizing, yet the walk runs the cubic algorithm with G (the
/// linear one would compute the shipped grammar's steps).
#[test]
fn a_walk_with_a_grammar_file_reads_it() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample.conllu");
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/grammars/shift-reduce.grammar");
    let walk = |extra: &[&str]| {
        let args = [&["oracle", "--walk", sample, "--projectivize", "--json"][..], extra].concat();
        let o = tabula_with_stdin(&args, "");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["algorithms"].as_object().unwrap().keys().cloned().collect::<Vec<_>>()
    };
    assert_eq!(walk(&[]), ["linear"]);
    assert_eq!(walk(&["--grammar", shipped]), ["cubic"]);
}
