//! # tabula
//!
//! A generic semiring tabular parsing engine for split bilexical grammars
//! (Nederhof 2019, *Calculating the Optimal Step in Shift-Reduce Dependency
//! Parsing: From Cubic to Linear Time*), and on top of it exact tools for
//! dependency parsing.
//!
//! Layers, each depending only on those above it:
//!
//! * [`semiring`] — the algebra (max-plus, counting, max-count, Boolean, log-sum-exp,
//!   log-space expectation);
//! * [`grammar`] — split bilexical grammars: file format, validation, compiled form;
//! * [`engine`] — Eisner–Satta parsing over any semiring (Table 2), with backtrace;
//! * [`tree`] — dependency trees;
//! * applications on the engine: [`conllu`] treebanks, [`projectivize`]
//!   (optimal projectivization and counting), [`oracle`] (optimal steps),
//!   [`distribution`] (log-partition, marginals, entropy and samples of the
//!   trees of any grammar under real arc scores);
//! * beside the engine: [`nonprojective`], the same over all trees by the
//!   Matrix-Tree theorem (Koo et al. 2007), and [`arborescence`], the best
//!   of them (Chu–Liu–Edmonds);
//! * on the oracles: [`parser`], a parser trained with them (greedy or beam);
//! * pictures: [`draw`], arc diagrams (SVG, HTML) and text trees of one
//!   or several annotations of the same words;
//! * beside the parser: [`tagger`], UPOS and FEATS on its weight tables;
//!   [`ensemble`], several parsers' votes reparsed (the engine in max-plus,
//!   or a maximum spanning arborescence);
//! * for messages and terminals: [`shown`], text from a file with its control
//!   characters written visibly (`\x1b`), so that none acts on a terminal.

pub mod arborescence;
pub mod conllu;
pub mod distribution;
pub mod draw;
pub mod engine;
pub mod ensemble;
pub mod file_kind;
pub mod grammar;
pub mod grammars;
pub mod interrupt;
pub mod limits;
pub mod memory;
#[cfg(feature = "onnx")]
pub mod neural;
pub mod nonprojective;
pub mod oracle;
pub mod output;
pub mod parser;
pub mod projectivize;
pub mod semiring;
pub mod shown;
pub mod tagger;
pub mod tree;
mod wide;
