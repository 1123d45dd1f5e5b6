//! Useless symbols of a split bilexical grammar: those that occur in no
//! complete derivation from the start symbol (the grammar warnings of
//! [`super::text`]).
//!
//! A symbol is *useful* if it is both *productive* (it derives a terminal
//! string) and *reachable* (it occurs in a derivation from the start
//! category using productive symbols only); otherwise it is *useless*. As for
//! context-free grammars, productivity is computed first and reachability
//! only through productive rules, so a symbol that is reachable only through
//! an unproductive rule counts as useless too.
//!
//! # Productivity in a split grammar
//!
//! A word starts with the two states of its terminal's lexical rule
//! `(B₀, C₀) -> a`; its left attachments move the left state from B₀ to some
//! B, its right attachments independently move C₀ to some C, and a rule
//! `A -> (B, C)` finishes it. The two chains are independent *except for their
//! start*: both must begin at the states of the **same** lexical rule. So
//! "some productive left state and some productive right state" is not
//! enough to make `A -> (B, C)` productive: in
//!
//! ```text
//! (L1, R1) -> a
//! (L2, R2) -> b
//! S -> (L1, R2)
//! ```
//!
//! L1 and R2 are each productive, yet no word finishes as S. Hence:
//!
//! * left state B is productive iff it is reachable from the left state of a
//!   lexical rule in the *left graph*: an edge B → B' for each left
//!   attachment `(B', _) -> A (B, _)` whose child category A is productive
//!   (right states likewise, in the *right graph*);
//! * category A is productive iff some rule `A -> (B, C)` has B reachable
//!   from B₀ and C reachable from C₀ for one lexical rule `(B₀, C₀) -> a`;
//! * terminals are always productive.
//!
//! The two definitions depend on each other; they are iterated to their
//! least fixpoint (at most |N| + 1 rounds).
//!
//! # Reachability
//!
//! Top-down from the start category: for a reachable A and a productive rule
//! `A -> (B, C)`, every lexical rule `(B₀, C₀) -> a` that can lead to (B, C)
//! makes terminal a reachable, and so every left state on a path B₀ ⇝ B of the
//! left graph, the child category of every edge on such a path, and likewise
//! on the right.
//!
//! The graphs are [`petgraph`] graphs with one node per state and one edge per
//! attachment rule; reachability is depth-first search over the edges whose
//! child category is productive.

use super::{Category, Grammar, LeftState, RightState, Terminal};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Dfs, EdgeFiltered, EdgeRef, Reversed};
use std::fmt;

/// A symbol of a grammar, of any kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symbol {
    /// A category A ∈ N.
    Category(Category),
    /// A left state B ∈ N_ℓ.
    LeftState(LeftState),
    /// A right state C ∈ N_r.
    RightState(RightState),
    /// A terminal a ∈ Σ.
    Terminal(Terminal),
}

impl Symbol {
    /// The kind of symbol in words: "category", "left state", ….
    pub fn kind(self) -> &'static str {
        match self {
            Symbol::Category(_) => "category",
            Symbol::LeftState(_) => "left state",
            Symbol::RightState(_) => "right state",
            Symbol::Terminal(_) => "terminal",
        }
    }

    /// The symbol's name in `g`.
    pub fn name(self, g: &Grammar) -> &str {
        match self {
            Symbol::Category(c) => g.category_name(c),
            Symbol::LeftState(s) => g.left_state_name(s),
            Symbol::RightState(s) => g.right_state_name(s),
            Symbol::Terminal(t) => g.terminal_name(t),
        }
    }
}

/// Why a symbol is useless.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Uselessness {
    /// It derives no terminal string.
    Unproductive,
    /// It is productive but occurs in no derivation from the start category.
    Unreachable,
}

/// A useless symbol and the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Useless {
    /// The symbol.
    pub symbol: Symbol,
    /// Why it is useless.
    pub reason: Uselessness,
}

impl Useless {
    /// A one-line explanation, e.g. "category `X` is useless: it is
    /// unreachable (it occurs in no derivation from the start symbol `S`)".
    pub fn message(&self, g: &Grammar) -> String {
        let kind = self.symbol.kind();
        let name = self.symbol.name(g);
        if self.reason == Uselessness::Unproductive && self.symbol == Symbol::Category(g.start()) {
            return format!(
                "start symbol `{name}` is unproductive: the grammar derives no string (no rule `{name} -> (B, C)` has B and C both reachable from the states of one lexical rule)"
            );
        }
        let why = match (self.reason, self.symbol) {
            (Uselessness::Unproductive, Symbol::Category(_)) => format!(
                "no word can finish as `{name}`: no rule `{name} -> (B, C)` has B and C both reachable from the states of one lexical rule"
            ),
            (Uselessness::Unproductive, Symbol::LeftState(_)) => {
                "no lexical rule's left state leads to it by left attachments of productive categories".to_owned()
            }
            (Uselessness::Unproductive, Symbol::RightState(_)) => {
                "no lexical rule's right state leads to it by right attachments of productive categories".to_owned()
            }
            (Uselessness::Unproductive, Symbol::Terminal(_)) => "it has no lexical rule".to_owned(),
            (Uselessness::Unreachable, _) => {
                format!("it occurs in no derivation from the start symbol `{}`", g.category_name(g.start()))
            }
        };
        let reason = match self.reason {
            Uselessness::Unproductive => "unproductive",
            Uselessness::Unreachable => "unreachable",
        };
        format!("{kind} `{name}` is useless: it is {reason} ({why})")
    }
}

impl fmt::Display for Uselessness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Uselessness::Unproductive => "unproductive",
            Uselessness::Unreachable => "unreachable",
        })
    }
}

/// Which symbols of a grammar are productive and which are reachable;
/// indexed by symbol id. Reachable implies productive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usefulness {
    /// Productive categories.
    pub productive_categories: Vec<bool>,
    /// Productive left states.
    pub productive_left: Vec<bool>,
    /// Productive right states.
    pub productive_right: Vec<bool>,
    /// Reachable categories.
    pub reachable_categories: Vec<bool>,
    /// Reachable left states.
    pub reachable_left: Vec<bool>,
    /// Reachable right states.
    pub reachable_right: Vec<bool>,
    /// Reachable terminals.
    pub reachable_terminals: Vec<bool>,
}

impl Usefulness {
    /// Computes productivity and reachability of every symbol of `g`.
    ///
    /// # Complexity
    ///
    /// O(|N| · P · |R|) for productivity and O(|finish rules| · P · |R|) for
    /// reachability, where P is the number of distinct lexical state pairs and
    /// |R| the number of rules: quick for grammars written by hand.
    pub fn of(g: &Grammar) -> Usefulness {
        let left_graph =
            state_graph(g.num_left_states(), g.left_rules().iter().map(|r| (r.from.index(), r.to.index())));
        let right_graph =
            state_graph(g.num_right_states(), g.right_rules().iter().map(|r| (r.from.index(), r.to.index())));
        let left_child = |e: usize| g.left_rules()[e].child.index();
        let right_child = |e: usize| g.right_rules()[e].child.index();

        // Distinct (B₀, C₀) of the lexical rules, and which terminals have them.
        let mut pairs: Vec<(LeftState, RightState)> = Vec::new();
        let mut pair_of_terminal = Vec::with_capacity(g.num_terminals());
        for t in g.terminals() {
            let p = g.lexical(t);
            let k = pairs.iter().position(|&q| q == p).unwrap_or_else(|| {
                pairs.push(p);
                pairs.len() - 1
            });
            pair_of_terminal.push(k);
        }

        // Productivity: least fixpoint.
        let mut productive = vec![false; g.num_categories()];
        let (mut reach_l, mut reach_r);
        loop {
            let lf = EdgeFiltered::from_fn(&left_graph, |e| productive[left_child(*e.weight())]);
            let rf = EdgeFiltered::from_fn(&right_graph, |e| productive[right_child(*e.weight())]);
            reach_l = pairs.iter().map(|&(l, _)| forward(&lf, l.index(), g.num_left_states())).collect::<Vec<_>>();
            reach_r = pairs.iter().map(|&(_, r)| forward(&rf, r.index(), g.num_right_states())).collect::<Vec<_>>();
            let mut changed = false;
            for f in g.finish_rules() {
                if !productive[f.category.index()]
                    && (0..pairs.len()).any(|p| reach_l[p][f.left.index()] && reach_r[p][f.right.index()])
                {
                    productive[f.category.index()] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut productive_left = vec![false; g.num_left_states()];
        let mut productive_right = vec![false; g.num_right_states()];
        for p in 0..pairs.len() {
            or_into(&mut productive_left, &reach_l[p]);
            or_into(&mut productive_right, &reach_r[p]);
        }

        // Reachability, top-down from the start category.
        let lf = EdgeFiltered::from_fn(&left_graph, |e| productive[left_child(*e.weight())]);
        let rf = EdgeFiltered::from_fn(&right_graph, |e| productive[right_child(*e.weight())]);
        let mut reachable = vec![false; g.num_categories()];
        let mut reachable_left = vec![false; g.num_left_states()];
        let mut reachable_right = vec![false; g.num_right_states()];
        let mut pair_used = vec![false; pairs.len()];
        let mut work = Vec::new();
        if productive[g.start().index()] {
            reachable[g.start().index()] = true;
            work.push(g.start());
        }
        while let Some(a) = work.pop() {
            for f in g.finish_rules().iter().filter(|f| f.category == a) {
                let co_l = forward(Reversed(&lf), f.left.index(), g.num_left_states());
                let co_r = forward(Reversed(&rf), f.right.index(), g.num_right_states());
                for p in 0..pairs.len() {
                    if !(reach_l[p][f.left.index()] && reach_r[p][f.right.index()]) {
                        continue;
                    }
                    pair_used[p] = true;
                    let mut children = Vec::new();
                    mark_paths(&lf, &reach_l[p], &co_l, &mut reachable_left, |e| children.push(left_child(e)));
                    mark_paths(&rf, &reach_r[p], &co_r, &mut reachable_right, |e| children.push(right_child(e)));
                    for c in children {
                        if !reachable[c] {
                            reachable[c] = true;
                            work.push(Category(c as u16));
                        }
                    }
                }
            }
        }
        let reachable_terminals = pair_of_terminal.iter().map(|&p| pair_used[p]).collect();
        Usefulness {
            productive_categories: productive,
            productive_left,
            productive_right,
            reachable_categories: reachable,
            reachable_left,
            reachable_right,
            reachable_terminals,
        }
    }

    /// The useless symbols: categories, then left states, right states and
    /// terminals, each kind in id order.
    pub fn useless(&self) -> Vec<Useless> {
        let mut out = Vec::new();
        let mut add = |productive: bool, reachable: bool, symbol: Symbol| {
            let reason = if !productive {
                Uselessness::Unproductive
            } else if !reachable {
                Uselessness::Unreachable
            } else {
                return;
            };
            out.push(Useless { symbol, reason });
        };
        for (i, (&p, &r)) in self.productive_categories.iter().zip(&self.reachable_categories).enumerate() {
            add(p, r, Symbol::Category(Category(i as u16)));
        }
        for (i, (&p, &r)) in self.productive_left.iter().zip(&self.reachable_left).enumerate() {
            add(p, r, Symbol::LeftState(LeftState(i as u16)));
        }
        for (i, (&p, &r)) in self.productive_right.iter().zip(&self.reachable_right).enumerate() {
            add(p, r, Symbol::RightState(RightState(i as u16)));
        }
        for (i, &r) in self.reachable_terminals.iter().enumerate() {
            add(true, r, Symbol::Terminal(Terminal(i as u16)));
        }
        out
    }
}

/// The useless symbols of `g` (see the [module documentation](self)).
///
/// ```
/// use tabula::grammar::{analysis, GrammarBuilder};
///
/// let mut b = GrammarBuilder::new();
/// b.lexical("S", "S", "a").finish("S", "S", "S").finish("X", "S", "S");
/// let g = b.build().unwrap();
/// let useless = analysis::useless_symbols(&g);
/// assert_eq!(useless.len(), 1);
/// assert_eq!(
///     useless[0].message(&g),
///     "category `X` is useless: it is unreachable (it occurs in no derivation from the start symbol `S`)"
/// );
/// ```
pub fn useless_symbols(g: &Grammar) -> Vec<Useless> {
    Usefulness::of(g).useless()
}

/// One node per state, one edge `from → to` per attachment rule, weighted by
/// the rule's index.
fn state_graph(states: usize, edges: impl Iterator<Item = (usize, usize)>) -> DiGraph<(), usize> {
    let mut graph = DiGraph::with_capacity(states, 0);
    for _ in 0..states {
        graph.add_node(());
    }
    for (k, (from, to)) in edges.enumerate() {
        graph.add_edge(NodeIndex::new(from), NodeIndex::new(to), k);
    }
    graph
}

/// The nodes reachable from `start` in `graph` (a filtered or reversed view).
fn forward<G>(graph: G, start: usize, nodes: usize) -> Vec<bool>
where
    G: petgraph::visit::IntoNeighbors<NodeId = NodeIndex> + petgraph::visit::Visitable<NodeId = NodeIndex>,
{
    let mut seen = vec![false; nodes];
    let mut dfs = Dfs::new(graph, NodeIndex::new(start));
    while let Some(n) = dfs.next(graph) {
        seen[n.index()] = true;
    }
    seen
}

/// Marks the nodes on paths from the `from` set to the `to` set (both
/// closed: `from` forward, `to` backward) and reports the edges on them.
fn mark_paths<G>(graph: G, from: &[bool], to: &[bool], nodes: &mut [bool], mut edge: impl FnMut(usize))
where
    G: petgraph::visit::IntoEdgeReferences<NodeId = NodeIndex, EdgeWeight = usize>,
{
    for (n, mark) in nodes.iter_mut().enumerate() {
        if from[n] && to[n] {
            *mark = true;
        }
    }
    for e in graph.edge_references() {
        if from[e.source().index()] && to[e.target().index()] {
            edge(*e.weight());
        }
    }
}

fn or_into(acc: &mut [bool], x: &[bool]) {
    for (a, &b) in acc.iter_mut().zip(x) {
        *a |= b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::GrammarBuilder;

    fn names(g: &Grammar) -> Vec<String> {
        useless_symbols(g).iter().map(|u| format!("{} {} {}", u.symbol.kind(), u.symbol.name(g), u.reason)).collect()
    }

    #[test]
    fn shipped_grammars_have_no_useless_symbols() {
        for src in [crate::grammars::PROJECTIVE, crate::grammars::SHIFT_REDUCE, crate::grammars::SHIFT_REDUCE_STRICT] {
            let g = crate::grammar::text::parse_str("g", src).unwrap().grammar;
            assert!(useless_symbols(&g).is_empty(), "{g}");
        }
    }

    #[test]
    fn both_states_must_come_from_one_lexical_rule() {
        let mut b = GrammarBuilder::new();
        b.lexical("L1", "R1", "a").lexical("L2", "R2", "b").finish("S", "L1", "R2");
        let g = b.build().unwrap();
        assert_eq!(
            names(&g),
            [
                "category S unproductive",
                "left state L1 unreachable",
                "left state L2 unreachable",
                "right state R1 unreachable",
                "right state R2 unreachable",
                "terminal a unreachable",
                "terminal b unreachable"
            ]
        );
    }

    #[test]
    fn attachment_through_an_unproductive_child_is_not_a_path() {
        // X needs left state L, reachable only by attaching Y, which needs X.
        let mut b = GrammarBuilder::new();
        b.lexical("S", "S", "a")
            .finish("S", "S", "S")
            .left_attach("S", "X", "S")
            .finish("X", "L", "S")
            .left_attach("L", "X", "S");
        let g = b.build().unwrap();
        assert_eq!(names(&g), ["category X unproductive", "left state L unproductive"]);
    }

    #[test]
    fn states_off_every_start_path_are_unreachable() {
        // T is productive (via b) but never attached; its states and b are
        // unreachable; M is on the left path of S.
        let mut b = GrammarBuilder::new();
        b.lexical("S", "S", "a")
            .lexical("U", "V", "b")
            .finish("S", "M", "S")
            .finish("T", "U", "V")
            .left_attach("M", "S", "S")
            .finish("S", "S", "S");
        let g = b.build().unwrap();
        assert_eq!(
            names(&g),
            [
                "category T unreachable",
                "left state U unreachable",
                "right state V unreachable",
                "terminal b unreachable"
            ]
        );
    }
}
