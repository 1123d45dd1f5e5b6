//! The README's main command: `tabula demo` on the embedded sample. Every
//! claim the demo prints is checked against the command it names, and the
//! sample's `# text` lines against its tokens.
//!
//! Regression: the demo said its last section was what `tabula projectivize
//! data/sample.conllu` writes but printed other trees (no preference among
//! the optimal ones), its header named every system but a filter dropped
//! LR-spine and Attardi, and demo-3's `# text` did not match its tokens.

mod common;

use common::tabula_with_stdin;
use serde_json::Value;
use tabula::conllu::Reader;

const SAMPLE: &str = "data/sample.conllu";

fn run(args: &[&str]) -> String {
    let out = tabula_with_stdin(args, "");
    assert!(out.status.success(), "tabula {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn stderr_of(args: &[&str]) -> String {
    let out = tabula_with_stdin(args, "");
    assert!(out.status.success(), "tabula {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stderr).unwrap()
}

fn demo() -> String {
    run(&["demo"])
}

#[test]
fn the_table_is_what_count_and_lifting_give() {
    let demo = demo();
    let count = run(&["count", SAMPLE]);
    let lifted = run(&["projectivize", "--method", "lift", SAMPLE]);
    let gold: Vec<_> = Reader::new(std::fs::read(SAMPLE).unwrap().as_slice(), SAMPLE).map(Result::unwrap).collect();
    let lifted: Vec<_> = Reader::new(lifted.as_bytes(), "lifted").map(Result::unwrap).collect();
    let rows: Vec<Vec<&str>> =
        demo.lines().filter(|l| l.starts_with("demo-")).map(|l| l.split_whitespace().collect()).collect();
    let tsv: Vec<Vec<&str>> = count.lines().skip(1).map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), tsv.len());
    assert_eq!(rows.len(), gold.len());
    for ((row, t), (g, l)) in rows.iter().zip(&tsv).zip(gold.iter().zip(&lifted)) {
        // sentence, words, non-proj, optimal kept, lift kept, optimal trees
        assert_eq!(row[0], t[1]);
        assert_eq!(row[1], t[2]);
        assert_eq!(row[2], if t[3] == "1" { "yes" } else { "no" });
        assert_eq!(row[3], t[4]);
        assert_eq!(row[4], g.tree().common_arcs(l.tree()).to_string(), "{row:?}");
        assert_eq!(row[5], t[5]);
    }
}

#[test]
fn the_attachment_scores_are_what_projectivize_stats_gives() {
    let demo = demo();
    let score = |method: &str| -> f64 {
        let stats = stderr_of(&["projectivize", "--method", method, "--stats", SAMPLE, "-o", "/dev/null"]);
        let line = stats.lines().find_map(|l| l.strip_prefix("attachment score: ")).unwrap();
        line.trim_end_matches(" %").parse().unwrap()
    };
    let tokens = stderr_of(&["projectivize", "--stats", SAMPLE, "-o", "/dev/null"]);
    let tokens = tokens.lines().find_map(|l| l.strip_prefix("tokens: ")).unwrap();
    let want = format!(
        "attachment score kept (Table 6): optimal {:.2} %, lift {:.2} % of {tokens} words",
        score("optimal"),
        score("lift")
    );
    assert!(demo.contains(&want), "{want}\n{demo}");
}

#[test]
fn the_last_section_is_what_projectivize_writes() {
    let demo = demo();
    let header = "the optimally projectivized treebank (`tabula projectivize data/sample.conllu`):\n\n";
    let at = demo.find(header).expect("the section") + header.len();
    assert_eq!(&demo[at..], run(&["projectivize", SAMPLE]));
}

/// The numbers of a list printed as `[0, 1, 2]` or `2 0 4`.
fn numbers(s: &str) -> Vec<i64> {
    s.split(|c: char| !c.is_ascii_digit()).filter(|w| !w.is_empty()).map(|w| w.parse().unwrap()).collect()
}

#[test]
fn every_system_is_shown_with_what_the_oracle_command_answers() {
    let demo = demo();
    let header = demo.lines().find(|l| l.starts_with("optimal steps")).unwrap();
    let gold: Vec<i64> = numbers(header.split("gold heads ").nth(1).unwrap().split(',').next().unwrap());
    for system in ["arc-standard", "arc-hybrid", "arc-eager", "lr-spine", "attardi"] {
        let line = demo
            .lines()
            .find(|l| l.starts_with(&format!("  {system}: ")))
            .unwrap_or_else(|| panic!("no line for {system}:\n{demo}"));
        // "  S: stack [..], input A to B: step v, step v -> optimal [..] (gold: …, heads H: …)"
        let rest = line.split_once(": ").unwrap().1;
        let (stack, rest) = rest.strip_prefix("stack ").unwrap().split_once(", input ").unwrap();
        let (input, rest) = rest.split_once(": ").unwrap();
        let (steps, rest) = rest.split_once(" -> optimal ").unwrap();
        let optimal = rest.split(" (").next().unwrap();
        let heads = match rest.split_once("heads ") {
            Some((_, h)) => numbers(h.split(':').next().unwrap()),
            None => gold.clone(),
        };
        let range = numbers(input);
        let gold_json = [vec![-1], heads].concat();
        let question = serde_json::json!({
            "system": system,
            "stack": numbers(stack),
            "buffer": (range[0]..=range[1]).collect::<Vec<_>>(),
            "gold": gold_json,
            "arcs": [],
        });
        let answer: Value = serde_json::from_str(&tabula_with_stdin_ok(&["oracle"], &question.to_string())).unwrap();
        let want: Vec<String> = answer["steps"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| format!("{k} {}", v.as_u64().map_or("n/a".to_owned(), |v| v.to_string())))
            .collect();
        assert_eq!(steps, want.join(", "), "{system}");
        let want: Vec<String> =
            answer["optimal"].as_array().unwrap().iter().map(|s| format!("{:?}", s.as_str().unwrap())).collect();
        assert_eq!(optimal, format!("[{}]", want.join(", ")), "{system}");
    }
}

fn tabula_with_stdin_ok(args: &[&str], stdin: &str) -> String {
    let out = tabula_with_stdin(args, stdin);
    assert!(out.status.success(), "tabula {args:?} < {stdin}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The text a block's tokens spell: the FORM of every token (a multiword
/// token's line instead of its words; no empty node), followed by a space
/// unless its MISC has SpaceAfter=No.
fn spelled(block: &str) -> String {
    let mut text = String::new();
    let mut covered_to = 0usize;
    for line in block.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let id = cols[0];
        if id.contains('.') {
            continue;
        }
        if let Some((_, to)) = id.split_once('-') {
            covered_to = to.parse().unwrap();
        } else if id.parse::<usize>().unwrap() <= covered_to {
            continue;
        }
        text.push_str(cols[1]);
        if !cols[9].split('|').any(|m| m == "SpaceAfter=No") {
            text.push(' ');
        }
    }
    text.trim_end().to_owned()
}

#[test]
fn every_text_comment_of_the_sample_matches_its_tokens() {
    let sample = std::fs::read_to_string(SAMPLE).unwrap();
    let blocks: Vec<&str> = sample.split("\n\n").filter(|b| b.lines().any(|l| !l.starts_with('#'))).collect();
    assert!(blocks.len() >= 6);
    for block in blocks {
        let text = block.lines().find_map(|l| l.strip_prefix("# text = ")).expect("every sentence has # text");
        assert_eq!(text, spelled(block), "{block}");
    }
    // The checker itself: a multiword token and SpaceAfter=No.
    let block =
        "1-2\tVom\t_\t_\t_\t_\t_\t_\t_\t_\n1\tvon\t_\t_\t_\t_\t0\troot\t_\t_\n2\tdem\t_\t_\t_\t_\t1\tdet\t_\t_\n\
                 3\tHaus\t_\t_\t_\t_\t1\tobj\t_\tSpaceAfter=No\n4\t.\t_\t_\t_\t_\t1\tpunct\t_\t_";
    assert_eq!(spelled(block), "Vom Haus.");
}

/// Regression: the demo showed two projectivizations of demo-1 (heads
/// 2 0 4 2 8 8 8 4 as LR-spine's gold, 2 0 4 2 2 8 8 2 in the treebank it
/// prints), and hinted `tabula projectivize --stats`, which waits on the
/// terminal for standard input.
#[test]
fn the_demo_shows_the_projectivization_tabula_projectivize_writes() {
    let demo = run(&["demo"]);
    let written = run(&["projectivize", "data/sample.conllu"]);
    let first = Reader::new(written.as_bytes(), "out").next().unwrap().unwrap();
    let heads = first.tree().to_string();
    let spine = demo.lines().find(|l| l.starts_with("  lr-spine:")).unwrap();
    assert!(spine.contains(&format!("heads {heads}:")), "{spine}\n{heads}");
    assert!(demo.contains(&written), "the treebank the demo prints is the one `tabula projectivize` writes");
    // Every command the demo suggests that reads CoNLL-U names its input.
    let suggested: Vec<&str> = demo.split('`').skip(1).step_by(2).filter(|c| c.starts_with("tabula ")).collect();
    assert!(!suggested.is_empty());
    for c in suggested {
        if ["tabula projectivize", "tabula count"].iter().any(|p| c.starts_with(p)) {
            assert!(c.contains("data/sample.conllu"), "{c}");
        }
    }
}
