//! `tabula oracle`: optimal steps for configurations given as JSON lines, or
//! `--walk` over a CoNLL-U treebank with timings (Fig. 9).
//!
//! JSON mode: every input line is an object with `stack`, `buffer`, `gold`
//! (the heads of words 1 … n; a leading -1, the root's slot, is accepted;
//! `null` for a word whose head is not annotated makes a partial tree:
//! [`DepTree::from_partial_gold`]) and optionally
//! `system` (overrides `--system`), `strategy` and `arcs` (`[[h, d], …]`, the
//! arcs built so far; arc-eager needs them to know which stack words have a
//! head); the output line is the same object (same keys, same order) with
//! `steps` (every step of the system, null where not applicable) and
//! `optimal` added. Every line is processed; a bad line is
//! reported on stderr as `line N: …` and produces no output line, and the
//! exit status is 1 if any line was bad. Blank lines are skipped.

use super::CliError;
use serde_json::{Map, Value};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use tabula::grammar::text;
use tabula::oracle::arc_eager::grammar::EagerMapping;
use tabula::oracle::arc_hybrid::grammar::HybridMapping;
use tabula::oracle::arc_standard::cubic::{self, CubicOracle};
use tabula::oracle::grammar_oracle::{GrammarOracle, TerminalMapping};
use tabula::oracle::walk::{self, WalkOptions, WalkStats};
use tabula::oracle::{Algorithm, Configuration, Oracle, Strategy, System};
use tabula::output::Output;
use tabula::tree::DepTree;

#[derive(clap::Args)]
pub struct Args {
    /// JSON lines of configurations (`-` or absent: standard input).
    input: Option<PathBuf>,
    /// Transition system when a line has none: arc-standard, arc-hybrid,
    /// arc-eager, lr-spine, attardi, arc-eager-nm (non-monotonic arc-eager,
    /// Honnibal & Johnson 2015).
    #[arg(long, default_value = "arc-standard")]
    system: System,
    /// Strategy when a line has none: none, lbr, strict-lbr, rbl [default:
    /// none for lr-spine, attardi, arc-eager-nm and --algorithm goldberg,
    /// lbr otherwise].
    #[arg(long)]
    strategy: Option<Strategy>,
    /// cubic (the system's grammar; any gold tree), quadratic (arc-standard,
    /// Sec. 5), linear (projective gold trees: arc-standard Sec. 6, the
    /// arc-hybrid and arc-eager closed forms), goldberg (projective gold
    /// trees, strategy none: Goldberg et al. 2014's tables, arc-standard and
    /// lr-spine), tabular (attardi: Gómez-Rodríguez et al. 2014's Algorithm 1, corrected; any
    /// gold tree; arc-eager-nm: its exact O(n³) table, any gold tree) or auto
    /// (linear for projective gold trees, cubic otherwise; lr-spine:
    /// goldberg; attardi and arc-eager-nm: tabular).
    #[arg(long, default_value = "auto")]
    algorithm: Algorithm,
    /// Attardi: the largest |γ| (stack plus reduced input) the tabular
    /// oracle runs its O(|γ|⁸) table on; beyond it, an error [default: 48].
    #[arg(long)]
    max_gamma: Option<usize>,
    /// Grammar for the cubic algorithm of `--system`, replacing the embedded
    /// one: arc-standard (strategies none, lbr, rbl): shift-reduce.grammar,
    /// terminals `p` and `s`; arc-hybrid: arc-hybrid.grammar, terminals `p`
    /// and `b`; arc-eager: arc-eager.grammar, terminals `r`, `h`, `u`, `b`.
    #[arg(long)]
    grammar: Option<PathBuf>,
    /// Arc-standard: grammar for strict-lbr, replacing the embedded shift-reduce-strict.grammar.
    #[arg(long)]
    strict_grammar: Option<PathBuf>,
    /// Walk computations over this CoNLL-U treebank and time the oracle.
    #[arg(long, value_name = "TREEBANK.conllu")]
    walk: Option<PathBuf>,
    /// Walk: probability of a random step instead of an optimal one [default: 0].
    #[arg(long)]
    stray: Option<f64>,
    /// Walk: random seed [default: 0].
    #[arg(long)]
    seed: Option<u64>,
    /// Walk: projectivize every gold tree first (optimally, Sec. 3).
    #[arg(long)]
    projectivize: bool,
    /// Walk: compare all available algorithms at every configuration.
    #[arg(long)]
    check_agreement: bool,
    /// Walk: follow each tree with one incremental oracle session (told every
    /// step, Sec. 7) and time its answers, instead of one-shot calls.
    #[arg(long)]
    session: bool,
    /// Walk: skip trees longer than N words, counted on stderr [default:
    /// 200 for trees scored by the cubic, goldberg or tabular algorithm, or
    /// with --check-agreement (a table at every configuration: n⁴ or more per
    /// walk), 1000 otherwise].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_words: Option<u64>,
    /// Walk: print one JSON line of totals instead of the tables (nothing
    /// else on standard output).
    #[arg(long)]
    json: bool,
    /// Walk: draw mean time by k + m (Fig. 9) as SVG.
    #[arg(long, value_name = "OUT.svg")]
    plot: Option<PathBuf>,
}

/// The options that only `--walk` reads.
fn walk_only(args: &Args) -> [(bool, &'static str); 8] {
    [
        (args.max_words.is_some(), "--max-words"),
        (args.stray.is_some(), "--stray"),
        (args.seed.is_some(), "--seed"),
        (args.projectivize, "--projectivize"),
        (args.check_agreement, "--check-agreement"),
        (args.session, "--session"),
        (args.json, "--json"),
        (args.plot.is_some(), "--plot"),
    ]
}

/// Refuses every option that would have no effect in the mode used.
fn check_options(args: &Args) -> Result<(), CliError> {
    let grammar_oracle = matches!(args.system, System::ArcStandard | System::ArcHybrid | System::ArcEager);
    if args.grammar.is_some() && !grammar_oracle {
        return Err(format!(
            "--grammar: {} has no grammar oracle (only arc-standard, arc-hybrid and arc-eager have one)",
            args.system
        )
        .into());
    }
    if args.strict_grammar.is_some() && args.system != System::ArcStandard {
        return Err("--strict-grammar is for arc-standard only".into());
    }
    // A grammar file decides the answer (under auto, the cubic algorithm
    // reads it); an algorithm that computes the embedded grammar's answer
    // in closed form would ignore it.
    let cubic = matches!(args.algorithm, Algorithm::Cubic | Algorithm::Auto) || args.check_agreement;
    if !cubic {
        for (given, name) in
            [(args.grammar.is_some(), "--grammar"), (args.strict_grammar.is_some(), "--strict-grammar")]
        {
            if given {
                return Err(format!(
                    "{name} replaces the grammar of the cubic algorithm, which --algorithm {} does not use",
                    args.algorithm.name()
                )
                .into());
            }
        }
    }
    match &args.walk {
        None => {
            if let Some((_, name)) = walk_only(args).into_iter().find(|(given, _)| *given) {
                return Err(format!(
                    "{name} applies to --walk only (without --walk, tabula oracle answers JSON configurations)"
                )
                .into());
            }
        }
        Some(walk) => {
            if let Some(input) = &args.input {
                return Err(format!(
                    "--walk {} reads the treebank only: the input {} would not be read (JSON configurations are answered without --walk)",
                    walk.display(),
                    input.display()
                )
                .into());
            }
            if args.max_gamma.is_some() && args.system != System::Attardi {
                return Err(
                    format!("--max-gamma applies to --system attardi only (the walk uses {})", args.system).into()
                );
            }
            if let (Some(s), System::ArcHybrid | System::ArcEager) = (args.strategy, args.system) {
                return Err(format!(
                    "--strategy {s}: {}'s computations give every word its left children before its right ones, \
                     so its strategies are all one; the option would do nothing",
                    args.system
                )
                .into());
            }
            if let (Some(seed), true) = (args.seed, args.stray() == 0.0) {
                return Err(format!(
                    "--seed {seed} draws the random steps of --stray P, and --stray is 0: no random step is taken"
                )
                .into());
            }
            if args.grammar.is_some()
                && args.system == System::ArcStandard
                && args.strategy_for(args.system) == Strategy::StrictLbr
            {
                return Err("--grammar is arc-standard's grammar for the strategies none, lbr and rbl; \
                     the walk uses strategy strict-lbr, whose grammar is --strict-grammar"
                    .into());
            }
            if args.strict_grammar.is_some() && args.strategy_for(args.system) != Strategy::StrictLbr {
                return Err(format!(
                    "--strict-grammar is the grammar of strategy strict-lbr; the walk uses strategy {}",
                    args.strategy_for(args.system)
                )
                .into());
            }
        }
    }
    Ok(())
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    check_options(&args)?;
    let general = match &args.grammar {
        Some(p) => Some(text::parse_file(p)?.grammar),
        None => None,
    };
    let strict = match &args.strict_grammar {
        Some(p) => Some(text::parse_file(p)?.grammar),
        None => None,
    };
    let standard = if args.system == System::ArcStandard { general.as_ref() } else { None };
    // A grammar without the terminals of --system's positions: name the file and the system.
    let named = |path: &Option<PathBuf>, e: &dyn std::fmt::Display| match path {
        Some(p) => format!("{}: as the grammar of {} (--system): {e}", p.display(), args.system),
        None => e.to_string(),
    };
    let cubic = CubicOracle::new(
        standard.unwrap_or_else(|| cubic::shift_reduce_grammar()),
        strict.as_ref().unwrap_or_else(|| cubic::shift_reduce_strict_grammar()),
    )
    .map_err(|e| {
        let which = if standard.is_some() { &args.grammar } else { &args.strict_grammar };
        named(which, &e)
    })?;
    let mut oracle = Oracle::with_cubic(cubic);
    oracle.attardi_mut().set_max_gamma(args.max_gamma.unwrap_or(tabula::oracle::attardi::tabular::DEFAULT_MAX_GAMMA));
    if let (Some(g), Some(mapping)) = (&general, mapping(args.system)) {
        oracle = oracle.with_grammar_oracle(GrammarOracle::new(mapping, g).map_err(|e| named(&args.grammar, &e))?);
    }
    match &args.walk {
        Some(path) => run_walk(&args, path, &mut oracle),
        None => run_json(&args, &mut oracle),
    }
}

/// The terminal mapping of a system's grammar oracle (arc-standard has its own cubic oracle).
fn mapping(system: System) -> Option<&'static dyn TerminalMapping> {
    match system {
        System::ArcStandard | System::LrSpine => None,
        System::ArcHybrid => Some(&HybridMapping),
        System::ArcEager => Some(&EagerMapping),
        System::Attardi | System::ArcEagerNm => None,
    }
}

impl Args {
    /// `--stray`, 0 by default.
    fn stray(&self) -> f64 {
        self.stray.unwrap_or(0.0)
    }
    /// `--seed`, 0 by default.
    fn seed(&self) -> u64 {
        self.seed.unwrap_or(0)
    }
    /// The strategy for `system` when none is given: `--strategy`, else none
    /// for attardi (its only one) and lbr for the others.
    /// `--strategy`, or the default for `system`: none for attardi,
    /// lr-spine and `--algorithm goldberg` (they score every computation),
    /// lbr otherwise.
    fn strategy_for(&self, system: System) -> Strategy {
        let every_computation = matches!(system, System::Attardi | System::LrSpine | System::ArcEagerNm)
            || self.algorithm == Algorithm::Goldberg;
        self.strategy.unwrap_or(if every_computation { Strategy::None } else { Strategy::Lbr })
    }
}

fn run_json(args: &Args, oracle: &mut Oracle<'_>) -> Result<ExitCode, CliError> {
    let (mut reader, name): (Box<dyn BufRead>, String) = match &args.input {
        Some(p) if p.as_os_str() != "-" => (
            tabula::conllu::compressed::open(p).map_err(|e| format!("cannot open {}: {e}", p.display()))?,
            p.display().to_string(),
        ),
        _ => (
            tabula::conllu::compressed::decompress(std::io::BufReader::new(std::io::stdin()))
                .map_err(|e| format!("<stdin>: {e}"))?,
            "<stdin>".to_owned(),
        ),
    };
    let mut seen_line = false;
    let mut out = Output::create(None)?;
    let mut bad = 0usize;
    let mut used = Used::default();
    let mut bytes = Vec::new();
    let mut line_no = 0usize;
    loop {
        bytes.clear();
        if reader.read_until(b'\n', &mut bytes).map_err(|e| format!("line {}: cannot read: {e}", line_no + 1))? == 0 {
            break;
        }
        line_no += 1;
        let result = match std::str::from_utf8(&bytes) {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) if !std::mem::replace(&mut seen_line, true) && looks_like_conllu(line) => {
                // One error for the file, not one per line.
                out.commit()?;
                return Err(format!(
                    "{name}:{line_no}: this is CoNLL-U, not JSON configurations (one JSON object per line); \
                     to walk parser computations over a treebank, use `tabula oracle --walk {name}`"
                )
                .into());
            }
            Ok(line) => answer(line, args, oracle, &mut used),
            Err(e) => Err(format!("not UTF-8 (invalid byte at column {})", e.valid_up_to() + 1)),
        };
        match result {
            Ok(v) => {
                let mut text = serde_json::to_vec(&v)?;
                text.push(b'\n');
                out.write_all(&text)?;
            }
            Err(e) => {
                // Keep stdout and stderr in order for a reader of both.
                out.flush()?;
                match args.input.as_deref().filter(|p| p.as_os_str() != "-") {
                    Some(_) => super::say!("{name}:{line_no}: {e}"),
                    None => super::say!("line {line_no}: {e}"),
                }
                bad += 1;
            }
        }
    }
    out.commit()?;
    if !seen_line && bad == 0 {
        return Err(format!("{name}: no configurations (the input is empty; one JSON object per line)").into());
    }
    if bad > 0 {
        super::say!("error: {}", super::plural(bad, "bad line"));
        return Ok(ExitCode::FAILURE);
    }
    // An option that no line used did nothing: the answers stand, but the
    // run says so and fails, as an option refused at the start would.
    if args.max_gamma.is_some() && !used.attardi {
        return Err(format!(
            "--max-gamma bounds Attardi's oracle, which no line used (--system {}; no line with \"system\": \"attardi\")",
            args.system
        )
        .into());
    }
    if let (Some(s), false) = (args.strategy, used.strategy) {
        return Err(format!(
            "--strategy {s} is the strategy of arc-standard lines without one of their own, and no line was one \
             (--system {}; the other systems' strategies are all one, or only none)",
            args.system
        )
        .into());
    }
    if args.grammar.is_some() && !used.general {
        return Err(format!(
            "--grammar is arc-standard's grammar for the strategies none, lbr and rbl, which no line used \
             (--strategy {}; strict-lbr reads --strict-grammar)",
            args.strategy_for(System::ArcStandard)
        )
        .into());
    }
    if args.strict_grammar.is_some() && !used.strict {
        return Err(format!(
            "--strict-grammar is the grammar of arc-standard's strategy strict-lbr, which no line used \
             (--strategy {}; no line with \"strategy\": \"strict-lbr\")",
            args.strategy_for(System::ArcStandard)
        )
        .into());
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether a line that is not a JSON object looks like the first line of a
/// CoNLL-U file: a comment, or a line of ten tab-separated columns.
fn looks_like_conllu(line: &str) -> bool {
    let line = line.trim_end_matches(['\n', '\r']);
    !line.trim_start().starts_with('{') && (line.starts_with('#') || line.split('\t').count() == 10)
}

/// The keys a configuration line may have; `id` is copied to the answer unread.
const KNOWN_KEYS: [&str; 8] = ["stack", "buffer", "unshifted", "gold", "arcs", "system", "strategy", "id"];

/// Reads a JSON array of non-negative integers.
fn nodes(obj: &Map<String, Value>, key: &str) -> Result<Vec<usize>, String> {
    let v = obj.get(key).ok_or_else(|| format!("missing `{key}`"))?;
    let arr = v.as_array().ok_or_else(|| format!("`{key}` must be an array of node numbers"))?;
    arr.iter()
        .map(|x| {
            x.as_u64()
                .and_then(|x| usize::try_from(x).ok())
                .ok_or_else(|| format!("`{key}` must contain non-negative integers, found {x}"))
        })
        .collect()
}

/// Reads `arcs`: an array of [head, dependent] pairs of non-negative integers.
fn arcs(v: &Value) -> Result<Vec<(usize, usize)>, String> {
    let bad = || format!("`arcs` must be an array of [head, dependent] pairs of node numbers, found {v}");
    let arr = v.as_array().ok_or_else(bad)?;
    arr.iter()
        .map(|pair| {
            let p = pair.as_array().filter(|p| p.len() == 2).ok_or_else(bad)?;
            let node = |x: &Value| x.as_u64().and_then(|x| usize::try_from(x).ok()).ok_or_else(bad);
            Ok((node(&p[0])?, node(&p[1])?))
        })
        .collect()
}

/// Which of the options that only some lines use were used by a line
/// answered (JSON mode): `--max-gamma` (Attardi's oracle), `--strict-grammar`
/// (arc-standard's strategy strict-lbr).
#[derive(Default)]
struct Used {
    attardi: bool,
    strict: bool,
    /// A line of a system with a choice of strategies (arc-standard) took
    /// `--strategy` as its own.
    strategy: bool,
    /// A line read `--grammar`: any line of `--system` but an arc-standard
    /// one with strategy strict-lbr (which reads `--strict-grammar`).
    general: bool,
}

fn answer(line: &str, args: &Args, oracle: &mut Oracle<'_>, used: &mut Used) -> Result<Value, String> {
    // serde's message ends with its own "at line 1 column C" (its line is
    // always 1 here): the column is kept, the line is the file's.
    let value: Value = serde_json::from_str(line).map_err(|e| {
        let text = e.to_string();
        let reason = text.split(" at line ").next().unwrap_or(&text);
        format!("bad JSON: {reason} at column {}", e.column())
    })?;
    let Value::Object(mut obj) = value else { return Err("expected a JSON object".into()) };
    if let Some(key) = obj.keys().find(|k| !KNOWN_KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown key `{key}` (the keys are {}; put your own data under `id`)",
            KNOWN_KEYS.map(|k| format!("`{k}`")).join(", ")
        ));
    }
    let stack = nodes(&obj, "stack")?;
    let buffer = nodes(&obj, "buffer")?;
    let gold_v = obj.get("gold").and_then(Value::as_array).ok_or("missing `gold` (the heads of words 1 … n)")?;
    let gold_values = gold_v
        .iter()
        .map(|h| match h {
            Value::Null => Ok(None),
            h => h.as_i64().map(Some).ok_or_else(|| format!("`gold` must contain integers (heads) or null, found {h}")),
        })
        .collect::<Result<Vec<Option<i64>>, String>>()?;
    let gold = DepTree::from_partial_gold(&gold_values).map_err(|e| format!("`gold` is not a tree: {e}"))?;
    let system = match obj.get("system") {
        None | Some(Value::Null) => args.system,
        Some(Value::String(s)) => s.parse().map_err(|e| format!("{e}"))?,
        Some(other) => return Err(format!("`system` must be a string, found {other}")),
    };
    let strategy = match obj.get("strategy") {
        None | Some(Value::Null) => args.strategy_for(system),
        Some(Value::String(s)) => s.parse().map_err(|e| format!("{e}"))?,
        Some(other) => return Err(format!("`strategy` must be a string, found {other}")),
    };
    used.attardi |= system == System::Attardi;
    used.strategy |= system == System::ArcStandard && matches!(obj.get("strategy"), None | Some(Value::Null));
    used.strict |= system == System::ArcStandard && strategy == Strategy::StrictLbr;
    let built = match obj.get("arcs") {
        None | Some(Value::Null) => None,
        Some(v) => Some(arcs(v)?),
    };
    let unshifted = match obj.get("unshifted") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|x| usize::try_from(x).ok())
                .ok_or_else(|| format!("`unshifted` must be a word number, found {v}"))?,
        ),
    };
    let config = match (unshifted, built) {
        (Some(_), _) if !buffer.is_empty() => {
            return Err("`unshifted` is the whole remaining input: `buffer` must then be []".into())
        }
        (Some(w), arcs) => Configuration::with_unshifted(system, &stack, w, &arcs.unwrap_or_default(), gold.len()),
        (None, None) => Configuration::new(system, &stack, &buffer, gold.len()),
        (None, Some(arcs)) => Configuration::with_arcs(system, &stack, &buffer, &arcs, gold.len()),
    }
    .map_err(|e| e.to_string())?;
    if args.grammar.is_some() && system != args.system {
        return Err(format!("`system` is {system}, but --grammar replaces the grammar of {} (--system)", args.system));
    }
    used.general |= !(system == System::ArcStandard && strategy == Strategy::StrictLbr);
    let scores = oracle.scores(&config, &gold, strategy, args.algorithm).map_err(|e| e.to_string())?;
    // A final configuration offers no step (arc-eager: the input is empty,
    // though stack words may still be reducible).
    let is_final = config.is_final();
    let mut steps = Map::new();
    for step in config.steps() {
        let score = if is_final { None } else { scores.get(step) };
        steps.insert(step.name().to_owned(), score.map_or(Value::Null, Value::from));
    }
    obj.insert("final".into(), Value::Bool(is_final));
    obj.insert("steps".into(), Value::Object(steps));
    let optimal = if is_final { Vec::new() } else { scores.optimal() };
    obj.insert("optimal".into(), Value::Array(optimal.into_iter().map(|s| Value::from(s.name())).collect()));
    Ok(Value::Object(obj))
}

/// The strategy of `--strategy`, or its default for `system`: none for
/// lr-spine and the goldberg algorithm (which score every computation), lbr
/// otherwise.
fn run_walk(args: &Args, path: &std::path::Path, oracle: &mut Oracle<'_>) -> Result<ExitCode, CliError> {
    use rand::SeedableRng;
    if !(0.0..=1.0).contains(&args.stray()) {
        return Err(format!("--stray must be a probability in [0, 1], not {}", args.stray()).into());
    }
    // The plot's output first: an unwritable path is reported before any work.
    let mut inputs = vec![path];
    inputs.extend(args.grammar.as_deref());
    inputs.extend(args.strict_grammar.as_deref());
    let plot_output = args.plot.as_deref().map(|p| Output::create_apart(Some(p), &inputs)).transpose()?;
    let input = tabula::conllu::compressed::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let opts = WalkOptions {
        system: args.system,
        strategy: args.strategy_for(args.system),
        algorithm: args.algorithm,
        stray: args.stray(),
        check_agreement: args.check_agreement,
        session: args.session,
        max_words: args.max_words.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
    };
    // A tree longer than every limit is not projectivized (O(n³)): it is skipped.
    let longest = opts.limit(Algorithm::Linear).max(opts.limit(Algorithm::Cubic));
    let sentences = walk::read_gold_up_to(input, &path.display().to_string(), args.projectivize, longest)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed());
    let words: u64 = sentences.iter().map(|s| s.tree.len() as u64).sum();
    let bar = super::progress::progress_bar(words, "words");
    let stats = walk::walk_with_progress(oracle, &sentences, &opts, &mut rng, &mut |w| {
        if let Some(b) = &bar {
            b.inc(w);
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if stats.skipped > 0 {
        super::say!(
            "{}: skipped {} of {} trees longer than {} (--max-words)",
            path.display(),
            stats.skipped,
            stats.skipped + stats.trees,
            match args.max_words {
                Some(n) => format!("{n} words"),
                None => format!(
                    "{} words, or {} for the cubic, goldberg and tabular algorithms and with --check-agreement",
                    walk::DEFAULT_MAX_WORDS,
                    walk::DEFAULT_MAX_WORDS_TABLE
                ),
            }
        );
    }
    print_walk(args, &stats)?;
    if let Some(mut out) = plot_output {
        let title = format!(
            "Mean time per configuration: {}, {}",
            args.system,
            path.file_name().map_or_else(|| path.display().to_string(), |f| f.to_string_lossy().into_owned())
        );
        let svg = plot(&stats, &title).map_err(|e| format!("cannot draw the plot: {e}"))?;
        out.write_all(svg.as_bytes())?;
        out.commit()?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_walk(args: &Args, stats: &WalkStats) -> Result<(), CliError> {
    let mut out = Output::create(None)?;
    // With --json, standard output is one JSON document and nothing else.
    if !args.json {
        writeln!(
            out,
            "# {}: {} trees{}, {} steps, strategy {}, stray {}, seed {}{}",
            args.system,
            stats.trees,
            if stats.skipped > 0 { format!(" ({} longer ones skipped)", stats.skipped) } else { String::new() },
            stats.steps,
            args.strategy_for(args.system),
            args.stray(),
            args.seed(),
            if args.projectivize { ", projectivized" } else { "" }
        )?;
        if args.check_agreement {
            writeln!(
                out,
                "# agreement checked at {} configurations: {}",
                stats.compared,
                stats.timings.keys().copied().collect::<Vec<_>>().join(", ")
            )?;
        }
        writeln!(out, "algorithm\tk+m\tconfigurations\tmean_us")?;
        for (name, t) in &stats.timings {
            for (len, b) in &t.buckets {
                writeln!(out, "{name}\t{len}\t{}\t{:.3}", b.configurations, b.mean_us())?;
            }
            let total = t.total();
            writeln!(out, "{name}\tall\t{}\t{:.3}", total.configurations, total.mean_us())?;
        }
        for s in &stats.slowest {
            writeln!(
                out,
                "# slow: {:.1} us at sentence {} (line {}), n = {}, k+m = {}, stack {}",
                s.nanos as f64 / 1000.0,
                s.sentence,
                s.line,
                s.n,
                s.length,
                tabula::oracle::system::short_list(&s.stack)
            )?;
        }
        writeln!(out, "# per tree, everything included (with --session: set-up and steps), by sentence length")?;
        writeln!(out, "sentence_length\tconfigurations\tmean_us")?;
        for (n, b) in &stats.by_sentence {
            writeln!(out, "{n}\t{}\t{:.3}", b.configurations, b.mean_us())?;
        }
    }
    if args.json {
        let mut obj = Map::new();
        obj.insert("system".into(), Value::from(args.system.name()));
        obj.insert("algorithm".into(), Value::from(args.algorithm.name()));
        obj.insert("strategy".into(), Value::from(args.strategy_for(args.system).name()));
        let total = stats.followed.total();
        obj.insert("configurations".into(), Value::from(total.configurations));
        obj.insert("mean_us".into(), Value::from(total.mean_us()));
        obj.insert("trees".into(), Value::from(stats.trees));
        obj.insert("skipped".into(), Value::from(stats.skipped));
        obj.insert("steps".into(), Value::from(stats.steps));
        obj.insert("stray".into(), Value::from(args.stray()));
        obj.insert("seed".into(), Value::from(args.seed()));
        obj.insert("projectivized".into(), Value::from(args.projectivize));
        obj.insert("agreement_checked".into(), Value::from(stats.compared));
        obj.insert("session".into(), Value::from(args.session));
        let mut per = Map::new();
        for (name, t) in &stats.timings {
            let buckets: Vec<Value> = t
                .buckets
                .iter()
                .map(|(len, b)| serde_json::json!({"length": len, "configurations": b.configurations, "mean_us": b.mean_us()}))
                .collect();
            per.insert((*name).to_owned(), serde_json::json!({"configurations": t.total().configurations, "mean_us": t.total().mean_us(), "buckets": buckets}));
        }
        obj.insert("algorithms".into(), Value::Object(per));
        let by_sentence: Vec<Value> = stats
            .by_sentence
            .iter()
            .map(|(n, b)| serde_json::json!({"sentence_length": n, "configurations": b.configurations, "mean_us": b.mean_us()}))
            .collect();
        obj.insert("by_sentence_length".into(), Value::from(by_sentence));
        serde_json::to_writer(&mut out, &Value::Object(obj))?;
        writeln!(out)?;
    }
    Ok(out.commit()?)
}

/// Draws Fig. 9 (Nederhof 2019): mean µs per configuration against k + m,
/// one line per algorithm (broken where a k + m has no configuration),
/// logarithmic y axis, titled `title`, as SVG. O(buckets).
fn plot(stats: &WalkStats, title: &str) -> Result<String, Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let points = || stats.timings.values().flat_map(|t| t.buckets.iter().map(|(&l, b)| (l, b.mean_us())));
    let max_len = points().map(|(l, _)| l).max().unwrap_or(1).max(1);
    let (lo, hi) = points().fold((f64::INFINITY, 0f64), |(lo, hi), (_, y)| (lo.min(y), hi.max(y)));
    let (lo, hi) = if hi > 0.0 { ((lo.max(1e-3) / 2.0), hi * 2.0) } else { (0.1, 10.0) };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0..max_len + 1, (lo..hi).log_scale())?;
    chart.configure_mesh().x_desc("k + m").y_desc("mean µs").y_label_formatter(&super::plot::number).draw()?;
    for (i, (name, t)) in stats.timings.iter().enumerate() {
        let color = super::plot::color(i);
        let points: Vec<(usize, f64)> = t.buckets.iter().map(|(&l, b)| (l, b.mean_us())).collect();
        // One line per run of consecutive k + m: no line across values without configurations.
        let runs = super::plot::runs(&points.iter().map(|&(l, y)| (l as u64, y)).collect::<Vec<_>>());
        for (k, run) in runs.into_iter().enumerate() {
            let drawn = chart.draw_series(
                LineSeries::new(run.into_iter().map(|(l, y)| (l as usize, y)), color.stroke_width(2)).point_size(2),
            )?;
            if k == 0 {
                drawn.label(*name).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            }
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .border_style(BLACK)
        .background_style(WHITE)
        .draw()?;
    root.present()?;
    drop(chart);
    drop(root);
    Ok(svg)
}
