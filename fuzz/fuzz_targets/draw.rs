//! The picture writers on any field text: the input's bytes become a small
//! CoNLL-U sentence (its first byte the number of words, the next ones
//! their heads, the rest split at byte 0xFE into `# sent_id`, `# text`,
//! then FORM, LEMMA, UPOS, DEPREL and MISC of each word, then another
//! relation for word 1 and a second file name), or, when the first byte's
//! high bit is set, are read as they are as a CoNLL-U file. Every sentence
//! read is drawn alone and compared with a second annotation, in every
//! format: the SVG is well-formed XML, the text trees (with and without
//! colour, the colours taken out) hold no control character but newline,
//! the HTML page none at all but newline; and no error message holds a
//! control character.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::draw::{html, svg, text, Annotated, Picture};
use tabula::tree::DepTree;

/// Whether `s` holds a character that a terminal or XML would not show.
fn hidden(s: &str) -> bool {
    s.contains(|c: char| tabula::shown::is_hidden(c) && c != '\n')
}

/// The colours of the text trees, taken out before checking them.
const COLOURS: [&str; 3] = ["\u{1b}[1;38;5;166m", "\u{1b}[38;5;25m", "\u{1b}[0m"];

fn check(pictures: &[Picture], files: &[String]) {
    let svg = svg::document(pictures);
    if let Err(e) = roxmltree::Document::parse(&svg) {
        panic!("the SVG is not well-formed: {e}\n{svg:?}");
    }
    for colour in [false, true] {
        // Too wide a tree is refused before any of it is drawn.
        let Ok(mut out) = text::document(pictures, colour) else { continue };
        for code in COLOURS {
            out = out.replace(code, "");
        }
        assert!(!hidden(&out), "a control character in the text: {out:?}");
    }
    let page = html::document(pictures, files, &files.join(" "));
    assert!(!hidden(&page), "a control character in the page: {page:?}");
}

/// A field from the input: no tab or line end, `_` for nothing.
fn field(bytes: &[u8]) -> String {
    let s: String = String::from_utf8_lossy(bytes).chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect();
    if s.trim().is_empty() {
        "_".into()
    } else {
        s
    }
}

/// The sentence the input describes (see the module doc).
fn sentence(data: &[u8]) -> (Vec<u8>, String, String) {
    let n = usize::from(data.first().copied().unwrap_or(0) % 6) + 1;
    let heads: Vec<usize> = (0..n).map(|i| data.get(1 + i).map_or(0, |&b| usize::from(b) % (n + 1))).collect();
    let rest = data.get(1 + n..).unwrap_or_default();
    let mut fields = rest.split(|&b| b == 0xFE).map(field);
    let mut next = || fields.next().unwrap_or_else(|| "_".into());
    let mut text = format!("# sent_id = {}\n# text = {}\n", next(), next());
    for (i, h) in heads.iter().enumerate() {
        let (form, lemma, upos, deprel, misc) = (next(), next(), next(), next(), next());
        text.push_str(&format!("{}\t{form}\t{lemma}\t{upos}\t_\t_\t{h}\t{deprel}\t_\t{misc}\n", i + 1));
    }
    text.push('\n');
    (text.into_bytes(), next(), next())
}

fuzz_target!(|data: &[u8]| {
    let (text, other_label, other_file) = if data.first().is_some_and(|&b| b & 0x80 != 0) {
        (data[1..].to_vec(), "dep\u{1}".to_owned(), "other\u{1b}[2J".to_owned())
    } else {
        sentence(data)
    };
    let file: std::sync::Arc<str> = "fuzz\u{9b}.conllu".into();
    let mut reader = tabula::conllu::Reader::new(text.as_slice(), file.clone());
    let (mut pictures, mut firsts) = (Vec::new(), Vec::new());
    for number in 1..=8 {
        let raw = match reader.next_raw() {
            None => break,
            Some(Ok(raw)) => raw,
            Some(Err(e)) => {
                assert!(!hidden(&e.to_string()), "{e:?}");
                break;
            }
        };
        let first = match Annotated::from_block(&raw, &file, number) {
            Ok(a) => a,
            Err(e) => {
                assert!(!hidden(&e.to_string()), "{e:?}");
                continue;
            }
        };
        // A second annotation: another relation for word 1, and every
        // word under the root's first dependent where that is a tree.
        let mut second = first.clone();
        second.annotation.file = other_file.as_str().into();
        second.annotation.labels[0] = other_label.clone();
        let n = first.words.len();
        if n > 1 {
            let heads: Vec<usize> = (1..=n).map(|d| if d == 1 { 0 } else { 1 }).collect();
            if let Ok(tree) = DepTree::from_heads(&heads) {
                second.annotation.tree = tree;
            }
        }
        let one = Picture::new(vec![first.clone()]).expect("one annotation");
        check(std::slice::from_ref(&one), &[file.to_string()]);
        firsts.push(first.clone());
        let two = Picture::new(vec![first, second]).expect("the same words");
        pictures.push(one);
        pictures.push(two);
    }
    if !pictures.is_empty() {
        check(&pictures, &[file.to_string(), other_file]);
    }
    // Two annotations whose words differ: the message quotes both FORMs.
    if let Some(first) = firsts.first() {
        let mut changed = first.clone();
        changed.words[0].form = other_label;
        if let Err(e) = Picture::new(vec![first.clone(), changed]) {
            assert!(!hidden(&e.to_string()), "{e:?}");
        }
    }
});
