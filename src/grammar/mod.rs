//! Split bilexical context-free grammars (Nederhof 2019, Sec. 3).
//!
//! Nonterminals are *categories* A ∈ N and pairs (B, C) of a *left state*
//! B ∈ N_ℓ and a *right state* C ∈ N_r. Rules have four forms:
//!
//! | form | meaning |
//! |---|---|
//! | `(B, C) -> a` | lexical: terminal a starts with left state B, right state C |
//! | `A -> (B, C)` | finish: a word whose left and right processes ended in B and C has category A |
//! | `(B', _) -> A (B, _)` | left attachment: a left child of category A moves the left state B to B' |
//! | `(_, C') -> (_, C) A` | right attachment: a right child of category A moves the right state C to C' |
//!
//! Every terminal has exactly one lexical rule. Left and right attachment are
//! independent ("split"), which is what makes cubic-time parsing possible.
//!
//! The pipeline: grammar text → [`text::parse_str`] (syntax tree with spans,
//! validation with compiler-style diagnostics) → [`GrammarBuilder`] → the
//! immutable, interned [`Grammar`] the engine runs on. [`Grammar`] prints back
//! in the file format (`Display`).

pub mod analysis;
pub mod text;
pub mod weights;

use hashbrown::HashMap;
use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub struct $name(pub u16);
        impl $name {
            /// The id as an index into tables.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A category A ∈ N (the label of a finished word).
    Category
);
id_type!(
    /// A left state B ∈ N_ℓ.
    LeftState
);
id_type!(
    /// A right state C ∈ N_r.
    RightState
);
id_type!(
    /// A terminal a ∈ Σ.
    Terminal
);

/// `A -> (B, C)`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FinishRule {
    pub category: Category,
    pub left: LeftState,
    pub right: RightState,
}

/// `(to, _) -> child (from, _)`: attaching a left child of category `child`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LeftRule {
    pub to: LeftState,
    pub child: Category,
    pub from: LeftState,
}

/// `(_, to) -> (_, from) child`: attaching a right child of category `child`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RightRule {
    pub to: RightState,
    pub from: RightState,
    pub child: Category,
}

/// One way to attach a left child, with the child's category already
/// expanded: the child finished with states (`child_left`, `child_right`),
/// and the head's left state moves from `from` to `to`. One entry per pair of
/// rules `A -> (child_left, child_right)`, `(to, _) -> A (from, _)`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LeftCombo {
    pub child_left: LeftState,
    pub child_right: RightState,
    pub from: LeftState,
    pub to: LeftState,
    pub finish: u32,
    pub attach: u32,
}

/// One way to attach a right child: see [`LeftCombo`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RightCombo {
    pub from: RightState,
    pub child_left: LeftState,
    pub child_right: RightState,
    pub to: RightState,
    pub finish: u32,
    pub attach: u32,
}

/// Names of one kind of symbol, interned.
#[derive(Clone, Default, Debug)]
pub struct SymbolTable {
    names: Vec<String>,
    ids: HashMap<String, u16>,
}

impl SymbolTable {
    /// The id of `name`, adding it if new; `None` if the table already holds
    /// 65536 names.
    pub fn intern(&mut self, name: &str) -> Option<u16> {
        if let Some(&id) = self.ids.get(name) {
            return Some(id);
        }
        let id = u16::try_from(self.names.len()).ok()?;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        Some(id)
    }
    /// The id of `name`, if known.
    pub fn get(&self, name: &str) -> Option<u16> {
        self.ids.get(name).copied()
    }
    /// The name of `id`.
    pub fn name(&self, id: u16) -> &str {
        &self.names[id as usize]
    }
    /// How many symbols.
    pub fn len(&self) -> usize {
        self.names.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// A compiled split bilexical grammar: interned symbols, rules by form, and
/// the attachment combinations the engine iterates over. Immutable; build it
/// with [`GrammarBuilder`] or from text with [`text::parse_str`].
#[derive(Clone, Debug)]
pub struct Grammar {
    pub(crate) categories: SymbolTable,
    pub(crate) left_states: SymbolTable,
    pub(crate) right_states: SymbolTable,
    pub(crate) terminals: SymbolTable,
    pub(crate) start: Category,
    pub(crate) lexical: Vec<(LeftState, RightState)>,
    pub(crate) finish: Vec<FinishRule>,
    pub(crate) left_rules: Vec<LeftRule>,
    pub(crate) right_rules: Vec<RightRule>,
    pub(crate) left_combos: Vec<LeftCombo>,
    pub(crate) right_combos: Vec<RightCombo>,
}

/// Errors of [`GrammarBuilder::build`]: the semantic conditions of Sec. 3 that
/// the engine relies on. (The text front end reports these with positions.)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("terminal `{0}` has {1} lexical rules; exactly one is required")]
    LexicalRules(String, usize),
    #[error("start symbol `{0}` has no rule")]
    StartWithoutRule(String),
    #[error("category `{0}` is used but never produced")]
    UnproducedCategory(String),
    #[error("more than 65536 {0}: the grammar is too large")]
    TooManySymbols(&'static str),
}

/// Collects rules by name, then checks and compiles them into a [`Grammar`].
#[derive(Clone, Default, Debug)]
pub struct GrammarBuilder {
    g: PartialGrammar,
}

#[derive(Clone, Default, Debug)]
struct PartialGrammar {
    /// The kind of symbol whose table overflowed, if any.
    overflow: Option<&'static str>,
    categories: SymbolTable,
    left_states: SymbolTable,
    right_states: SymbolTable,
    terminals: SymbolTable,
    start: Option<String>,
    lexical: Vec<(Terminal, LeftState, RightState)>,
    finish: Vec<FinishRule>,
    left_rules: Vec<LeftRule>,
    right_rules: Vec<RightRule>,
}

impl PartialGrammar {
    fn id_in(overflow: &mut Option<&'static str>, table: &mut SymbolTable, kind: &'static str, name: &str) -> u16 {
        table.intern(name).unwrap_or_else(|| {
            overflow.get_or_insert(kind);
            0
        })
    }
    fn id_terminals(&mut self, name: &str) -> u16 {
        Self::id_in(&mut self.overflow, &mut self.terminals, "terminals", name)
    }
    fn id_left_states(&mut self, name: &str) -> u16 {
        Self::id_in(&mut self.overflow, &mut self.left_states, "left states", name)
    }
    fn id_right_states(&mut self, name: &str) -> u16 {
        Self::id_in(&mut self.overflow, &mut self.right_states, "right states", name)
    }
    fn id_categories(&mut self, name: &str) -> u16 {
        Self::id_in(&mut self.overflow, &mut self.categories, "categories", name)
    }
}

impl GrammarBuilder {
    /// An empty grammar (start symbol `S` unless [`start`](Self::start) says otherwise).
    pub fn new() -> Self {
        Self::default()
    }
    /// `start NAME`.
    pub fn start(&mut self, category: &str) -> &mut Self {
        self.g.start = Some(category.to_owned());
        self
    }
    /// `(left, right) -> terminal`.
    pub fn lexical(&mut self, left: &str, right: &str, terminal: &str) -> &mut Self {
        let t = Terminal(self.g.id_terminals(terminal));
        let l = LeftState(self.g.id_left_states(left));
        let r = RightState(self.g.id_right_states(right));
        self.g.lexical.push((t, l, r));
        self
    }
    /// `category -> (left, right)`.
    pub fn finish(&mut self, category: &str, left: &str, right: &str) -> &mut Self {
        let rule = FinishRule {
            category: Category(self.g.id_categories(category)),
            left: LeftState(self.g.id_left_states(left)),
            right: RightState(self.g.id_right_states(right)),
        };
        self.g.finish.push(rule);
        self
    }
    /// `(to, _) -> child (from, _)`.
    pub fn left_attach(&mut self, to: &str, child: &str, from: &str) -> &mut Self {
        let rule = LeftRule {
            to: LeftState(self.g.id_left_states(to)),
            child: Category(self.g.id_categories(child)),
            from: LeftState(self.g.id_left_states(from)),
        };
        self.g.left_rules.push(rule);
        self
    }
    /// `(_, to) -> (_, from) child`.
    pub fn right_attach(&mut self, to: &str, from: &str, child: &str) -> &mut Self {
        let rule = RightRule {
            to: RightState(self.g.id_right_states(to)),
            from: RightState(self.g.id_right_states(from)),
            child: Category(self.g.id_categories(child)),
        };
        self.g.right_rules.push(rule);
        self
    }

    /// Checks the conditions of Sec. 3 (one lexical rule per terminal, every
    /// used category produced, the start symbol has a rule) and compiles.
    /// Returns all violations, not just the first.
    pub fn build(&self) -> Result<Grammar, Vec<BuildError>> {
        let mut g = self.g.clone();
        let start_name = g.start.clone().unwrap_or_else(|| "S".to_owned());
        let start = Category(g.id_categories(&start_name));
        if let Some(kind) = g.overflow {
            return Err(vec![BuildError::TooManySymbols(kind)]);
        }
        let mut errors = Vec::new();

        let mut lexical = vec![None; g.terminals.len()];
        let mut lexical_count = vec![0usize; g.terminals.len()];
        for &(t, l, r) in &g.lexical {
            lexical_count[t.index()] += 1;
            lexical[t.index()].get_or_insert((l, r));
        }
        for (t, &n) in lexical_count.iter().enumerate() {
            if n != 1 {
                errors.push(BuildError::LexicalRules(g.terminals.name(t as u16).to_owned(), n));
            }
        }
        let mut produced = vec![false; g.categories.len()];
        for f in &g.finish {
            produced[f.category.index()] = true;
        }
        if !produced[start.index()] {
            errors.push(BuildError::StartWithoutRule(start_name));
        }
        let used = g.left_rules.iter().map(|r| r.child).chain(g.right_rules.iter().map(|r| r.child));
        let mut reported = vec![false; g.categories.len()];
        for c in used {
            if !produced[c.index()] && !reported[c.index()] {
                reported[c.index()] = true;
                errors.push(BuildError::UnproducedCategory(g.categories.name(c.0).to_owned()));
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let lexical = lexical.into_iter().map(|x| x.expect("checked above")).collect();
        Ok(Grammar::compile(
            g.categories,
            g.left_states,
            g.right_states,
            g.terminals,
            start,
            lexical,
            g.finish,
            g.left_rules,
            g.right_rules,
        ))
    }
}

impl Grammar {
    #[allow(clippy::too_many_arguments)]
    fn compile(
        categories: SymbolTable,
        left_states: SymbolTable,
        right_states: SymbolTable,
        terminals: SymbolTable,
        start: Category,
        lexical: Vec<(LeftState, RightState)>,
        finish: Vec<FinishRule>,
        left_rules: Vec<LeftRule>,
        right_rules: Vec<RightRule>,
    ) -> Grammar {
        let mut left_combos = Vec::new();
        for (a, lr) in left_rules.iter().enumerate() {
            for (f, fr) in finish.iter().enumerate().filter(|(_, f)| f.category == lr.child) {
                left_combos.push(LeftCombo {
                    child_left: fr.left,
                    child_right: fr.right,
                    from: lr.from,
                    to: lr.to,
                    finish: f as u32,
                    attach: a as u32,
                });
            }
        }
        let mut right_combos = Vec::new();
        for (a, rr) in right_rules.iter().enumerate() {
            for (f, fr) in finish.iter().enumerate().filter(|(_, f)| f.category == rr.child) {
                right_combos.push(RightCombo {
                    from: rr.from,
                    child_left: fr.left,
                    child_right: fr.right,
                    to: rr.to,
                    finish: f as u32,
                    attach: a as u32,
                });
            }
        }
        Grammar {
            categories,
            left_states,
            right_states,
            terminals,
            start,
            lexical,
            finish,
            left_rules,
            right_rules,
            left_combos,
            right_combos,
        }
    }

    /// The terminal named `name`, if the grammar has it.
    pub fn terminal(&self, name: &str) -> Option<Terminal> {
        self.terminals.get(name).map(Terminal)
    }
    /// The name of a terminal.
    pub fn terminal_name(&self, t: Terminal) -> &str {
        self.terminals.name(t.0)
    }
    /// All terminals, in order of first appearance.
    pub fn terminals(&self) -> impl Iterator<Item = Terminal> + '_ {
        (0..self.terminals.len() as u16).map(Terminal)
    }
    /// Number of terminals |Σ|.
    pub fn num_terminals(&self) -> usize {
        self.terminals.len()
    }
    /// The name of a category.
    pub fn category_name(&self, c: Category) -> &str {
        self.categories.name(c.0)
    }
    /// The name of a left state.
    pub fn left_state_name(&self, s: LeftState) -> &str {
        self.left_states.name(s.0)
    }
    /// The name of a right state.
    pub fn right_state_name(&self, s: RightState) -> &str {
        self.right_states.name(s.0)
    }
    /// The start category.
    pub fn start(&self) -> Category {
        self.start
    }
    /// Number of categories |N|.
    pub fn num_categories(&self) -> usize {
        self.categories.len()
    }
    /// Number of left states |N_ℓ|.
    pub fn num_left_states(&self) -> usize {
        self.left_states.len()
    }
    /// Number of right states |N_r|.
    pub fn num_right_states(&self) -> usize {
        self.right_states.len()
    }
    /// The lexical rule of terminal `t`: its initial (left, right) states.
    pub fn lexical(&self, t: Terminal) -> (LeftState, RightState) {
        self.lexical[t.index()]
    }
    /// The rules `A -> (B, C)`.
    pub fn finish_rules(&self) -> &[FinishRule] {
        &self.finish
    }
    /// The rules `(B', _) -> A (B, _)`.
    pub fn left_rules(&self) -> &[LeftRule] {
        &self.left_rules
    }
    /// The rules `(_, C') -> (_, C) A`.
    pub fn right_rules(&self) -> &[RightRule] {
        &self.right_rules
    }
    /// Left attachments with the child's finish rule expanded.
    pub fn left_combos(&self) -> &[LeftCombo] {
        &self.left_combos
    }
    /// Right attachments with the child's finish rule expanded.
    pub fn right_combos(&self) -> &[RightCombo] {
        &self.right_combos
    }
    /// A finish rule as the grammar file writes it: `S -> (L, R)`.
    pub fn finish_rule_text(&self, r: &FinishRule) -> String {
        format!(
            "{} -> ({}, {})",
            self.category_name(r.category),
            self.left_state_name(r.left),
            self.right_state_name(r.right)
        )
    }
    /// A left attachment rule as the grammar file writes it: `(L', _) -> C (L, _)`.
    pub fn left_rule_text(&self, r: &LeftRule) -> String {
        format!(
            "({}, _) -> {} ({}, _)",
            self.left_state_name(r.to),
            self.category_name(r.child),
            self.left_state_name(r.from)
        )
    }
    /// A right attachment rule as the grammar file writes it: `(_, R') -> (_, R) C`.
    pub fn right_rule_text(&self, r: &RightRule) -> String {
        format!(
            "(_, {}) -> (_, {}) {}",
            self.right_state_name(r.to),
            self.right_state_name(r.from),
            self.category_name(r.child)
        )
    }
    /// Translates terminal names to terminals; the first unknown name is the error.
    pub fn terminals_of<'a, I: IntoIterator<Item = &'a str>>(&self, names: I) -> Result<Vec<Terminal>, String> {
        names.into_iter().map(|n| self.terminal(n).ok_or_else(|| n.to_owned())).collect()
    }
}

/// Prints the grammar in the file format, one rule per line, grouped by form.
impl fmt::Display for Grammar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "start {}", self.category_name(self.start))?;
        for t in self.terminals() {
            let (l, r) = self.lexical(t);
            writeln!(f, "({}, {}) -> {}", self.left_state_name(l), self.right_state_name(r), self.terminal_name(t))?;
        }
        for r in &self.finish {
            writeln!(f, "{}", self.finish_rule_text(r))?;
        }
        for r in &self.right_rules {
            writeln!(f, "{}", self.right_rule_text(r))?;
        }
        for r in &self.left_rules {
            writeln!(f, "{}", self.left_rule_text(r))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_many_symbols_is_an_error_not_a_panic() {
        let mut b = GrammarBuilder::new();
        b.finish("S", "L", "R");
        for i in 0..=u16::MAX as usize + 1 {
            b.lexical("L", "R", &format!("t{i}"));
        }
        assert_eq!(b.build().unwrap_err(), vec![BuildError::TooManySymbols("terminals")]);
    }
}
