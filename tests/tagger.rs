//! The tagger (issue 21, item 3) on a toy treebank it can learn perfectly:
//! training, greedy and Viterbi decoding, FEATS, the tag dictionary, the
//! file (round trip, and every kind of damage refused), tagging a block
//! (only UPOS and FEATS change), jackknifing; the right-to-left first
//! pass (the left-to-right tagger of the reversed treebank, byte for byte)
//! and the two-way one (the sum of both directions' scores).

mod common;

use common::toy_treebank;
use tabula::conllu::RawSentence;
use tabula::parser::perceptron::Weights;
use tabula::tagger::train::{accuracy, folds, jackknife, read_blocks, sentences, train, TaggedSentence};
use tabula::tagger::{Decode, Direction, Tagger, TaggerError, TaggerModel, TaggerOptions};

fn data(text: &str) -> (Vec<RawSentence>, Vec<TaggedSentence>) {
    let blocks = read_blocks(text.as_bytes(), "toy").unwrap();
    let s = sentences(&blocks, "toy").unwrap();
    (blocks, s)
}

fn options(decode: Decode, feats: bool) -> TaggerOptions {
    TaggerOptions { epochs: 8, bits: 12, decode, feats, dictionary_min_count: 5, ..TaggerOptions::default() }
}

#[test]
fn the_toy_treebank_is_learnt_perfectly_greedy_and_viterbi_with_feats() {
    let (_, train_set) = data(&toy_treebank(300, 1));
    let (_, test_set) = data(&toy_treebank(100, 2));
    for decode in [Decode::Greedy, Decode::Viterbi] {
        for feats in [false, true] {
            let trained = train(&options(decode, feats), &train_set, "toy", Some(&test_set), &mut |_| {}).unwrap();
            let model = &trained.model;
            assert_eq!(model.tags, ["ADJ", "DET", "NOUN", "PROPN", "PUNCT", "VERB"]);
            // Frequent unambiguous words are in the dictionary; `watch` and `saw` are not.
            let dict: Vec<&str> = model.dictionary.iter().map(|(f, _)| f.as_str()).collect();
            assert!(dict.contains(&"the") && dict.contains(&".") && !dict.contains(&"watch") && !dict.contains(&"saw"));
            for (set, name) in [(&train_set, "train"), (&test_set, "test")] {
                for d in [Decode::Greedy, Decode::Viterbi] {
                    let a = accuracy(model, d, set);
                    assert_eq!(a.upos, a.words, "{decode}-trained, {d} decoding, {name}, feats {feats}");
                    if feats {
                        assert_eq!(a.feats, a.words, "{decode}-trained, {d}, {name}: FEATS");
                    }
                }
            }
        }
    }
}

#[test]
fn tagging_a_block_changes_upos_and_feats_only() {
    let text = toy_treebank(50, 3);
    let (blocks, set) = data(&text);
    let trained = train(&options(Decode::Greedy, true), &set, "toy", None, &mut |_| {}).unwrap();
    // Blank the tags, and add a comment, a multiword token and CRLF.
    let blank = "# text = Dogs watch the saw.\r\n1-2\tDogswatch\t_\t_\t_\t_\t_\t_\t_\t_\r\n\
                 1\tdogs\tdog\t_\tX1\t_\t2\tnsubj\t_\tM=1\r\n2\twatch\t_\t_\t_\tFoo=Bar\t0\troot\t_\t_\r\n\
                 3\tthe\t_\t_\t_\t_\t4\tdet\t_\t_\r\n4\tsaw\t_\t_\t_\t_\t2\tobj\t_\t_\r\n5\t.\t_\t_\t_\t_\t2\tpunct\t_\t_\r\n\r\n";
    let raw = RawSentence { text: blank.as_bytes().to_vec(), first_line: 1 };
    let mut out = Vec::new();
    let mut tagger = Tagger::new(&trained.model, Decode::Greedy);
    assert_eq!(tagger.tag_block(&raw, "mem", &mut out).unwrap(), 5);
    let want = "# text = Dogs watch the saw.\r\n1-2\tDogswatch\t_\t_\t_\t_\t_\t_\t_\t_\r\n\
                1\tdogs\tdog\tNOUN\tX1\tNumber=Plur\t2\tnsubj\t_\tM=1\r\n2\twatch\t_\tVERB\t_\tTense=Pres\t0\troot\t_\t_\r\n\
                3\tthe\t_\tDET\t_\tDefinite=Def\t4\tdet\t_\t_\r\n4\tsaw\t_\tNOUN\t_\tNumber=Sing\t2\tobj\t_\t_\r\n\
                5\t.\t_\tPUNCT\t_\t_\t2\tpunct\t_\t_\r\n\r\n";
    assert_eq!(String::from_utf8(out).unwrap(), want);
    // A UPOS-only tagger keeps FEATS as it is.
    let upos_only = train(&options(Decode::Greedy, false), &set, "toy", None, &mut |_| {}).unwrap();
    let mut out = Vec::new();
    Tagger::new(&upos_only.model, Decode::Greedy).tag_block(&blocks[0], "toy", &mut out).unwrap();
    assert_eq!(out, blocks[0].text);
}

#[test]
fn the_file_round_trips_and_damage_is_refused() {
    let (_, set) = data(&toy_treebank(60, 4));
    let cases = [
        (false, 1, Direction::LeftToRight),
        (true, 1, Direction::LeftToRight),
        (false, 2, Direction::LeftToRight),
        (true, 2, Direction::LeftToRight),
        (true, 1, Direction::RightToLeft),
        (false, 2, Direction::RightToLeft),
        (true, 1, Direction::Both),
        (false, 2, Direction::Both),
    ];
    for (feats, passes, direction) in cases {
        let decode = if direction == Direction::Both { Decode::Greedy } else { Decode::Viterbi };
        let o = TaggerOptions {
            second_pass: (passes == 2).then_some(3),
            direction,
            backward_epochs: 2,
            ..options(decode, feats)
        };
        let model = train(&o, &set, "toy", None, &mut |_| {}).unwrap().model;
        assert_eq!(model.second().is_some(), passes == 2);
        assert_eq!(model.backward().is_some(), direction == Direction::Both);
        let bytes = model.to_bytes();
        let back = TaggerModel::from_bytes(&bytes).unwrap();
        assert_eq!(back, model);
        assert_eq!(back.options.decode, decode);
        assert_eq!(back.options.direction, direction);
        assert_eq!(back.options.second_pass, (passes == 2).then_some(3));
        if direction == Direction::Both {
            assert_eq!(back.options.backward_epochs, 2);
        }
        assert_eq!(back.to_bytes(), bytes);
        // Truncated anywhere: an error, never a panic.
        for cut in (0..bytes.len()).step_by(97).chain([bytes.len() - 1]) {
            assert!(TaggerModel::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        assert!(matches!(TaggerModel::from_bytes(&bytes[..bytes.len() - 3]), Err(TaggerError::Truncated)));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(TaggerModel::from_bytes(&longer), Err(TaggerError::Corrupt(m)) if m.contains("trailing")));
        let mut flipped = bytes.clone();
        let at = bytes.len() - 20;
        flipped[at] ^= 1;
        assert!(matches!(TaggerModel::from_bytes(&flipped), Err(TaggerError::Corrupt(m)) if m.contains("checksum")));
        assert!(matches!(TaggerModel::from_bytes(b"TABULA-PARSER-MODEL\n"), Err(TaggerError::Foreign { .. })));
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let v2 = text.replacen("version 4", "version 9", 1);
        assert!(matches!(TaggerModel::from_bytes(v2.as_bytes()), Err(TaggerError::Version { .. })));
        // A file of version 2 (other features) is refused with a word to retrain.
        let old = text.replacen("version 4", "version 2", 1);
        let e = TaggerModel::from_bytes(old.as_bytes()).unwrap_err();
        assert!(matches!(e, TaggerError::Version { .. }) && e.to_string().contains("retrain"), "{e}");
        let f2 = text.replacen("features tagger-v2", "features tagger-v0", 1);
        assert!(matches!(TaggerModel::from_bytes(f2.as_bytes()), Err(TaggerError::Features { .. })));
        // The passes line must say 1, or 2 and the epochs.
        let p = text.replacen(if passes == 2 { "passes 2 3" } else { "passes 1" }, "passes 3", 1);
        assert!(matches!(TaggerModel::from_bytes(p.as_bytes()), Err(TaggerError::Corrupt(m)) if m.contains("passes")));
        // The direction line: a known direction, and both with its epochs.
        let line = match direction {
            Direction::Both => "direction both 2".to_owned(),
            d => format!("direction {d}"),
        };
        assert!(text.contains(&format!("\ndecode {decode}\n{line}\npasses ")), "{}", &text[..120]);
        for bad in ["direction upwards", "direction both", "direction both x", "direction right-to-left 3"] {
            let d = text.replacen(&line, bad, 1);
            let e = TaggerModel::from_bytes(d.as_bytes()).unwrap_err();
            assert!(matches!(&e, TaggerError::Corrupt(m) if m.contains("direction")), "{bad}: {e}");
        }
    }
}

/// The sentences with their words in the reverse order.
fn reversed(set: &[TaggedSentence]) -> Vec<TaggedSentence> {
    let rev = |v: &[String]| v.iter().rev().cloned().collect::<Vec<_>>();
    set.iter()
        .map(|s| TaggedSentence {
            forms: rev(&s.forms),
            upos: rev(&s.upos),
            feats: rev(&s.feats),
            lines: s.lines.iter().rev().copied().collect(),
        })
        .collect()
}

/// A right-to-left tagger is the left-to-right tagger of the reversed
/// sentences: trained on the reversed treebank (and scored on the reversed
/// dev set) it is the left-to-right tagger of the treebank byte for byte
/// but for its direction line, and it tags a reversed sentence as the
/// left-to-right one tags the sentence, FEATS included. A treebank the toy
/// grammar cannot learn perfectly (tags and FEATS shuffled on some words),
/// so that the weights are not trivial.
/// The toy treebank with the tag and FEATS of every seventh line changed:
/// a treebank that the tagger cannot learn perfectly.
fn noisy(n: usize, seed: u64) -> Vec<TaggedSentence> {
    let text = toy_treebank(n, seed);
    let mut out = String::new();
    for (i, l) in text.lines().enumerate() {
        let mut c: Vec<&str> = l.split('\t').collect();
        if c.len() == 10 && i % 7 == 3 {
            c[3] = if c[3] == "NOUN" { "VERB" } else { "NOUN" };
            c[5] = "Number=Plur";
        }
        out.push_str(&c.join("\t"));
        out.push('\n');
    }
    data(&out).1
}

/// `bytes` with its checksum (the last 8 bytes) left out and the first
/// `from` replaced by `to`.
fn body_with(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let body = &bytes[..bytes.len() - 8];
    let at = body.windows(from.len()).position(|w| w == from).expect("the header has it");
    [&body[..at], to, &body[at + from.len()..]].concat()
}

#[test]
fn right_to_left_is_left_to_right_on_the_reversed_treebank_byte_for_byte() {
    let (train_set, dev_set) = (noisy(150, 21), noisy(40, 22));
    let (train_rev, dev_rev) = (reversed(&train_set), reversed(&dev_set));
    for (decode, feats) in [(Decode::Greedy, true), (Decode::Viterbi, false)] {
        let o = TaggerOptions { epochs: 4, ..options(decode, feats) };
        let ltr = train(&o, &train_set, "toy", Some(&dev_set), &mut |_| {}).unwrap();
        let o = TaggerOptions { direction: Direction::RightToLeft, ..o };
        let rtl = train(&o, &train_rev, "toy", Some(&dev_rev), &mut |_| {}).unwrap();
        assert_eq!((ltr.epoch, ltr.dev), (rtl.epoch, rtl.dev));
        assert!(ltr.dev.unwrap().upos < ltr.dev.unwrap().words, "the noise makes errors");
        let (a, b) = (ltr.model.to_bytes(), rtl.model.to_bytes());
        assert_ne!(a, b);
        // The checksum differs with the header: compare everything before it.
        let b = body_with(&b, b"\ndirection right-to-left\n", b"\ndirection left-to-right\n");
        assert!(a[..a.len() - 8] == b[..], "{decode}");
        let (mut l, mut r) = (Tagger::new(&ltr.model, decode), Tagger::new(&rtl.model, decode));
        for (s, s_rev) in dev_set.iter().zip(&dev_rev) {
            l.tag(s.forms.iter().map(|f| f.as_bytes()));
            r.tag(s_rev.forms.iter().map(|f| f.as_bytes()));
            let r_tags: Vec<u32> = r.tags.iter().rev().copied().collect();
            assert_eq!(l.tags, r_tags);
            if feats {
                let k = ltr.model.feats.as_ref().unwrap().attributes.len();
                let r_feats: Vec<u32> = r.feats.chunks(k).rev().flatten().copied().collect();
                assert_eq!(l.feats, r_feats);
            }
        }
    }
}

/// A two-way first pass sums the two directions' scores: with a
/// right-to-left table of zeros it tags as its left-to-right table alone,
/// and with a left-to-right table of zeros as its right-to-left table
/// alone (each greedy with its own history); trained, it learns the toy
/// treebank, and its epochs are reported and kept for each table.
#[test]
fn both_directions_sum_their_scores() {
    let (_, set) = data(&toy_treebank(120, 31));
    let (_, test) = data(&toy_treebank(30, 32));
    let o = TaggerOptions { direction: Direction::Both, backward_epochs: 3, ..options(Decode::Greedy, false) };
    let mut reports = Vec::new();
    let trained = train(&o, &set, "toy", Some(&test), &mut |r| reports.push((r.backward, r.epoch))).unwrap();
    assert_eq!(reports.iter().filter(|r| r.0).count(), 3, "{reports:?}");
    assert_eq!(reports.iter().filter(|r| !r.0).count(), 8, "{reports:?}");
    assert!((1..=3).contains(&trained.model.options.backward_epochs));
    let a = accuracy(&trained.model, Decode::Greedy, &test);
    assert_eq!(a.upos, a.words, "the toy treebank is learnt");
    // On a treebank it cannot learn, so that the two tables disagree.
    let model = &train(&o, &noisy(120, 33), "toy", None, &mut |_| {}).unwrap().model;
    // Each table alone, the other one zero.
    let forward = model.weights().clone();
    let backward = model.backward().unwrap().clone();
    let zeros = Weights::zeros(forward.bits(), model.tags.len());
    let part = |direction: Direction, table: Weights| {
        let o = TaggerOptions { direction, ..model.options.clone() };
        TaggerModel::new(model.tags.clone(), None, model.dictionary.clone(), model.lexicon.clone(), o, table).unwrap()
    };
    let ltr_only = part(Direction::LeftToRight, forward.clone());
    let rtl_only = part(Direction::RightToLeft, backward.clone());
    let with_zero_backward = part(Direction::Both, forward).with_backward(zeros.clone()).unwrap();
    let with_zero_forward = part(Direction::Both, zeros).with_backward(backward).unwrap();
    let (mut t, mut t_ltr, mut t_rtl, mut t_zf) = (
        Tagger::new(&with_zero_backward, Decode::Greedy),
        Tagger::new(&ltr_only, Decode::Greedy),
        Tagger::new(&rtl_only, Decode::Greedy),
        Tagger::new(&with_zero_forward, Decode::Greedy),
    );
    // Random word sequences of the toy vocabulary, and the test sentences.
    let vocabulary =
        ["dogs", "cats", "Mary", "watch", "saw", "like", "see", "the", "a", "big", "old", "red", "ball", "."];
    let mut inputs: Vec<String> = test.iter().map(|s| s.forms.join(" ")).collect();
    let mut x = 12345u64;
    for n in 1..=60 {
        let words: Vec<&str> = (0..n % 9 + 1)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                vocabulary[(x >> 33) as usize % vocabulary.len()]
            })
            .collect();
        inputs.push(words.join(" "));
    }
    let mut differ = false;
    for s in &inputs {
        let words: Vec<&[u8]> = s.split(' ').map(str::as_bytes).collect();
        for (x, y) in [(&mut t, &mut t_ltr), (&mut t_zf, &mut t_rtl)] {
            x.tag(words.iter().copied());
            y.tag(words.iter().copied());
            assert_eq!(x.tags, y.tags, "{s}");
        }
        t_ltr.tag(words.iter().copied());
        t_rtl.tag(words.iter().copied());
        differ |= t_ltr.tags != t_rtl.tags;
    }
    assert!(differ, "the two directions disagree somewhere");
    // Viterbi decoding sums nothing: refused in training.
    let v = TaggerOptions { decode: Decode::Viterbi, ..o };
    assert!(matches!(train(&v, &set, "toy", None, &mut |_| {}), Err(TaggerError::Options(m)) if m.contains("greedy")));
}

/// A second pass (`--passes 2`) trains for its own epochs (reported as pass
/// 2, the best dev epoch kept) and the two passes together learn the toy
/// treebank.
#[test]
fn a_second_pass_tags_the_toy_treebank() {
    let (_, set) = data(&toy_treebank(120, 7));
    let (_, test) = data(&toy_treebank(30, 8));
    let o = TaggerOptions { second_pass: Some(4), ..options(Decode::Greedy, false) };
    let mut reports = Vec::new();
    let trained = train(&o, &set, "toy", Some(&test), &mut |r| reports.push((r.pass, r.epoch))).unwrap();
    assert_eq!(reports.iter().filter(|r| r.0 == 2).count(), 4, "{reports:?}");
    assert!(trained.model.options.second_pass.is_some_and(|e| (1..=4).contains(&e)));
    let a = accuracy(&trained.model, Decode::Greedy, &test);
    assert_eq!(a.upos, a.words, "the toy treebank is learnt");
}

#[test]
fn jackknifing_tags_every_block_once_with_taggers_that_did_not_see_it() {
    let text = toy_treebank(90, 5);
    let (blocks, set) = data(&text);
    let o = options(Decode::Greedy, false);
    let mut trained_folds = Vec::new();
    let tagged = jackknife(&blocks, "toy", 3, &o, &mut |f, t| trained_folds.push((f, t.model.tags.len()))).unwrap();
    assert_eq!(trained_folds, [(1, 6), (2, 6), (3, 6)]);
    assert_eq!(tagged.len(), blocks.len());
    // Same blocks, same lines; the toy grammar is learnt from two thirds.
    for (t, b) in tagged.iter().zip(&blocks) {
        assert_eq!(t.first_line, b.first_line);
        assert_eq!(t.text, b.text);
    }
    let _ = set;
    // Fold taggers reading both ways, each table an ensemble of two.
    let both = TaggerOptions { direction: Direction::Both, backward_epochs: 3, ensemble: 2, ..o.clone() };
    let tagged = jackknife(&blocks, "toy", 3, &both, &mut |_, t| assert!(t.model.backward().is_some())).unwrap();
    assert!(tagged.iter().zip(&blocks).all(|(t, b)| t.text == b.text));
    // A tag only the first fold has: its taggers never saw it, so the
    // jackknifed first fold cannot have it, while the other folds' taggers
    // (trained with the first fold) keep the rest right.
    let marked = text.replacen("\tball\t_\tNOUN\t", "\tball\t_\tSYM\t", 1);
    assert_ne!(marked, text);
    let (blocks, _) = data(&marked);
    let first = blocks.iter().position(|b| String::from_utf8_lossy(&b.text).contains("SYM")).unwrap();
    assert!(first < 30, "the mark is in the first fold");
    let tagged = jackknife(&blocks, "toy", 3, &o, &mut |_, _| {}).unwrap();
    assert!(!String::from_utf8_lossy(&tagged[first].text).contains("SYM"));
    for (i, (t, b)) in tagged.iter().zip(&blocks).enumerate() {
        if i != first {
            assert_eq!(t.text, b.text, "block {i}");
        }
    }
    // The folds cover the blocks once each.
    let f = folds(blocks.len(), 3);
    assert_eq!(f, [0..30, 30..60, 60..90]);
    assert!(jackknife(&blocks, "toy", 1, &o, &mut |_, _| {}).is_err());
    assert!(jackknife(&blocks[..2], "toy", 3, &o, &mut |_, _| {}).is_err());
}

#[test]
fn training_refuses_words_without_upos_naming_the_line() {
    let text = "1\ta\t_\tDET\t_\t_\t2\tdet\t_\t_\n2\tdog\t_\t_\t_\t_\t0\troot\t_\t_\n\n";
    let (_, set) = data(text);
    let e = train(&TaggerOptions::default(), &set, "x.conllu", None, &mut |_| {}).unwrap_err();
    assert_eq!(e.to_string(), "x.conllu:2: UPOS is `_`: a tagger trains on words with gold UPOS");
    let e = train(&TaggerOptions::default(), &[], "x.conllu", None, &mut |_| {}).unwrap_err();
    assert_eq!(e.to_string(), "x.conllu: no training sentence");
}

/// An ensemble of N tables (`ensemble`) is the sum of the tables of N
/// taggers trained alone on seeds seed, seed + 1, … (without dev: each for
/// every epoch), in both directions; one table is the tagger alone.
#[test]
fn an_ensemble_is_the_sum_of_its_members_tables() {
    let set = noisy(60, 41);
    for direction in [Direction::LeftToRight, Direction::Both] {
        let o = TaggerOptions { epochs: 3, direction, backward_epochs: 2, ..options(Decode::Greedy, false) };
        let alone = |seed| train(&TaggerOptions { seed, ..o.clone() }, &set, "toy", None, &mut |_| {}).unwrap().model;
        let (a, b) = (alone(5), alone(6));
        let e = TaggerOptions { seed: 5, ensemble: 2, ..o.clone() };
        let both = train(&e, &set, "toy", None, &mut |_| {}).unwrap().model;
        let sum = |x: &Weights, y: &Weights| -> Vec<f32> {
            x.as_slice().iter().zip(y.as_slice()).map(|(p, q)| p + q).collect()
        };
        assert_ne!(a.weights(), b.weights());
        assert_eq!(both.weights().as_slice(), sum(a.weights(), b.weights()), "{direction}");
        if direction == Direction::Both {
            assert_eq!(both.backward().unwrap().as_slice(), sum(a.backward().unwrap(), b.backward().unwrap()));
        }
        let back = TaggerModel::from_bytes(&both.to_bytes()).unwrap();
        assert_eq!(back.options.ensemble, 2);
        assert_eq!(back, both);
    }
    let e = TaggerOptions { ensemble: 0, ..options(Decode::Greedy, false) };
    assert!(matches!(train(&e, &set, "toy", None, &mut |_| {}), Err(TaggerError::Options(_))));
}
