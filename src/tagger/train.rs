//! Training a tagger: the averaged perceptron (Collins 2002) over the
//! features of [`super::features`], greedy (an update at every wrong tag,
//! the tags chosen so far as context) or with Viterbi decoding (an update
//! on the whole sentence: the gold sequence's features up, the predicted
//! one's down); the tag dictionary (PanParser Sec. 3.5); the K folds of
//! jackknifing.

use super::features::{emission_features, start_tag, Scratch, WordHashes, EMISSION_FEATURES, LEXICON_MIN_COUNT};
use super::model::{
    best, choose_feats, dense_context, score_second, score_tags, Attribute, Decode, Decoder, Direction, FeatsSet,
    Tagger, TaggerModel, TaggerOptions,
};
use super::TaggerError;
use crate::conllu::{RawSentence, Reader};
use crate::parser::columns::Columns;
use crate::parser::perceptron::{Averaged, TRAINING_BYTES_PER_WEIGHT};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;

/// One sentence of a tagged treebank: FORM, UPOS and FEATS of its words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaggedSentence {
    pub forms: Vec<String>,
    pub upos: Vec<String>,
    pub feats: Vec<String>,
    /// 1-based line of each word.
    pub lines: Vec<usize>,
}

impl TaggedSentence {
    /// The words of one CoNLL-U block (`None`: a block without words).
    /// Errors name `file` and the line. O(bytes).
    pub fn from_raw(raw: &RawSentence, file: &str) -> Result<Option<TaggedSentence>, TaggerError> {
        let cols = Columns::scan(raw, file)?;
        if cols.is_empty() {
            return Ok(None);
        }
        let text = |r: &std::ops::Range<usize>| String::from_utf8_lossy(&raw.text[r.clone()]).into_owned();
        Ok(Some(TaggedSentence {
            forms: cols.words.iter().map(|w| text(&w.form)).collect(),
            upos: cols.words.iter().map(|w| text(&w.upos)).collect(),
            feats: cols.words.iter().map(|w| text(&w.feats)).collect(),
            lines: cols.words.iter().map(|w| w.line).collect(),
        }))
    }
}

/// Reads the blocks of a CoNLL-U stream. Errors name `file` and the line. O(bytes).
pub fn read_blocks<R: BufRead>(input: R, file: &str) -> Result<Vec<RawSentence>, TaggerError> {
    let mut reader = Reader::new(input, file);
    let mut out = Vec::new();
    while let Some(raw) = reader.next_raw() {
        out.push(raw.map_err(|e| match e.kind {
            crate::conllu::ErrorKind::Stream(_) => TaggerError::Io(e.to_string()),
            _ => TaggerError::Conllu { file: file.to_owned(), line: e.line, reason: e.kind.to_string() },
        })?);
    }
    Ok(out)
}

/// The sentences of `blocks` (blocks without words left out).
pub fn sentences(blocks: &[RawSentence], file: &str) -> Result<Vec<TaggedSentence>, TaggerError> {
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        out.extend(TaggedSentence::from_raw(b, file)?);
    }
    Ok(out)
}

/// A training sentence as the trainer uses it: hashed words, gold tag
/// numbers, dictionary tags, gold FEATS classes.
struct Prepared {
    words: Vec<WordHashes>,
    gold: Vec<u32>,
    fixed: Vec<Option<u32>>,
    /// n × attributes.
    feats: Vec<u32>,
}

impl Prepared {
    /// The sentence read right to left (`attributes`: FEATS classes per word). O(n).
    fn reversed(&self, attributes: usize) -> Prepared {
        let mut feats = Vec::with_capacity(self.feats.len());
        if attributes > 0 {
            for c in self.feats.chunks_exact(attributes).rev() {
                feats.extend_from_slice(c);
            }
        }
        Prepared {
            words: self.words.iter().rev().copied().collect(),
            gold: self.gold.iter().rev().copied().collect(),
            fixed: self.fixed.iter().rev().copied().collect(),
            feats,
        }
    }
}

/// Accuracy counts of a tagger on gold data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accuracy {
    pub words: u64,
    /// Words whose UPOS is right.
    pub upos: u64,
    /// Words whose whole FEATS is right (with a FEATS tagger).
    pub feats: u64,
}

impl Accuracy {
    /// UPOS accuracy in percent.
    pub fn upos_percent(&self) -> f64 {
        100.0 * self.upos as f64 / (self.words.max(1)) as f64
    }
    /// FEATS accuracy in percent.
    pub fn feats_percent(&self) -> f64 {
        100.0 * self.feats as f64 / (self.words.max(1)) as f64
    }
    /// `UPOS 95.12%`, with ` FEATS 90.00%` after it if `feats`: as the
    /// command line and Python's `verbose` print it.
    pub fn text(&self, feats: bool) -> String {
        if feats {
            format!("UPOS {:.2}% FEATS {:.2}%", self.upos_percent(), self.feats_percent())
        } else {
            format!("UPOS {:.2}%", self.upos_percent())
        }
    }
}

/// The counts of both.
impl std::ops::Add for Accuracy {
    type Output = Accuracy;
    fn add(self, o: Accuracy) -> Accuracy {
        Accuracy { words: self.words + o.words, upos: self.upos + o.upos, feats: self.feats + o.feats }
    }
}

/// The FEATS pairs of a FEATS value, sorted (for comparing two values
/// whatever their order).
fn feats_pairs(f: &str) -> BTreeSet<&str> {
    if f == "_" {
        BTreeSet::new()
    } else {
        f.split('|').collect()
    }
}

/// The accuracy of `predicted` against `gold` (the same sentences, words
/// aligned): UPOS, and the whole FEATS (as a set of pairs) if `feats`. O(words).
pub fn compare(gold: &[TaggedSentence], predicted: &[TaggedSentence], feats: bool) -> Accuracy {
    let mut a = Accuracy::default();
    for (g, p) in gold.iter().zip(predicted) {
        for i in 0..g.forms.len() {
            a.words += 1;
            a.upos += u64::from(g.upos[i] == p.upos[i]);
            if feats {
                a.feats += u64::from(feats_pairs(&g.feats[i]) == feats_pairs(&p.feats[i]));
            }
        }
    }
    a
}

/// The accuracy of `model` (decoding with `decode`) on `data`, tagged in
/// parallel on rayon's current pool. O(tagging).
pub fn accuracy(model: &TaggerModel, decode: Decode, data: &[TaggedSentence]) -> Accuracy {
    data.par_iter()
        .map_init(
            || (Tagger::new(model, decode), Vec::new()),
            |(tagger, buffer), s| {
                tagger.tag(s.forms.iter().map(|f| f.as_bytes()));
                let mut a = Accuracy { words: s.forms.len() as u64, ..Accuracy::default() };
                for (i, (&t, gold)) in tagger.tags.iter().zip(&s.upos).enumerate() {
                    a.upos += u64::from(&model.tags[t as usize] == gold);
                    if let Some(set) = &model.feats {
                        let k = set.attributes.len();
                        buffer.clear();
                        set.write(&tagger.feats[i * k..(i + 1) * k], buffer);
                        let predicted = String::from_utf8_lossy(buffer);
                        a.feats += u64::from(feats_pairs(&predicted) == feats_pairs(&s.feats[i]));
                    }
                }
                a
            },
        )
        .reduce(Accuracy::default, |a, b| a + b)
}

/// What [`train`] reports after each epoch.
#[derive(Clone, Debug)]
pub struct EpochReport {
    /// 1, or 2 for the second pass.
    pub pass: usize,
    /// Whether the table trained is the right-to-left one of a first pass
    /// that reads both ways ([`Direction::Both`]).
    pub backward: bool,
    pub epoch: usize,
    /// Training words whose tag the current weights got wrong (before the update).
    pub errors: u64,
    pub words: u64,
    /// The averaged model's accuracy on the dev set.
    pub dev: Option<Accuracy>,
    /// Whether this epoch's model is the best so far.
    pub best: bool,
}

impl EpochReport {
    /// The line the command line and Python's `verbose` print for this
    /// epoch: `[second pass, |right to left, ]epoch E: X% training errors`,
    /// the dev accuracy (FEATS too if `feats`) and ` *` for the best so far.
    pub fn text(&self, feats: bool) -> String {
        let table = if self.pass == 2 {
            "second pass, "
        } else if self.backward {
            "right to left, "
        } else {
            ""
        };
        let dev = self.dev.map_or(String::new(), |a| format!("; dev {}", a.text(feats)));
        format!(
            "{table}epoch {}: {:.2}% training errors{dev}{}",
            self.epoch,
            100.0 * self.errors as f64 / self.words.max(1) as f64,
            if self.best && self.dev.is_some() { " *" } else { "" }
        )
    }
}

/// A trained tagger, the epoch kept and its dev accuracy.
#[derive(Clone, Debug)]
pub struct Trained {
    pub model: TaggerModel,
    pub epoch: usize,
    pub dev: Option<Accuracy>,
    /// Words in the tag dictionary.
    pub dictionary: usize,
}

/// The tag set, FEATS set and dictionary of `data`; errors for a word
/// without UPOS. O(words × log).
#[allow(clippy::type_complexity)]
fn inventory(
    data: &[TaggedSentence],
    options: &TaggerOptions,
    file: &str,
) -> Result<(Vec<String>, Option<FeatsSet>, Vec<(String, u32)>, Vec<(String, u64)>), TaggerError> {
    let mut tags = BTreeSet::new();
    for s in data {
        for (u, &line) in s.upos.iter().zip(&s.lines) {
            if u == "_" {
                return Err(TaggerError::Conllu {
                    file: file.to_owned(),
                    line,
                    reason: "UPOS is `_`: a tagger trains on words with gold UPOS".to_owned(),
                });
            }
            tags.insert(u.as_str());
        }
    }
    let tags: Vec<String> = tags.into_iter().map(str::to_owned).collect();
    let index = |u: &str| tags.binary_search_by(|t| t.as_str().cmp(u)).expect("a tag") as u32;
    let feats = if options.feats {
        let mut attributes: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
        let mut seen: Vec<BTreeSet<String>> = vec![BTreeSet::new(); tags.len()];
        for s in data {
            for ((f, u), &line) in s.feats.iter().zip(&s.upos).zip(&s.lines) {
                if f == "_" {
                    continue;
                }
                for pair in f.split('|') {
                    let Some((name, value)) = pair.split_once('=') else {
                        return Err(TaggerError::Conllu {
                            file: file.to_owned(),
                            line,
                            reason: format!("FEATS `{f}`: `{pair}` is not Name=Value"),
                        });
                    };
                    attributes.entry((name.to_lowercase(), name.to_owned())).or_default().insert(value.to_owned());
                    seen[index(u) as usize].insert(name.to_owned());
                }
            }
        }
        let attributes: Vec<Attribute> = attributes
            .into_iter()
            .map(|((_, name), values)| Attribute { name, values: values.into_iter().collect() })
            .collect();
        let allowed = seen
            .iter()
            .map(|names| {
                attributes.iter().enumerate().filter(|(_, a)| names.contains(&a.name)).map(|(i, _)| i as u16).collect()
            })
            .collect();
        Some(FeatsSet { attributes, allowed })
    } else {
        None
    };
    // The dictionary: frequent words seen with one tag (nearly) always.
    let mut counts: hashbrown::HashMap<&str, Vec<u32>> = hashbrown::HashMap::new();
    for s in data {
        for (f, u) in s.forms.iter().zip(&s.upos) {
            let c = counts.entry(f.as_str()).or_insert_with(|| vec![0; tags.len()]);
            c[index(u) as usize] += 1;
        }
    }
    let mut dictionary: Vec<(String, u32)> = counts
        .into_iter()
        .filter_map(|(form, c)| {
            let total: u32 = c.iter().sum();
            let (t, &top) = c.iter().enumerate().max_by_key(|&(i, n)| (*n, std::cmp::Reverse(i)))?;
            (total >= options.dictionary_min_count && f64::from(top) >= options.dictionary_min_share * f64::from(total))
                .then(|| (form.to_owned(), t as u32))
        })
        .collect();
    dictionary.sort();
    // The lexicon: lowercased words seen LEXICON_MIN_COUNT times or more,
    // with their tags (the rarer words stand for the unknown words of new text).
    let mut lower = Vec::new();
    let mut lexicon: hashbrown::HashMap<Vec<u8>, (u32, u64)> = hashbrown::HashMap::new();
    for s in data {
        for (f, u) in s.forms.iter().zip(&s.upos) {
            super::features::lowercase_into(f.as_bytes(), &mut lower);
            let e = lexicon.entry_ref(lower.as_slice()).or_insert((0, 0));
            e.0 += 1;
            e.1 |= 1 << (index(u) % 64);
        }
    }
    let mut lexicon: Vec<(String, u64)> = lexicon
        .into_iter()
        .filter(|(_, (n, _))| *n >= LEXICON_MIN_COUNT)
        .map(|(f, (_, c))| (String::from_utf8_lossy(&f).into_owned(), c))
        .collect();
    lexicon.sort();
    Ok((tags, feats, dictionary, lexicon))
}

/// The settings of one pass's epochs ([`epochs`]).
struct Epochs<'d> {
    /// 1, or 2 for the second pass (in the reports).
    pass: usize,
    /// The right-to-left table of [`Direction::Both`] (in the reports).
    backward: bool,
    epochs: usize,
    /// The seed of the sentence order.
    seed: u64,
    /// How the dev set is tagged.
    decode: Decode,
    dev: Option<&'d [TaggedSentence]>,
}

/// The epochs of one pass: each visits the sentences of `prepared` in a new
/// random order, `train(weights, s)` trains on sentence `s` and returns its
/// wrong tags; after each epoch `model` makes the tagger of the averaged
/// weights, which is scored on dev and reported. Returns the model of the
/// best dev UPOS accuracy (FEATS accuracy breaks ties; the earliest epoch
/// wins a tie; without dev, the last), its accuracy and its epoch.
///
/// With more than one table in `weights` (an ensemble), each table visits
/// the sentences in its own order (member m's from seed + m) and the model
/// is made of the sum of their averaged weights.
/// O(tables × epochs × training + epochs × dev tagging).
fn epochs(
    settings: &Epochs,
    prepared: &[Prepared],
    weights: &mut [Averaged],
    train: &mut dyn FnMut(&mut Averaged, usize) -> u64,
    model: &mut dyn FnMut(crate::parser::perceptron::Weights) -> TaggerModel,
    report: &mut dyn FnMut(&EpochReport),
) -> Result<(Accuracy, usize, TaggerModel), TaggerError> {
    // Checked between sentences: an interrupt since the start ends training.
    let watch = crate::interrupt::Watch::start();
    let mut members: Vec<(ChaCha8Rng, Vec<usize>)> = (0..weights.len())
        .map(|m| (ChaCha8Rng::seed_from_u64(settings.seed.wrapping_add(m as u64)), (0..prepared.len()).collect()))
        .collect();
    let mut best_model: Option<(Accuracy, usize, TaggerModel)> = None;
    for epoch in 1..=settings.epochs {
        let (mut errors, mut words) = (0u64, 0u64);
        for ((rng, order), weights) in members.iter_mut().zip(weights.iter_mut()) {
            order.shuffle(rng);
            for &s in order.iter() {
                if watch.interrupted() {
                    return Err(TaggerError::Interrupted);
                }
                words += prepared[s].words.len() as u64;
                errors += train(weights, s);
            }
        }
        let mut sum = weights[0].averaged();
        for w in &weights[1..] {
            sum.w.iter_mut().zip(&w.averaged().w).for_each(|(s, x)| *s += x);
        }
        let model = model(sum);
        let dev_accuracy = settings.dev.map(|d| accuracy(&model, settings.decode, d));
        let key = dev_accuracy.unwrap_or(Accuracy { words: 1, upos: epoch as u64, feats: 0 });
        let better = best_model.as_ref().is_none_or(|(b, _, _)| {
            (key.upos * b.words.max(1), key.feats * b.words.max(1))
                > (b.upos * key.words.max(1), b.feats * key.words.max(1))
        });
        report(&EpochReport {
            pass: settings.pass,
            backward: settings.backward,
            epoch,
            errors,
            words,
            dev: dev_accuracy,
            best: better,
        });
        if better {
            best_model = Some((key, epoch, model));
        }
    }
    Ok(best_model.expect("one epoch or more"))
}

/// Greedy training on one sentence: left to right, each word not in the
/// tag dictionary is scored by `score(table, words, i, (t₋₁, t₋₂),
/// features, scores)` after the tags predicted before it, and a wrong tag
/// updates its features (the gold tag up, the predicted one down). Returns
/// the wrong tags. O(n × features × tags).
fn greedy_sentence(
    weights: &mut Averaged,
    p: &Prepared,
    start: u32,
    tags: usize,
    decoder: &mut Decoder,
    predicted: &mut Vec<u32>,
    mut score: impl FnMut(&crate::parser::perceptron::Weights, &[WordHashes], usize, (u32, u32), &mut Vec<u64>, &mut [f32]),
) -> u64 {
    predicted.clear();
    decoder.scores.clear();
    decoder.scores.resize(tags, 0.0);
    let mut errors = 0;
    for i in 0..p.words.len() {
        weights.tick();
        if let Some(t) = p.fixed[i] {
            predicted.push(t);
            continue;
        }
        let t1 = if i >= 1 { predicted[i - 1] } else { start };
        let t2 = if i >= 2 { predicted[i - 2] } else { start };
        score(weights.current(), &p.words, i, (t1, t2), &mut decoder.features, &mut decoder.scores);
        let guess = best(&decoder.scores);
        if guess != p.gold[i] {
            errors += 1;
            weights.update(&decoder.features, p.gold[i] as usize, 1.0);
            weights.update(&decoder.features, guess as usize, -1.0);
        }
        predicted.push(guess);
    }
    errors
}

/// Trains a tagger on `data` for `options.epochs` epochs and keeps the
/// model of the best dev UPOS accuracy (FEATS accuracy breaks ties; the
/// earliest epoch wins a tie), or of the last epoch without `dev`.
/// `report` is called after each epoch. `file` names the data in errors.
/// O(epochs × words × features × width).
pub fn train(
    options: &TaggerOptions,
    data: &[TaggedSentence],
    file: &str,
    dev: Option<&[TaggedSentence]>,
    report: &mut dyn FnMut(&EpochReport),
) -> Result<Trained, TaggerError> {
    if data.is_empty() {
        return Err(TaggerError::Empty { file: file.to_owned() });
    }
    if options.epochs == 0 {
        return Err(TaggerError::Options("0 epochs: nothing trained".into()));
    }
    if !super::model::BITS.contains(&options.bits) {
        return Err(TaggerError::Options(format!(
            "bits {}: log2 of the table's rows is {} to {}",
            options.bits,
            super::model::BITS.start(),
            super::model::BITS.end()
        )));
    }
    if !(0.0..=1.0).contains(&options.dictionary_min_share) || options.dictionary_min_share <= 0.5 {
        return Err(TaggerError::Options(format!(
            "dictionary share {} is not in (0.5, 1]: a dictionary word has one tag most of the time",
            options.dictionary_min_share
        )));
    }
    if options.direction == Direction::Both && options.decode != Decode::Greedy {
        return Err(TaggerError::Options(
            "direction both sums the scores of two greedy directions: it needs greedy decoding".into(),
        ));
    }
    if options.direction == Direction::Both && options.backward_epochs == 0 {
        return Err(TaggerError::Options("a right-to-left table of 0 epochs: nothing trained".into()));
    }
    let (tags, feats, dictionary, lexicon) = inventory(data, options, file)?;
    let ambiguity: hashbrown::HashMap<u64, u64> =
        lexicon.iter().map(|(f, c)| (crate::parser::features::hash_bytes(f.as_bytes()), *c)).collect();
    let k = tags.len();
    let width = k + feats.as_ref().map_or(0, FeatsSet::width);
    if options.ensemble == 0 {
        return Err(TaggerError::Options("an ensemble of 0 tables: nothing trained".into()));
    }
    let (bits, ensemble) = (options.bits, options.ensemble);
    let weights = 1usize.checked_shl(bits).and_then(|rows| rows.checked_mul(width));
    crate::memory::check(weights, TRAINING_BYTES_PER_WEIGHT * ensemble, || {
        let feats = width - k;
        let tables = if ensemble == 1 { "1 table".to_owned() } else { format!("{ensemble} tables") };
        format!("the tagger's tables ({tables} of 2^{bits} rows × {width} weights: {k} tags and {feats} FEATS values)")
    })?;
    let lookup: hashbrown::HashMap<&str, u32> = dictionary.iter().map(|(f, t)| (f.as_str(), *t)).collect();
    let index = |u: &str| tags.binary_search_by(|t| t.as_str().cmp(u)).expect("a tag") as u32;
    let mut scratch = Scratch::default();
    let mut forward: Vec<Prepared> = Vec::with_capacity(data.len());
    let mut classes = Vec::new();
    for s in data {
        let words = s
            .forms
            .iter()
            .map(|f| {
                let mut w = WordHashes::of(f.as_bytes(), &mut scratch);
                w.class = ambiguity.get(&w.lower).copied().unwrap_or(0);
                w
            })
            .collect();
        let gold = s.upos.iter().map(|u| index(u)).collect();
        let fixed = s.forms.iter().map(|f| lookup.get(f.as_str()).copied()).collect();
        let mut fs = Vec::new();
        if let Some(set) = &feats {
            for f in &s.feats {
                set.classes(f, &mut classes).expect("every attribute and value was collected");
                fs.extend_from_slice(&classes);
            }
        }
        forward.push(Prepared { words, gold, fixed, feats: fs });
    }
    // The sentences read right to left, for a right-to-left table.
    let backward: Vec<Prepared> = if options.direction == Direction::LeftToRight {
        Vec::new()
    } else {
        let a = feats.as_ref().map_or(0, |f| f.attributes.len());
        forward.iter().map(|p| p.reversed(a)).collect()
    };
    let prepared = if options.direction == Direction::RightToLeft { &backward } else { &forward };
    let offsets = feats.as_ref().map_or(Vec::new(), |f| f.offsets(k));
    let mut weights = tables(options, width);
    let mut decoder = Decoder::default();
    let (mut predicted, mut feats_features, mut feats_scores, mut chosen) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let start = start_tag(k);
    let kept = epochs(
        &Epochs { pass: 1, backward: false, epochs: options.epochs, seed: options.seed, decode: options.decode, dev },
        prepared,
        &mut weights,
        &mut |weights, s| {
            let p = &prepared[s];
            let n = p.words.len();
            let errors = match options.decode {
                Decode::Greedy => greedy_sentence(weights, p, start, k, &mut decoder, &mut predicted, score_tags),
                Decode::Viterbi => {
                    dense_context(weights.current(), k, &mut decoder.sequence);
                    decoder.dense_ready = true;
                    decoder.decode(weights.current(), k, Decode::Viterbi, &p.words, &p.fixed, &mut predicted);
                    for _ in 0..n {
                        weights.tick();
                    }
                    if predicted != p.gold {
                        for i in 0..n {
                            let context = |tags: &[u32]| {
                                (if i >= 1 { tags[i - 1] } else { start }, if i >= 2 { tags[i - 2] } else { start })
                            };
                            let (g, q) = (context(&p.gold), context(&predicted));
                            if (p.gold[i], g) == (predicted[i], q) {
                                continue;
                            }
                            score_tags(weights.current(), &p.words, i, g, &mut decoder.features, &mut decoder.scores);
                            weights.update(&decoder.features, p.gold[i] as usize, 1.0);
                            score_tags(weights.current(), &p.words, i, q, &mut decoder.features, &mut decoder.scores);
                            weights.update(&decoder.features, predicted[i] as usize, -1.0);
                        }
                    }
                    predicted.iter().zip(&p.gold).filter(|(a, b)| a != b).count() as u64
                }
            };
            // FEATS: each word's attributes, given its gold tag.
            if let Some(set) = &feats {
                let a = set.attributes.len();
                chosen.resize(a, 0);
                for i in 0..n {
                    emission_features(&p.words, i, &mut decoder.features);
                    let t = p.gold[i];
                    choose_feats(
                        weights.current(),
                        set,
                        &offsets,
                        &p.words[i],
                        t,
                        &decoder.features,
                        &mut feats_features,
                        &mut feats_scores,
                        &mut chosen,
                    );
                    for &attr in &set.allowed[t as usize] {
                        let attr = attr as usize;
                        let (want, got) = (p.feats[i * a + attr], chosen[attr]);
                        if want != got {
                            weights.update(&feats_features, offsets[attr] + want as usize, 1.0);
                            weights.update(&feats_features, offsets[attr] + got as usize, -1.0);
                        }
                    }
                }
            }
            errors
        },
        &mut |averaged| {
            TaggerModel::new(
                tags.clone(),
                feats.clone(),
                dictionary.clone(),
                lexicon.clone(),
                options.clone(),
                averaged,
            )
            .expect("sized")
        },
        report,
    )?;
    debug_assert!(feats_features.len() <= EMISSION_FEATURES + 3);
    let (mut key, epoch, mut model) = kept;
    // The training sums are not needed any more: freed before the next table's.
    drop(weights);
    // The file says how many epochs made the model kept: what the fold
    // taggers of `jackknife` train.
    model.options.epochs = epoch;
    if options.direction == Direction::Both {
        // The right-to-left table, greedy, its epoch chosen by the dev
        // accuracy of the two tables together.
        let mut weights = tables(options, k);
        let first = model;
        let (both_key, backward_epoch, mut both) = self::epochs(
            &Epochs {
                pass: 1,
                backward: true,
                epochs: options.backward_epochs,
                seed: options.seed.wrapping_add(0xbac_4a2d),
                decode: Decode::Greedy,
                dev,
            },
            &backward,
            &mut weights,
            &mut |weights, s| {
                greedy_sentence(weights, &backward[s], start, k, &mut decoder, &mut predicted, score_tags)
            },
            &mut |averaged| first.clone().with_backward(averaged).expect("sized"),
            report,
        )?;
        both.options.backward_epochs = backward_epoch;
        (key, model) = (both_key, both);
    }
    if options.direction != Direction::Both {
        // Unused, and not in the file.
        model.options.backward_epochs = 0;
    }
    let dictionary = model.dictionary.len();
    if options.second_pass.is_some() {
        let (model, key) = train_second(options, data, file, &forward, model, dev, report)?;
        return Ok(Trained { model, epoch, dev: dev.map(|_| key), dictionary });
    }
    Ok(Trained { model, epoch, dev: dev.map(|_| key), dictionary })
}

/// The `options.ensemble` tables of zeros of one pass, `width` weights a row.
fn tables(options: &TaggerOptions, width: usize) -> Vec<Averaged> {
    (0..options.ensemble).map(|_| Averaged::zeros(options.bits, width)).collect()
}

/// The folds of the first pass's jackknifed tags, when training a second pass.
pub const SECOND_PASS_FOLDS: usize = 5;

/// Trains the second pass of `first` (the first pass kept, its epochs set)
/// on the training data with the first pass's tags jackknifed
/// ([`SECOND_PASS_FOLDS`] contiguous folds, each tagged by a first pass
/// trained like `first` on the others: tags as wrong as at tagging time),
/// greedily, for `options.second_pass` epochs, keeping the epoch of the best
/// dev UPOS accuracy of both passes together. O(folds × training).
fn train_second(
    options: &TaggerOptions,
    data: &[TaggedSentence],
    file: &str,
    prepared: &[Prepared],
    first: TaggerModel,
    dev: Option<&[TaggedSentence]>,
    report: &mut dyn FnMut(&EpochReport),
) -> Result<(TaggerModel, Accuracy), TaggerError> {
    let k = first.tags.len();
    let epochs = options.second_pass.unwrap_or(options.epochs);
    if epochs == 0 {
        return Err(TaggerError::Options("a second pass of 0 epochs: nothing trained".into()));
    }
    let fold_options = TaggerOptions {
        second_pass: None,
        feats: false,
        epochs: first.options.epochs,
        backward_epochs: first.options.backward_epochs,
        ..options.clone()
    };
    let index = |u: &str| first.tags.binary_search_by(|t| t.as_str().cmp(u)).expect("a training tag") as u32;
    let tag_with = |model: &TaggerModel, part: &[TaggedSentence]| -> Vec<Vec<u32>> {
        part.par_iter()
            .map_init(
                || Tagger::new(model, options.decode),
                |tagger, s| {
                    tagger.tag(s.forms.iter().map(|f| f.as_bytes()));
                    tagger.tags.iter().map(|&t| index(&model.tags[t as usize])).collect()
                },
            )
            .collect()
    };
    let mut tagged: Vec<Vec<u32>> = Vec::with_capacity(data.len());
    let k_folds = SECOND_PASS_FOLDS.min(data.len());
    if k_folds < 2 {
        // One sentence: nothing to hold out; the first pass tags it.
        tagged = tag_with(&first, data);
    } else {
        for range in folds(data.len(), k_folds) {
            let rest: Vec<TaggedSentence> = data[..range.start].iter().chain(&data[range.end..]).cloned().collect();
            let fold = train(&fold_options, &rest, file, None, &mut |_| {})?;
            tagged.extend(tag_with(&fold.model, &data[range]));
        }
    }
    let mut weights = tables(options, k);
    let mut decoder = Decoder::default();
    let mut predicted = Vec::new();
    let start = start_tag(k);
    let (key, epoch, mut model) = self::epochs(
        &Epochs {
            pass: 2,
            backward: false,
            epochs,
            seed: options.seed.wrapping_add(0x5ec0_d0a55),
            decode: options.decode,
            dev,
        },
        prepared,
        &mut weights,
        &mut |weights, s| {
            let (p, first_tags) = (&prepared[s], &tagged[s]);
            greedy_sentence(weights, p, start, k, &mut decoder, &mut predicted, |table, words, i, previous, f, sc| {
                score_second(table, words, i, previous, first_tags, f, sc)
            })
        },
        &mut |averaged| first.clone().with_second(averaged).expect("sized"),
        report,
    )?;
    model.options.second_pass = Some(epoch);
    Ok((model, key))
}

/// The K folds of `n` items for jackknifing: K contiguous ranges, as even
/// as can be, disjoint and covering 0 … n. O(K).
pub fn folds(n: usize, k: usize) -> Vec<std::ops::Range<usize>> {
    (0..k).map(|f| f * n / k..(f + 1) * n / k).collect()
}

/// Jackknifing (K-fold tagging): for each of the K folds of `blocks`, a
/// tagger trained with `options` on the other folds tags the fold's blocks.
/// The blocks come back with predicted UPOS (and FEATS), in order.
/// `progress` is called with each fold's number (1-based) and its
/// taggers's training result. O(K × training).
pub fn jackknife(
    blocks: &[RawSentence],
    file: &str,
    k: usize,
    options: &TaggerOptions,
    progress: &mut dyn FnMut(usize, &Trained),
) -> Result<Vec<RawSentence>, TaggerError> {
    if k < 2 {
        return Err(TaggerError::Options(format!("jackknife {k}: K-fold tagging needs 2 folds or more")));
    }
    if blocks.len() < k {
        return Err(TaggerError::Options(format!(
            "jackknife {k}: {file} has only {} blocks, fewer than the folds",
            blocks.len()
        )));
    }
    let mut out = Vec::with_capacity(blocks.len());
    for (f, range) in folds(blocks.len(), k).into_iter().enumerate() {
        let rest: Vec<RawSentence> = blocks[..range.start].iter().chain(&blocks[range.end..]).cloned().collect();
        let trained = train(options, &sentences(&rest, file)?, file, None, &mut |_| {})?;
        progress(f + 1, &trained);
        let tagged: Result<Vec<RawSentence>, TaggerError> = blocks[range]
            .par_iter()
            .map_init(
                || Tagger::new(&trained.model, options.decode),
                |tagger, raw| {
                    let mut text = Vec::with_capacity(raw.text.len() + 16);
                    tagger.tag_block(raw, file, &mut text)?;
                    Ok(RawSentence { text, first_line: raw.first_line })
                },
            )
            .collect();
        out.extend(tagged?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_are_disjoint_and_cover_everything() {
        for n in 0..40 {
            for k in 1..=8 {
                let f = folds(n, k);
                assert_eq!(f.len(), k);
                let mut seen = vec![0; n];
                for r in &f {
                    for i in r.clone() {
                        seen[i] += 1;
                    }
                    assert!(r.len() + 1 >= n / k && r.len() <= n.div_ceil(k), "n {n} k {k}: {r:?}");
                }
                assert!(seen.iter().all(|&c| c == 1), "n {n} k {k}");
            }
        }
    }
}
