//! `tabula eval GOLD PRED… --plot OUT.svg`: UAS by dependency length and by
//! distance to the root, one line per predicted file, in two panels; the
//! text output of several files one after another; the refusals (an
//! unwritable plot, a name that is not SVG, standard input read twice) and
//! `--nonprojective` on standard input.

mod common;

use common::{fails_in, scratch_in, stderr_of, tabula_in, toy_treebank};
use std::fs;

/// `text` with the HEAD of word `word` of every sentence set to `head`.
fn with_head(text: &str, word: &str, head: &str) -> String {
    text.lines()
        .map(|l| {
            let mut c: Vec<&str> = l.split('\t').collect();
            if c.len() == 10 && c[0] == word {
                c[6] = head;
            }
            c.join("\t") + "\n"
        })
        .collect()
}

/// The polylines drawn in `colour`.
fn lines(svg: &str, colour: &str) -> usize {
    svg.lines().filter(|l| l.starts_with("<polyline") && l.contains(&format!("stroke=\"{colour}\""))).count()
}

#[test]
fn the_plot_has_one_line_per_file_in_each_panel() {
    let dir = scratch_in("cli_eval_plot", "lines");
    let gold = toy_treebank(30, 5);
    fs::write(dir.join("gold.conllu"), &gold).unwrap();
    fs::write(dir.join("first.conllu"), with_head(&gold, "1", "3")).unwrap();
    fs::write(dir.join("second.conllu"), with_head(&gold, "2", "1")).unwrap();
    fs::write(dir.join("third.conllu"), &gold).unwrap();
    let o =
        tabula_in(&dir, &["eval", "gold.conllu", "first.conllu", "second.conllu", "third.conllu", "--plot", "uas.svg"]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    for name in ["first", "second", "third"] {
        assert!(text.contains(&format!("== {name}.conllu\n")), "{text}");
    }
    assert!(text.contains("all words:          UAS 100.00"), "the gold itself: {text}");
    let svg = fs::read_to_string(dir.join("uas.svg")).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..100.min(svg.len())]);
    for title in ["UAS by dependency length", "UAS by distance to the root"] {
        assert_eq!(svg.matches(title).count(), 1, "{title}");
    }
    // One legend entry per file in each panel, and one line per file in
    // each panel in its colour (plus its legend sample): 4 polylines.
    for (name, colour) in [("first.conllu", "#0072B2"), ("second.conllu", "#D55E00"), ("third.conllu", "#009E73")] {
        assert_eq!(svg.matches(name).count(), 2, "{name}");
        assert_eq!(lines(&svg, colour), 4, "{name}");
    }
    assert_eq!(lines(&svg, "#CC79A7"), 0, "no fourth series");
    // One file: the same, with one line.
    let o = tabula_in(&dir, &["eval", "gold.conllu", "first.conllu", "--plot", "one.svg", "--json"]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(json.get("breakdown").is_none(), "--plot alone adds no breakdown to the JSON");
    let svg = fs::read_to_string(dir.join("one.svg")).unwrap();
    assert_eq!((lines(&svg, "#0072B2"), lines(&svg, "#D55E00")), (4, 0));
    // Several files in JSON: a list, each with its file.
    let o = tabula_in(&dir, &["eval", "gold.conllu", "first.conllu", "third.conllu", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let list = json.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[1]["file"], "third.conllu");
}

#[test]
fn bad_plots_are_refused_before_any_work() {
    let dir = scratch_in("cli_eval_plot", "refused");
    let gold = toy_treebank(5, 6);
    fs::write(dir.join("gold.conllu"), &gold).unwrap();
    fails_in(
        &dir,
        &["eval", "gold.conllu", "gold.conllu", "--plot", "uas.png"],
        "--plot uas.png: the plot is SVG; name the file OUT.svg",
    );
    let o = tabula_in(&dir, &["eval", "gold.conllu", "gold.conllu", "--plot", "no/such/dir/uas.svg"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr_of(&o).contains("no/such/dir/uas.svg"), "{}", stderr_of(&o));
    assert!(o.stdout.is_empty(), "nothing scored before the output is known to be writable");
    fails_in(
        &dir,
        &["eval", "-", "gold.conllu", "gold.conllu"],
        "GOLD cannot be standard input with 2 PRED files: it is read once per file",
    );
    fails_in(&dir, &["eval", "-", "-"], "only one of GOLD and the PRED files can be standard input");
}

/// `--nonprojective` counts in the same pass as the scores, so a file on
/// standard input gives the same report as the file (it used to be refused:
/// the counts read each file a second time).
#[test]
fn nonprojective_reads_standard_input_as_a_file() {
    let dir = scratch_in("cli_eval_plot", "nonprojective_stdin");
    let gold = "1\ta\t_\tX\t_\t_\t3\tdep\t_\t_\n2\tb\t_\tX\t_\t_\t4\tdep\t_\t_\n\
                3\tc\t_\tX\t_\t_\t0\troot\t_\t_\n4\td\t_\tX\t_\t_\t3\tdep\t_\t_\n\n";
    fs::write(dir.join("gold.conllu"), gold).unwrap();
    let file = tabula_in(&dir, &["eval", "gold.conllu", "gold.conllu", "--nonprojective", "--json"]);
    assert!(file.status.success(), "{}", stderr_of(&file));
    let gold_path = dir.join("gold.conllu");
    let piped =
        common::tabula_with_stdin(&["eval", gold_path.to_str().unwrap(), "-", "--nonprojective", "--json"], gold);
    assert!(piped.status.success(), "{}", stderr_of(&piped));
    assert_eq!(file.stdout, piped.stdout);
    let json: serde_json::Value = serde_json::from_slice(&file.stdout).unwrap();
    // The arc 4 -> 2 passes over the root 3: non-projective, and found.
    let np = &json["nonprojective"];
    assert!(np["gold"].as_u64().unwrap() > 0, "{json}");
    assert_eq!(np["gold"], np["gold_arcs_found"]);
    assert_eq!(np["recall"], 100.0);
}

/// Regression: files without words scored 0 words with a table of zeros
/// (and exit status 0), and a length bin without sentences printed UAS
/// `0.00`; the first is an error, the second prints `-` (JSON: null).
#[test]
fn nothing_to_score_is_an_error_and_an_empty_bin_has_no_score() {
    let dir = scratch_in("cli_eval_plot", "empty");
    fs::write(dir.join("empty.conllu"), "").unwrap();
    fs::write(dir.join("comments.conllu"), "# only a comment\n\n").unwrap();
    fails_in(
        &dir,
        &["eval", "empty.conllu", "empty.conllu"],
        "empty.conllu and empty.conllu have no words: nothing to score",
    );
    // A block of comments alone is not a sentence: the reader's error.
    let comments = "comments.conllu:1: the sentence has no words (only comment lines)";
    fails_in(&dir, &["eval", "comments.conllu", "comments.conllu"], comments);
    fs::write(dir.join("short.conllu"), toy_treebank(3, 4)).unwrap();
    let o = tabula_in(&dir, &["eval", "short.conllu", "short.conllu"]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let bins: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("length")).skip(1).collect();
    assert!(bins[0].starts_with("1-10 ") && bins[0].ends_with("100.00  100.00"), "{text}");
    for bin in &bins[1..] {
        assert!(bin.ends_with("       -       -") && !bin.contains("0.00"), "{bin}");
    }
    let o = tabula_in(&dir, &["eval", "short.conllu", "short.conllu", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["by_length"][1]["scores"]["uas"], serde_json::Value::Null);
}
