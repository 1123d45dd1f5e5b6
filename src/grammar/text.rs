//! The grammar file format: parsing, validation and compiler-style diagnostics.
//!
//! One rule per line, in the paper's notation (Nederhof 2019, Sec. 3):
//!
//! ```text
//! start S                # the start category (default S)
//! (S, S) -> a            # lexical rule
//! S -> (S, S)            # finish rule
//! (_, S) -> (_, S) S     # right attachment
//! (S, _) -> S (S, _)     # left attachment
//! ```
//!
//! `#` starts a comment. Names are identifiers: letters, digits, `_`, `'`,
//! `-` and `.`, not starting with `-` and not the lone `_` (which is the
//! placeholder of the split attachment forms). Every error of a file is
//! reported at once, each as `path:line:col`, the line and a caret.
//!
//! Errors: syntax; a terminal with several lexical rules; a category used
//! as a child but never produced (no `A -> (B, C)`); a start symbol with no
//! rule; a second `start` directive. (A terminal with *no* lexical rule cannot
//! be written in this format: terminals exist through their lexical rule; an
//! input word that is not a terminal is an error of the caller.)
//!
//! Warnings, which do not stop a grammar from loading
//! ([`ParsedGrammar::warnings`]): useless symbols, i.e. unproductive or
//! unreachable ones (see [`super::analysis`]), each at its first occurrence;
//! a rule that repeats an earlier one (it doubles the derivations that use it).
//!
//! The pipeline: lines → tokens with [`Span`]s → [`Rule`]s (the syntax tree) →
//! checks with positions → [`GrammarBuilder`] → [`Grammar`] → analysis.

use super::{Grammar, GrammarBuilder};
use std::fmt;
use std::path::Path;

/// A grammar read from text, with the warnings validation produced.
#[derive(Debug)]
pub struct ParsedGrammar {
    /// The compiled grammar.
    pub grammar: Grammar,
    /// Warnings (useless symbols, repeated rules), in order of position.
    pub warnings: Vec<Diagnostic>,
}

/// How serious a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The grammar is rejected.
    Error,
    /// The grammar loads, but probably not as intended.
    Warning,
}

/// One message about a place in a grammar text. Renders as `path:line:col:`,
/// the severity and the message, then the source line with the offending
/// token underlined:
///
/// ```text
/// bad.grammar:2:8: error: expected `->` in a lexical rule `(B, C) -> a`, found `a`
///   |
/// 2 | (S, S) a
///   |        ^
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The message, one line.
    pub message: String,
    /// 1-based line (in the text's `lines()`).
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// How many characters to underline (at least 1).
    pub width: usize,
    path: String,
    source_line: String,
}

impl Diagnostic {
    /// The path the text was read from, as given to [`parse_str`].
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let num = self.line.to_string();
        let pad = " ".repeat(num.len());
        writeln!(f, "{}:{}:{}: {kind}: {}", self.path, self.line, self.column, self.message)?;
        writeln!(f, "{pad} |")?;
        // A long line is shown as a window of WINDOW characters around the column.
        const WINDOW: usize = 100;
        let chars: Vec<char> = self.source_line.chars().collect();
        let col = self.column.saturating_sub(1).min(chars.len());
        let (start, end) = if chars.len() <= WINDOW {
            (0, chars.len())
        } else {
            let start = col.saturating_sub(WINDOW / 3).min(chars.len() - WINDOW);
            (start, start + WINDOW)
        };
        let before = if start > 0 { "…" } else { "" };
        let after = if end < chars.len() { "…" } else { "" };
        let shown: String = chars[start..end].iter().collect();
        writeln!(f, "{num} | {before}{shown}{after}")?;
        let caret_at = col - start + before.chars().count();
        let width = self.width.max(1).min(end.saturating_sub(col).max(1));
        write!(f, "{pad} | {}{}", " ".repeat(caret_at), "^".repeat(width))
    }
}

/// `message` with every `quoted` name longer than 60 characters elided in
/// the middle, so that a 100,000-character name is not echoed whole.
fn elide_quoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(400));
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(&crate::conllu::elide(part));
        } else {
            out.push_str(part);
        }
    }
    out
}

/// All errors (and warnings) of one grammar text; `Display` prints them in
/// order, separated by blank lines, followed by a count (`2 errors` or
/// `2 errors, 1 warning`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct GrammarErrors {
    /// All diagnostics, in order of position; at least one is an error.
    pub diagnostics: Vec<Diagnostic>,
}

impl GrammarErrors {
    /// How many of the diagnostics are errors.
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error).count()
    }
}

impl fmt::Display for GrammarErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render(&self.diagnostics))
    }
}

/// Renders diagnostics as a compiler does: each one followed by a blank
/// line, then a count such as `2 errors`, `2 errors, 1 warning` or
/// `3 warnings` (no trailing newline; the empty string for no diagnostics).
pub fn render(diagnostics: &[Diagnostic]) -> String {
    use std::fmt::Write;
    if diagnostics.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    for d in diagnostics {
        let _ = write!(out, "{d}\n\n");
    }
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let errors = diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = diagnostics.len() - errors;
    let summary = match (errors, warnings) {
        (0, w) => plural(w, "warning"),
        (e, 0) => plural(e, "error"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    };
    out.push_str(&summary);
    out
}

/// Errors of [`parse_file`].
#[derive(Debug, thiserror::Error)]
pub enum GrammarFileError {
    /// The file could not be read.
    #[error("cannot read grammar file {path}: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// Why reading failed.
        source: std::io::Error,
    },
    /// The file is not UTF-8 text.
    #[error("{path}:{line}:{column}: not UTF-8 text (invalid byte here)")]
    NotUtf8 {
        /// The path as given.
        path: String,
        /// 1-based line of the first invalid byte.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
    },
    /// The file is of another kind (a CoNLL-U treebank, JSON, compressed data).
    #[error("{path}:{line}: this is {what}, not a grammar file (grammar files: see grammars/)")]
    OtherKind {
        /// The path as given.
        path: String,
        /// 1-based line that shows it.
        line: usize,
        /// What the file is, e.g. "a CoNLL-U treebank".
        what: &'static str,
    },
    /// The text has errors.
    #[error("{0}")]
    Invalid(#[from] GrammarErrors),
}

/// Reads, parses and validates a grammar file.
pub fn parse_file(path: &Path) -> Result<ParsedGrammar, GrammarFileError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| GrammarFileError::Io { path: shown.clone(), source })?;
    if let Some((line, what)) = crate::file_kind::other_kind(&bytes) {
        return Err(GrammarFileError::OtherKind { path: shown, line, what });
    }
    let src = String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&valid[line_start..]).chars().count() + 1;
        GrammarFileError::NotUtf8 { path: shown.clone(), line, column }
    })?;
    Ok(parse_str(&shown, &src)?)
}

/// Parses and validates grammar text; `path` is used in messages only.
/// O(length of the text + rules²).
pub fn parse_str(path: &str, src: &str) -> Result<ParsedGrammar, GrammarErrors> {
    let mut r = Reader { path, src, diagnostics: Vec::new(), broken_finish: Vec::new() };
    let rules = r.syntax();
    r.check(&rules);
    let builder = build(&rules);
    if r.diagnostics.iter().any(|d| d.severity == Severity::Error) {
        return Err(GrammarErrors { diagnostics: r.sorted() });
    }
    match builder.build() {
        Ok(grammar) => {
            r.useless(&rules, &grammar);
            // An unproductive start symbol (the grammar derives nothing) is an error.
            if r.diagnostics.iter().any(|d| d.severity == Severity::Error) {
                return Err(GrammarErrors { diagnostics: r.sorted() });
            }
            Ok(ParsedGrammar { grammar, warnings: r.sorted() })
        }
        Err(errors) => {
            // The positional checks above cover every builder error; this is a
            // safety net that still reports something useful.
            for e in errors {
                r.error(Span { line: 1, column: 1, width: 1 }, e.to_string());
            }
            Err(GrammarErrors { diagnostics: r.diagnostics })
        }
    }
}

/// Where a token is: 1-based line, 1-based column, width, in characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// Width in characters.
    pub width: usize,
}

/// A name with its place in the text.
#[derive(Clone, Debug)]
pub struct Name {
    /// The name as written.
    pub text: String,
    /// Where it is written.
    pub span: Span,
}

/// One line of a grammar file, as written.
#[derive(Clone, Debug)]
pub enum Rule {
    /// `start A`.
    Start(Name),
    /// `(left, right) -> terminal`.
    Lexical { left: Name, right: Name, terminal: Name },
    /// `category -> (left, right)`.
    Finish { category: Name, left: Name, right: Name },
    /// `(to, _) -> child (from, _)`.
    Left { to: Name, child: Name, from: Name },
    /// `(_, to) -> (_, from) child`.
    Right { to: Name, from: Name, child: Name },
}

impl Rule {
    /// The first name of the rule, in text order (the first token of the
    /// line, except for the attachment forms that start with `(`).
    fn first_name(&self) -> Option<&Name> {
        Some(match self {
            Rule::Start(n) => n,
            Rule::Lexical { left, .. } => left,
            Rule::Finish { category, .. } => category,
            Rule::Left { to, .. } | Rule::Right { to, .. } => to,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Open,
    Close,
    Comma,
    Arrow,
    Blank,
    Ident(String),
    Bad(char),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Open => f.write_str("`(`"),
            Tok::Close => f.write_str("`)`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::Arrow => f.write_str("`->`"),
            Tok::Blank => f.write_str("`_`"),
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Bad(c) => write!(f, "`{c}`"),
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '\'' | '-' | '.')
}

fn tokenize(line: &str, line_no: usize) -> Vec<(Tok, Span)> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let span = |w: usize| Span { line: line_no, column: i + 1, width: w };
        if c == '#' {
            break;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '(' {
            out.push((Tok::Open, span(1)));
            i += 1;
        } else if c == ')' {
            out.push((Tok::Close, span(1)));
            i += 1;
        } else if c == ',' {
            out.push((Tok::Comma, span(1)));
            i += 1;
        } else if c == '-' && chars.get(i + 1) == Some(&'>') {
            out.push((Tok::Arrow, span(2)));
            i += 2;
        } else if is_name_char(c) && c != '-' {
            let start = i;
            while i < chars.len() && is_name_char(chars[i]) && !(chars[i] == '-' && chars.get(i + 1) == Some(&'>')) {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let span = Span { line: line_no, column: start + 1, width: i - start };
            out.push((if text == "_" { Tok::Blank } else { Tok::Ident(text) }, span));
        } else {
            out.push((Tok::Bad(c), span(1)));
            i += 1;
        }
    }
    out
}

struct Reader<'a> {
    path: &'a str,
    src: &'a str,
    diagnostics: Vec<Diagnostic>,
    /// Categories on the left of finish rules with syntax errors: taken as
    /// produced, so that one typo does not also cause "never produced" errors.
    broken_finish: Vec<String>,
}

/// What a token pattern expects at one place.
#[derive(Clone, Copy)]
enum Want {
    Open,
    Close,
    Comma,
    Arrow,
    Blank,
    Name,
}

impl Want {
    fn describe(self) -> &'static str {
        match self {
            Want::Open => "`(`",
            Want::Close => "`)`",
            Want::Comma => "`,`",
            Want::Arrow => "`->`",
            Want::Blank => "`_`",
            Want::Name => "a name",
        }
    }
    fn accepts(self, t: &Tok) -> bool {
        matches!(
            (self, t),
            (Want::Open, Tok::Open)
                | (Want::Close, Tok::Close)
                | (Want::Comma, Tok::Comma)
                | (Want::Arrow, Tok::Arrow)
                | (Want::Blank, Tok::Blank)
                | (Want::Name, Tok::Ident(_))
        )
    }
}

impl Reader<'_> {
    /// The source line as shown under a message: trailing blanks removed and
    /// tabs shown as one space each, so that the caret's column is right.
    fn line_text(&self, line: usize) -> String {
        let text = self.src.lines().nth(line.saturating_sub(1)).unwrap_or("").trim_end();
        text.chars().map(|c| if c == '\t' { ' ' } else { c }).collect()
    }

    fn push(&mut self, severity: Severity, span: Span, message: String) {
        let source_line = self.line_text(span.line);
        self.diagnostics.push(Diagnostic {
            severity,
            message: elide_quoted(&message),
            line: span.line,
            column: span.column,
            width: span.width,
            path: self.path.to_owned(),
            source_line,
        });
    }

    /// The diagnostics in order of position (stable: same place, order of finding).
    fn sorted(&mut self) -> Vec<Diagnostic> {
        let mut d = std::mem::take(&mut self.diagnostics);
        d.sort_by_key(|d| (d.line, d.column));
        d
    }

    /// The 1-based column of the first non-blank character of a line.
    fn indent(&self, line: usize) -> usize {
        self.line_text(line).chars().take_while(|c| c.is_whitespace()).count() + 1
    }

    fn error(&mut self, span: Span, message: String) {
        self.push(Severity::Error, span, message);
    }

    fn warning(&mut self, span: Span, message: String) {
        self.push(Severity::Warning, span, message);
    }

    /// Matches `toks` against `pattern`; returns the names, or reports the
    /// first mismatch.
    fn expect(&mut self, toks: &[(Tok, Span)], pattern: &[Want], what: &str) -> Option<Vec<Name>> {
        let mut names = Vec::new();
        for (k, want) in pattern.iter().enumerate() {
            match toks.get(k) {
                Some((t, span)) if want.accepts(t) => {
                    if let Tok::Ident(s) = t {
                        names.push(Name { text: s.clone(), span: *span });
                    }
                }
                Some((t, span)) => {
                    let msg = match t {
                        Tok::Bad(c) => format!("unexpected character `{c}` in {what}"),
                        _ => format!("expected {} in {what}, found {t}", want.describe()),
                    };
                    self.error(*span, msg);
                    return None;
                }
                None => {
                    let end = toks.last().map_or(Span { line: 1, column: 1, width: 1 }, |(_, s)| Span {
                        line: s.line,
                        column: s.column + s.width,
                        width: 1,
                    });
                    self.error(end, format!("expected {} in {what}, found the end of the line", want.describe()));
                    return None;
                }
            }
        }
        if let Some((t, span)) = toks.get(pattern.len()) {
            self.error(*span, format!("unexpected {t} after the end of {what}"));
            return None;
        }
        Some(names)
    }

    fn syntax(&mut self) -> Vec<Rule> {
        use Want::*;
        let mut rules = Vec::new();
        for (idx, line) in self.src.lines().enumerate() {
            let toks = tokenize(line, idx + 1);
            if toks.is_empty() {
                continue;
            }
            let t = |k: usize| toks.get(k).map(|x| &x.0);
            let rule = match (t(0), t(1), t(2)) {
                (Some(Tok::Ident(s)), _, _) if s == "start" && t(1) != Some(&Tok::Arrow) => {
                    self.expect(&toks, &[Name, Name], "a start directive").map(|n| Rule::Start(n[1].clone()))
                }
                (Some(Tok::Ident(a)), Some(Tok::Arrow), _) => {
                    let rule = self
                        .expect(&toks, &[Name, Arrow, Open, Name, Comma, Name, Close], "a finish rule `A -> (B, C)`")
                        .map(|n| Rule::Finish { category: n[0].clone(), left: n[1].clone(), right: n[2].clone() });
                    if rule.is_none() {
                        self.broken_finish.push(a.clone());
                    }
                    rule
                }
                (Some(Tok::Open), Some(Tok::Blank), _) => self
                    .expect(
                        &toks,
                        &[Open, Blank, Comma, Name, Close, Arrow, Open, Blank, Comma, Name, Close, Name],
                        "a right attachment `(_, C') -> (_, C) A`",
                    )
                    .map(|n| Rule::Right { to: n[0].clone(), from: n[1].clone(), child: n[2].clone() }),
                (Some(Tok::Open), Some(Tok::Ident(_)), _) if t(3) == Some(&Tok::Blank) => self
                    .expect(
                        &toks,
                        &[Open, Name, Comma, Blank, Close, Arrow, Name, Open, Name, Comma, Blank, Close],
                        "a left attachment `(B', _) -> A (B, _)`",
                    )
                    .map(|n| Rule::Left { to: n[0].clone(), child: n[1].clone(), from: n[2].clone() }),
                (Some(Tok::Open), _, _) => self
                    .expect(&toks, &[Open, Name, Comma, Name, Close, Arrow, Name], "a lexical rule `(B, C) -> a`")
                    .map(|n| Rule::Lexical { left: n[0].clone(), right: n[1].clone(), terminal: n[2].clone() }),
                (Some(tok), _, _) => {
                    let msg = format!(
                        "expected a rule or `start`, found {tok} (rules are `(B, C) -> a`, `A -> (B, C)`, `(_, C') -> (_, C) A` or `(B', _) -> A (B, _)`)"
                    );
                    self.error(toks[0].1, msg);
                    None
                }
                (None, _, _) => None,
            };
            rules.extend(rule);
        }
        rules
    }

    /// The semantic checks of Sec. 3, with positions: one lexical rule per
    /// terminal, one start directive, every used category produced, the start
    /// category produced.
    fn check(&mut self, rules: &[Rule]) {
        let broken = std::mem::take(&mut self.broken_finish);
        let mut starts = rules.iter().filter_map(|r| match r {
            Rule::Start(n) => Some(n),
            _ => None,
        });
        let start = starts.next().cloned();
        for extra in starts.cloned().collect::<Vec<_>>() {
            let first = start.as_ref().map_or(0, |n| n.span.line);
            let msg =
                format!("a second `start` directive (the first is on line {first}); a grammar has one start symbol");
            self.error(extra.span, msg);
        }
        let mut lexical: hashbrown::HashMap<&str, &Name> = hashbrown::HashMap::new();
        let mut produced: hashbrown::HashSet<&str> = hashbrown::HashSet::new();
        for r in rules {
            match r {
                Rule::Lexical { terminal, .. } => {
                    if let Some(first) = lexical.get(terminal.text.as_str()) {
                        let msg = format!(
                            "terminal `{}` has a second lexical rule (the first is on line {}); each terminal needs exactly one",
                            terminal.text, first.span.line
                        );
                        self.error(terminal.span, msg);
                    } else {
                        lexical.insert(&terminal.text, terminal);
                    }
                }
                Rule::Finish { category, .. } => {
                    produced.insert(&category.text);
                }
                _ => {}
            }
        }
        produced.extend(broken.iter().map(String::as_str));
        for r in rules {
            if let Rule::Left { child, .. } | Rule::Right { child, .. } = r {
                if !produced.contains(child.text.as_str()) {
                    let msg = format!(
                        "category `{}` is used but never produced (no rule `{} -> (B, C)`)",
                        child.text, child.text
                    );
                    self.error(child.span, msg);
                }
            }
        }
        let start_name = start.as_ref().map_or("S", |n| n.text.as_str());
        if !produced.contains(start_name) {
            let msg = format!("start symbol `{start_name}` has no rule `{start_name} -> (B, C)`");
            match &start {
                Some(n) => self.error(n.span, msg),
                None => {
                    // No place names the start symbol: point at the first rule.
                    let span =
                        rules.iter().find_map(Rule::first_name).map_or(Span { line: 1, column: 1, width: 1 }, |n| {
                            Span { line: n.span.line, column: self.indent(n.span.line), width: 1 }
                        });
                    self.error(span, format!("{msg} (without a `start` directive the start symbol is `S`)"));
                }
            }
        }
        self.duplicates(rules);
    }

    /// Warns about a rule that repeats an earlier one: it doubles the
    /// derivations that use it (and so every count).
    fn duplicates(&mut self, rules: &[Rule]) {
        let mut seen: hashbrown::HashMap<(u8, [&str; 3]), usize> = hashbrown::HashMap::new();
        for r in rules {
            let (key, span) = match r {
                Rule::Start(_) | Rule::Lexical { .. } => continue,
                Rule::Finish { category, left, right } => {
                    ((0, [category.text.as_str(), left.text.as_str(), right.text.as_str()]), category.span)
                }
                Rule::Left { to, child, from } => {
                    ((1, [to.text.as_str(), child.text.as_str(), from.text.as_str()]), to.span)
                }
                Rule::Right { to, from, child } => {
                    ((2, [to.text.as_str(), from.text.as_str(), child.text.as_str()]), to.span)
                }
            };
            match seen.get(&key) {
                Some(&first) => {
                    let msg = format!(
                        "this rule repeats the rule on line {first}; every derivation using it is counted twice"
                    );
                    let column = self.indent(span.line);
                    let code = self.line_text(span.line);
                    let code = code.split('#').next().unwrap_or("").trim_end();
                    let width = code.chars().count().saturating_sub(column - 1).max(1);
                    self.warning(Span { line: span.line, column, width }, msg);
                }
                None => {
                    seen.insert(key, span.line);
                }
            }
        }
    }

    /// Warns about each useless symbol of `g` (see [`super::analysis`]) at
    /// its first occurrence in `rules`.
    fn useless(&mut self, rules: &[Rule], g: &Grammar) {
        use super::analysis::Symbol;
        // First occurrence of each (kind, name): 0 category, 1 left, 2 right, 3 terminal.
        let mut first: hashbrown::HashMap<(u8, &str), Span> = hashbrown::HashMap::new();
        fn note<'r>(first: &mut hashbrown::HashMap<(u8, &'r str), Span>, kind: u8, n: &'r Name) {
            first.entry((kind, n.text.as_str())).or_insert(n.span);
        }
        for r in rules {
            match r {
                Rule::Start(n) => note(&mut first, 0, n),
                Rule::Lexical { left, right, terminal } => {
                    note(&mut first, 1, left);
                    note(&mut first, 2, right);
                    note(&mut first, 3, terminal);
                }
                Rule::Finish { category, left, right } => {
                    note(&mut first, 0, category);
                    note(&mut first, 1, left);
                    note(&mut first, 2, right);
                }
                Rule::Left { to, child, from } => {
                    note(&mut first, 1, to);
                    note(&mut first, 0, child);
                    note(&mut first, 1, from);
                }
                Rule::Right { to, from, child } => {
                    note(&mut first, 2, to);
                    note(&mut first, 2, from);
                    note(&mut first, 0, child);
                }
            }
        }
        let start = Symbol::Category(g.start());
        let mut found: Vec<(Span, bool, String)> = super::analysis::useless_symbols(g)
            .iter()
            .map(|u| {
                let kind = match u.symbol {
                    Symbol::Category(_) => 0,
                    Symbol::LeftState(_) => 1,
                    Symbol::RightState(_) => 2,
                    Symbol::Terminal(_) => 3,
                };
                let span =
                    first.get(&(kind, u.symbol.name(g))).copied().unwrap_or(Span { line: 1, column: 1, width: 1 });
                (span, u.symbol == start && u.reason == super::analysis::Uselessness::Unproductive, u.message(g))
            })
            .collect();
        found.sort_by_key(|(s, _, _)| (s.line, s.column));
        for (span, derives_nothing, msg) in found {
            match derives_nothing {
                true => self.error(span, msg),
                false => self.warning(span, msg),
            }
        }
    }
}

fn build(rules: &[Rule]) -> GrammarBuilder {
    let mut b = GrammarBuilder::new();
    for r in rules {
        match r {
            Rule::Start(n) => {
                b.start(&n.text);
            }
            Rule::Lexical { left, right, terminal } => {
                b.lexical(&left.text, &right.text, &terminal.text);
            }
            Rule::Finish { category, left, right } => {
                b.finish(&category.text, &left.text, &right.text);
            }
            Rule::Left { to, child, from } => {
                b.left_attach(&to.text, &child.text, &from.text);
            }
            Rule::Right { to, from, child } => {
                b.right_attach(&to.text, &from.text, &child.text);
            }
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_projective_grammar() {
        let g = parse_str("p", crate::grammars::PROJECTIVE).unwrap().grammar;
        assert_eq!(g.num_terminals(), 1);
        assert_eq!(g.left_combos().len(), 1);
        assert_eq!(g.right_combos().len(), 1);
    }

    #[test]
    fn reports_all_errors_with_carets() {
        let src = "start S\n(S, S) a\nS -> (S, S)\n(_, S) -> (_, S) X\n";
        let e = parse_str("bad.grammar", src).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad.grammar:2:8: error: expected `->` in a lexical rule `(B, C) -> a`, found `a`\n  |\n2 | (S, S) a\n  |        ^\n\n\
             bad.grammar:4:18: error: category `X` is used but never produced (no rule `X -> (B, C)`)\n  |\n4 | (_, S) -> (_, S) X\n  |                  ^\n\n\
             2 errors"
        );
    }
}
