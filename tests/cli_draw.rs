//! `tabula draw` and `tabula projectivize --draw`: what each output holds,
//! the filters, the errors; and (ignored by default, run by
//! `.ci/checks/draw.sh`) the layout property on every sentence of the
//! shared treebanks.

mod common;

use common::{fails_in, scratch_in, stderr_of, tabula_in};
use std::fs;
use tabula::draw::layout::layout;
use tabula::draw::{Annotated, Picture};

const SAMPLE: &str = include_str!("../data/sample.conllu");

/// `text` with HEAD and DEPREL of word `word` of sentence `sentence` (1-based) replaced.
fn with_arc(text: &str, sentence: usize, word: &str, head: &str, deprel: &str) -> String {
    let mut k = 0;
    let mut out = String::new();
    let mut in_sentence = false;
    for l in text.lines() {
        let mut c: Vec<&str> = l.split('\t').collect();
        if c.len() == 10 && !in_sentence {
            k += 1;
            in_sentence = true;
        }
        if l.is_empty() {
            in_sentence = false;
        }
        if c.len() == 10 && k == sentence && c[0] == word {
            c[6] = head;
            c[7] = deprel;
        }
        out.push_str(&(c.join("\t") + "\n"));
    }
    out
}

fn setup(name: &str) -> std::path::PathBuf {
    let dir = scratch_in("cli_draw", name);
    fs::write(dir.join("gold.conllu"), SAMPLE).unwrap();
    // Sentence 2 (demo-2): `.` attached to `Dogs` (a non-projective arc
    // over the root word); sentence 1: `a` relabelled.
    let parsed = with_arc(&with_arc(SAMPLE, 2, "3", "1", "punct"), 1, "3", "4", "nmod:poss");
    fs::write(dir.join("parsed.conllu"), parsed).unwrap();
    dir
}

fn run_ok(dir: &std::path::Path, args: &[&str]) -> String {
    let o = tabula_in(dir, args);
    assert!(o.status.success(), "{args:?}: {}", stderr_of(&o));
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn text_trees_mark_the_differences() {
    let dir = setup("text");
    let out = run_ok(&dir, &["draw", "gold.conllu", "parsed.conllu", "--text", "--differences"]);
    let headings: Vec<&str> = out.lines().filter(|l| l.starts_with("# ")).collect();
    assert_eq!(
        headings,
        [
            "# demo-1 · 1 difference · non-projective · non-projective in parsed.conllu",
            "# demo-2 · 1 difference · non-projective in parsed.conllu"
        ]
    );
    assert!(out.contains("▶ a DET det  ≠ parsed.conllu: nmod:poss\n"), "{out}");
    // Regression: gold's demo-2 is projective, parsed's is not; the heading
    // called the tree drawn non-projective. The mark now names its tree.
    assert!(out.contains("▶ . PUNCT punct  ≠ parsed.conllu: head 1 (Dogs) punct (non-projective)\n"), "{out}");
    assert!(!out.contains('\x1b'), "no colour when not on a terminal");
}

#[test]
fn html_and_svg_outputs() {
    let dir = setup("outputs");
    run_ok(&dir, &["draw", "gold.conllu", "parsed.conllu", "-o", "diff.html"]);
    let page = fs::read_to_string(dir.join("diff.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("IntersectionObserver"));
    assert!(!page.contains("https://") && !page.contains(" src="));
    assert_eq!(
        page.matches("\"demo-").count(),
        fs::read_to_string(dir.join("gold.conllu")).unwrap().matches("# sent_id").count()
    );
    run_ok(&dir, &["draw", "gold.conllu", "-o", "np.svg", "--nonprojective", "--max-words", "8"]);
    let svg = fs::read_to_string(dir.join("np.svg")).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.contains(">demo-1 · non-projective<") && !svg.contains(">demo-2"), "{svg}");
    assert!(svg.contains("class=\"a np\""));
    run_ok(&dir, &["draw", "gold.conllu", "-o", "two.svg", "--sentences", "demo-2,3"]);
    let svg = fs::read_to_string(dir.join("two.svg")).unwrap();
    assert_eq!((svg.contains(">demo-2<"), svg.contains(">demo-3 "), svg.contains(">demo-1 ")), (true, true, false));
}

#[test]
fn reads_compressed_files() {
    let dir = setup("compressed");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, SAMPLE.as_bytes()).unwrap();
    fs::write(dir.join("gold.conllu.gz"), gz.finish().unwrap()).unwrap();
    let plain = run_ok(&dir, &["draw", "gold.conllu", "--text"]);
    assert_eq!(run_ok(&dir, &["draw", "gold.conllu.gz", "--text"]), plain);
}

#[test]
fn errors_name_the_problem() {
    let dir = setup("errors");
    fs::write(dir.join("other.conllu"), SAMPLE.replacen("\tcat\t", "\tdog\t", 1)).unwrap();
    fails_in(
        &dir,
        &["draw", "gold.conllu", "other.conllu", "--text"],
        "other.conllu:7: word 4 is `dog`, but gold.conllu:7 has `cat`: the files must have the same words",
    );
    let first: String = SAMPLE.split("\n\n").take(2).collect::<Vec<_>>().join("\n\n") + "\n\n";
    fs::write(dir.join("short.conllu"), first).unwrap();
    let o = tabula_in(&dir, &["draw", "gold.conllu", "short.conllu", "--text"]);
    assert!(
        stderr_of(&o).starts_with("error: short.conllu ends after 2 sentences, but gold.conllu:"),
        "{}",
        stderr_of(&o)
    );
    fails_in(
        &dir,
        &["draw", "gold.conllu", "--text", "--sentences", "demo-1,nope"],
        "no sentence of gold.conllu has the id nope (ids are `# sent_id` values, or sentence numbers 1 to 6)",
    );
    fails_in(
        &dir,
        &["draw", "gold.conllu", "--text", "--differences"],
        "--differences keeps the sentences where the files differ: give two or more files",
    );
    fails_in(
        &dir,
        &["draw", "gold.conllu", "--text", "-o", "x.html"],
        "--text writes text trees: give -o a text file (or no -o for standard output), or leave out --text",
    );
    fails_in(
        &dir,
        &["draw", "gold.conllu"],
        "nothing to write to: give -o OUT.html (a page) or -o OUT.svg (a picture), or --text for text trees",
    );
    fails_in(
        &dir,
        &["draw", "gold.conllu", "-o", "x.png"],
        "cannot tell what to write to x.png: name it OUT.html (a page) or OUT.svg (a picture), or give --text",
    );
    fails_in(
        &dir,
        &["projectivize", "gold.conllu", "-o", "p.conllu", "--draw", "p.svg"],
        "--draw writes an HTML page: name it PICTURE.html, not p.svg",
    );
    assert!(!dir.join("p.conllu").exists());
}

#[test]
fn projectivize_draws_the_changed_trees() {
    let dir = setup("projectivize");
    for method in ["optimal", "lift"] {
        run_ok(&dir, &["projectivize", "gold.conllu", "--method", method, "-o", "p.conllu", "--draw", "moved.html"]);
        let page = fs::read_to_string(dir.join("moved.html")).unwrap();
        // The same page as `tabula draw IN OUT --differences` but for the names.
        run_ok(&dir, &["draw", "gold.conllu", "p.conllu", "--differences", "-o", "same.html"]);
        let same = fs::read_to_string(dir.join("same.html")).unwrap();
        let data = |p: &str| {
            p.split("<script type=\"application/json\">")
                .skip(1)
                .map(|c| c.split("</script>").next().unwrap().to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(data(&page), data(&same), "{method}");
        assert!(!data(&page).is_empty());
        let title = if method == "lift" { "lifting" } else { "optimal projectivization" };
        assert!(page.contains(&format!("<title>{title}: the changed trees</title>")));
    }
}

/// The layout property on every sentence of the shared treebanks: each
/// tree alone, and compared with its lifted projectivization.
#[test]
#[ignore = "needs ../shared/ud; run by .ci/checks/draw.sh"]
fn layout_property_on_shared_treebanks() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/ud/v2.2");
    let Ok(entries) = fs::read_dir(&root) else {
        eprintln!("{} is absent: nothing to check", root.display());
        return;
    };
    let mut paths: Vec<_> =
        entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "xz")).collect();
    paths.sort();
    let (mut sentences, mut arcs) = (0usize, 0usize);
    for path in paths {
        let name: std::sync::Arc<str> = path.display().to_string().into();
        let input = tabula::conllu::compressed::open(&path).unwrap();
        let mut reader = tabula::conllu::Reader::new(input, name.clone());
        let mut number = 0;
        while let Some(raw) = reader.next_raw() {
            let raw = raw.unwrap();
            number += 1;
            let gold = match Annotated::from_block(&raw, &name, number) {
                Ok(a) => a,
                Err(e) => panic!("{e}"),
            };
            let mut lifted = gold.clone();
            lifted.annotation.tree = tabula::projectivize::lift(&gold.annotation.tree);
            lifted.annotation.file = "lifted".into();
            for picture in [Picture::new(vec![gold.clone()]).unwrap(), Picture::new(vec![gold, lifted]).unwrap()] {
                let drawn = picture.arcs();
                let g = layout(&picture.words, &drawn);
                let place = format!("{name}:{}", raw.first_line);
                assert!(g.overlapping_labels().is_empty(), "{place}: labels overlap: {:?}", g.overlapping_labels());
                assert!(g.stray_ends(&drawn).is_empty(), "{place}: arcs off their words: {:?}", g.stray_ends(&drawn));
                sentences += 1;
                arcs += drawn.len();
            }
        }
    }
    eprintln!("layout checked: {sentences} pictures, {arcs} arcs");
}

#[test]
fn help_documents_formats_with_examples() {
    let dir = scratch_in("cli_draw", "help");
    let text = run_ok(&dir, &["draw", "--help"]);
    for needle in ["Input: one or more CoNLL-U files", "Output:", "Examples:", "--differences", "--text"] {
        assert!(text.contains(needle), "`tabula draw --help` lacks {needle:?}");
    }
    assert!(run_ok(&dir, &["projectivize", "--help"]).contains("--draw <PICTURE.html>"));
}

/// A text tree wider than the limit (a star of 1,002 words: 1,002 levels of
/// arcs) is refused before any of it is drawn, with what to do instead;
/// one at the limit (1,000 words) is drawn, and the page draws both.
#[test]
fn text_trees_too_wide_are_refused_with_the_way_out() {
    let dir = scratch_in("cli_draw", "too_wide");
    let star = |n: usize| {
        let mut s = String::from("# sent_id = star\n");
        for i in 1..=n {
            let (head, rel) = if i == 1 { (0, "root") } else { (1, "dep") };
            s.push_str(&format!("{i}\tw{i}\t_\tX\t_\t_\t{head}\t{rel}\t_\t_\n"));
        }
        s + "\n"
    };
    fs::write(dir.join("wide.conllu"), star(1002)).unwrap();
    fs::write(dir.join("widest.conllu"), star(1000)).unwrap();
    let o = tabula_in(&dir, &["draw", "wide.conllu", "--text", "-o", "wide.txt"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr_of(&o).trim(),
        "error: sentence star: its text tree would be 2005 columns wide (1002 levels of arcs over 1002 words), \
         more than 2001: draw it as a page or a picture instead (-o OUT.html, -o OUT.svg), or leave it out with --max-words"
    );
    assert!(!dir.join("wide.txt").exists(), "nothing written");
    let text = run_ok(&dir, &["draw", "widest.conllu", "--text"]);
    assert_eq!(text.lines().count(), 1002, "the heading, the root and 1,000 words");
    let root = text.lines().nth(1).unwrap();
    assert!(root.ends_with("─ (root)") && root.chars().count() == 2001 + "─ (root)".chars().count(), "{root:.40}");
    run_ok(&dir, &["draw", "wide.conllu", "-o", "wide.html"]);
}
