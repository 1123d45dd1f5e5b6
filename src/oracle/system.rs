//! The shared vocabulary of transition systems: [`Step`], [`System`] (the
//! registry), the [`TransitionSystem`] trait each system implements, and the
//! [`Configuration`] (stack, remaining input, arcs built so far) they all act on.
//!
//! Everything that is not specific to one system is written against
//! [`TransitionSystem`] only: the brute force ([`super::exhaustive`]), the
//! grammar oracle ([`super::grammar_oracle`]), sessions, walks, the command
//! line. A new system is a folder next to `arc_standard/` with a unit struct
//! implementing the trait, and one line in [`System`].
//!
//! Conventions (all systems): positions 0 … n, 0 the root; the stack starts
//! with 0 and increases; the remaining input is a suffix b₁ … b_m of 1 … n
//! that lies after the stack; s₀ is the top of the stack, s₁ the element
//! below it, b = b₁ the first remaining word.
//!
//! With the root in last position ([`Root::Last`], Ballesteros & Nivre 2013;
//! arc-hybrid and arc-eager), a sentence of n − 1 words is laid out as n
//! positions: the words 1 … n − 1, then the root as position n, the last of
//! the input; 0 is only the bottom of the stack, which never takes part in
//! an arc. The system's steps apply as with the root first, except those
//! that would shift the root, make it a dependent, or give 0 a dependent;
//! the computation ends when the stack is [0] and the input is the root
//! alone. [`Root::extend_tree`] lays a gold tree out so.

use super::arc_eager::ArcEager;
use super::arc_eager_nm::ArcEagerNm;
use super::arc_hybrid::ArcHybrid;
use super::arc_standard::ArcStandard;
use super::attardi::Attardi;
use super::lr_spine::LrSpine;
use super::OracleError;
use crate::tree::DepTree;
use std::fmt;
use std::str::FromStr;

/// A transition of any system. Each system uses some of them
/// ([`TransitionSystem::steps`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// Push b onto the stack (every system).
    Shift,
    /// Arc-standard: s₁ → s₀, pop s₀ (Nederhof 2019, Table 1).
    ReduceLeft,
    /// Arc-standard: s₀ → s₁, remove s₁; needs a stack of three or more.
    ReduceRight,
    /// Arc-hybrid and arc-eager: b → s₀, pop s₀. Attardi: s₀ → s₁, remove s₁.
    LeftArc,
    /// Arc-hybrid and Attardi: s₁ → s₀, pop s₀. Arc-eager: s₀ → b, push b.
    RightArc,
    /// Arc-eager: pop s₀, which has a head.
    Reduce,
    /// Attardi: s₀ → s₂, remove s₂ (seed 002, Fig. 1, `la₂`).
    LeftArc2,
    /// Attardi: s₂ → s₀, pop s₀ (seed 002, Fig. 1, `ra₂`).
    RightArc2,

    // Steps with a spine position K ≥ 1 (LR-spine, Goldberg et al. 2014, Sec. 6.1);
    // not in `Step::ALL`, scored in the spine part of `StepScores`.
    /// LR-spine `left_arc_K`: ls(s₀)[K] → root(s₁), remove s₁ (K = 1: s₀ → s₁).
    LeftArcAt(u32),
    /// LR-spine `right_arc_K`: rs(s₁)[K] → root(s₀), pop s₀ (K = 1: s₁ → s₀).
    RightArcAt(u32),
}

impl Step {
    /// Every step without a spine position, in the order of [`StepScores`](super::StepScores).
    pub const ALL: [Step; 8] = [
        Step::Shift,
        Step::ReduceLeft,
        Step::ReduceRight,
        Step::LeftArc,
        Step::RightArc,
        Step::Reduce,
        Step::LeftArc2,
        Step::RightArc2,
    ];

    /// The name used on the command line and in JSON (`left_arc_K` /
    /// `right_arc_K` for the spine steps; interned, see [`spine_name`]).
    pub fn name(self) -> &'static str {
        match self {
            Step::LeftArcAt(k) => spine_name(false, k),
            Step::RightArcAt(k) => spine_name(true, k),
            Step::Shift => "shift",
            Step::ReduceLeft => "reduce_left",
            Step::ReduceRight => "reduce_right",
            Step::LeftArc => "left_arc",
            Step::RightArc => "right_arc",
            Step::Reduce => "reduce",
            Step::LeftArc2 => "left_arc_2",
            Step::RightArc2 => "right_arc_2",
        }
    }

    /// The index of this step in [`Step::ALL`]; for a spine step, the
    /// length of [`Step::ALL`] (it has none). O(1).
    pub fn index(self) -> usize {
        match self {
            Step::Shift => 0,
            Step::ReduceLeft => 1,
            Step::ReduceRight => 2,
            Step::LeftArc => 3,
            Step::RightArc => 4,
            Step::Reduce => 5,
            Step::LeftArc2 => 6,
            Step::RightArc2 => 7,
            Step::LeftArcAt(_) | Step::RightArcAt(_) => Step::ALL.len(),
        }
    }

    /// The spine position K of `left_arc_K` / `right_arc_K`, and whether it
    /// is a right arc.
    pub fn spine(self) -> Option<(bool, u32)> {
        match self {
            Step::LeftArcAt(k) => Some((false, k)),
            Step::RightArcAt(k) => Some((true, k)),
            _ => None,
        }
    }

    /// The step named `name` among [`Step::ALL`] ([`Step::name`]); spine
    /// steps are parsed by [`System::parse_step`], since a name like
    /// `left_arc_2` may mean different steps in different systems.
    pub fn from_name(name: &str) -> Option<Step> {
        Step::ALL.into_iter().find(|s| s.name() == name)
    }

    /// `left_arc_K` / `right_arc_K` with K ≥ 1 as a spine step.
    fn spine_from_name(name: &str) -> Option<Step> {
        let (right, k) = if let Some(k) = name.strip_prefix("left_arc_") {
            (false, k)
        } else {
            (true, name.strip_prefix("right_arc_")?)
        };
        if k.is_empty() || !k.bytes().all(|b| b.is_ascii_digit()) || k.starts_with('0') {
            return None;
        }
        let k: u32 = k.parse().ok()?;
        Some(if right { Step::RightArcAt(k) } else { Step::LeftArcAt(k) })
    }
}

/// The interned name `left_arc_K` / `right_arc_K` of a spine step: built
/// once per (direction, K) and kept for the life of the process (at most
/// two strings per spine position ever seen, so bounded by the longest
/// spine).
pub fn spine_name(right: bool, k: u32) -> &'static str {
    use std::sync::{Mutex, OnceLock};
    static NAMES: OnceLock<Mutex<[Vec<&'static str>; 2]>> = OnceLock::new();
    let names = NAMES.get_or_init(|| Mutex::new([Vec::new(), Vec::new()]));
    let mut names = names.lock().unwrap_or_else(|e| e.into_inner());
    let list = &mut names[right as usize];
    let k = k as usize;
    while list.len() <= k {
        let i = list.len();
        let s = format!("{}_arc_{i}", if right { "right" } else { "left" });
        list.push(Box::leak(s.into_boxed_str()));
    }
    list[k]
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The registry of transition systems.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum System {
    /// Shift-reduce parsing of Nederhof (2019), Sec. 2: `shift`, `reduce_left`, `reduce_right`.
    #[default]
    ArcStandard,
    /// Arc-hybrid (Kuhlmann, Gómez-Rodríguez and Satta 2011): `shift`, `left_arc`, `right_arc`.
    ArcHybrid,
    /// Arc-eager (Nivre 2003; seed 004, Sec. 2): `shift`, `left_arc`, `right_arc`, `reduce`.
    ArcEager,
    /// LR-spine (Sartorio et al. 2013; Goldberg et al. 2014, Sec. 6.1):
    /// `shift`, `left_arc_K`, `right_arc_K`.
    LrSpine,
    /// Attardi's non-projective parser of degree 2 (seed 002, Fig. 1):
    /// `shift`, `left_arc`, `right_arc`, `left_arc_2`, `right_arc_2`.
    Attardi,
    /// Non-monotonic arc-eager (Honnibal, Goldberg & Johnson 2013; Honnibal
    /// & Johnson 2015): `shift`, `left_arc`, `right_arc`, `reduce`.
    ArcEagerNm,
}

impl System {
    /// Every system.
    pub const ALL: [System; 6] = [
        System::ArcStandard,
        System::ArcHybrid,
        System::ArcEager,
        System::LrSpine,
        System::Attardi,
        System::ArcEagerNm,
    ];

    /// The definition of the system.
    pub fn definition(self) -> &'static dyn TransitionSystem {
        match self {
            System::ArcStandard => &ArcStandard,
            System::ArcHybrid => &ArcHybrid,
            System::ArcEager => &ArcEager,
            System::LrSpine => &LrSpine,
            System::Attardi => &Attardi,
            System::ArcEagerNm => &ArcEagerNm,
        }
    }

    /// `arc-standard`, `arc-hybrid`, `arc-eager`, `lr-spine`, `attardi` or `arc-eager-nm`.
    pub fn name(self) -> &'static str {
        match self {
            System::ArcStandard => "arc-standard",
            System::ArcHybrid => "arc-hybrid",
            System::ArcEager => "arc-eager",
            System::LrSpine => "lr-spine",
            System::Attardi => "attardi",
            System::ArcEagerNm => "arc-eager-nm",
        }
    }

    /// The steps of the system, in the order of [`Step::ALL`] (LR-spine:
    /// those with K = 1; [`Configuration::steps`] has all of a configuration).
    pub fn steps(self) -> &'static [Step] {
        self.definition().steps()
    }

    /// The step of this system named `name`: one of [`System::steps`], or
    /// (systems with spine steps) `left_arc_K` / `right_arc_K` for any K ≥ 1.
    pub fn parse_step(self, name: &str) -> Option<Step> {
        let def = self.definition();
        if def.has_spine_steps() {
            if let Some(step) = Step::spine_from_name(name) {
                return Some(step);
            }
        }
        self.steps().iter().copied().find(|s| s.name() == name)
    }
}

impl fmt::Display for System {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl System {
    /// ": did you mean `NAME`?" for a system name one or two edits from
    /// `given` (a typo), else "".
    pub(crate) fn did_you_mean(given: &str) -> String {
        let closest = System::ALL.into_iter().map(|s| (strsim::damerau_levenshtein(given, s.name()), s.name())).min();
        match closest {
            Some((distance, name)) if distance <= 2 => format!(": did you mean `{name}`?"),
            _ => String::new(),
        }
    }
}

impl FromStr for System {
    type Err = OracleError;
    fn from_str(s: &str) -> Result<Self, OracleError> {
        System::ALL.into_iter().find(|x| x.name() == s).ok_or_else(|| OracleError::UnknownSystem(s.to_owned()))
    }
}

/// Where the root is: before the first word, at the bottom of the stack
/// (the usual layout), or after the last word, the last of the input
/// (Ballesteros & Nivre 2013). See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Root {
    #[default]
    First,
    Last,
}

impl Root {
    /// Both positions.
    pub const ALL: [Root; 2] = [Root::First, Root::Last];

    /// `first` or `last`.
    pub fn name(self) -> &'static str {
        match self {
            Root::First => "first",
            Root::Last => "last",
        }
    }

    /// Whether `system` offers this root position (last: arc-hybrid and
    /// arc-eager, whose oracles are checked for it against the brute force).
    pub fn offered(self, system: System) -> bool {
        self == Root::First || matches!(system, System::ArcHybrid | System::ArcEager)
    }

    /// The number of positions after 0 for a sentence of `words` words:
    /// `words`, or one more for the root in last position.
    pub fn positions(self, words: usize) -> usize {
        words + usize::from(self == Root::Last)
    }

    /// `gold` laid out for this root position: itself (first), or (last)
    /// the tree over n + 1 positions whose root n + 1 takes the root's
    /// dependents and is the one dependent of 0. Projective exactly when
    /// `gold` is (an arc 0 → d crosses an arc exactly when d → n + 1 does).
    /// O(n).
    pub fn extend_tree(self, gold: &DepTree) -> DepTree {
        match self {
            Root::First => gold.clone(),
            Root::Last => {
                let n = gold.len();
                // A partial tree's unannotated words stay without a head.
                let head = |d| match gold.head(d) {
                    0 => Some(n + 1),
                    DepTree::NO_HEAD => None,
                    h => Some(h),
                };
                let heads: Vec<Option<usize>> = (1..=n).map(head).chain([Some(0)]).collect();
                DepTree::from_partial_heads(&heads).expect("a tree with a new root above the old one")
            }
        }
    }

    /// The head of word `d` in the sentence's own numbering, from its
    /// head `h` among the positions 0 … `n` of this layout. O(1).
    pub fn head_in_sentence(self, h: usize, n: usize) -> usize {
        if self == Root::Last && h == n {
            0
        } else {
            h
        }
    }
}

impl fmt::Display for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Root {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Root::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| format!("unknown root position `{s}` (first or last)"))
    }
}

/// A transition system (the interface of PanParser, seed 001, Sec. 2):
/// which steps exist, when they apply, what they do, when a computation
/// ends, and which arcs a configuration can have been built with.
///
/// Implementations are unit structs; [`System::definition`] gives the one
/// of a registered system, and [`Configuration`] calls it.
pub trait TransitionSystem: Send + Sync + 'static {
    /// The registry entry.
    fn system(&self) -> System;
    /// The system's steps, in the order of [`Step::ALL`].
    fn steps(&self) -> &'static [Step];
    /// Whether `step` applies to `c`. O(1).
    fn is_applicable(&self, c: &Configuration, step: Step) -> bool;
    /// The arc (head, dependent) that `step`, which is applicable, builds
    /// from `c`, if any. O(1) (LR-spine: O(K) for a spine position K).
    fn arc(&self, c: &Configuration, step: Step) -> Option<(usize, usize)>;
    /// Changes the stack and the input of `c` as `step`, which is
    /// applicable, does ([`Configuration::apply`] records the arc). O(1)
    /// (Attardi's steps on s₁ and s₂: O(1) removals near the top).
    fn apply(&self, c: &mut Configuration, step: Step);
    /// Whether the computation has ended: by default, the stack is [0] and
    /// the input is empty. O(1).
    fn is_final(&self, c: &Configuration) -> bool {
        c.stack.len() == 1 && c.next > c.n
    }
    /// Whether the first remaining word b₁ can have obtained children before
    /// the configuration (arc-hybrid and arc-eager: left children by
    /// `left_arc`); by default not.
    fn front_has_children(&self) -> bool {
        false
    }
    /// Whether a stack word other than 0 can have a head (arc-eager: after
    /// `right_arc`, and then it is the stack word below it); by default not.
    fn stack_words_have_heads(&self) -> bool {
        false
    }
    /// Whether the system has steps with a spine position
    /// ([`Step::LeftArcAt`], [`Step::RightArcAt`]) beyond [`TransitionSystem::steps`].
    fn has_spine_steps(&self) -> bool {
        false
    }
    /// How many `left_arc_K` and `right_arc_K` steps `c` offers (LR-spine:
    /// |ls(s₀)| and |rs(s₁)| when they apply); (0, 0) for other systems.
    fn spine_steps(&self, _c: &Configuration) -> (usize, usize) {
        (0, 0)
    }
    /// The arc (head, dependent) that `step`, which is applicable, makes
    /// final: after it, the dependent's head never changes. By default the
    /// arc the step builds (monotonic systems); non-monotonic arc-eager: the
    /// head a word has when it leaves the stack for good.
    fn settled_arc(&self, c: &Configuration, step: Step) -> Option<(usize, usize)> {
        self.arc(c, step)
    }
    /// Whether every arc a step builds stays in the final tree (all systems
    /// but non-monotonic arc-eager).
    fn is_monotonic(&self) -> bool {
        true
    }
    /// Whether built arcs may cross one another or pass over a stack word
    /// (Attardi: `left_arc_2` and `right_arc_2` link s₀ and s₂ over s₁).
    /// Projective systems keep the default, `false`.
    fn arcs_may_cross(&self) -> bool {
        false
    }
}

/// A configuration of a transition system for a sentence of n words: the
/// stack a₀ … a_k (a₀ = 0), the remaining input b₁ … b_m (a suffix of
/// 1 … n) and the arcs built so far.
#[derive(Clone, Debug)]
pub struct Configuration {
    pub(crate) system: System,
    pub(crate) stack: Vec<usize>,
    /// The first remaining input node; `n + 1` when the input is exhausted.
    pub(crate) next: usize,
    pub(crate) n: usize,
    /// `heads[d]`: the head given to d so far, or [`DepTree::NO_HEAD`];
    /// `heads[0]` is always `NO_HEAD`.
    pub(crate) heads: Vec<usize>,
    /// `outer[v]`: the leftmost and the rightmost dependent given to v so
    /// far ([`DepTree::NO_HEAD`] if none); the spines of LR-spine.
    pub(crate) outer: Vec<[usize; 2]>,
    /// Non-monotonic arc-eager only (empty for the other systems):
    /// `before[d]`, the outer dependents of d's head just before d was
    /// attached, which its head-replacing `left_arc` restores in O(1) (the
    /// replaced arc is always its head's last). History, not state: equality
    /// and hashing leave it out.
    pub(crate) before: Vec<[usize; 2]>,
    /// Where the root is (see the module documentation).
    pub(crate) root: Root,
    /// Non-monotonic arc-eager: the word that `reduce` moved back onto the
    /// empty input (unshift, Honnibal & Johnson 2015), which is then the
    /// whole remaining input (`next` is n + 1); [`DepTree::NO_HEAD`] if none.
    pub(crate) unshifted: usize,
}

/// Two configurations are equal when their stacks, inputs and arcs are
/// (not how the arcs came: `before` is left out).
impl PartialEq for Configuration {
    fn eq(&self, other: &Self) -> bool {
        self.system == other.system
            && self.stack == other.stack
            && self.next == other.next
            && self.n == other.n
            && self.heads == other.heads
            && self.outer == other.outer
            && self.root == other.root
            && self.unshifted == other.unshifted
    }
}

impl Eq for Configuration {}

impl std::hash::Hash for Configuration {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.system, &self.stack, self.next, self.n, &self.heads, &self.outer, self.root, self.unshifted).hash(state);
    }
}

impl Configuration {
    /// The initial configuration (0, 1 2 … n) of `system`, with no arcs. O(n).
    pub fn initial(system: System, n: usize) -> Self {
        Self::initial_at(system, n, Root::First)
    }

    /// The initial configuration of `system` for `n` positions with the
    /// root at `root` (last: the root is position n, see the module
    /// documentation; n ≥ 1). O(n).
    pub fn initial_at(system: System, n: usize, root: Root) -> Self {
        Configuration {
            system,
            stack: vec![0],
            next: 1,
            n,
            heads: vec![DepTree::NO_HEAD; n + 1],
            outer: vec![[DepTree::NO_HEAD; 2]; n + 1],
            before: vec![[DepTree::NO_HEAD; 2]; Self::history_len(system, n)],
            root,
            unshifted: DepTree::NO_HEAD,
        }
    }

    /// A configuration of `system` from its stack and remaining input,
    /// checked: the stack starts with 0 and increases, the remaining input is
    /// a suffix of 1 … n after the stack. The arcs built so far are unknown
    /// (none recorded); for arc-eager, whose steps depend on which stack
    /// words have a head, a stack of more than the root then is an error
    /// ([`Configuration::with_arcs`] takes the arcs). O(k + m).
    pub fn new(system: System, stack: &[usize], buffer: &[usize], n: usize) -> Result<Self, OracleError> {
        let c = Self::unchecked_arcs(system, stack, buffer, n)?;
        if system.definition().stack_words_have_heads() && c.stack.len() > 1 {
            return Err(OracleError::ArcsNeeded(system));
        }
        // LR-spine: once a word has left the stack, the spines depend on the arcs.
        if system.definition().has_spine_steps() && c.stack.len() < c.next {
            return Err(OracleError::SpinesNeeded(system));
        }
        Ok(c)
    }

    /// A configuration from its stack, remaining input and the arcs
    /// (head, dependent) built so far, checked as in [`Configuration::new`]
    /// and for consistency with the system: every word that left the stack
    /// has exactly one head, the root and b₁ none, a stack word none
    /// (arc-eager: none, or the stack word below it), only b₁ of the input
    /// takes part (as a head, for arc-hybrid and arc-eager), and no arc
    /// crosses another or passes over a stack word. Every configuration
    /// reachable from the initial one passes; for n ≤ 5 exactly those do
    /// (`tests/systems.rs`). O(n + a log a) for a arcs.
    pub fn with_arcs(
        system: System,
        stack: &[usize],
        buffer: &[usize],
        arcs: &[(usize, usize)],
        n: usize,
    ) -> Result<Self, OracleError> {
        let mut c = Self::unchecked_arcs(system, stack, buffer, n)?;
        c.set_arcs(arcs)?;
        Ok(c)
    }

    /// A configuration of non-monotonic arc-eager right after an unshift
    /// (Honnibal & Johnson 2015): the stack, the word `unshifted` that was
    /// moved back onto the empty input (after the stack, without a head)
    /// and the arcs built so far, checked as in [`Configuration::with_arcs`].
    /// O(n + a log a) for a arcs.
    pub fn with_unshifted(
        system: System,
        stack: &[usize],
        unshifted: usize,
        arcs: &[(usize, usize)],
        n: usize,
    ) -> Result<Self, OracleError> {
        let mut c = Self::unchecked_arcs(system, stack, &[], n)?;
        if system != System::ArcEagerNm {
            let reason = "only arc-eager-nm moves a word back onto the input (unshift)".to_owned();
            return Err(OracleError::InconsistentArcs { system, reason });
        }
        if unshifted == 0 || unshifted > n {
            return Err(OracleError::NodeOutOfRange { node: unshifted, n });
        }
        if stack.contains(&unshifted) {
            return Err(OracleError::Repeated(unshifted));
        }
        if unshifted < c.top() {
            return Err(OracleError::OutOfOrder(unshifted, c.top()));
        }
        c.unshifted = unshifted;
        c.set_arcs(arcs)?;
        Ok(c)
    }

    fn unchecked_arcs(system: System, stack: &[usize], buffer: &[usize], n: usize) -> Result<Self, OracleError> {
        if stack.first() != Some(&0) {
            return Err(OracleError::StackWithoutRoot);
        }
        for (prev, &x) in stack.iter().zip(stack.iter().skip(1)).map(|(p, x)| (*p, x)) {
            if x > n {
                return Err(OracleError::NodeOutOfRange { node: x, n });
            }
            if x == prev {
                return Err(OracleError::Repeated(x));
            }
            if x < prev {
                return Err(if stack.iter().filter(|&&y| y == x).count() > 1 {
                    OracleError::Repeated(x)
                } else {
                    OracleError::OutOfOrder(x, prev)
                });
            }
        }
        if let Some(&x) = buffer.iter().find(|&&x| x > n || x == 0) {
            return Err(OracleError::NodeOutOfRange { node: x, n });
        }
        let top = *stack.last().expect("non-empty");
        if let Some(&x) = buffer.iter().find(|&&x| stack.contains(&x)) {
            return Err(OracleError::Repeated(x));
        }
        // The expected first word (1 if the buffer is too long for a suffix).
        let first = (n + 1 - buffer.len().min(n + 1)).max(1);
        if buffer.len() > n || !buffer.iter().copied().eq(first..=n) {
            return Err(OracleError::BufferNotSuffix { first, n, found: buffer.to_vec() });
        }
        if first <= top {
            return Err(OracleError::OutOfOrder(first, top));
        }
        Ok(Configuration {
            system,
            stack: stack.to_vec(),
            next: first,
            n,
            heads: vec![DepTree::NO_HEAD; n + 1],
            outer: vec![[DepTree::NO_HEAD; 2]; n + 1],
            before: vec![[DepTree::NO_HEAD; 2]; Self::history_len(system, n)],
            root: Root::First,
            unshifted: DepTree::NO_HEAD,
        })
    }

    /// Records `arcs` as the arcs built so far, after checking them (see
    /// [`Configuration::with_arcs`]).
    fn set_arcs(&mut self, arcs: &[(usize, usize)]) -> Result<(), OracleError> {
        let def = self.system.definition();
        let n = self.n;
        let bad = |reason: String| OracleError::InconsistentArcs { system: self.system, reason };
        // The last position that may take part in an arc.
        let limit = if def.front_has_children() { self.next.min(n) } else { self.next - 1 };
        let mut on_stack = vec![false; n + 2];
        for &a in &self.stack {
            on_stack[a] = true;
        }
        // An unshifted word keeps every later word in its subtree: no arc passes over it either.
        if let Some(w) = self.unshifted() {
            on_stack[w] = true;
        }
        let mut heads = vec![DepTree::NO_HEAD; n + 1];
        for &(h, d) in arcs {
            if h > n || d > n {
                return Err(OracleError::NodeOutOfRange { node: h.max(d), n });
            }
            if d == 0 {
                return Err(bad("the root 0 cannot be a dependent".into()));
            }
            if h == d {
                return Err(bad(format!("word {d} cannot be its own head")));
            }
            if heads[d] != DepTree::NO_HEAD {
                return Err(bad(format!("word {d} has two heads, {} and {h}", heads[d])));
            }
            if h.max(d) > limit {
                return Err(bad(format!("arc {h} -> {d} involves a word of the remaining input")));
            }
            if d == self.next || d == self.unshifted {
                return Err(bad(format!("arc {h} -> {d}: the first remaining word has no head yet")));
            }
            heads[d] = h;
        }
        // Arc-eager: no step applies once the input is empty, so the step that
        // emptied it (`shift` or `right_arc` of word n) left word n on top.
        if self.system == System::ArcEager && n > 0 && self.next > n && self.top() != n {
            return Err(bad(format!(
                "the input is empty, so word {n} (pushed by the last step) must be the top of the stack, not {}",
                self.top()
            )));
        }
        // Words that left the stack have a head; stack words have none, or (arc-eager) the stack word below.
        for d in 1..self.next.min(n + 1) {
            if !on_stack[d] && heads[d] == DepTree::NO_HEAD {
                return Err(bad(format!("word {d} has left the stack but has no head")));
            }
        }
        for i in 1..self.stack.len() {
            let (a, h) = (self.stack[i], heads[self.stack[i]]);
            if h != DepTree::NO_HEAD && !(def.stack_words_have_heads() && h == self.stack[i - 1]) {
                return Err(bad(if def.stack_words_have_heads() {
                    format!("stack word {a} has head {h}, but only the stack word below it can be its head")
                } else {
                    format!("stack word {a} has head {h}, but words on the stack have no head yet")
                }));
            }
        }
        if def.arcs_may_cross() {
            return self.check_acyclic_and_set(heads, limit);
        }
        // No arc passes over a stack word: prefix counts of stack words.
        let mut below = vec![0usize; n + 2];
        for p in 0..=n {
            below[p + 1] = below[p] + on_stack[p] as usize;
        }
        let mut spans: Vec<(usize, usize)> = Vec::with_capacity(arcs.len());
        for &(h, d) in arcs {
            let (l, r) = (h.min(d), h.max(d));
            if below[r] - below[l + 1] > 0 {
                let a = (l + 1..r).find(|&p| on_stack[p]).expect("counted");
                return Err(bad(format!("arc {h} -> {d} passes over stack word {a}")));
            }
            spans.push((l, r));
        }
        // No two arcs cross: intervals by left end ascending, right end descending.
        spans.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut open: Vec<(usize, usize)> = Vec::new();
        for &(l, r) in &spans {
            while open.last().is_some_and(|&(_, r2)| r2 <= l) {
                open.pop();
            }
            if let Some(&(l2, r2)) = open.last() {
                if l2 < l && r2 < r {
                    return Err(bad(format!("arcs between {l2} and {r2} and between {l} and {r} cross")));
                }
            }
            open.push((l, r));
        }
        self.check_acyclic_and_set(heads, limit)
    }

    /// The last check of [`Configuration::set_arcs`]: the arcs form no
    /// cycle; then records them. O(n).
    fn check_acyclic_and_set(&mut self, heads: Vec<usize>, limit: usize) -> Result<(), OracleError> {
        let n = self.n;
        let bad = |reason: String| OracleError::InconsistentArcs { system: self.system, reason };
        // Every non-root word of 1 … limit has at most one head; a cycle is
        // still possible in principle; follow heads.
        let mut state = vec![0u8; n + 1];
        for start in 1..=limit.min(n) {
            let mut v = start;
            let mut path = 0;
            while v != DepTree::NO_HEAD && state[v] == 0 && path <= n {
                state[v] = 1;
                v = heads[v];
                path += 1;
            }
            if v != DepTree::NO_HEAD && state[v] == 1 {
                return Err(bad(format!("the arcs form a cycle through word {v}")));
            }
            let mut v = start;
            while v != DepTree::NO_HEAD && state[v] == 1 {
                state[v] = 2;
                v = heads[v];
            }
        }
        self.heads = heads;
        for d in 1..=n {
            if self.heads[d] != DepTree::NO_HEAD {
                self.note_arc(self.heads[d], d);
            }
        }
        Ok(())
    }

    /// The length of the `before` table of `system` for n words: n + 1 for
    /// non-monotonic arc-eager, 0 otherwise.
    fn history_len(system: System, n: usize) -> usize {
        if system.definition().is_monotonic() {
            0
        } else {
            n + 1
        }
    }

    /// Records d as a dependent of h in `outer` (and, for non-monotonic
    /// arc-eager, h's outer dependents before it in `before`).
    pub(crate) fn note_arc(&mut self, h: usize, d: usize) {
        if let Some(b) = self.before.get_mut(d) {
            *b = self.outer[h];
        }
        let o = &mut self.outer[h];
        if o[0] == DepTree::NO_HEAD || d < o[0] {
            o[0] = d;
        }
        if o[1] == DepTree::NO_HEAD || d > o[1] {
            o[1] = d;
        }
    }

    /// Makes `self` the initial configuration of `system` for `n` words,
    /// reusing its buffers (no allocation once they hold n + 1). O(n).
    pub fn reset(&mut self, system: System, n: usize) {
        self.reset_at(system, n, Root::First);
    }

    /// [`Configuration::reset`] with the root at `root` ([`Configuration::initial_at`]).
    pub fn reset_at(&mut self, system: System, n: usize, root: Root) {
        self.system = system;
        self.root = root;
        self.stack.clear();
        self.stack.push(0);
        self.next = 1;
        self.n = n;
        self.heads.clear();
        self.heads.resize(n + 1, DepTree::NO_HEAD);
        self.outer.clear();
        self.outer.resize(n + 1, [DepTree::NO_HEAD; 2]);
        self.before.clear();
        self.before.resize(Self::history_len(system, n), [DepTree::NO_HEAD; 2]);
        self.unshifted = DepTree::NO_HEAD;
    }

    /// Makes `self` a copy of `other`, reusing `self`'s buffers (no
    /// allocation once they are as large as `other`'s). O(n).
    pub fn assign(&mut self, other: &Configuration) {
        self.system = other.system;
        self.root = other.root;
        self.stack.clone_from(&other.stack);
        self.next = other.next;
        self.n = other.n;
        self.heads.clone_from(&other.heads);
        self.outer.clone_from(&other.outer);
        self.before.clone_from(&other.before);
        self.unshifted = other.unshifted;
    }

    /// Makes `self` a copy of `other` where the two can differ, for a
    /// beam that knows what the steps between them touched: the scalars,
    /// the stack from position `stack_from` up, and the heads and outer
    /// dependents of `words`. `self` must already equal `other` on the
    /// rest (the same n, the same stack below `stack_from`, the same heads
    /// and outer dependents of every other word). O(words + stack above
    /// `stack_from`), independent of n.
    pub(crate) fn assign_where(&mut self, other: &Configuration, words: &[u32], stack_from: usize) {
        debug_assert_eq!(self.n, other.n);
        self.system = other.system;
        self.root = other.root;
        self.stack.truncate(stack_from);
        self.stack.extend_from_slice(&other.stack[stack_from..]);
        self.next = other.next;
        self.unshifted = other.unshifted;
        for &w in words {
            let w = w as usize;
            self.heads[w] = other.heads[w];
            self.outer[w] = other.outer[w];
            if let (Some(to), Some(&from)) = (self.before.get_mut(w), other.before.get(w)) {
                *to = from;
            }
        }
    }

    /// The transition system.
    pub fn system(&self) -> System {
        self.system
    }
    /// Where the root is.
    pub fn root(&self) -> Root {
        self.root
    }
    /// The stack a₀ … a_k, bottom first.
    pub fn stack(&self) -> &[usize] {
        &self.stack
    }
    /// The remaining input b₁ … b_m (non-monotonic arc-eager after an
    /// unshift: the unshifted word alone).
    pub fn buffer(&self) -> std::ops::RangeInclusive<usize> {
        match self.unshifted() {
            Some(w) => w..=w,
            None => self.next..=self.n,
        }
    }
    /// The first remaining input node, if any.
    pub fn next_input(&self) -> Option<usize> {
        self.unshifted().or((self.next <= self.n).then_some(self.next))
    }
    /// Non-monotonic arc-eager: the word that an unshift moved back onto
    /// the empty input, which is then the whole remaining input and cannot
    /// be shifted again ([`Configuration::with_unshifted`]).
    pub fn unshifted(&self) -> Option<usize> {
        (self.unshifted != DepTree::NO_HEAD).then_some(self.unshifted)
    }
    /// Sentence length n.
    pub fn sentence_len(&self) -> usize {
        self.n
    }
    /// The head given to word `d` so far, if any (and if known: see
    /// [`Configuration::new`]).
    pub fn head(&self, d: usize) -> Option<usize> {
        self.heads.get(d).copied().filter(|&h| h != DepTree::NO_HEAD)
    }
    /// The arcs (head, dependent) built so far (as far as known), by dependent.
    pub fn arcs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.heads.iter().enumerate().filter(|(_, &h)| h != DepTree::NO_HEAD).map(|(d, &h)| (h, d))
    }
    /// Whether the computation has ended (arc-standard and arc-hybrid:
    /// (0, ε); arc-eager: ε remaining input).
    /// With the root last: the stack is [0] and the input the root alone.
    pub fn is_final(&self) -> bool {
        match self.root {
            Root::First => self.system.definition().is_final(self),
            Root::Last => self.stack.len() == 1 && self.next >= self.n,
        }
    }
    /// Whether `step` can be applied (with the root last: and neither
    /// shifts the root, makes it a dependent, nor gives 0 a dependent).
    pub fn is_applicable(&self, step: Step) -> bool {
        let def = self.system.definition();
        if !def.is_applicable(self, step) {
            return false;
        }
        match self.root {
            Root::First => true,
            Root::Last => match def.arc(self, step) {
                Some((h, d)) => h != 0 && d != self.n,
                None => !(step == Step::Shift && self.next == self.n),
            },
        }
    }
    /// The steps of the system at this configuration: [`System::steps`],
    /// then (LR-spine) `left_arc_K` for K = 2 … |ls(s₀)| and `right_arc_K`
    /// for K = 2 … |rs(s₁)|.
    pub fn steps(&self) -> impl Iterator<Item = Step> + '_ {
        let (l, r) = self.system.definition().spine_steps(self);
        let more = |n: usize, f: fn(u32) -> Step| (2..=n as u32).map(f);
        self.system.steps().iter().copied().chain(more(l, Step::LeftArcAt)).chain(more(r, Step::RightArcAt))
    }
    /// The applicable steps, in the order of [`Configuration::steps`].
    pub fn applicable_steps(&self) -> impl Iterator<Item = Step> + '_ {
        self.steps().filter(|&s| self.is_applicable(s))
    }
    /// The left spine of the subtree built so far under `v`: v, its leftmost
    /// left dependent, that one's, … (Goldberg et al. 2014, Sec. 6.1, with
    /// *left* dependents only: see `docs/systems.md`). O(length).
    pub fn left_spine(&self, v: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(Some(v), move |&u| Some(self.outer[u][0]).filter(|&d| d < u))
    }
    /// The right spine of the subtree built so far under `v`: v, its
    /// rightmost right dependent, that one's, … O(length).
    pub fn right_spine(&self, v: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(Some(v), move |&u| Some(self.outer[u][1]).filter(|&d| d > u && d != DepTree::NO_HEAD))
    }
    /// The arc (head, dependent) `step` would build, without applying it:
    /// `None` if it builds none or is not applicable. O(1) (LR-spine: O(K)).
    pub fn arc(&self, step: Step) -> Option<(usize, usize)> {
        self.is_applicable(step).then(|| self.system.definition().arc(self, step)).flatten()
    }
    /// Applies `step`, returning the arc (head, dependent) it builds, if any.
    pub fn apply(&mut self, step: Step) -> Result<Option<(usize, usize)>, OracleError> {
        let def = self.system.definition();
        if !self.is_applicable(step) {
            return Err(OracleError::NotApplicable(step, self.system));
        }
        let arc = def.arc(self, step);
        def.apply(self, step);
        if let Some((h, d)) = arc {
            self.heads[d] = h;
            self.note_arc(h, d);
        }
        Ok(arc)
    }
    /// Checks that `gold` is for a sentence of this length.
    pub fn check_gold<G: crate::tree::ArcTarget + ?Sized>(&self, gold: &G) -> Result<(), OracleError> {
        if gold.words() != self.n {
            return Err(OracleError::LengthMismatch { gold: gold.words(), n: self.n });
        }
        Ok(())
    }

    /// The top of the stack s₀.
    pub(crate) fn top(&self) -> usize {
        *self.stack.last().expect("the stack holds the root")
    }
    /// sᵢ, the stack word `i` places below the top (s₀ is the top); the
    /// stack must hold more than `i` words.
    pub(crate) fn below_top(&self, i: usize) -> usize {
        self.stack[self.stack.len() - 1 - i]
    }
    /// Moves b₁ onto the stack.
    pub(crate) fn push_next(&mut self) {
        self.stack.push(self.next);
        self.next += 1;
    }
}

/// A list of nodes for a message: at most 12 shown, then how many more.
pub fn short_list(nodes: &[usize]) -> String {
    if nodes.len() <= 12 {
        return format!("{nodes:?}");
    }
    let shown: Vec<String> = nodes[..10].iter().map(usize::to_string).collect();
    format!("[{}, … ({} more)]", shown.join(", "), nodes.len() - 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_of_all_sits_at_its_index() {
        for (i, step) in Step::ALL.into_iter().enumerate() {
            assert_eq!(step.index(), i, "{step}");
        }
        assert_eq!(Step::LeftArcAt(2).index(), Step::ALL.len());
    }
}
