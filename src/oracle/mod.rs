//! Optimal steps of shift-reduce ("arc-standard") dependency parsing, also
//! known as a dynamic oracle (Nederhof 2019, Sec. 2 and 4–7).
//!
//! A [`Configuration`] is a stack a₀ … a_k (a₀ = 0, the root) and a remaining
//! input b₁ … b_m, a suffix of 1 … n. From it, each applicable [`Step`]
//! (Table 1) is scored by the largest number of gold arcs that computations
//! starting with that step, and respecting the [`Strategy`], can still build
//! (arcs built before the configuration are not counted). The answer is a
//! [`StepScores`]; the optimal steps are those with the highest score.
//!
//! [`exhaustive`] is the brute-force reference (exponential; used by tests).
//! [`cubic`] is Sec. 4 (the engine with the Table 4 grammar, any gold tree);
//! [`Oracle`] dispatches to it or to the quadratic / linear algorithms of
//! Sec. 5 / 6 (projective gold trees). [`session`] follows a computation step
//! by step (Sec. 7), incrementally for the linear algorithm
//! ([`incremental`]: amortised O(log n) per step along gold computations);
//! [`walk`] drives whole computations over a treebank and times them
//! (Sec. 8.2).

pub mod critical;
pub mod cubic;
pub mod exhaustive;
pub mod incremental;
pub mod linear;
pub mod quadratic;
pub mod session;
pub mod walk;

use crate::tree::{DepTree, TreeError};
use std::fmt;
use std::str::FromStr;

/// A transition of Table 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// (α, bβ) ⊢ (αb, β).
    Shift,
    /// (α a₁ a₂, β) ⊢ (α a₁, β), adding the arc a₁ → a₂ (a₂ a right child of a₁).
    ReduceLeft,
    /// (α a₁ a₂, β) ⊢ (α a₂, β), adding the arc a₂ → a₁ (a₁ a left child of a₂);
    /// needs |α| > 0, a stack of three or more.
    ReduceRight,
}

impl Step {
    /// All steps, in the order of [`StepScores`].
    pub const ALL: [Step; 3] = [Step::Shift, Step::ReduceLeft, Step::ReduceRight];

    /// `shift`, `reduce_left` or `reduce_right`.
    pub fn name(self) -> &'static str {
        match self {
            Step::Shift => "shift",
            Step::ReduceLeft => "reduce_left",
            Step::ReduceRight => "reduce_right",
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which computations count (Sec. 2). The strategy constrains the arcs built
/// *after* the configuration, for the nodes of that configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Strategy {
    /// Every computation.
    None,
    /// Left-before-right: the top of the stack a_k and every remaining input
    /// node get all their (new) left children before any (new) right child.
    #[default]
    Lbr,
    /// Strict left-before-right: as `Lbr`, and the stack nodes below the top
    /// get no new left children at all.
    StrictLbr,
    /// Right-before-left: a_k and every remaining input node get all their
    /// new right children before any new left child.
    Rbl,
}

impl Strategy {
    /// The command-line / JSON name: `none`, `lbr`, `strict-lbr`, `rbl`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::None => "none",
            Strategy::Lbr => "lbr",
            Strategy::StrictLbr => "strict-lbr",
            Strategy::Rbl => "rbl",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Strategy {
    type Err = OracleError;
    fn from_str(s: &str) -> Result<Self, OracleError> {
        match s {
            "none" => Ok(Strategy::None),
            "lbr" => Ok(Strategy::Lbr),
            "strict-lbr" => Ok(Strategy::StrictLbr),
            "rbl" => Ok(Strategy::Rbl),
            _ => Err(OracleError::UnknownStrategy(s.to_owned())),
        }
    }
}

/// How to compute the scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Algorithm {
    /// Sec. 4: the engine with the Table 4 grammar; any gold tree. O(n³).
    Cubic,
    /// Sec. 5: projective gold trees only. O(n²).
    Quadratic,
    /// Sec. 6: projective gold trees only. O(n).
    Linear,
    /// Linear when the gold tree is projective, cubic otherwise.
    #[default]
    Auto,
}

impl Algorithm {
    /// `cubic`, `quadratic`, `linear` or `auto`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Cubic => "cubic",
            Algorithm::Quadratic => "quadratic",
            Algorithm::Linear => "linear",
            Algorithm::Auto => "auto",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = OracleError;
    fn from_str(s: &str) -> Result<Self, OracleError> {
        match s {
            "cubic" => Ok(Algorithm::Cubic),
            "quadratic" => Ok(Algorithm::Quadratic),
            "linear" => Ok(Algorithm::Linear),
            "auto" => Ok(Algorithm::Auto),
            _ => Err(OracleError::UnknownAlgorithm(s.to_owned())),
        }
    }
}

/// Errors of the oracle: bad configurations, gold trees, names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OracleError {
    #[error("the stack must start with the root 0")]
    StackWithoutRoot,
    #[error("node {0} appears twice in the configuration")]
    Repeated(usize),
    #[error("the stack must be increasing and lie before the remaining input, but {0} follows {1}")]
    OutOfOrder(usize, usize),
    #[error("the remaining input must be the suffix {first}..={n} of the sentence, but it is {found:?}")]
    BufferNotSuffix { first: usize, n: usize, found: Vec<usize> },
    #[error("node {node} is out of range for a sentence of {n} words")]
    NodeOutOfRange { node: usize, n: usize },
    #[error("the gold tree has {gold} words but the configuration is for {n}")]
    LengthMismatch { gold: usize, n: usize },
    #[error("the gold tree is not a tree: {0}")]
    NotATree(#[from] TreeError),
    #[error("the {0} algorithm needs a projective gold tree; use cubic (or auto) for non-projective ones")]
    NonProjectiveGold(Algorithm),
    #[error("unknown strategy `{0}` (expected none, lbr, strict-lbr or rbl)")]
    UnknownStrategy(String),
    #[error("unknown algorithm `{0}` (expected cubic, quadratic, linear or auto)")]
    UnknownAlgorithm(String),
    #[error("{0} is not applicable to this configuration")]
    NotApplicable(Step),
    #[error("the oracle grammar: {0}")]
    Grammar(#[from] cubic::MissingRole),
    #[error("the engine failed: {0}")]
    Engine(#[from] crate::engine::EngineError),
}

/// All oracle algorithms behind one call, with their reusable state (the
/// engine's chart and buffers for [`Algorithm::Cubic`]). Create once, call
/// [`Oracle::scores`] for every configuration.
pub struct Oracle<'g> {
    cubic: cubic::CubicOracle<'g>,
    quadratic: quadratic::QuadraticOracle,
    linear: linear::LinearOracle,
    /// The engine of the incremental [`session::OracleSession`] that
    /// borrows this oracle; kept between sessions for its buffers.
    pub(crate) incremental: incremental::IncrementalLinear,
}

impl Oracle<'static> {
    /// The oracle with the embedded Table 4 grammars.
    pub fn new() -> Self {
        Self::with_cubic(cubic::CubicOracle::embedded())
    }
}

impl Default for Oracle<'static> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'g> Oracle<'g> {
    /// The oracle whose cubic algorithm runs the given grammars (see
    /// [`cubic::CubicOracle::new`]).
    pub fn with_cubic(cubic: cubic::CubicOracle<'g>) -> Self {
        Oracle {
            cubic,
            quadratic: quadratic::QuadraticOracle::new(),
            linear: linear::LinearOracle::new(),
            incremental: incremental::IncrementalLinear::default(),
        }
    }

    /// The algorithm [`Algorithm::Auto`] resolves to for `gold`: linear when
    /// it is projective, cubic otherwise. O(n log n).
    pub fn resolve(algorithm: Algorithm, gold: &DepTree) -> Algorithm {
        match algorithm {
            Algorithm::Auto if gold.is_projective() => Algorithm::Linear,
            Algorithm::Auto => Algorithm::Cubic,
            a => a,
        }
    }

    /// Scores every applicable step of `config` for `gold` under `strategy`.
    /// Cubic: O((k + m)³), any gold tree (Sec. 4); quadratic / linear:
    /// O((k + m)²) / O(k + m), projective gold trees only (Sec. 5 / 6), else
    /// [`OracleError::NonProjectiveGold`]; auto: linear for a projective
    /// gold tree, cubic otherwise. No allocation once warm.
    pub fn scores(
        &mut self,
        config: &Configuration,
        gold: &DepTree,
        strategy: Strategy,
        algorithm: Algorithm,
    ) -> Result<StepScores, OracleError> {
        match algorithm {
            Algorithm::Cubic => self.cubic.scores(config, gold, strategy),
            Algorithm::Quadratic => self.quadratic.scores(config, gold, strategy),
            Algorithm::Linear => self.linear.scores(config, gold, strategy),
            // The linear oracle checks projectivity itself (cached per tree).
            Algorithm::Auto => match self.linear.scores(config, gold, strategy) {
                Err(OracleError::NonProjectiveGold(_)) => self.cubic.scores(config, gold, strategy),
                other => other,
            },
        }
    }
}

/// A configuration (α, β) of Sec. 2 for a sentence of n words; the arcs
/// built so far are not needed to score steps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Configuration {
    stack: Vec<usize>,
    /// The first remaining input node; `n + 1` when the input is exhausted.
    next: usize,
    n: usize,
}

impl Configuration {
    /// The initial configuration (0, 1 2 … n).
    pub fn initial(n: usize) -> Self {
        Configuration { stack: vec![0], next: 1, n }
    }

    /// A configuration from its stack and remaining input, checked: the stack
    /// starts with 0 and increases, the remaining input is a suffix of 1 … n
    /// after the stack. O(k + m).
    pub fn new(stack: &[usize], buffer: &[usize], n: usize) -> Result<Self, OracleError> {
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
                return Err(if stack.contains(&x) && stack.iter().filter(|&&y| y == x).count() > 1 {
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
        let first = n + 1 - buffer.len();
        if !buffer.iter().copied().eq(first..=n) {
            return Err(OracleError::BufferNotSuffix { first, n, found: buffer.to_vec() });
        }
        if first <= top {
            return Err(OracleError::OutOfOrder(first, top));
        }
        Ok(Configuration { stack: stack.to_vec(), next: first, n })
    }

    /// The stack a₀ … a_k, bottom first.
    pub fn stack(&self) -> &[usize] {
        &self.stack
    }
    /// The remaining input b₁ … b_m.
    pub fn buffer(&self) -> std::ops::RangeInclusive<usize> {
        self.next..=self.n
    }
    /// The first remaining input node, if any.
    pub fn next_input(&self) -> Option<usize> {
        (self.next <= self.n).then_some(self.next)
    }
    /// Sentence length n.
    pub fn sentence_len(&self) -> usize {
        self.n
    }
    /// Whether this is a final configuration (0, ε).
    pub fn is_final(&self) -> bool {
        self.stack.len() == 1 && self.next > self.n
    }
    /// Whether `step` can be applied.
    pub fn is_applicable(&self, step: Step) -> bool {
        match step {
            Step::Shift => self.next <= self.n,
            Step::ReduceLeft => self.stack.len() >= 2,
            Step::ReduceRight => self.stack.len() >= 3,
        }
    }
    /// Applies `step`, returning the arc (head, dependent) it builds, if any.
    pub fn apply(&mut self, step: Step) -> Result<Option<(usize, usize)>, OracleError> {
        if !self.is_applicable(step) {
            return Err(OracleError::NotApplicable(step));
        }
        let k = self.stack.len();
        Ok(match step {
            Step::Shift => {
                self.stack.push(self.next);
                self.next += 1;
                None
            }
            Step::ReduceLeft => {
                let a2 = self.stack.pop().expect("applicable");
                Some((self.stack[k - 2], a2))
            }
            Step::ReduceRight => {
                let a2 = self.stack.pop().expect("applicable");
                let a1 = self.stack[k - 2];
                self.stack[k - 2] = a2;
                Some((a2, a1))
            }
        })
    }
    /// Checks that `gold` is for a sentence of this length.
    pub fn check_gold(&self, gold: &DepTree) -> Result<(), OracleError> {
        if gold.len() != self.n {
            return Err(OracleError::LengthMismatch { gold: gold.len(), n: self.n });
        }
        Ok(())
    }
}

/// For each step, the largest number of gold arcs that computations starting
/// with it (and respecting the strategy) can still build; `None` where the
/// step is not applicable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct StepScores {
    pub shift: Option<u32>,
    pub reduce_left: Option<u32>,
    pub reduce_right: Option<u32>,
}

impl StepScores {
    /// The score of `step`.
    pub fn get(&self, step: Step) -> Option<u32> {
        match step {
            Step::Shift => self.shift,
            Step::ReduceLeft => self.reduce_left,
            Step::ReduceRight => self.reduce_right,
        }
    }
    /// Sets the score of `step`.
    pub fn set(&mut self, step: Step, score: Option<u32>) {
        match step {
            Step::Shift => self.shift = score,
            Step::ReduceLeft => self.reduce_left = score,
            Step::ReduceRight => self.reduce_right = score,
        }
    }
    /// The best score, if any step is applicable.
    pub fn best(&self) -> Option<u32> {
        Step::ALL.iter().filter_map(|&s| self.get(s)).max()
    }
    /// The steps reaching the best score, in the order shift, reduce_left, reduce_right.
    pub fn optimal(&self) -> Vec<Step> {
        let best = self.best();
        Step::ALL.iter().copied().filter(|&s| best.is_some() && self.get(s) == best).collect()
    }
}
