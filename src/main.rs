//! The `tabula` command line: a thin layer over the library.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Semiring tabular parsing for split bilexical grammars: optimal
/// projectivization, counting, and optimal steps for shift-reduce parsing.
#[derive(Parser)]
#[command(name = "tabula", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Refuse, with an error, any single computation (one sentence's chart
    /// and preference weights, one oracle call, the model's tables in
    /// training or when a model is read) estimated to need more memory than
    /// this, instead of letting the allocation abort the process: e.g. 500M,
    /// 8G, 2T [default: 8G]. Not for eval, draw, deprojectivize, grammar
    /// check and projectivize --method lift, which hold no such computation.
    #[arg(long, global = true, value_name = "SIZE", value_parser = tabula::memory::parse_size)]
    max_memory: Option<u64>,
}

#[derive(Subcommand)]
enum Command {
    /// Check a grammar file, or parse a terminal string with it.
    #[command(subcommand)]
    Grammar(cli::grammar::Command),
    /// Projectivize a CoNLL-U treebank (optimally, or by lifting).
    #[command(after_help = PROJECTIVIZE_HELP)]
    Projectivize(cli::projectivize::Args),
    /// Undo `projectivize --encode` (pseudo-projective decoding) on any CoNLL-U file.
    #[command(after_help = DEPROJECTIVIZE_HELP)]
    Deprojectivize(cli::deprojectivize::Args),
    /// Count the optimal projectivizations of every tree of a CoNLL-U treebank.
    #[command(after_help = COUNT_HELP)]
    Count(cli::count::Args),
    /// Optimal steps of a shift-reduce parser (dynamic oracle).
    #[command(after_help = ORACLE_HELP)]
    Oracle(cli::oracle::Args),
    /// The main job on an embedded sample treebank: projectivize, count, oracle.
    #[command(after_help = DEMO_HELP)]
    Demo(cli::demo::Args),
    /// Train a parser (greedy, or with a beam and global updates) with tabula's oracles.
    #[command(after_help = TRAIN_HELP)]
    Train(cli::train::Args),
    /// Parse a CoNLL-U file with a trained model (fills HEAD and DEPREL).
    #[command(after_help = PARSE_HELP)]
    Parse(cli::parse::Args),
    /// UAS and LAS of a parsed CoNLL-U file against the gold one.
    #[command(after_help = EVAL_HELP)]
    Eval(cli::eval::Args),
    /// Train the built-in tagger (UPOS, and FEATS with --feats): an averaged perceptron.
    #[command(after_help = TRAIN_TAGGER_HELP)]
    TrainTagger(cli::tagger::TrainArgs),
    /// Tag a CoNLL-U file with a trained tagger (fills UPOS, and FEATS for a --feats tagger).
    #[command(after_help = TAG_HELP)]
    Tag(cli::tagger::TagArgs),
    /// Combine parsers: the tree with the most weighted votes of several parsed files.
    #[command(after_help = ENSEMBLE_HELP)]
    Ensemble(cli::ensemble::Args),
    /// Every subcommand's options as JSON (for the Python parity test).
    #[command(hide = true)]
    Options,
    /// Draw trees: an HTML page, an SVG or text; several files of the same words compared.
    #[command(after_help = DRAW_HELP)]
    Draw(cli::draw::Args),
}

const DRAW_HELP: &str = "\
Input: one or more CoNLL-U files (plain, xz or gzip) with the same sentences
and words (FORM) in the same order, each with a tree in HEAD. Output: for
each sentence an arc diagram (words with their UPOS, arcs above with their
DEPREL) of the first file's tree; where another file has another head, its
arc in that file's colour and the first file's arc dashed; where it has the
same head and another relation, the label `first/other` on yellow; the
count of such words in the sentence's heading. Non-projective arcs are
thick and vermillion. Right-to-left scripts are drawn right to left.

Examples:
  tabula draw data/sample.conllu -o sample.html
  tabula draw gold.conllu parsed.conllu -o diff.html --differences
  tabula draw data/sample.conllu --text --sentences demo-1
  tabula draw treebank.conllu.xz -o np.svg --nonprojective --max-words 20
  tabula projectivize data/sample.conllu -o proj.conllu --draw moved.html";

const ENSEMBLE_HELP: &str = "\
Input: two or more parsed CoNLL-U files (plain, xz or gzip) of the same text:
the same sentences and words in the same order, each with a tree in HEAD.
Every file votes its weight (--weights, 1 each by default) for each of its
arcs (Sagae & Lavie 2006). Output: the first file with HEAD and DEPREL
replaced by the single-root tree of the most votes (any tree: the maximum
spanning arborescence; --projective: a projective tree, found by the engine)
and each arc's DEPREL of the most weight. Standard error: the counts.

Examples:
  tabula ensemble a.conllu b.conllu c.conllu -o vote.conllu
  tabula ensemble a.conllu b.conllu c.conllu --weights 1,1,1.5 --projective -o vote.conllu";

const TRAIN_TAGGER_HELP: &str = "\
Input: a CoNLL-U treebank (plain, xz or gzip) with FORM and gold UPOS (and
FEATS with --feats); --dev another one, to keep the epoch with the best dev
UPOS accuracy. Output: one tagger file (a text header naming the tags, the
FEATS attributes and the tag dictionary, then the weight tables and a
checksum). Standard error: the data, one line per epoch (and its dev accuracy).

Examples:
  tabula train-tagger data/sample.conllu -o sample.tagger --epochs 5
  tabula train-tagger train.conllu -o t.tagger --dev dev.conllu --feats
  tabula train-tagger train.conllu -o b.tagger --dev dev.conllu --direction both --ensemble 3
  tabula train-tagger train.conllu -o v.tagger --dev dev.conllu --decode viterbi";

const TAG_HELP: &str = "\
Input: CoNLL-U (plain, xz or gzip); only FORM is read. Output: the same bytes
with UPOS (and FEATS, for a tagger trained with --feats) replaced for every
syntactic word; comments, multiword tokens, empty nodes and the other columns
are copied unchanged. With --eval, the input's own tags are the gold ones and
the accuracy goes to standard error.

Examples:
  tabula tag --tagger sample.tagger data/sample.conllu -o tagged.conllu --stats
  tabula tag --tagger t.tagger test.conllu.xz --eval > tagged.conllu
  tabula parse --model sample.model --tagger sample.tagger raw.conllu -o parsed.conllu";

const TRAIN_HELP: &str = "\
Input: a CoNLL-U treebank (plain, xz or gzip) with FORM, UPOS and a complete
tree (HEAD, DEPREL) in every sentence (with --tagger, its UPOS are replaced
by predicted ones); --dev another one, to keep the epoch with the best dev LAS. Output: one model file (a text header naming the system,
root position, beam and labels, then the weight tables and a checksum).
Standard error: the data, one line per epoch (and its dev scores).

Examples:
  tabula train data/sample.conllu -o sample.model --epochs 5
  tabula train train.conllu -o m.model --dev dev.conllu --system arc-eager --root last
  tabula train train.conllu -o b.model --dev dev.conllu --beam 8 --update max-violation --restart
  tabula train train.conllu -o p.model --dev dev.conllu --tagger t.tagger --jackknife 5";

const PARSE_HELP: &str = "\
Input: CoNLL-U (plain, xz or gzip) with FORM and UPOS (and FEATS for a model
trained with --feats), or FORM only with --tagger; HEAD and DEPREL may be `_`.
Output: the same bytes with HEAD and DEPREL filled in for every syntactic word
(and, with --tagger, the tagger's UPOS and FEATS); comments, multiword tokens,
empty nodes and the other columns are copied unchanged.

Examples:
  tabula parse --model sample.model data/sample.conllu -o parsed.conllu --stats
  tabula parse --model b.model test.conllu.xz --threads 2 > parsed.conllu
  tabula parse --model m.model --tagger t.tagger raw.conllu -o parsed.conllu";

const EVAL_HELP: &str = "\
Input: the gold and the parsed CoNLL-U files, with the same words in the same
order. Output: UAS and LAS (LAS compares the universal part of DEPREL, before
`:`), over all words and without punctuation, then by sentence length; with
--json, the same as one JSON object.

Example:
  tabula eval data/sample.conllu parsed.conllu";

const PROJECTIVIZE_HELP: &str = "\
Input: CoNLL-U (https://universaldependencies.org/format.html), plain or compressed
with xz or gzip (recognised by content, whatever the file name): one word per line,
ten tab-separated columns (ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC),
a blank line after each sentence; comments (#), multiword tokens (3-4) and empty
nodes (5.1) are allowed and kept.
Output: the same bytes, with the HEAD column rewritten only where the head changed
(DEPREL and all else untouched; CRLF line ends are kept; with --encode, also the
DEPREL of the moved words and of the words on their paths). A bad sentence stops the
run with FILE:LINE: message, or with --keep-going is copied unchanged and listed.

Examples:
  tabula projectivize de_gsd-ud-test.conllu -o de.proj.conllu --stats
  tabula projectivize treebank.conllu.xz --method lift > lifted.conllu
  tabula projectivize train.conllu --encode head+path -o train.pp.conllu";

const DEPROJECTIVIZE_HELP: &str = "\
Input: CoNLL-U, as for `tabula projectivize` (plain, xz or gzip), with the
DEPRELs of `tabula projectivize --encode` (or of a parser trained on such a
file): `d|h` a moved word whose original head has relation h, `d|` a moved
word (path scheme, or moved away from the root), `p%` a word on the path to
an original head (MaltParser's format). HEAD must be numbers forming a tree.
Output: the same bytes, with HEAD and DEPREL rewritten: moved words
reattached, every DEPREL plain. A DEPREL with `|` or `%` in another form is
kept as it is (a warning counts them).

Examples:
  tabula projectivize train.conllu --encode head+path -o train.pp.conllu
  tabula deprojectivize parsed.conllu -o parsed.nonproj.conllu --stats";

const COUNT_HELP: &str = "\
Input: CoNLL-U files, as for `tabula projectivize`.
Output: a TSV (tab-separated), a header line, then one line per tree:
  index          1, 2, ... across all inputs, in order
  sent_id        the value of `# sent_id = ...`, or empty
  length         the number of syntactic words
  nonprojective  1 if the gold tree is non-projective, else 0
  best           the most gold heads that a tree of the grammar keeps
  count          the exact number of trees keeping `best` gold heads

Example:
  $ tabula count data/sample.conllu | head -3
  index\tsent_id\tlength\tnonprojective\tbest\tcount
  1\tdemo-1\t8\t1\t7\t6
  2\tdemo-2\t3\t0\t3\t1";

const ORACLE_HELP: &str = "\
Input: one JSON object per line (blank lines are skipped):
  stack     the stack a0 ... ak: node numbers from the root 0, increasing
  buffer    the remaining input b1 ... bm: a suffix of the words 1 ... n
  unshifted optional (arc-eager-nm): the word an unshift moved back onto the
            empty input, which is then the whole input (`buffer` must be [])
  gold      the heads of words 1 ... n (0: the root), as in CoNLL-U's HEAD
            column; a leading -1 (the root's slot: gold[d] = head of d) is read too
  arcs      optional, [[head, dependent], ...]: the arcs built so far (arc-eager
            and arc-eager-nm need them when the stack holds more than the root)
  system    optional: arc-standard, arc-hybrid, arc-eager, lr-spine, attardi or
            arc-eager-nm
            (else --system)
  strategy  optional (else --strategy): none (every computation), lbr (the top of
            the stack and the input words take their left children before their
            right ones), strict-lbr (lbr, and the stack words below the top take
            no new left children), rbl (right children before left ones)
  id        optional, any JSON value: copied to the answer, to match answers to
            questions. Any other key is an error.
Output: the same object (same keys, same order) plus `final` (whether the
computation has ended: then no step is offered), `steps`, for each step of the
system the most gold arcs still reachable after it (null: not applicable), and
`optimal`, the steps reaching the maximum. A bad line is reported on stderr as
`FILE:N: ...` (standard input: `line N: ...`) and gives no output line; the other
lines are answered and the exit status is then 1; an empty input is an error. Compressed input (xz, gzip) is read as well; a CoNLL-U file is
one error (it is read with --walk).

Example:
  $ echo '{\"stack\":[0,3,5],\"buffer\":[6,7],\"gold\":[2,0,2,5,3,5,5]}' | tabula oracle
  {\"stack\":[0,3,5],\"buffer\":[6,7],\"gold\":[2,0,2,5,3,5,5],\"final\":false,\"steps\":{\"shift\":3,\"reduce_left\":1,\"reduce_right\":2},\"optimal\":[\"shift\"]}

With --walk FILE.conllu: walks parser computations over the treebank and prints
TSV tables of the mean time per configuration by k + m (stack + input length) and
by sentence length (--json adds one JSON line of totals). The options marked
`Walk:` apply to --walk only and are errors without it.";

const DEMO_HELP: &str = "\
Output (stdout): a table per sentence of the embedded data/sample.conllu (words,
whether the gold tree is non-projective, heads kept by optimal projectivization
and by lifting, number of optimal trees), optimal oracle steps for the first
sentence in every transition system, and the projectivized treebank.

Example:
  tabula demo | head -12";

/// The command, if its work holds no computation that `--max-memory`
/// bounds (linear passes over the input), so that the option would do nothing.
fn unbounded(command: &Command) -> Option<&'static str> {
    match command {
        Command::Eval(_) => Some("eval"),
        Command::Draw(_) => Some("draw"),
        Command::Deprojectivize(_) => Some("deprojectivize"),
        Command::Grammar(cli::grammar::Command::Check { .. }) => Some("grammar check"),
        Command::Projectivize(a) if a.method == cli::projectivize::Method::Lift => Some("projectivize --method lift"),
        _ => None,
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let (Some(_), Some(name)) = (cli.max_memory, unbounded(&cli.command)) {
        eprintln!(
            "error: --max-memory bounds the computations of the engine, the oracles, training and parsing; \
             {name} runs none (its work is linear in its input), so the option would do nothing"
        );
        return ExitCode::FAILURE;
    }
    tabula::memory::set_max_memory(cli.max_memory.unwrap_or(tabula::memory::DEFAULT_MAX_MEMORY));
    let result = match cli.command {
        Command::Grammar(c) => cli::grammar::run(c),
        Command::Projectivize(a) => cli::projectivize::run(a),
        Command::Deprojectivize(a) => cli::deprojectivize::run(a),
        Command::Count(a) => cli::count::run(a),
        Command::Oracle(a) => cli::oracle::run(a),
        Command::Demo(a) => cli::demo::run(a),
        Command::Train(a) => cli::train::run(a),
        Command::Parse(a) => cli::parse::run(a),
        Command::Eval(a) => cli::eval::run(a),
        Command::TrainTagger(a) => cli::tagger::run_train(a),
        Command::Tag(a) => cli::tagger::run_tag(a),
        Command::Ensemble(a) => cli::ensemble::run(a),
        Command::Options => cli::options::run(<Cli as clap::CommandFactory>::command()),
        Command::Draw(a) => cli::draw::run(a),
    };
    match result {
        Ok(code) => code,
        // A reader such as `head` closed standard output: end quietly, as
        // command-line tools do.
        Err(e) if cli::is_broken_pipe(&*e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", cli::shown_message(&e.to_string()));
            ExitCode::FAILURE
        }
    }
}
