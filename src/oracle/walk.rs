//! Walks over a treebank (Nederhof 2019, Sec. 8.2, Fig. 9): for each gold
//! tree, a computation from the initial configuration that takes an optimal
//! step (or, with probability `stray`, a random applicable one), timing the
//! optimal-step computation at every configuration whose stack has two or
//! more elements, and optionally checking that all algorithms agree.
//!
//! Treebanks are read with [`crate::conllu`] and, for walks over projective
//! gold trees, projectivized with [`crate::projectivize`].

use super::session::OracleSession;
use super::{Algorithm, Configuration, Oracle, OracleError, Step, StepScores, Strategy, System};
use crate::conllu::{ConlluError, Reader};
use crate::grammar::text;
use crate::projectivize::{OptimalProjectivizer, TreeClass};
use crate::tree::DepTree;
use rand::seq::SliceRandom;
use rand::Rng;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::time::Instant;

/// Errors of reading a treebank or walking it.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error(transparent)]
    Conllu(#[from] ConlluError),
    #[error("cannot read the treebank: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Options(OracleError),
    #[error("sentence {sentence} (line {line}): {source}")]
    Oracle { sentence: usize, line: usize, source: OracleError },
    #[error("sentence {sentence}: the algorithms disagree at stack {stack:?}, input {next} to {n}: {answers}")]
    Disagreement { sentence: usize, stack: Vec<usize>, next: usize, n: usize, answers: String },
}

/// One gold tree of a treebank and the line its sentence starts on.
#[derive(Clone, Debug)]
pub struct GoldSentence {
    pub tree: DepTree,
    pub line: usize,
}

/// Reads the gold trees of a CoNLL-U treebank; with `projectivize`, each
/// non-projective one is replaced by its first optimal projectivization
/// (Sec. 3, [`OptimalProjectivizer`]), so that the projective algorithms
/// apply. Errors name the file and line. O(size) + O(n³) per
/// non-projective tree.
pub fn read_gold(input: impl BufRead, file: &str, projectivize: bool) -> Result<Vec<GoldSentence>, WalkError> {
    read_gold_up_to(input, file, projectivize, usize::MAX)
}

/// [`read_gold`], projectivizing only the trees of at most `max_words`
/// words (the others are kept as they are: a walk with that limit skips
/// them, and their O(n³) projectivization is not paid).
pub fn read_gold_up_to(
    input: impl BufRead,
    file: &str,
    projectivize: bool,
    max_words: usize,
) -> Result<Vec<GoldSentence>, WalkError> {
    let grammar = match text::parse_str("projective.grammar", crate::grammars::PROJECTIVE) {
        Ok(p) => p.grammar,
        Err(e) => unreachable!("the embedded grammar is valid: {e}"),
    };
    let mut projectivizer = match OptimalProjectivizer::new(&grammar, TreeClass::Projective) {
        Ok(p) => p,
        Err(e) => unreachable!("projective.grammar has the terminal a: {e}"),
    };
    let mut out = Vec::new();
    for sentence in Reader::new(input, file) {
        let sentence = sentence?;
        let tree = if projectivize && sentence.tree().len() <= max_words {
            match projectivizer.projectivize(sentence.tree()) {
                Ok(p) => p.tree,
                Err(e) => unreachable!("Table 3 derives a tree for every length: {e}"),
            }
        } else {
            sentence.tree().clone()
        };
        out.push(GoldSentence { tree, line: sentence.first_line() });
    }
    Ok(out)
}

/// How to walk.
#[derive(Clone, Copy, Debug)]
pub struct WalkOptions {
    pub system: System,
    pub strategy: Strategy,
    /// The algorithm timed (and whose steps are followed).
    pub algorithm: Algorithm,
    /// Probability of a random applicable step instead of an optimal one.
    pub stray: f64,
    /// Compare the answers of all available algorithms at every configuration
    /// (Attardi: the brute force, on sentences of at most
    /// [`ATTARDI_BRUTE_FORCE_MAX`] words).
    pub check_agreement: bool,
    /// Follow each tree with one [`OracleSession`] (told every step; Sec. 7)
    /// instead of one-shot calls; the session's set-up time and the time of
    /// each step taken ([`OracleSession::apply`]) are added to the next timed
    /// configuration.
    pub session: bool,
    /// Trees of more words are skipped ([`WalkStats::skipped`]); `None`:
    /// [`DEFAULT_MAX_WORDS_TABLE`] for a tree scored by an algorithm that
    /// builds a table at every configuration (cubic, goldberg, tabular; and
    /// with the agreement check, which runs the cubic one), else
    /// [`DEFAULT_MAX_WORDS`].
    pub max_words: Option<usize>,
}

/// The default limit on the words of a tree walked (see
/// [`WalkOptions::max_words`]): the quadratic algorithm's walk costs O(n³).
pub const DEFAULT_MAX_WORDS: usize = 1000;

/// The default limit on the words of a tree whose walk builds a table at
/// every configuration: O(n³) or more per configuration, O(n⁴) or more per
/// walk (the cubic oracle: about 6 s for 200 words, 2 hours for 1,000).
pub const DEFAULT_MAX_WORDS_TABLE: usize = 200;

impl WalkOptions {
    /// The limit on the words of `gold` when `algorithm` scores it.
    pub fn limit(&self, algorithm: Algorithm) -> usize {
        match self.max_words {
            Some(n) => n,
            None if self.check_agreement
                || matches!(algorithm, Algorithm::Cubic | Algorithm::Goldberg | Algorithm::Tabular) =>
            {
                DEFAULT_MAX_WORDS_TABLE
            }
            None => DEFAULT_MAX_WORDS,
        }
    }
}

/// Timing totals for one stack + input length k + m.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bucket {
    pub configurations: u64,
    pub nanos: u128,
}

impl Bucket {
    /// Mean microseconds per configuration.
    pub fn mean_us(&self) -> f64 {
        if self.configurations == 0 {
            0.0
        } else {
            self.nanos as f64 / 1000.0 / self.configurations as f64
        }
    }
}

/// Timings of one algorithm by k + m (Fig. 9's x axis).
#[derive(Clone, Debug, Default)]
pub struct Timings {
    pub buckets: BTreeMap<usize, Bucket>,
}

impl Timings {
    fn add(&mut self, length: usize, nanos: u128) {
        let b = self.buckets.entry(length).or_default();
        b.configurations += 1;
        b.nanos += nanos;
    }
    /// All configurations together.
    pub fn total(&self) -> Bucket {
        self.buckets.values().fold(Bucket::default(), |a, b| Bucket {
            configurations: a.configurations + b.configurations,
            nanos: a.nanos + b.nanos,
        })
    }
}

/// The result of a walk over a treebank.
#[derive(Clone, Debug, Default)]
pub struct WalkStats {
    /// Trees walked.
    pub trees: usize,
    /// Trees skipped for their length ([`WalkOptions::max_words`]).
    pub skipped: usize,
    /// Steps taken in total.
    pub steps: u64,
    /// Per algorithm: the timed configurations (the followed algorithm's
    /// and, with the agreement check, the others').
    pub timings: BTreeMap<&'static str, Timings>,
    /// The algorithm that chose the steps (for `auto`: linear or cubic, per tree).
    pub followed: Timings,
    /// The followed algorithm's time per tree, everything included (with
    /// `--session`: the set-up and every step), by sentence length n: the
    /// amortised cost per configuration.
    pub by_sentence: BTreeMap<usize, Bucket>,
    /// Configurations where the algorithms were compared.
    pub compared: u64,
    /// The slowest answers of the followed algorithm, slowest first (at most
    /// [`SLOWEST`]).
    pub slowest: Vec<Slow>,
}

/// How many of the slowest answers [`WalkStats::slowest`] keeps.
pub const SLOWEST: usize = 5;

/// One slow answer of a walk: where and how long.
#[derive(Clone, Debug, PartialEq)]
pub struct Slow {
    pub nanos: u128,
    /// 1-based index of the sentence and its first line.
    pub sentence: usize,
    pub line: usize,
    /// Sentence length n and k + m (stack words after the root plus remaining input).
    pub n: usize,
    pub length: usize,
    pub stack: Vec<usize>,
}

/// Walks one computation per tree (see the [module documentation](self)).
/// Cost: the oracle's cost at each of the 2n steps of each tree.
pub fn walk<R: Rng>(
    oracle: &mut Oracle<'_>,
    sentences: &[GoldSentence],
    opts: &WalkOptions,
    rng: &mut R,
) -> Result<WalkStats, WalkError> {
    walk_with_progress(oracle, sentences, opts, rng, &mut |_| {})
}

/// [`walk`], telling `progress` the words done as they are done: one for
/// each word that leaves the input, and a skipped tree's words at once (the
/// sum is the words of `sentences`).
pub fn walk_with_progress<R: Rng>(
    oracle: &mut Oracle<'_>,
    sentences: &[GoldSentence],
    opts: &WalkOptions,
    rng: &mut R,
    progress: &mut dyn FnMut(u64),
) -> Result<WalkStats, WalkError> {
    let mut stats = WalkStats::default();
    Oracle::check_support(opts.system, opts.strategy, opts.algorithm).map_err(WalkError::Options)?;
    let others = Oracle::algorithms(opts.system);
    for (index, sentence) in sentences.iter().enumerate() {
        let gold = &sentence.tree;
        let main =
            oracle.algorithm_for(opts.system, opts.strategy, opts.algorithm, gold).map_err(WalkError::Options)?;
        let err = |source| WalkError::Oracle { sentence: index + 1, line: sentence.line, source };
        if gold.len() > opts.limit(main) {
            stats.skipped += 1;
            progress(gold.len() as u64);
            continue;
        }
        stats.trees += 1;
        if opts.session {
            walk_session(oracle, index, sentence, main, opts, rng, &mut stats, progress)?;
            continue;
        }
        let mut config = Configuration::initial(opts.system, gold.len());
        let mut tree = Bucket::default();
        while !config.is_final() {
            let step = if config.stack().len() < 2 && config.is_applicable(Step::Shift) {
                Step::Shift
            } else {
                let t0 = Instant::now();
                let scores = oracle.scores(&config, gold, opts.strategy, main).map_err(err)?;
                let nanos = t0.elapsed().as_nanos();
                let length = config.stack().len() - 1 + config.buffer().count();
                stats.timings.entry(main.name()).or_default().add(length, nanos);
                stats.followed.add(length, nanos);
                stats.note_slow(nanos, index, sentence.line, &config);
                tree.configurations += 1;
                tree.nanos += nanos;
                if opts.check_agreement {
                    let at = (index + 1, sentence.line);
                    check(oracle, &config, gold, opts.strategy, main, &scores, others, at, &mut stats)?;
                }
                choose(&config, &scores, opts.stray, rng)
            };
            let before = words_read(&config);
            config.apply(step).map_err(err)?;
            progress((words_read(&config) - before) as u64);
            stats.steps += 1;
        }
        stats.add_tree(gold.len(), tree);
    }
    Ok(stats)
}

impl WalkStats {
    /// Keeps the answer among the [`SLOWEST`] if it is one. O(SLOWEST).
    fn note_slow(&mut self, nanos: u128, index: usize, line: usize, config: &Configuration) {
        if self.slowest.len() == SLOWEST && self.slowest.last().is_some_and(|s| s.nanos >= nanos) {
            return;
        }
        let at = self.slowest.iter().position(|s| s.nanos < nanos).unwrap_or(self.slowest.len());
        let length = config.stack().len() - 1 + config.buffer().count();
        let slow =
            Slow { nanos, sentence: index + 1, line, n: config.sentence_len(), length, stack: config.stack().to_vec() };
        self.slowest.insert(at, slow);
        self.slowest.truncate(SLOWEST);
    }
    /// Adds the totals of one tree of `n` words to [`WalkStats::by_sentence`].
    fn add_tree(&mut self, n: usize, tree: Bucket) {
        let b = self.by_sentence.entry(n).or_default();
        b.configurations += tree.configurations;
        b.nanos += tree.nanos;
    }
}

/// The walk of one tree with an [`OracleSession`] (`--session`).
#[allow(clippy::too_many_arguments)]
fn walk_session<R: Rng>(
    oracle: &mut Oracle<'_>,
    index: usize,
    sentence: &GoldSentence,
    main: Algorithm,
    opts: &WalkOptions,
    rng: &mut R,
    stats: &mut WalkStats,
    progress: &mut dyn FnMut(u64),
) -> Result<(), WalkError> {
    let gold = &sentence.tree;
    let err = |source| WalkError::Oracle { sentence: index + 1, line: sentence.line, source };
    let others = Oracle::algorithms(opts.system);
    let name = match main {
        Algorithm::Cubic => "cubic+session",
        Algorithm::Quadratic => "quadratic+session",
        Algorithm::Linear | Algorithm::Auto => "linear+session",
        Algorithm::Goldberg => "goldberg+session",
        Algorithm::Tabular => "tabular+session",
    };
    // Time not spent in a timed `scores` (the set-up, and each `apply`) is
    // added to the next timed configuration.
    let t0 = Instant::now();
    let mut session = OracleSession::new(oracle, opts.system, gold.clone(), opts.strategy, main).map_err(err)?;
    let mut untimed = t0.elapsed().as_nanos();
    let mut tree = Bucket::default();
    while !session.configuration().is_final() {
        let step = if session.configuration().stack().len() < 2 && session.configuration().is_applicable(Step::Shift) {
            Step::Shift
        } else {
            let t0 = Instant::now();
            let scores = session.scores().map_err(err)?;
            let nanos = t0.elapsed().as_nanos() + std::mem::take(&mut untimed);
            let config = session.configuration().clone();
            let length = config.stack().len() - 1 + config.buffer().count();
            stats.timings.entry(name).or_default().add(length, nanos);
            stats.followed.add(length, nanos);
            stats.note_slow(nanos, index, sentence.line, &config);
            tree.configurations += 1;
            tree.nanos += nanos;
            if opts.check_agreement {
                let at = (index + 1, sentence.line);
                check(session.oracle(), &config, gold, opts.strategy, main, &scores, others, at, stats)?;
            }
            choose(&config, &scores, opts.stray, rng)
        };
        let before = words_read(session.configuration());
        let t0 = Instant::now();
        session.apply(step).map_err(err)?;
        untimed += t0.elapsed().as_nanos();
        progress((words_read(session.configuration()) - before) as u64);
        stats.steps += 1;
    }
    tree.nanos += untimed;
    stats.add_tree(gold.len(), tree);
    Ok(())
}

/// The words that have left the input of `config`. O(1).
fn words_read(config: &Configuration) -> usize {
    match config.unshifted() {
        // An unshift (arc-eager-nm) happens once every word has been read.
        Some(_) => config.sentence_len(),
        None => config.next_input().unwrap_or(config.sentence_len() + 1) - 1,
    }
}

#[allow(clippy::too_many_arguments)]
fn check(
    oracle: &mut Oracle<'_>,
    config: &Configuration,
    gold: &DepTree,
    strategy: Strategy,
    main: Algorithm,
    scores: &StepScores,
    others: &[Algorithm],
    (sentence, line): (usize, usize),
    stats: &mut WalkStats,
) -> Result<(), WalkError> {
    let projective = gold.is_projective();
    let mut answers = vec![(main, *scores)];
    for &a in others {
        if a == main || (a != Algorithm::Cubic && !projective) || !Oracle::offers(a, strategy) {
            continue;
        }
        let t0 = Instant::now();
        let s =
            oracle.scores(config, gold, strategy, a).map_err(|source| WalkError::Oracle { sentence, line, source })?;
        let length = config.stack().len() - 1 + config.buffer().count();
        stats.timings.entry(a.name()).or_default().add(length, t0.elapsed().as_nanos());
        answers.push((a, s));
    }
    // Attardi and arc-eager-nm have one algorithm: short sentences are checked against the brute force.
    let mut brute = None;
    let one_algorithm = matches!(config.system(), System::Attardi | System::ArcEagerNm);
    if one_algorithm && config.sentence_len() <= ATTARDI_BRUTE_FORCE_MAX {
        let t0 = Instant::now();
        let s = super::exhaustive::step_scores(config, gold, strategy).map_err(|source| WalkError::Oracle {
            sentence,
            line,
            source,
        })?;
        let length = config.stack().len() - 1 + config.buffer().count();
        stats.timings.entry("exhaustive").or_default().add(length, t0.elapsed().as_nanos());
        brute = Some(s);
    }
    stats.compared += 1;
    if answers.iter().any(|(_, s)| s != scores) || brute.is_some_and(|b| b != *scores) {
        let mut answers = answers.iter().map(|(a, s)| format!("{a} {s:?}")).collect::<Vec<_>>();
        answers.extend(brute.map(|b| format!("exhaustive {b:?}")));
        let answers = answers.join("; ");
        return Err(WalkError::Disagreement {
            sentence,
            stack: config.stack().to_vec(),
            next: *config.buffer().start(),
            n: config.sentence_len(),
            answers,
        });
    }
    Ok(())
}

/// With `--check-agreement`, Attardi's oracle is compared with the brute
/// force ([`super::exhaustive`]) on sentences of at most this many words.
pub const ATTARDI_BRUTE_FORCE_MAX: usize = 10;

/// An optimal step chosen uniformly among the optimal ones, or with
/// probability `stray` a uniformly random applicable step.
fn choose<R: Rng>(config: &Configuration, scores: &StepScores, stray: f64, rng: &mut R) -> Step {
    let applicable: Vec<Step> = config.applicable_steps().collect();
    let optimal = scores.optimal();
    let pool =
        if optimal.is_empty() || (stray > 0.0 && rng.gen_bool(stray.clamp(0.0, 1.0))) { &applicable } else { &optimal };
    *pool.choose(rng).unwrap_or(&Step::Shift)
}
