use super::layout::layout;
use super::*;
use proptest::prelude::*;

const GOLD: &str = "# sent_id = s1
1\tKim\t_\tPROPN\t_\t_\t2\tnsubj\t_\t_
2\tsaw\t_\tVERB\t_\t_\t0\troot\t_\t_
3\ta\t_\tDET\t_\t_\t4\tdet\t_\t_
4\tcat\t_\tNOUN\t_\t_\t2\tobj\t_\t_
5\twhich\t_\tPRON\t_\t_\t6\tnsubj\t_\t_
6\tblack\t_\tADJ\t_\t_\t4\tacl\t_\t_
7\tyesterday\t_\tADV\t_\t_\t2\tadvmod\t_\t_

";
fn read(text: &str, file: &str) -> Annotated {
    let raw = crate::conllu::Reader::new(text.as_bytes(), file).next_raw().unwrap().unwrap();
    Annotated::from_block(&raw, &file.into(), 1).unwrap()
}

/// The gold sentence with word `d`'s head and relation replaced.
fn with(d: usize, head: usize, label: &str) -> String {
    GOLD.lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split('\t').collect();
            let h = head.to_string();
            if f.len() == 10 && f[0] == d.to_string() {
                f[6] = &h;
                f[7] = label;
            }
            f.join("\t") + "\n"
        })
        .collect()
}

#[test]
fn reads_forms_tags_heads_and_relations() {
    let a = read(GOLD, "g.conllu");
    assert_eq!(a.id, "s1");
    assert_eq!(a.words[6], Word { form: "yesterday".into(), upos: "ADV".into() });
    assert_eq!(a.annotation.tree.head(6), 4);
    assert_eq!(a.annotation.labels[5], "acl");
    assert_eq!(a.annotation.word_lines, vec![2, 3, 4, 5, 6, 7, 8]);
}

#[test]
fn a_sentence_without_id_is_named_by_its_number() {
    let raw =
        crate::conllu::Reader::new(&b"1\tHi\t_\tX\t_\t_\t0\troot\t_\t_\n\n"[..], "f").next_raw().unwrap().unwrap();
    assert_eq!(Annotated::from_block(&raw, &"f".into(), 7).unwrap().id, "7");
}

#[test]
fn bad_blocks_are_errors_with_file_and_line() {
    let cycle = "# sent_id = c\n1\tA\t_\tX\t_\t_\t0\troot\t_\t_\n2\tB\t_\tX\t_\t_\t3\tdep\t_\t_\n3\tC\t_\tX\t_\t_\t2\tdep\t_\t_\n\n";
    let raw = crate::conllu::Reader::new(cycle.as_bytes(), "g").next_raw().unwrap().unwrap();
    let e = Annotated::from_block(&raw, &"g".into(), 1).unwrap_err();
    assert_eq!(e.to_string(), "g:3: the heads form a cycle through word 2");
}

#[test]
fn different_words_are_refused_naming_both_lines() {
    let other = GOLD.replace("\tcat\t", "\tdog\t");
    let e = Picture::new(vec![read(GOLD, "g"), read(&other, "p")]).unwrap_err();
    assert_eq!(e.to_string(), "p:5: word 4 is `dog`, but g:5 has `cat`: the files must have the same words");
    let shorter: String = GOLD.lines().filter(|l| !l.starts_with("7\t")).map(|l| format!("{l}\n")).collect();

    let e = Picture::new(vec![read(GOLD, "g"), read(&shorter, "p")]).unwrap_err();
    assert_eq!(e.to_string(), "p:1: sentence s1 has 6 words, but g:1 has 7: the files must have the same words");
}

#[test]
fn arcs_of_a_comparison() {
    // p: `yesterday` attached to `black` (another head), `which` an obj (another relation).
    let p1 = with(7, 6, "nmod").replace("\t6\tnsubj", "\t6\tobj");
    // q: the same other head as p, and the gold relation of `which`.
    let q = with(7, 6, "nmod");
    let pic = Picture::new(vec![read(GOLD, "g"), read(&p1, "p"), read(&q, "q")]).unwrap();
    assert_eq!(pic.differences(), 2);
    let arcs = pic.arcs();
    // 7 arcs of the first tree and one other arc shared by p and q.
    assert_eq!(arcs.len(), 8);
    let of = |d: usize| arcs.iter().filter(|a| a.dependent == d).collect::<Vec<_>>();
    assert_eq!(of(7)[0].kind, ArcKind::Replaced);
    assert_eq!((of(7)[1].head, of(7)[1].kind, of(7)[1].label.as_str()), (6, ArcKind::Other(1), "nmod"));
    assert_eq!(pic.arc_title(of(7)[1]), "black → yesterday: nmod in p, q");
    assert_eq!(pic.arc_title(of(5)[0]), "black → which: nsubj in g, q; obj in p");
    assert_eq!(pic.arc_title(of(7)[0]), "saw → yesterday: advmod in g");
    assert_eq!((of(5)[0].label.as_str(), of(5)[0].label_differs, of(5)[0].kind), ("nsubj/obj", true, ArcKind::Plain));
    assert!(of(1).iter().all(|a| a.kind == ArcKind::Plain && !a.label_differs));
    let one = Picture::new(vec![read(GOLD, "g")]).unwrap();
    assert_eq!((one.differences(), one.arcs().len()), (0, 7));
}

#[test]
fn nonprojective_arcs_are_marked() {
    // `a` (3) under `black` (6): the arc 6 → 3 spans `cat` (4), which is not under `black`.
    let np = with(3, 6, "det");
    let pic = Picture::new(vec![read(&np, "g")]).unwrap();
    assert!(pic.is_nonprojective());
    let marked: Vec<usize> = pic.arcs().iter().filter(|a| a.nonprojective).map(|a| a.dependent).collect();
    let reference = crate::projectivize::pseudo::nonprojective_words(&pic.annotations[0].tree);
    assert_eq!(marked, reference);
    assert!(marked.contains(&3));
    assert!(!Picture::new(vec![read(GOLD, "g")]).unwrap().is_nonprojective());
}

#[test]
fn filters() {
    let pic = Picture::new(vec![read(GOLD, "g"), read(&with(7, 4, "advmod"), "p")]).unwrap();
    let keeps = |f: Filter| f.keeps(&pic, 3);
    assert!(keeps(Filter::default()));
    assert!(keeps(Filter { ids: Some(vec!["s1".into()]), ..Filter::default() }));
    assert!(keeps(Filter { ids: Some(vec!["3".into()]), ..Filter::default() }));
    assert!(!keeps(Filter { ids: Some(vec!["s2".into()]), ..Filter::default() }));
    assert!(keeps(Filter { differences: true, ..Filter::default() }));
    assert!(!keeps(Filter { nonprojective: true, ..Filter::default() }));
    assert!(!keeps(Filter { max_words: Some(6), ..Filter::default() }));
    assert!(keeps(Filter { max_words: Some(7), ..Filter::default() }));
}

#[test]
fn right_to_left_scripts_are_laid_out_right_to_left() {
    let words = |forms: &[&str]| forms.iter().map(|f| Word { form: (*f).into(), upos: "X".into() }).collect::<Vec<_>>();
    let hebrew = words(&["הוא", "ראה", "את", "הכלב"]);
    assert!(is_right_to_left(&hebrew));
    assert!(is_right_to_left(&words(&["رأى", "الكلب", "5"])));
    assert!(!is_right_to_left(&words(&["He", "saw", "the", "dog"])));
    assert!(!is_right_to_left(&words(&["他", "看见", "狗"])));
    let g = layout(&hebrew, &[]);
    assert!(g.right_to_left);
    assert!((1..4).all(|i| g.words[i].x < g.words[i - 1].x), "word 1 rightmost: {:?}", g.words);
    let g = layout(&words(&["He", "saw", "the", "dog"]), &[]);
    assert!((1..4).all(|i| g.words[i].x > g.words[i - 1].x));
}

#[test]
fn wide_characters_take_two_columns() {
    assert_eq!(layout::text_width("狗", 8), 16);
    assert_eq!(layout::text_width("do", 8), 16);
}

/// Random trees: each word, in a random order, takes as head the root or
/// a word placed before it.
fn tree_strategy(max: usize) -> impl Strategy<Value = Vec<usize>> {
    (1..=max).prop_flat_map(|n| {
        (Just(n), Just((1..=n).collect::<Vec<usize>>()).prop_shuffle(), proptest::collection::vec(0.0f64..1.0, n))
            .prop_map(|(n, order, picks)| {
                let mut heads = vec![0; n];
                for (k, &d) in order.iter().enumerate() {
                    heads[d - 1] = if k == 0 { 0 } else { order[(picks[k] * k as f64) as usize % k] };
                }
                heads
            })
    })
}

fn annotated(heads: &[usize], labels: &[String], forms: &[String], file: &str) -> Annotated {
    let n = heads.len();
    Annotated {
        id: "t".into(),
        words: forms.iter().map(|f| Word { form: f.clone(), upos: "NOUN".into() }).collect(),
        annotation: Annotation {
            file: file.into(),
            first_line: 1,
            word_lines: (1..=n).collect(),
            tree: DepTree::from_heads(heads).unwrap(),
            labels: labels.to_vec(),
        },
    }
}

/// The levels as the layout found them before [`super::levels`]: each arc
/// compared with every arc placed before it, O(a²). The reference of the
/// layout's levels.
fn scanned_levels(arcs: &[DrawnArc], g: &layout::Geometry) -> Vec<i32> {
    let n = g.words.len();
    let slot = |d: usize| if g.right_to_left { n - d } else { d - 1 };
    let span = |a: &DrawnArc| {
        let (p, q) = (slot(if a.head == 0 { a.dependent } else { a.head }), slot(a.dependent));
        (p.min(q), p.max(q))
    };
    let mut order: Vec<usize> = (0..arcs.len()).collect();
    order.sort_by_key(|&i| {
        let (lo, hi) = span(&arcs[i]);
        (arcs[i].head == 0, hi - lo, lo)
    });
    let mut level = vec![0i32; arcs.len()];
    let mut placed: Vec<usize> = Vec::new();
    let mut highest = 0;
    for &i in &order {
        let a = &arcs[i];
        let (lo, hi) = span(a);
        let (lx, lw) = (g.arcs[i].label.x, g.arcs[i].label.w);
        let mut at = if a.head == 0 { highest + 1 } else { 1 };
        for &j in &placed {
            let (plo, phi) = span(&arcs[j]);
            if arcs[j].head != 0 && lo <= plo && phi <= hi {
                at = at.max(level[j] + 1);
            }
        }
        let clashes = |at: i32| {
            placed.iter().any(|&j| {
                let (plo, phi) = span(&arcs[j]);
                let along = arcs[j].head != 0 && a.head != 0 && plo.max(lo) < phi.min(hi);
                let (jx, jw) = (g.arcs[j].label.x, g.arcs[j].label.w);
                level[j] == at && (along || (jx < lx + lw + layout::LABEL_GAP && lx < jx + jw + layout::LABEL_GAP))
            })
        };
        while clashes(at) {
            at += 1;
        }
        level[i] = at;
        highest = highest.max(at);
        placed.push(i);
    }
    level
}

/// The text trees' levels as they were found before [`super::levels`],
/// O(a²): the reference of [`text::levels`].
fn scanned_text_levels(spans: &[(usize, usize)]) -> Vec<usize> {
    let mut level = vec![0usize; spans.len()];
    for i in 0..spans.len() {
        let (lo, hi) = spans[i];
        let mut at = 1;
        for j in 0..i {
            if lo <= spans[j].0 && spans[j].1 <= hi {
                at = at.max(level[j] + 1);
            }
        }
        while (0..i).any(|j| level[j] == at && spans[j].0.max(lo) <= spans[j].1.min(hi)) {
            at += 1;
        }
        level[i] = at;
    }
    level
}

/// The non-projective words as found before the sparse tables: every word
/// under each arc tested, O(n²).
fn scanned_nonprojective_words(tree: &DepTree) -> Vec<usize> {
    let below = |a: usize, mut b: usize| loop {
        if b == a {
            return true;
        }
        if b == 0 {
            return false;
        }
        b = tree.head(b);
    };
    (1..=tree.len())
        .filter(|&d| {
            let h = tree.head(d);
            (h.min(d) + 1..h.max(d)).any(|k| !below(h, k))
        })
        .collect()
}

fn check_geometry(p: &Picture) -> Result<(), TestCaseError> {
    let arcs = p.arcs();
    let g = layout(&p.words, &arcs);
    let levels: Vec<i32> = g.arcs.iter().map(|a| a.level).collect();
    prop_assert_eq!(levels, scanned_levels(&arcs, &g), "levels differ from the scan's");
    for a in &p.annotations {
        prop_assert_eq!(
            crate::projectivize::pseudo::nonprojective_words(&a.tree),
            scanned_nonprojective_words(&a.tree)
        );
    }
    let first = &p.annotations[0].tree;
    let mut spans: Vec<(usize, usize)> = (1..=p.len()).map(|d| (first.head(d).min(d), first.head(d).max(d))).collect();
    spans.sort_by_key(|&(lo, hi)| (hi - lo, lo));
    prop_assert_eq!(text::levels(&spans), scanned_text_levels(&spans));
    prop_assert!(g.overlapping_labels().is_empty(), "labels overlap: {:?}", g.overlapping_labels());
    prop_assert!(g.stray_ends(&arcs).is_empty(), "arcs off their words: {:?}", g.stray_ends(&arcs));
    // Nesting: an arc strictly inside another's span is lower.
    for (i, a) in arcs.iter().enumerate() {
        for (j, b) in arcs.iter().enumerate() {
            if a.head == 0 || b.head == 0 {
                continue;
            }
            let (alo, ahi) = (a.head.min(a.dependent), a.head.max(a.dependent));
            let (blo, bhi) = (b.head.min(b.dependent), b.head.max(b.dependent));
            if alo <= blo && bhi <= ahi && (alo, ahi) != (blo, bhi) {
                prop_assert!(g.arcs[j].level < g.arcs[i].level);
            }
        }
        if a.head == 0 {
            prop_assert!(arcs.iter().zip(&g.arcs).all(|(b, q)| b.head == 0 || q.level < g.arcs[i].level));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    /// The layout property on random trees, words and labels, compared
    /// with up to two other random trees of the same words, left to right
    /// and right to left.
    #[test]
    fn labels_never_overlap_and_arcs_end_over_their_words(
        trees in proptest::collection::vec(tree_strategy(14), 1..=3),
        lengths in proptest::collection::vec((1usize..12, 1usize..14), 14),
        rtl in any::<bool>(),
    ) {
        let n = trees[0].len();
        let forms: Vec<String> = (0..n).map(|i| if rtl { "א".repeat(lengths[i].0) } else { "x".repeat(lengths[i].0) }).collect();
        let annotated: Vec<Annotated> = trees
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let heads: Vec<usize> = if t.len() == n { t.clone() } else { trees[0].clone() };
                let labels: Vec<String> = (0..n).map(|i| "r".repeat((lengths[i].1 + k) % 13 + 1)).collect();
                annotated(&heads, &labels, &forms, &format!("f{k}"))
            })
            .collect();
        let p = Picture::new(annotated).unwrap();
        check_geometry(&p)?;
        prop_assert_eq!(layout(&p.words, &p.arcs()).right_to_left, rtl);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]
    /// As above on longer sentences (deeper nesting, more crossings), where
    /// the levels' search structures do more than scan a few arcs.
    #[test]
    fn long_sentences_are_laid_out_as_by_the_scan(
        trees in proptest::collection::vec(tree_strategy(80), 1..=3),
        lengths in proptest::collection::vec((1usize..6, 1usize..9), 80),
    ) {
        let n = trees[0].len();
        let forms: Vec<String> = (0..n).map(|i| "x".repeat(lengths[i].0)).collect();
        let annotated: Vec<Annotated> = trees
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let heads: Vec<usize> = if t.len() == n { t.clone() } else { trees[0].clone() };
                let labels: Vec<String> = (0..n).map(|i| "r".repeat((lengths[i].1 + k) % 9 + 1)).collect();
                annotated(&heads, &labels, &forms, &format!("f{k}"))
            })
            .collect();
        check_geometry(&Picture::new(annotated).unwrap())?;
    }
}

/// A chain of `n` words (each headed by its neighbour towards the middle
/// word, the root), as one annotated sentence.
fn chain(n: usize) -> Annotated {
    let r = n / 2 + 1;
    let heads: Vec<usize> = (1..=n)
        .map(|i| {
            if i == r {
                0
            } else if i < r {
                i + 1
            } else {
                i - 1
            }
        })
        .collect();
    let labels = vec!["dep".to_string(); n];
    let forms: Vec<String> = (1..=n).map(|i| format!("w{i}")).collect();
    annotated(&heads, &labels, &forms, "chain")
}

/// Regression: the layout compared each arc with every arc placed before
/// it, so one long sentence took quadratic time (a 50,000-word chain
/// took 26 s). Not timed here: the levels of a long chain and of a long star
/// are checked, which the scan could not do in a test's time.
#[test]
fn long_chains_and_stars_are_laid_out() {
    let n = 10_000;
    let p = Picture::new(vec![chain(n)]).unwrap();
    let arcs = p.arcs();
    let g = layout(&p.words, &arcs);
    assert!(g.arcs.iter().zip(&arcs).all(|(place, a)| a.head == 0 || place.level <= 2), "neighbours stay low");
    assert!(g.overlapping_labels().is_empty());
    let text = text::picture_text(&p, false).unwrap();
    assert_eq!(text.lines().count(), n + 2);
    // A star: every word under word 1, nested n - 1 deep.
    let heads: Vec<usize> = (1..=n).map(|i| if i == 1 { 0 } else { 1 }).collect();
    let star = annotated(&heads, &vec!["r".into(); n], &vec!["x".into(); n], "star");
    let p = Picture::new(vec![star]).unwrap();
    let g = layout(&p.words, &p.arcs());
    assert_eq!(g.arcs.iter().map(|a| a.level).max(), Some(n as i32));
}

/// Regression: drawing a projective tree against a non-projective one
/// (`tabula draw parsed.conllu gold.conllu`) headed the picture of the
/// projective tree `non-projective`, and the page listed it as `np`: the
/// mark meant the other file's tree. Each mark now names its tree.
#[test]
fn nonprojective_marks_name_the_tree_they_are_about() {
    let np = with(3, 6, "det");
    let projective_first = Picture::new(vec![read(GOLD, "parsed"), read(&np, "gold")]).unwrap();
    assert_eq!(projective_first.nonprojective_annotations(), vec![1]);
    assert!(projective_first.is_nonprojective(), "the filter keeps a non-projective tree in any file");
    assert_eq!(svg::heading(&projective_first), "s1 · 1 difference · non-projective in gold");
    let text = text::picture_text(&projective_first, false).unwrap();
    assert!(text.starts_with("# s1 · 1 difference · non-projective in gold\n"), "{text}");
    // The drawn tree's words are not marked; gold's non-projective arc is, in its note.
    assert!(text.contains("▶ a DET det  ≠ gold: head 6 (black) det (non-projective)\n"), "{text}");
    assert_eq!(text.matches("(non-projective)").count(), 1, "{text}");
    assert!(!text.contains(['┃', '━']), "no heavy line in a projective tree: {text}");
    let svg = svg::picture_svg(&projective_first);
    assert_eq!(svg.matches("class=\"a np").count(), 0, "{svg}");
    assert_eq!(svg.matches("class=\"a o0 np\"").count(), 1, "gold's arc 6 → 3: {svg}");
    let entry: serde_json::Value = serde_json::from_str(&html::entry(&projective_first)).unwrap();
    assert_eq!(entry[2], serde_json::json!([1]));

    // The other way round: the drawn tree is the non-projective one.
    let np_first = Picture::new(vec![read(&np, "gold"), read(GOLD, "parsed")]).unwrap();
    assert_eq!(svg::heading(&np_first), "s1 · 1 difference · non-projective");
    let entry: serde_json::Value = serde_json::from_str(&html::entry(&np_first)).unwrap();
    assert_eq!(entry[2], serde_json::json!([0]));
    assert!(text::picture_text(&np_first, false)
        .unwrap()
        .contains("▶ a DET det (non-projective)  ≠ parsed: head 4 (cat) det\n"));
    let both = Picture::new(vec![read(&np, "a"), read(&np, "b"), read(GOLD, "c")]).unwrap();
    assert_eq!(svg::heading(&both), "s1 · 1 difference · non-projective · non-projective in b");
}

/// Regression: the text trees drew a non-projective arc as every other
/// (in colour only on a terminal): its lines are now heavy, and only its.
#[test]
fn text_trees_draw_nonprojective_arcs_heavy() {
    let np = with(3, 6, "det");
    let text = text::picture_text(&Picture::new(vec![read(&np, "g")]).unwrap(), false).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let heavy =
        |l: &str| l.chars().filter(|&c| ('\u{2500}'..='\u{254b}').contains(&c) && !"─│┬┴┼├┤╭╮╯╰".contains(c)).count();
    // The arc black (6) → a (3) runs over the rows of words 3 to 6 (lines 4 to 7).
    let rows: Vec<usize> = (0..lines.len()).filter(|&r| heavy(lines[r]) > 0).collect();
    assert_eq!(rows, vec![4, 5, 6, 7], "{text}");
    assert!(lines[4].contains("▶ a DET det (non-projective)"), "{text}");
    assert!(lines[7].ends_with("▶ black ADJ acl"), "{text}");
}

/// Regression: a sentence id longer than its diagram was cut at the SVG's
/// right edge (and the page's sentence list cut ids to its width).
#[test]
fn long_ids_are_shown_whole() {
    let id = format!("a-very-long-sentence-id-{}", "x".repeat(200));
    let text = GOLD.replace("# sent_id = s1", &format!("# sent_id = {id}"));
    let p = Picture::new(vec![read(&text, "g")]).unwrap();
    let svg = svg::picture_svg(&p);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let width: i32 = doc.root_element().attribute("width").unwrap().parse().unwrap();
    let heading = doc.descendants().find(|n| n.has_tag_name("text") && n.attribute("class") == Some("hd")).unwrap();
    assert_eq!(heading.text(), Some(id.as_str()));
    let x: i32 = heading.attribute("x").unwrap().parse().unwrap();
    assert!(x + layout::text_width(&id, layout::FORM_CHAR) <= width, "{width}");
    // The page's list wraps an id rather than cutting it.
    let page = html::document(&[p], &["g".into()], "t");
    let list_rule = page.lines().find(|l| l.starts_with("#list a{")).unwrap();
    assert!(list_rule.contains("overflow-wrap:anywhere") && !list_rule.contains("ellipsis"), "{list_rule}");
    assert!(!list_rule.contains("nowrap"), "{list_rule}");
}

/// Compares `actual` with the file under tests/golden/draw/, or writes it
/// with `TABULA_BLESS=1`.
fn golden(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/draw").join(name);
    if std::env::var_os("TABULA_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (TABULA_BLESS=1 writes it)", path.display()));
    assert_eq!(actual, expected, "{name} differs from the golden file (TABULA_BLESS=1 rewrites it)");
}

fn comparison() -> Picture {
    let parsed = with(7, 6, "nmod").replace("\t6\tnsubj", "\t6\tobj");
    let gold = with(3, 6, "det");
    Picture::new(vec![read(&gold, "gold"), read(&parsed, "parsed")]).unwrap()
}

#[test]
fn golden_svg() {
    golden("comparison.svg", &svg::picture_svg(&comparison()));
    golden("one.svg", &svg::picture_svg(&Picture::new(vec![read(GOLD, "g")]).unwrap()));
}

#[test]
fn golden_text() {
    golden("comparison.txt", &text::picture_text(&comparison(), false).unwrap());
    golden("one.txt", &text::picture_text(&Picture::new(vec![read(GOLD, "g")]).unwrap(), false).unwrap());
}

#[test]
fn html_is_self_contained_and_its_data_cannot_end_the_script() {
    let tricky = GOLD.replace("\tcat\t", "\t</script><b>\t");
    let p = Picture::new(vec![read(&tricky, "a</script>")]).unwrap();
    let page = html::document(&[p], &["a</script>".into()], "t");
    assert_eq!(page.matches("</script>").count(), 5, "only the scripts' ends");
    assert!(!page.contains("http://") && !page.contains("https://") && !page.contains(" src="), "no network access");
    let data = |at: &str| page.split(at).nth(1).unwrap().split("</script>").next().unwrap().to_owned();
    let chunk = data("<script type=\"application/json\">[");
    let sentences: serde_json::Value = serde_json::from_str(&format!("[{chunk}")).unwrap();
    assert_eq!(sentences[0][6][4 * 3 - 2], "</script><b>");
    let files: serde_json::Value = serde_json::from_str(&data("id=\"files\">")).unwrap();
    assert_eq!(files[0], "a</script>");
}

/// Terminal escapes a field may hold: OSC 52 (sets the clipboard), a CSI
/// that clears the screen, a one-character C1 CSI, a backspace.
const HOSTILE: [&str; 4] = ["\u{1b}]52;c;aGk=\u{7}", "\u{1b}[2J", "\u{9b}31m", "\u{8}"];
const HOSTILE_SHOWN: [&str; 4] = ["\\x1b]52;c;aGk=\\x07", "\\x1b[2J", "\\x9b31m", "\\x08"];

/// The gold sentence with a hostile sent_id, FORM (word 1), UPOS (word 2)
/// and DEPREL (word 4).
fn hostile() -> String {
    GOLD.replace("s1", HOSTILE[0])
        .replace("\tKim\t", &format!("\t{}\t", HOSTILE[1]))
        .replace("\tVERB\t", &format!("\t{}\t", HOSTILE[3]))
        .replace("\tobj\t", &format!("\t{}\t", HOSTILE[2]))
}

/// Regression: FORM, UPOS, DEPREL and sent_id reached the terminal as they
/// were in `draw --text`, so a treebank could set the clipboard (OSC 52),
/// clear the screen or retitle the window.
#[test]
fn terminal_escapes_in_fields_are_shown_not_sent() {
    let h = hostile();
    let other = h.replace(&format!("\t{}\t", HOSTILE[2]), "\tnmod\t").replace("\t4\tdet\t", "\t2\tdet\t");
    let pic = Picture::new(vec![read(&h, "g"), read(&other, "p\u{1b}[1m")]).unwrap();
    for colour in [false, true] {
        let mut out = text::picture_text(&pic, colour).unwrap();
        for shown in HOSTILE_SHOWN {
            assert!(out.contains(shown), "{shown} not in {out}");
        }
        assert!(out.contains("≠ p\\x1b[1m: "), "the file name too: {out}");
        // What is left after the colours: no control character but newlines.
        for code in ["\u{1b}[1;38;5;166m", "\u{1b}[38;5;25m", "\u{1b}[0m"] {
            out = out.replace(code, "");
        }
        assert!(!out.contains(|c: char| c.is_control() && c != '\n'), "{out:?}");
    }
    // Messages quoting a FORM or an id.
    let changed = h.replace(&format!("\t{}\t", HOSTILE[1]), &format!("\t{}\t", HOSTILE[2]));
    let e = Picture::new(vec![read(&h, "g"), read(&changed, "p")]).unwrap_err().to_string();
    assert_eq!(e, "p:2: word 1 is `\\x9b31m`, but g:2 has `\\x1b[2J`: the files must have the same words");
    let shorter: String = h.lines().filter(|l| !l.starts_with("7\t")).map(|l| format!("{l}\n")).collect();
    let e = Picture::new(vec![read(&h, "g"), read(&shorter, "p")]).unwrap_err().to_string();
    assert!(e.starts_with("p:1: sentence \\x1b]52;c;aGk=\\x07 has 6 words"), "{e}");
    // A file name is shown the same way, in the drawing's messages and the reader's.
    let e = Picture::new(vec![read(&h, "g"), read(&changed, "p\u{9b}2J")]).unwrap_err().to_string();
    assert!(e.starts_with("p\\x9b2J:2: word 1 is "), "{e}");
    let raw = crate::conllu::Reader::new(&b"1\ta\t_\tX\t_\t_\tx\troot\t_\t_\n\n"[..], "b\u{1b}[2J")
        .next_raw()
        .unwrap()
        .unwrap();
    let e = Annotated::from_block(&raw, &"b\u{1b}[2J".into(), 1).unwrap_err().to_string();
    assert_eq!(e, "b\\x1b[2J:1: HEAD `x` is not a non-negative integer");
}

/// Regression: one U+0001 in a FORM made the SVG not well-formed XML (a
/// browser showed nothing).
#[test]
fn a_control_character_leaves_the_svg_well_formed_and_visible() {
    let text = GOLD.replace("\tKim\t", "\tK\u{1}m\t").replace("\tcat\t", "\t'&<\"\u{fffe}>\t");
    let pic = Picture::new(vec![read(&text, "g"), read(&with(7, 6, "nmod"), "p")]);
    // The words differ: the error quotes them visibly.
    assert!(pic.unwrap_err().to_string().contains("`K\\x01m`"));
    let pic = Picture::new(vec![
        read(&text, "g"),
        read(&with(7, 6, "nmod").replace("\tKim\t", "\tK\u{1}m\t").replace("\tcat\t", "\t'&<\"\u{fffe}>\t"), "p"),
    ])
    .unwrap();
    let svg = svg::picture_svg(&pic);
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{e}: {svg}"));
    let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
    assert!(texts.contains(&"K\\x01m"), "{texts:?}");
    assert!(texts.contains(&"'&<\"\\u{fffe}>"), "{texts:?}");
    assert!(texts.iter().any(|t| t.starts_with("saw → K\\x01m: ")), "arc titles too: {texts:?}");
}

/// The characters a field's text is drawn from in [`pictures_of_any_fields_are_well_formed`]:
/// any character, often a control character, a noncharacter or one XML escapes.
fn field_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => any::<char>(),
        3 => (0u32..0x20).prop_map(|c| char::from_u32(c).unwrap_or('?')),
        2 => (0x7fu32..0xa0).prop_map(|c| char::from_u32(c).unwrap_or('?')),
        1 => prop::sample::select(vec!['&', '<', '>', '"', '\'', ';', '\u{fffe}', '\u{ffff}', '\u{fffd}', ']', '\\']),
    ]
}

/// Text a CoNLL-U field can hold: no tab, line feed or carriage return,
/// `_` for nothing.
fn field_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(field_char(), 0..8).prop_map(|cs| {
        let s: String = cs.into_iter().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect();
        if s.trim().is_empty() {
            "_".into()
        } else {
            s
        }
    })
}

/// Checks the three pictures of `pictures` (and of each alone).
fn check_pictures(pictures: &[Picture], files: &[String]) -> Result<(), TestCaseError> {
    let svg = svg::document(pictures);
    if let Err(e) = roxmltree::Document::parse(&svg) {
        return Err(TestCaseError::fail(format!("SVG not well-formed: {e}\n{svg:?}")));
    }
    for p in pictures {
        let one = svg::picture_svg(p);
        prop_assert!(roxmltree::Document::parse(&one).is_ok(), "{one:?}");
    }
    let text = text::document(pictures, false).unwrap();
    prop_assert!(!text.contains(|c: char| crate::shown::is_hidden(c) && c != '\n'), "{text:?}");
    let page = html::document(pictures, files, &files.join(" "));
    prop_assert!(!page.contains(|c: char| crate::shown::is_hidden(c) && c != '\n'), "{page:?}");
    // The data of the page is JSON.
    for chunk in page.split("<script type=\"application/json\">[").skip(1) {
        let data = chunk.split("</script>").next().unwrap_or_default();
        prop_assert!(serde_json::from_str::<serde_json::Value>(&format!("[{data}")).is_ok(), "{data:?}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Whatever the fields hold (control characters, `&`, `<`, quotes,
    /// U+FFFE), the SVG is well-formed XML and neither the text trees nor
    /// the HTML page hold a control character other than newline.
    #[test]
    fn pictures_of_any_fields_are_well_formed(
        heads in tree_strategy(5),
        heads2 in tree_strategy(5),
        fields in proptest::collection::vec((field_text(), field_text(), field_text(), field_text(), field_text()), 5),
        other in field_text(),
        comments in (field_text(), field_text()),
        file in field_text(),
    ) {
        let mut text = format!("# sent_id = {}\n# text = {}\n", comments.0, comments.1);
        for (i, &h) in heads.iter().enumerate() {
            let (form, lemma, upos, deprel, misc) = &fields[i];
            text.push_str(&format!("{}\t{form}\t{lemma}\t{upos}\t_\t_\t{h}\t{deprel}\t_\t{misc}\n", i + 1));
        }
        text.push('\n');
        let raw = crate::conllu::Reader::new(text.as_bytes(), file.as_str()).next_raw();
        let Some(Ok(raw)) = raw else { return Err(TestCaseError::reject("not read")) };
        let first = match Annotated::from_block(&raw, &file.as_str().into(), 1) {
            Ok(a) => a,
            Err(_) => return Err(TestCaseError::reject("not a sentence")),
        };
        // A second annotation: another relation for word 1, and the other
        // tree where it has as many words.
        let mut second = first.clone();
        if heads2.len() == heads.len() {
            second.annotation.tree = DepTree::from_heads(&heads2).unwrap();
        }
        second.annotation.file = other.as_str().into();
        second.annotation.labels[0] = other.clone();
        let one = Picture::new(vec![first.clone()]).unwrap();
        let two = Picture::new(vec![first, second]).unwrap();
        let files = vec![file.clone(), other.clone()];
        check_pictures(std::slice::from_ref(&one), &files[..1])?;
        check_pictures(&[one, two], &files)?;
    }
}
