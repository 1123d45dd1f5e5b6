//! Pictures of trees from Python: `draw` (as `tabula draw`) and the SVG a
//! `Sentence` shows itself as in Jupyter (`Sentence._repr_svg_`).

use crate::conllu::Sentence;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tabula::draw::{Annotated, Filter, Picture};

/// One sentence, or a list of them.
#[derive(FromPyObject)]
pub enum Sentences<'py> {
    One(PyRef<'py, Sentence>),
    Many(Vec<PyRef<'py, Sentence>>),
}

impl<'py> Sentences<'py> {
    fn into_vec(self) -> Vec<PyRef<'py, Sentence>> {
        match self {
            Sentences::One(s) => vec![s],
            Sentences::Many(v) => v,
        }
    }
}

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The picture of `sentence` (number `number`) alone.
fn annotated(sentence: &Sentence, number: usize, name: &str) -> PyResult<Annotated> {
    let mut a = Annotated::from_block(sentence.raw(), &sentence.file, number).map_err(value_error)?;
    a.annotation.file = name.into();
    Ok(a)
}

/// The sentence's tree as an SVG arc diagram.
pub(crate) fn sentence_svg(sentence: &Sentence) -> PyResult<String> {
    let picture = Picture::new(vec![annotated(sentence, 1, &sentence.file)?]).map_err(value_error)?;
    Ok(tabula::draw::svg::picture_svg(&picture))
}

/// Pictures of the trees of ``sentences`` (one :class:`Sentence` or a
/// list), as ``tabula draw`` draws them: an arc diagram per sentence (SVG
/// or a self-contained HTML page) or box-drawing text trees. With
/// ``others`` (lists of the same sentences with other trees: a parser's
/// output, a projectivization), each picture marks where they differ from
/// ``sentences``: another head as an arc in another colour (and the first
/// tree's arc dashed), another relation on the same arc as ``first/other``.
/// ``names`` label the lists (default: the files they were read from).
/// The filters keep only the sentences with these ids (``# sent_id`` or
/// 1-based numbers), where the lists differ, with a non-projective tree,
/// or of at most ``max_words`` words. ``ValueError`` for sentences whose
/// words differ, an unknown id, an unknown format or a sentence without a
/// tree.
///
/// >>> import tabula_parsing as tp
/// >>> s = tp.parse_conllu("1\tHi\t_\tINTJ\t_\t_\t0\troot\t_\t_\n\n")
/// >>> print(tp.draw(s, format="text"))
/// # 1
/// ╭─── (root)
/// ╰──▶ Hi INTJ root
/// <BLANKLINE>
#[pyfunction]
#[pyo3(signature = (sentences, *others, format = "svg", names = None, ids = None, differences = false, nonprojective = false, max_words = None))]
#[allow(clippy::too_many_arguments)]
pub fn draw(
    sentences: Sentences<'_>,
    others: Vec<Sentences<'_>>,
    format: &str,
    names: Option<Vec<String>>,
    ids: Option<Vec<String>>,
    differences: bool,
    nonprojective: bool,
    max_words: Option<usize>,
) -> PyResult<String> {
    if !matches!(format, "svg" | "html" | "text") {
        return Err(PyValueError::new_err(format!("format must be \"svg\", \"html\" or \"text\", not {format:?}")));
    }
    if differences && others.is_empty() {
        return Err(PyValueError::new_err(
            "differences=True keeps the sentences where the lists differ: give other lists of the same sentences",
        ));
    }
    let lists: Vec<Vec<PyRef<'_, Sentence>>> =
        std::iter::once(sentences).chain(others).map(Sentences::into_vec).collect();
    let n = lists[0].len();
    if let Some(k) = lists.iter().position(|l| l.len() != n) {
        return Err(PyValueError::new_err(format!(
            "list {} has {} {}, but the first one has {n}: the lists must have the same sentences",
            k + 1,
            lists[k].len(),
            if lists[k].len() == 1 { "sentence" } else { "sentences" }
        )));
    }
    let names = match names {
        Some(names) if names.len() != lists.len() => {
            return Err(PyValueError::new_err(format!("{} names for {} lists", names.len(), lists.len())))
        }
        Some(names) => names,
        None => lists
            .iter()
            .enumerate()
            .map(|(k, l)| {
                let file = l.first().map_or_else(|| "sentences".to_owned(), |s| s.file.to_string());
                if k > 0 && lists[..k].iter().any(|m| m.first().map(|s| &*s.file) == l.first().map(|s| &*s.file)) {
                    format!("{file} ({})", k + 1)
                } else {
                    file
                }
            })
            .collect(),
    };
    let filter = Filter { ids, differences, nonprojective, max_words };
    let mut found = vec![false; filter.ids.as_ref().map_or(0, Vec::len)];
    let mut pictures = Vec::new();
    for i in 0..n {
        let annotated: Vec<Annotated> =
            lists.iter().zip(&names).map(|(l, name)| annotated(&l[i], i + 1, name)).collect::<PyResult<_>>()?;
        let picture = Picture::new(annotated).map_err(value_error)?;
        if let Some(ids) = &filter.ids {
            for (k, id) in ids.iter().enumerate() {
                found[k] |= *id == picture.id || *id == (i + 1).to_string();
            }
        }
        if filter.keeps(&picture, i + 1) {
            pictures.push(picture);
        }
    }
    if let Some(ids) = &filter.ids {
        let missing: Vec<&str> = ids.iter().zip(&found).filter(|(_, f)| !**f).map(|(id, _)| id.as_str()).collect();
        if !missing.is_empty() {
            return Err(PyValueError::new_err(format!(
                "no sentence has the id {}",
                tabula::shown::shown(&missing.join(", "))
            )));
        }
    }
    Ok(match format {
        "svg" => tabula::draw::svg::document(&pictures),
        "html" => {
            tabula::draw::html::document(&pictures, &names, &format!("tabula_parsing.draw: {}", names.join(", ")))
        }
        _ => tabula::draw::text::document(&pictures, false).map_err(|e| {
            PyValueError::new_err(format!(
                "{e}: draw it as a page or a picture instead (format=\"html\", \"svg\"), or leave it out with max_words="
            ))
        })?,
    })
}
