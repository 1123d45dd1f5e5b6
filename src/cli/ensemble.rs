//! `tabula ensemble`: the weighted vote of several parsers' trees, reparsed.

use super::eval::open;
use super::output::Output;
use super::CliError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tabula::conllu::Reader;
use tabula::ensemble::{labels, Reparser, Shape, Weights};
use tabula::parser::columns::Columns;

/// Arguments of `tabula ensemble`.
///
/// The files must have the same sentences and words (FORMs) in the same
/// order; the first difference is an error naming the line of each. The
/// output is the first file with HEAD and DEPREL replaced.
#[derive(clap::Args)]
pub struct Args {
    /// Two or more parsed CoNLL-U files of the same text (plain, xz or gzip).
    #[arg(required = true, num_args = 2..)]
    predictions: Vec<PathBuf>,
    /// A weight per file, comma-separated (default: 1 each), e.g. 1,1,1.5:
    /// any positive numbers, summed exactly.
    #[arg(long, value_delimiter = ',', value_name = "W1,W2,…")]
    weights: Option<Vec<f64>>,
    /// Refuse sentences longer than N words (an error naming the line):
    /// reparsing costs n³ time and n² memory.
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    max_words: u64,
    /// Output projective trees (the engine with the single-root projective
    /// grammar in max-plus) instead of any tree (the maximum spanning
    /// arborescence, Chu–Liu–Edmonds).
    #[arg(long)]
    projective: bool,
    /// Output file; `-` or nothing: standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let k = args.predictions.len();
    let given = args.weights.clone().unwrap_or_else(|| vec![1.0; k]);
    if given.len() != k {
        return Err(format!("--weights gives {} weights for {k} files: one per file", given.len()).into());
    }
    let weights = Weights::new(&given).map_err(|e| format!("--weights: {e}"))?;
    if args.predictions.iter().any(|p| p == Path::new("-")) {
        return Err("ensemble reads files, not standard input".into());
    }
    let inputs: Vec<&Path> = args.predictions.iter().map(PathBuf::as_path).collect();
    let mut sink = Output::create_apart(args.output.as_deref(), &inputs)?;
    let mut readers = Vec::with_capacity(k);
    for p in &args.predictions {
        let (input, name) = open(p)?;
        readers.push((Reader::new(input, name.clone()), name));
    }
    let shape = if args.projective { Shape::Projective } else { Shape::Any };
    let mut reparser = Reparser::new(shape)?;
    let (mut sentences, mut words) = (0u64, 0u64);
    loop {
        let mut blocks = Vec::with_capacity(k);
        for (reader, name) in &mut readers {
            blocks.push((reader.next_raw().transpose()?, name.as_str()));
        }
        let ended = blocks.iter().filter(|(b, _)| b.is_none()).count();
        if ended == k {
            break;
        }
        if ended > 0 {
            let short = blocks.iter().find(|(b, _)| b.is_none()).map(|(_, n)| *n).unwrap_or("");
            return Err(format!("{short} ends before the other files (after {sentences} sentences)").into());
        }
        let blocks: Vec<(tabula::conllu::RawSentence, &str)> =
            blocks.into_iter().map(|(b, n)| (b.expect("checked"), n)).collect();
        let mut cols = Vec::with_capacity(k);
        for (b, name) in &blocks {
            cols.push(Columns::scan(b, name)?);
        }
        let (first, first_name) = (&blocks[0].0, blocks[0].1);
        for ((b, name), c) in blocks.iter().zip(&cols).skip(1) {
            let forms = |c: &Columns, text: &[u8]| -> Vec<Vec<u8>> {
                c.words.iter().map(|w| text[w.form.clone()].to_vec()).collect()
            };
            if forms(c, &b.text) != forms(&cols[0], &first.text) {
                return Err(format!(
                    "the files do not align: {first_name}:{} and {name}:{} have other words",
                    first.first_line, b.first_line
                )
                .into());
            }
        }
        let out = sink.writer();
        if cols[0].is_empty() {
            out.write_all(&first.text)?;
            continue;
        }
        if cols[0].words.len() as u64 > args.max_words {
            return Err(format!(
                "{first_name}:{}: a sentence of {} words, longer than --max-words {}",
                first.first_line,
                cols[0].words.len(),
                args.max_words
            )
            .into());
        }
        let mut heads = Vec::with_capacity(k);
        let mut deprels: Vec<Vec<&str>> = Vec::with_capacity(k);
        for ((b, name), c) in blocks.iter().zip(&cols) {
            heads.push(c.heads(&b.text, name)?.heads().to_vec());
            deprels
                .push(c.words.iter().map(|w| std::str::from_utf8(&b.text[w.deprel.clone()]).unwrap_or("_")).collect());
        }
        let votes: Vec<&[usize]> = heads.iter().map(Vec::as_slice).collect();
        let tree = reparser.reparse(&votes, &weights).map_err(|e| format!("{first_name}:{}: {e}", first.first_line))?;
        let predictions: Vec<(&[usize], &[&str])> =
            heads.iter().zip(&deprels).map(|(h, l)| (h.as_slice(), l.as_slice())).collect();
        let chosen = labels(&tree, &predictions, &weights);
        cols[0].write_with(&first.text, &tree, &chosen, out)?;
        sentences += 1;
        words += tree.len() as u64;
    }
    sink.commit()?;
    eprintln!(
        "{sentences} sentences, {words} words: {k} files, weights {}, {} trees",
        given.iter().map(f64::to_string).collect::<Vec<_>>().join(","),
        if args.projective { "projective" } else { "any" }
    );
    Ok(ExitCode::SUCCESS)
}
