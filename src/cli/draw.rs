//! `tabula draw`: pictures of the trees of one CoNLL-U file, or of several
//! files of the same words compared (the library's `draw` module).

use super::CliError;
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use tabula::conllu::{RawSentence, Reader, Sentence};
use tabula::draw::{html::Page, Annotated, Filter, Picture};
use tabula::output::Output;

/// Arguments of `tabula draw`.
#[derive(clap::Args)]
pub struct Args {
    /// CoNLL-U files (plain, xz or gzip) with the same words: the first
    /// file's trees are drawn, and where another file has another head or
    /// relation it is marked. `-`: standard input (once).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// OUT.html: one page of all sentences (drawn as they scroll into
    /// view); OUT.svg: one picture of them stacked. With --text, a text
    /// file (`-` or nothing: standard output).
    #[arg(short, long, value_name = "OUT.html|OUT.svg")]
    output: Option<PathBuf>,
    /// Box-drawing trees, one word a line (in colour on a terminal, unless
    /// NO_COLOR is set).
    #[arg(long)]
    text: bool,
    /// Only these sentences: `# sent_id` values, or numbers (1-based) of
    /// sentences, separated by commas.
    #[arg(long, value_name = "ID,…", value_delimiter = ',')]
    sentences: Option<Vec<String>>,
    /// Only the sentences where the files differ (two or more files).
    #[arg(long)]
    differences: bool,
    /// Only the sentences with a non-projective tree (in any file).
    #[arg(long)]
    nonprojective: bool,
    /// Only the sentences of at most N words.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_words: Option<u64>,
}

/// What is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Html,
    Svg,
    Text,
}

fn format(args: &Args) -> Result<Format, CliError> {
    let extension = args.output.as_deref().and_then(Path::extension).and_then(|e| e.to_str()).map(str::to_lowercase);
    match (args.text, extension.as_deref()) {
        (true, Some("html" | "htm" | "svg")) => {
            Err("--text writes text trees: give -o a text file (or no -o for standard output), or leave out --text"
                .into())
        }
        (true, _) => Ok(Format::Text),
        (false, Some("html" | "htm")) => Ok(Format::Html),
        (false, Some("svg")) => Ok(Format::Svg),
        (false, None) if args.output.is_none() => {
            Err("nothing to write to: give -o OUT.html (a page) or -o OUT.svg (a picture), or --text for text trees"
                .into())
        }
        (false, _) => Err(format!(
            "cannot tell what to write to {}: name it OUT.html (a page) or OUT.svg (a picture), or give --text",
            args.output.as_deref().unwrap_or(Path::new("")).display()
        )
        .into()),
    }
}

/// The files' names as the legend shows them.
pub(crate) fn names(files: &[PathBuf]) -> Vec<String> {
    files.iter().map(|p| if p == Path::new("-") { "<stdin>".into() } else { p.display().to_string() }).collect()
}

/// A sentence read: its id, its number, and what `prepare` made of it if
/// the filter keeps it.
type Drawn<T> = (String, usize, Option<T>);

/// Sentences read and drawn on the threads at a time.
const BATCH: usize = 256;

/// Reads the files in step, sentence by sentence, turns the picture of
/// every sentence `filter` keeps into `prepare`'s value (on rayon's
/// threads, a batch at a time) and hands those to `each` in order.
/// Errors: a bad sentence (`file:line`), files whose sentences or words
/// differ, ids of `filter.ids` that no sentence has.
fn read_pictures<T: Send>(
    files: &[PathBuf],
    filter: &Filter,
    prepare: impl Fn(Picture) -> T + Sync,
    mut each: impl FnMut(T) -> Result<(), CliError>,
) -> Result<usize, CliError> {
    let mut readers = Vec::with_capacity(files.len());
    for p in files {
        let (input, name) = super::eval::open(p)?;
        let name: Arc<str> = name.into();
        readers.push((Reader::new(input, name.clone()), name));
    }
    let mut found = vec![false; filter.ids.as_ref().map_or(0, Vec::len)];
    let (mut number, mut drawn) = (0usize, 0usize);
    let mut done = false;
    while !done {
        // A batch of sentences: the blocks of every file.
        let mut batch: Vec<(usize, Vec<RawSentence>)> = Vec::with_capacity(BATCH);
        while batch.len() < BATCH {
            let mut blocks = Vec::with_capacity(readers.len());
            for (reader, name) in readers.iter_mut() {
                blocks.push((reader.next_raw().transpose()?, name.clone()));
            }
            let ended = blocks.iter().filter(|(b, _)| b.is_none()).count();
            if ended == blocks.len() {
                done = true;
                break;
            }
            number += 1;
            if ended > 0 {
                let short = blocks.iter().find(|(b, _)| b.is_none()).map(|(_, n)| n.clone()).unwrap_or_default();
                let long = blocks.iter().find_map(|(b, n)| b.as_ref().map(|b| format!("{n}:{}", b.first_line)));
                return Err(format!(
                    "{short} ends after {} sentences, but {} has sentence {number}: the files must have the same sentences",
                    number - 1,
                    long.unwrap_or_default()
                )
                .into());
            }
            batch.push((number, blocks.into_iter().map(|(b, _)| b.unwrap_or_default()).collect()));
        }
        let names: Vec<Arc<str>> = readers.iter().map(|(_, n)| n.clone()).collect();
        let results: Vec<Result<Drawn<T>, CliError>> = batch
            .into_par_iter()
            .map(|(number, blocks)| {
                let mut annotated = Vec::with_capacity(blocks.len());
                for (raw, name) in blocks.into_iter().zip(&names) {
                    let sentence = Sentence::parse(raw, name).map_err(|bad| bad.error)?;
                    annotated.push(Annotated::from_sentence(&sentence, name, number)?);
                }
                let picture = Picture::new(annotated)?;
                let id = picture.id.clone();
                let kept = filter.keeps(&picture, number).then(|| prepare(picture));
                Ok((id, number, kept))
            })
            .collect();
        for result in results {
            let (id, number, kept) = result?;
            if let Some(ids) = &filter.ids {
                let n = number.to_string();
                for (k, wanted) in ids.iter().enumerate() {
                    found[k] |= *wanted == id || *wanted == n;
                }
            }
            if let Some(value) = kept {
                drawn += 1;
                each(value)?;
            }
        }
    }
    if let Some(ids) = &filter.ids {
        let missing: Vec<&str> = ids.iter().zip(&found).filter(|(_, f)| !**f).map(|(id, _)| id.as_str()).collect();
        if !missing.is_empty() {
            return Err(format!(
                "no sentence of {} has the id {} (ids are `# sent_id` values, or sentence numbers 1 to {number})",
                files[0].display(),
                tabula::shown::shown(&missing.join(", "))
            )
            .into());
        }
    }
    Ok(drawn)
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let format = format(&args)?;
    if args.differences && args.files.len() < 2 {
        return Err("--differences keeps the sentences where the files differ: give two or more files".into());
    }
    if args.files.iter().filter(|p| *p == Path::new("-")).count() > 1 {
        return Err("standard input (`-`) can be read only once".into());
    }
    let filter = Filter {
        ids: args.sentences.clone(),
        differences: args.differences,
        nonprojective: args.nonprojective,
        max_words: args.max_words.map(|m| m as usize),
    };
    let inputs: Vec<&Path> = args.files.iter().map(PathBuf::as_path).collect();
    let mut output = Output::create_apart(args.output.as_deref(), &inputs)?;
    let files = names(&args.files);
    let drawn = match format {
        Format::Html => {
            let title = format!("tabula draw {}", files.join(" "));
            let mut page = Page::new(output.writer(), &files, &title)?;
            let drawn =
                read_pictures(&args.files, &filter, |p| tabula::draw::html::entry(&p), |e| Ok(page.add_entry(&e)?))?;
            page.finish()?;
            drawn
        }
        Format::Svg => {
            let mut pictures = Vec::new();
            let drawn = read_pictures(
                &args.files,
                &filter,
                |p| p,
                |p| {
                    pictures.push(p);
                    Ok(())
                },
            )?;
            output.writer().write_all(tabula::draw::svg::document(&pictures).as_bytes())?;
            drawn
        }
        Format::Text => {
            let to_terminal = args.output.as_deref().is_none_or(|p| p == Path::new("-"))
                && std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            let out = output.writer();
            let mut first = true;
            let text = |p: Picture| tabula::draw::text::picture_text(&p, to_terminal);
            read_pictures(&args.files, &filter, text, |t| {
                let t = t.map_err(|e| {
                    format!("{e}: draw it as a page or a picture instead (-o OUT.html, -o OUT.svg), or leave it out with --max-words")
                })?;
                if !first {
                    out.write_all(b"\n")?;
                }
                first = false;
                Ok(out.write_all(t.as_bytes())?)
            })?
        }
    };
    output.commit()?;
    if drawn == 0 {
        super::say!("tabula draw: no sentence passed the filters; the output has none");
    }
    Ok(ExitCode::SUCCESS)
}

/// The page `tabula projectivize --draw` writes: each changed tree, the
/// input's arcs against the output's.
pub(crate) struct MovedPage {
    output: Output,
    pictures: Vec<Picture>,
    files: [String; 2],
}

impl MovedPage {
    /// Opens `path` (before any work, so that an unwritable path fails at
    /// once); `input` and `changed` name the two trees in the legend.
    pub(crate) fn create(path: &Path, inputs: &[&Path], input: String, changed: String) -> Result<Self, CliError> {
        let extension = path.extension().and_then(|e| e.to_str()).map(str::to_lowercase);
        if !matches!(extension.as_deref(), Some("html" | "htm")) {
            return Err(format!("--draw writes an HTML page: name it PICTURE.html, not {}", path.display()).into());
        }
        Ok(MovedPage {
            output: Output::create_apart(Some(path), inputs)?,
            pictures: Vec::new(),
            files: [input, changed],
        })
    }

    /// Adds sentence `number` (1-based), whose tree became `block`'s.
    pub(crate) fn add(
        &mut self,
        sentence: &Sentence,
        number: usize,
        changed: tabula::conllu::RawSentence,
    ) -> Result<(), CliError> {
        let file: Arc<str> = self.files[0].as_str().into();
        let before = Annotated::from_sentence(sentence, &file, number)?;
        let after = Annotated::from_block(&changed, &self.files[1].as_str().into(), number)?;
        self.pictures.push(Picture::new(vec![before, after])?);
        Ok(())
    }

    /// Writes the page.
    pub(crate) fn finish(mut self) -> Result<(), CliError> {
        let title = format!("{}: the changed trees", self.files[1]);
        let mut page = Page::new(self.output.writer(), &self.files, &title)?;
        for p in &self.pictures {
            page.add(p)?;
        }
        page.finish()?;
        Ok(self.output.commit()?)
    }
}
