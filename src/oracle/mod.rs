//! Transition systems and their optimal steps ("dynamic oracles").
//!
//! The shared core: [`system`] (the [`TransitionSystem`] trait, the
//! [`System`] registry, [`Step`] and [`Configuration`] with the arcs built so
//! far), [`StepScores`], the brute-force reference [`exhaustive`] (every
//! system, every strategy), the [`grammar_oracle`] (the engine with a
//! system's grammar file and terminal mapping), [`features`] (what a neural
//! parser reads of a configuration), [`session`] (following a
//! computation step by step, Sec. 7) and [`walk`] (whole computations over
//! a treebank, Sec. 8.2). One folder per system holds its definition and its
//! own oracles:
//!
//! * [`arc_standard`] — Nederhof (2019): cubic (Sec. 4, Table 4 grammar),
//!   quadratic and linear (Sec. 5, 6) and the incremental session (Sec. 7);
//! * [`arc_hybrid`] and [`arc_eager`] — the grammar oracle (any gold tree)
//!   and the closed forms for projective gold trees ([`decomposable`]: O(1)
//!   per step in a session, O(n) from scratch; and their static oracles);
//! * [`lr_spine`] — the LR-spine parser and the tabular oracle of Goldberg,
//!   Sartorio and Satta (2014), Sec. 6 (projective gold trees, strategy
//!   none); their arc-standard table (Sec. 4) is [`arc_standard::goldberg`].
//! * [`attardi`] — Attardi's non-projective parser and its tabular oracle
//!   (seed 002, Algorithm 1, corrected), any gold tree, strategy none.
//!
//! From a [`Configuration`], each applicable [`Step`] is scored by the
//! largest number of gold arcs that complete computations starting with
//! that step (and respecting the [`Strategy`]) build from the configuration
//! on; arcs built before do not count. The answer is a [`StepScores`]; the
//! optimal steps are those with the highest score. [`Oracle`] dispatches on
//! the configuration's system and the [`Algorithm`].

pub mod arc_eager;
pub mod arc_eager_nm;
pub mod arc_hybrid;
pub mod arc_standard;
pub mod attardi;
pub mod decomposable;
pub mod direction;
pub mod exhaustive;
pub mod features;
pub mod grammar_oracle;
pub mod lr_spine;
pub mod session;
pub mod system;
pub mod walk;

pub use system::{Configuration, Root, Step, System, TransitionSystem};

use crate::tree::{ArcTarget, DepTree, TreeError};
use arc_standard::{cubic, goldberg, incremental, linear, quadratic};
use decomposable::{ClosedForm, Decomposable};
use grammar_oracle::GrammarOracle;
use std::fmt;
use std::str::FromStr;

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
    /// The engine with the system's grammar (arc-standard: Sec. 4, Table 4);
    /// any gold tree. O(n³).
    Cubic,
    /// Arc-standard, Sec. 5: projective gold trees only. O(n²).
    Quadratic,
    /// Projective gold trees only, O(n): arc-standard, Sec. 6; arc-hybrid
    /// and arc-eager, the closed forms ([`decomposable`]).
    Linear,
    /// Linear when the gold tree is projective, cubic otherwise (LR-spine:
    /// Goldberg's table; Attardi: tabular).
    #[default]
    Auto,
    /// Goldberg, Sartorio and Satta (2014): arc-standard, Sec. 4
    /// (Algorithm 1 with the right stack), O(ℓ_L ℓ_R (ℓ_L + ℓ_R)); LR-spine,
    /// Sec. 6 (the table keyed by spine pairs). Projective gold trees and
    /// strategy none only.
    Goldberg,
    /// Attardi: the tabular oracle of seed 002 (Algorithm 1 with the buffer
    /// reduction, corrected; [`attardi::tabular`]); any gold tree. O(n⁸) in
    /// the worst case, guarded by a limit.
    Tabular,
}

impl Algorithm {
    /// `cubic`, `quadratic`, `linear`, `auto`, `goldberg` or `tabular`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Cubic => "cubic",
            Algorithm::Quadratic => "quadratic",
            Algorithm::Linear => "linear",
            Algorithm::Auto => "auto",
            Algorithm::Goldberg => "goldberg",
            Algorithm::Tabular => "tabular",
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
            "goldberg" => Ok(Algorithm::Goldberg),
            "tabular" => Ok(Algorithm::Tabular),
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
    #[error("the remaining input must be the words {first} to {n} (a suffix of the sentence after the stack), but it is {}", system::short_list(.found))]
    BufferNotSuffix { first: usize, n: usize, found: Vec<usize> },
    #[error("node {node} is out of range for a sentence of {n} words")]
    NodeOutOfRange { node: usize, n: usize },
    #[error("the gold tree has {gold} words but the configuration is for {n}")]
    LengthMismatch { gold: usize, n: usize },
    #[error("the gold tree is not a tree: {0}")]
    NotATree(#[from] TreeError),
    #[error("the {0} algorithm needs a projective gold tree; use cubic (or auto) for non-projective ones")]
    NonProjectiveGold(Algorithm),
    #[error("the gold tree is partial (some words have no head): {system} with the {algorithm} algorithm needs every head; partial trees are scored by the dynamic oracles of arc-standard, arc-hybrid and arc-eager (--algorithm cubic or auto) and of arc-eager-nm (tabular or auto)")]
    PartialGold { system: System, algorithm: Algorithm },
    #[error("{0} has no oracle that counts arcs by a rule (direction constraints): arc-standard, arc-hybrid and arc-eager have")]
    TargetNotOffered(System),
    #[error("direction constraints need a model with the root first: the oracles score a root-last layout as if the root were first, which is exact for a gold tree (no arc from position 0 to a word is gold) but not for arcs counted by direction")]
    TargetRootLast,
    #[error("unknown strategy `{0}` (expected none, lbr, strict-lbr or rbl)")]
    UnknownStrategy(String),
    #[error("unknown algorithm `{0}` (expected cubic, quadratic, linear, auto, goldberg or tabular)")]
    UnknownAlgorithm(String),
    #[error("unknown system `{0}`{hint} (expected arc-standard, arc-hybrid, arc-eager, lr-spine, attardi or arc-eager-nm)", hint = System::did_you_mean(.0))]
    UnknownSystem(String),
    #[error("unknown step `{step}` for {system} (expected {expected})")]
    UnknownStep { step: String, system: System, expected: String },
    #[error("{0} is not applicable to this {1} configuration")]
    NotApplicable(Step, System),
    #[error("the arcs are inconsistent with this {system} configuration: {reason}")]
    InconsistentArcs { system: System, reason: String },
    #[error("{0} needs the arcs built so far (which stack words have a head) for a stack of more than the root")]
    ArcsNeeded(System),
    #[error("{0} needs the arcs built so far once a word has left the stack (its steps depend on the spines)")]
    SpinesNeeded(System),
    #[error("the {algorithm} algorithm is not available for {system} (use {available})")]
    UnsupportedAlgorithm { system: System, algorithm: Algorithm, available: String },
    /// A user's grammar replaces the embedded one, but the algorithm asked
    /// for computes the embedded grammar's answer in closed form.
    #[error("a grammar file replaces {system}'s grammar for the cubic algorithm; the {algorithm} algorithm computes the embedded grammar's answer and would ignore the file (use cubic or auto)")]
    GrammarNotRead { system: System, algorithm: Algorithm },
    #[error("strategy {strategy} is not available for {system}: its computations always give a word its left children before its right ones (use none, lbr or strict-lbr, which are the same there)")]
    UnsupportedStrategy { system: System, strategy: Strategy },
    #[error("the {algorithm} algorithm scores every computation (strategy none); strategy {strategy} is not available with it")]
    StrategyNotOffered { algorithm: Algorithm, strategy: Strategy },
    #[error("a spine of {len} nodes is longer than the {max} spine positions scored per direction")]
    SpineTooLong { len: usize, max: usize },
    #[error("{0} has an oracle for projective gold trees only (projectivize the gold tree first, e.g. `--projectivize` in walks)")]
    ProjectiveOnly(System),
    #[error(
        "strategy {strategy} is not available for {system}: its oracle scores every computation (use --strategy none)"
    )]
    OnlyStrategyNone { system: System, strategy: Strategy },
    #[error("the configuration is final: no step applies")]
    Final,
    #[error("an oracle for {expected} was given a {found} configuration")]
    WrongSystem { expected: System, found: System },
    #[error("the oracle grammar: {0}")]
    Grammar(#[from] cubic::MissingRole),
    #[error("the oracle grammar: {0}")]
    GrammarTerminal(#[from] grammar_oracle::MissingTerminal),
    #[error("the engine failed: {0}")]
    Engine(#[from] crate::engine::EngineError),
    #[error(transparent)]
    TooMuchMemory(#[from] crate::memory::TooMuchMemory),
    #[error("the Attardi oracle would run its O(|γ|⁸) table on |γ| = {gamma} words (stack and reduced input), more than the limit of {limit} (raise it with --max-gamma, or TabularOracle::set_max_gamma)")]
    TooLarge { gamma: usize, limit: usize },
    #[error("the Attardi oracle's table combined more than {limit} pairs of items for one configuration (raise the budget with max_pairs, or TabularOracle::set_max_pairs)")]
    TooMuchWork { limit: u64 },
}

/// All oracle algorithms of all systems behind one call, with their
/// reusable state (engine charts and buffers). Create once (one per
/// thread), call [`Oracle::scores`] for every configuration.
pub struct Oracle<'g> {
    cubic: cubic::CubicOracle<'g>,
    quadratic: quadratic::QuadraticOracle,
    linear: linear::LinearOracle,
    goldberg: goldberg::GoldbergOracle,
    spine: lr_spine::table::SpineTable,
    /// The engine of the incremental [`session::OracleSession`] that
    /// borrows this oracle; kept between sessions for its buffers.
    pub(crate) incremental: incremental::IncrementalLinear,
    hybrid: GrammarOracle<'g>,
    eager: GrammarOracle<'g>,
    /// The closed form of arc-hybrid or arc-eager, refilled by each one-shot
    /// call, or following the [`session::OracleSession`] that borrows this
    /// oracle; kept for its buffers.
    pub(crate) closed_form: ClosedForm,
    /// Attardi's tabular oracle.
    attardi: attardi::tabular::TabularOracle,
    /// The table of non-monotonic arc-eager.
    eager_nm: arc_eager_nm::tabular::TabularOracle,
}

impl Oracle<'static> {
    /// The oracle with the embedded grammars.
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
    /// The oracle whose arc-standard cubic algorithm runs the given grammars
    /// (see [`cubic::CubicOracle::new`]); the other systems use their
    /// embedded grammars.
    pub fn with_cubic(cubic: cubic::CubicOracle<'g>) -> Self {
        Oracle {
            cubic,
            quadratic: quadratic::QuadraticOracle::new(),
            linear: linear::LinearOracle::new(),
            goldberg: goldberg::GoldbergOracle::new(),
            spine: lr_spine::table::SpineTable::new(),
            incremental: incremental::IncrementalLinear::default(),
            hybrid: GrammarOracle::embedded(&arc_hybrid::grammar::HybridMapping),
            eager: GrammarOracle::embedded(&arc_eager::grammar::EagerMapping),
            closed_form: ClosedForm::new(&arc_hybrid::closed_form::HybridFormulas),
            attardi: attardi::tabular::TabularOracle::new(),
            eager_nm: arc_eager_nm::tabular::TabularOracle::new(),
        }
    }

    /// Replaces the grammar oracle of `grammar`'s system (arc-hybrid or
    /// arc-eager), e.g. to run a user's grammar file.
    pub fn with_grammar_oracle(mut self, grammar: GrammarOracle<'g>) -> Self {
        match grammar.system() {
            System::ArcHybrid => self.hybrid = grammar,
            System::ArcEager => self.eager = grammar,
            System::ArcStandard => unreachable!("arc-standard's grammar oracle is the cubic oracle"),
            System::LrSpine => unreachable!("LR-spine has no grammar oracle"),
            System::Attardi => unreachable!("Attardi has no grammar oracle"),
            System::ArcEagerNm => unreachable!("arc-eager-nm has no grammar oracle"),
        }
        self
    }

    /// The algorithm [`Algorithm::Auto`] resolves to for `gold`: linear when
    /// it is projective, cubic otherwise. O(n log n). (Attardi: see
    /// [`Oracle::resolve_for`].)
    pub fn resolve(algorithm: Algorithm, gold: &DepTree) -> Algorithm {
        Self::resolve_for(System::ArcStandard, algorithm, gold)
    }

    /// [`Oracle::resolve`] for `system` (LR-spine: always Goldberg's table;
    /// Attardi: always the tabular oracle).
    pub fn resolve_for(system: System, algorithm: Algorithm, gold: &DepTree) -> Algorithm {
        match algorithm {
            Algorithm::Auto if system == System::LrSpine => Algorithm::Goldberg,
            Algorithm::Auto if matches!(system, System::Attardi | System::ArcEagerNm) => Algorithm::Tabular,
            Algorithm::Auto if gold.is_projective() => Algorithm::Linear,
            Algorithm::Auto => Algorithm::Cubic,
            a => a,
        }
    }

    /// Whether `system` under `strategy` runs a user's grammar (given with
    /// [`Oracle::with_cubic`] or [`Oracle::with_grammar_oracle`]) rather
    /// than the embedded one.
    pub fn has_user_grammar(&self, system: System, strategy: Strategy) -> bool {
        match system {
            System::ArcStandard => !self.cubic.is_embedded(strategy),
            System::ArcHybrid => !self.hybrid.is_embedded(),
            System::ArcEager => !self.eager.is_embedded(),
            System::LrSpine | System::Attardi | System::ArcEagerNm => false,
        }
    }

    /// The algorithm that answers for `gold`: `algorithm` with `auto`
    /// resolved as [`Oracle::resolve_for`] resolves it, except that a
    /// user's grammar decides the answer: with one in place
    /// ([`Oracle::has_user_grammar`]), `auto` is the cubic algorithm, which
    /// reads it, and an algorithm that computes the embedded grammar's
    /// answer in closed form (linear, quadratic, goldberg) is an error.
    ///
    /// # Errors
    /// [`OracleError::GrammarNotRead`].
    pub fn algorithm_for(
        &self,
        system: System,
        strategy: Strategy,
        algorithm: Algorithm,
        gold: &DepTree,
    ) -> Result<Algorithm, OracleError> {
        if !self.has_user_grammar(system, strategy) {
            return Ok(Self::resolve_for(system, algorithm, gold));
        }
        match algorithm {
            Algorithm::Auto | Algorithm::Cubic => Ok(Algorithm::Cubic),
            algorithm => Err(OracleError::GrammarNotRead { system, algorithm }),
        }
    }

    /// The algorithms available for `system`, in the order cubic, quadratic, linear, goldberg, tabular.
    pub fn algorithms(system: System) -> &'static [Algorithm] {
        match system {
            System::ArcStandard => &[Algorithm::Cubic, Algorithm::Quadratic, Algorithm::Linear, Algorithm::Goldberg],
            System::ArcHybrid | System::ArcEager => &[Algorithm::Cubic, Algorithm::Linear],
            System::LrSpine => &[Algorithm::Goldberg],
            System::Attardi | System::ArcEagerNm => &[Algorithm::Tabular],
        }
    }

    /// Attardi's tabular oracle (e.g. to change its limit,
    /// [`attardi::tabular::TabularOracle::set_max_gamma`]).
    pub fn attardi_mut(&mut self) -> &mut attardi::tabular::TabularOracle {
        &mut self.attardi
    }

    /// Whether `algorithm` scores computations under `strategy` (Goldberg's
    /// tables: strategy none only).
    pub fn offers(algorithm: Algorithm, strategy: Strategy) -> bool {
        algorithm != Algorithm::Goldberg || strategy == Strategy::None
    }

    /// The closed-form formulas of `system` (arc-hybrid, arc-eager), if it has them.
    pub fn formulas(system: System) -> Option<&'static dyn Decomposable> {
        match system {
            System::ArcStandard | System::LrSpine => None,
            System::ArcHybrid => Some(&arc_hybrid::closed_form::HybridFormulas),
            System::ArcEager => Some(&arc_eager::closed_form::EagerFormulas),
            System::Attardi | System::ArcEagerNm => None,
        }
    }

    /// Checks that `system` offers `strategy` and `algorithm`: the algorithm
    /// is `auto` or one of [`Oracle::algorithms`]; the oracles of LR-spine and
    /// Attardi and Goldberg's tables score every computation (strategy none
    /// only); arc-hybrid and arc-eager have no right-before-left computations.
    pub fn check_support(system: System, strategy: Strategy, algorithm: Algorithm) -> Result<(), OracleError> {
        let offered = Self::algorithms(system);
        if algorithm != Algorithm::Auto && !offered.contains(&algorithm) {
            let names: Vec<&str> = offered.iter().map(|a| a.name()).collect();
            let available = format!("{} or auto", names.join(", "));
            return Err(OracleError::UnsupportedAlgorithm { system, algorithm, available });
        }
        let not_none = strategy != Strategy::None;
        match system {
            System::Attardi | System::ArcEagerNm if not_none => Err(OracleError::OnlyStrategyNone { system, strategy }),
            System::LrSpine if not_none => {
                Err(OracleError::StrategyNotOffered { algorithm: Algorithm::Goldberg, strategy })
            }
            _ if algorithm == Algorithm::Goldberg && not_none => {
                Err(OracleError::StrategyNotOffered { algorithm, strategy })
            }
            System::ArcHybrid | System::ArcEager if strategy == Strategy::Rbl => {
                Err(OracleError::UnsupportedStrategy { system, strategy })
            }
            _ => Ok(()),
        }
    }

    /// Scores every applicable step of `config` for `gold` under `strategy`.
    ///
    /// Arc-standard: cubic O((k + m)³), any gold tree (Sec. 4); quadratic /
    /// linear O((k + m)²) / O(k + m), projective gold trees only (Sec. 5 /
    /// 6), else [`OracleError::NonProjectiveGold`]; auto: linear for a
    /// projective gold tree, cubic otherwise. Arc-hybrid and arc-eager:
    /// cubic is the grammar oracle, O((k + m)³), any gold tree; linear the
    /// closed form, O(n), projective gold trees only; their computations give
    /// every word its left children before its right ones, so none, lbr and
    /// strict-lbr are the same strategy there and rbl is refused.
    /// Goldberg (arc-standard, Goldberg et al. 2014 Sec. 4): O(n + ℓ_L ℓ_R
    /// (ℓ_L + ℓ_R)) per step, projective gold trees and strategy none only.
    /// LR-spine: goldberg (or auto), Sec. 6, strategy none, projective gold
    /// trees, spines of s₀ and s₁ up to [`SPINE_CAPACITY`]. No allocation
    /// once warm.
    pub fn scores(
        &mut self,
        config: &Configuration,
        gold: &DepTree,
        strategy: Strategy,
        algorithm: Algorithm,
    ) -> Result<StepScores, OracleError> {
        let scores = self.scores_root_first(config, gold, strategy, algorithm)?;
        Ok(restrict_to_layout(config, scores))
    }

    /// The optimal steps of `config` with their score (the best; the other
    /// steps get none): the best steps of [`Oracle::scores`], which is how
    /// most systems find them. The tabular oracles of Attardi and
    /// arc-eager-nm find them for less along a computation, with the best
    /// known from the step before ([`attardi::tabular::TabularOracle::optimal`]:
    /// one pass of its table asks which steps reach it;
    /// [`arc_eager_nm::tabular::TabularOracle::optimal`]: fewer tables).
    pub fn optimal(
        &mut self,
        config: &Configuration,
        gold: &DepTree,
        strategy: Strategy,
        algorithm: Algorithm,
    ) -> Result<StepScores, OracleError> {
        match config.system() {
            System::Attardi if config.root() != Root::Last && !gold.is_partial() => {
                Self::check_support(System::Attardi, strategy, algorithm)?;
                return self.attardi.optimal(config, gold);
            }
            System::ArcEagerNm if config.root() != Root::Last => {
                Self::check_support(System::ArcEagerNm, strategy, algorithm)?;
                return self.eager_nm.optimal(config, gold);
            }
            _ => {}
        }
        Ok(self.scores(config, gold, strategy, algorithm)?.only_optimal())
    }

    /// Scores every applicable step of `config` by the most arcs of
    /// `target` a computation from there builds (strategy none): any
    /// [`ArcTarget`], e.g. direction constraints ([`direction::Directions`]).
    /// The grammar oracles only (arc-standard's cubic, arc-hybrid's and
    /// arc-eager's), O((k + m)³); other systems are refused with
    /// [`OracleError::TargetNotOffered`].
    pub fn scores_for<G: ArcTarget + ?Sized>(
        &mut self,
        config: &Configuration,
        target: &G,
    ) -> Result<StepScores, OracleError> {
        let scores = match config.system() {
            System::ArcStandard => self.cubic.scores(config, target, Strategy::None)?,
            System::ArcHybrid => self.hybrid.scores(config, target)?,
            System::ArcEager => self.eager.scores(config, target)?,
            system => return Err(OracleError::TargetNotOffered(system)),
        };
        Ok(restrict_to_layout(config, scores))
    }

    /// [`Oracle::scores`] as if every step of the system applied with the
    /// root first: with the root last, also the steps the layout forbids.
    fn scores_root_first(
        &mut self,
        config: &Configuration,
        gold: &DepTree,
        strategy: Strategy,
        algorithm: Algorithm,
    ) -> Result<StepScores, OracleError> {
        let system = config.system();
        Self::check_support(system, strategy, algorithm)?;
        // A user's grammar decides the answer: the cubic algorithm reads it.
        let algorithm = match self.has_user_grammar(system, strategy) {
            true => self.algorithm_for(system, strategy, algorithm, gold)?,
            false => algorithm,
        };
        if gold.is_partial() {
            // Only the oracles that score arcs through `DepTree::has_arc`
            // (the engine with the system's grammar, arc-eager-nm's table) see a partial tree as
            // what it is: the annotated arcs, the other words free.
            return match (system, algorithm) {
                (System::ArcStandard, Algorithm::Cubic | Algorithm::Auto) => self.cubic.scores(config, gold, strategy),
                (System::ArcHybrid, Algorithm::Cubic | Algorithm::Auto) => self.hybrid.scores(config, gold),
                (System::ArcEager, Algorithm::Cubic | Algorithm::Auto) => self.eager.scores(config, gold),
                // Its table scores arcs through `has_arc` too, over the reachable final
                // trees, which do not depend on the gold tree.
                (System::ArcEagerNm, Algorithm::Tabular | Algorithm::Auto) => self.eager_nm.scores(config, gold),
                _ => Err(OracleError::PartialGold { system, algorithm: Self::resolve_for(system, algorithm, gold) }),
            };
        }
        match system {
            System::Attardi => self.attardi.scores(config, gold),
            System::ArcEagerNm => self.eager_nm.scores(config, gold),
            System::ArcStandard => match algorithm {
                Algorithm::Cubic => self.cubic.scores(config, gold, strategy),
                Algorithm::Quadratic => self.quadratic.scores(config, gold, strategy),
                Algorithm::Linear => self.linear.scores(config, gold, strategy),
                Algorithm::Goldberg => self.goldberg.scores(config, gold, strategy),
                // The linear oracle checks projectivity itself (cached per tree).
                Algorithm::Auto => match self.linear.scores(config, gold, strategy) {
                    Err(OracleError::NonProjectiveGold(_)) => self.cubic.scores(config, gold, strategy),
                    other => other,
                },
                Algorithm::Tabular => unreachable!("refused by check_support"),
            },
            System::ArcHybrid | System::ArcEager => {
                // The closed form checks projectivity itself (once per tree), so `auto` tries it first.
                if matches!(algorithm, Algorithm::Linear | Algorithm::Auto) {
                    match self.closed_form_scores(config, gold) {
                        Err(OracleError::NonProjectiveGold(_)) if algorithm == Algorithm::Auto => {}
                        other => return other,
                    }
                }
                match system {
                    System::ArcHybrid => self.hybrid.scores(config, gold),
                    _ => self.eager.scores(config, gold),
                }
            }
            System::LrSpine => self.spine.scores(config, gold),
        }
    }

    /// The closed form from scratch (arc-hybrid, arc-eager). O(n).
    fn closed_form_scores(&mut self, config: &Configuration, gold: &DepTree) -> Result<StepScores, OracleError> {
        config.check_gold(gold)?;
        let formulas = Self::formulas(config.system()).expect("a system with closed forms");
        self.closed_form.start(formulas, gold, config)?;
        Ok(self.closed_form.scores(config))
    }

    /// The static oracle of arc-hybrid (the canonical computation) or
    /// arc-eager (seed 004, Eq. 1): the one step that rebuilds the projective
    /// gold tree from a configuration of its canonical computation (at other
    /// configurations, an applicable step). O(n) (arc-standard: not
    /// available).
    ///
    /// Arc-eager-nm: the same, preferring an optimal step that builds a gold
    /// arc, then one that builds none (a wrong arc last: it would be replaced).
    ///
    /// LR-spine and Attardi have no closed form: their static oracle is the
    /// dynamic oracle's optimal step under the fixed tie-break of
    /// [`canonical_step`] (one canonical computation per gold tree; every
    /// step of it is optimal, so it builds every gold arc the system can
    /// build from the initial configuration: every projective tree for
    /// LR-spine, every tree of its class for Attardi). Cost: one call of
    /// the dynamic oracle ([`Oracle::scores`], strategy none) — LR-spine
    /// Goldberg's table, Attardi the tabular oracle with its `max_gamma`
    /// limit ([`OracleError::TooLarge`]).
    pub fn static_step(&mut self, config: &Configuration, gold: &DepTree) -> Result<Step, OracleError> {
        config.check_gold(gold)?;
        let system = config.system();
        if gold.is_partial() {
            let algorithm = if Self::has_canonical_tie_break(system) { Algorithm::Auto } else { Algorithm::Linear };
            return Err(OracleError::PartialGold { system, algorithm: Self::resolve_for(system, algorithm, gold) });
        }
        if Self::has_canonical_tie_break(system) {
            if config.is_final() {
                return Err(OracleError::Final);
            }
            let scores = self.scores(config, gold, Strategy::None, Algorithm::Auto)?;
            return canonical_step_of(config, gold, &scores).ok_or(OracleError::Final);
        }
        let formulas = Self::formulas(system).ok_or(OracleError::UnsupportedAlgorithm {
            system,
            algorithm: Algorithm::Linear,
            available: "the dynamic oracle".into(),
        })?;
        if config.is_final() {
            return Err(OracleError::Final);
        }
        self.closed_form.start(formulas, gold, config)?;
        Ok(self.closed_form.static_step(config))
    }
}

impl Oracle<'_> {
    /// Whether the static oracle of `system` is the dynamic oracle's optimal
    /// step under [`canonical_step`]'s tie-break (LR-spine, Attardi: the
    /// systems without a closed form for their canonical computation).
    pub fn has_canonical_tie_break(system: System) -> bool {
        matches!(system, System::LrSpine | System::Attardi | System::ArcEagerNm)
    }
}

/// `scores` as the layout of `config` has them. With the root last
/// ([`Root::Last`]) the oracles score the configuration as if its layout
/// were the usual one, with 0 as the root above the root position n: a few
/// more steps apply there (shifting n, arcs from 0), and every computation
/// can still end with the gold arc 0 → n, which the root-last layout never
/// builds. Dropping those steps and that arc leaves the exact scores, since
/// from every configuration of the root-last layout the best reachable
/// score is the same with and without the extra steps (checked against the
/// brute force on every configuration of every tree of up to 5 words, every
/// projective tree of up to 6, `tests/root_last.rs`). O(steps).
pub fn restrict_to_layout(config: &Configuration, mut scores: StepScores) -> StepScores {
    if config.root() == Root::Last {
        let all = scores;
        for (step, score) in all.iter() {
            let kept = config.is_applicable(step).then(|| score.saturating_sub(1));
            scores.set(step, kept);
        }
    }
    scores
}

/// The static oracle's step of a system with [`Oracle::has_canonical_tie_break`],
/// from the dynamic oracle's `scores` at `config`: [`canonical_step`], except
/// for non-monotonic arc-eager, where an optimal step may build a wrong arc
/// that a later one replaces: its canonical computation takes an optimal step
/// that builds a gold arc first, then one without an arc, a wrong arc only
/// when nothing else is optimal (then [`canonical_step`]'s order). No
/// allocation.
pub fn canonical_step_of(config: &Configuration, gold: &DepTree, scores: &StepScores) -> Option<Step> {
    if config.system() != System::ArcEagerNm {
        return canonical_step(scores);
    }
    let best = scores.best()?;
    let kind = |s: Step| match config.arc(s) {
        Some((h, d)) if gold.has_arc(h, d) => 0,
        None => 1,
        Some(_) => 2,
    };
    let first = scores.iter().filter(|&(_, v)| v == best).map(|(s, _)| kind(s)).min()?;
    let mut pick = StepScores::default();
    for (s, v) in scores.iter() {
        if v == best && kind(s) == first {
            pick.set(s, Some(v));
        }
    }
    canonical_step(&pick)
}

/// The canonical optimal step among `scores` (the static oracle of LR-spine
/// and Attardi, [`Oracle::static_step`]): the optimal step that builds an
/// arc of the smallest degree — K for `left_arc_K` / `right_arc_K`, 1 for
/// `left_arc` / `right_arc`, 2 for `left_arc_2` / `right_arc_2` — a left
/// arc before a right arc of the same degree; `shift` only when no arc step
/// is optimal. Building arcs as early as the oracle allows keeps the stack
/// short (which keeps Attardi's tabular oracle cheap) and makes LR-spine's
/// deeper spine steps rare: `right_arc_K` with K ≥ 2 gives a word a right
/// dependent after the word itself has been attached (arc-eager-like), and
/// a `left_arc_K` with K ≥ 2 is chosen only where no shallower arc is
/// optimal. `None` if no step has a score. O(steps).
pub fn canonical_step(scores: &StepScores) -> Option<Step> {
    let best = scores.best()?;
    let rank = |s: Step| match s {
        Step::LeftArcAt(k) => (k, 0),
        Step::RightArcAt(k) => (k, 1),
        Step::LeftArc | Step::ReduceRight => (1, 0),
        Step::RightArc | Step::ReduceLeft => (1, 1),
        Step::LeftArc2 => (2, 0),
        Step::RightArc2 => (2, 1),
        Step::Reduce => (u32::MAX - 1, 0),
        Step::Shift => (u32::MAX, 0),
    };
    scores.iter().filter(|&(_, v)| v == best).map(|(s, _)| s).min_by_key(|&s| rank(s))
}

/// How many spine positions K a [`StepScores`] holds per direction: the
/// scores of `left_arc_K` / `right_arc_K` for K ≤ 32. The LR-spine oracles
/// refuse a configuration with a longer spine ([`OracleError::SpineTooLong`]).
pub const SPINE_CAPACITY: usize = 32;

/// For each step, the largest number of gold arcs that computations starting
/// with it (and respecting the strategy) can still build; `None` where the
/// step is not applicable (or not a step of the system), or no computation
/// completes after it.
///
/// Layout: a fixed part indexed by [`Step::index`] (the steps of
/// [`Step::ALL`]) and a spine part for `left_arc_K` / `right_arc_K`,
/// K ≤ [`SPINE_CAPACITY`], inline, so that the type stays `Copy` and a
/// scoring never allocates (≈ 300 bytes; the spine part is written only by
/// LR-spine). Setting a spine step beyond the capacity is ignored.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct StepScores {
    scores: [Option<u32>; Step::ALL.len()],
    /// Bit i: slot i of `spine` holds a score (the other slots hold 0), so
    /// that the default is all zeros and other systems never scan the slots.
    spine_set: u64,
    /// `left_arc_K` at K − 1, `right_arc_K` at [`SPINE_CAPACITY`] + K − 1.
    spine: [u32; 2 * SPINE_CAPACITY],
}

const _: () = assert!(2 * SPINE_CAPACITY <= u64::BITS as usize, "spine_set has a bit per slot");

impl Default for StepScores {
    fn default() -> Self {
        StepScores { scores: Default::default(), spine_set: 0, spine: [0; 2 * SPINE_CAPACITY] }
    }
}

impl StepScores {
    /// Scores from (step, score) pairs; the other steps get `None`.
    pub fn new(entries: &[(Step, Option<u32>)]) -> Self {
        let mut s = StepScores::default();
        for &(step, score) in entries {
            s.set(step, score);
        }
        s
    }
    /// The slot of a spine step, if within the capacity.
    fn spine_slot(right: bool, k: u32) -> Option<usize> {
        let k = k as usize;
        (1..=SPINE_CAPACITY).contains(&k).then(|| right as usize * SPINE_CAPACITY + k - 1)
    }
    /// The score of `step`.
    pub fn get(&self, step: Step) -> Option<u32> {
        match step.spine() {
            None => self.scores[step.index()],
            Some((right, k)) => {
                Self::spine_slot(right, k).filter(|&i| self.spine_set & (1 << i) != 0).map(|i| self.spine[i])
            }
        }
    }
    /// Sets the score of `step` (a spine step beyond [`SPINE_CAPACITY`] is ignored).
    pub fn set(&mut self, step: Step, score: Option<u32>) {
        match step.spine() {
            None => self.scores[step.index()] = score,
            Some((right, k)) => {
                if let Some(i) = Self::spine_slot(right, k) {
                    self.spine[i] = score.unwrap_or(0);
                    match score {
                        Some(_) => self.spine_set |= 1 << i,
                        None => self.spine_set &= !(1 << i),
                    }
                }
            }
        }
    }
    /// The steps with a score: those of [`Step::ALL`] in its order, then
    /// `left_arc_K` and `right_arc_K` by increasing K.
    pub fn iter(&self) -> impl Iterator<Item = (Step, u32)> + '_ {
        // The set bits, lowest first (none at all outside LR-spine).
        let mut bits = self.spine_set;
        let spine = std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let k = (i % SPINE_CAPACITY + 1) as u32;
                (if i < SPINE_CAPACITY { Step::LeftArcAt(k) } else { Step::RightArcAt(k) }, self.spine[i])
            })
        });
        Step::ALL.into_iter().filter_map(|s| self.get(s).map(|v| (s, v))).chain(spine)
    }
    /// The best score, if any step has one.
    pub fn best(&self) -> Option<u32> {
        self.iter().map(|(_, v)| v).max()
    }
    /// The steps reaching the best score, in the order of [`StepScores::iter`].
    pub fn optimal(&self) -> Vec<Step> {
        let best = self.best();
        self.iter().filter(|&(_, v)| Some(v) == best).map(|(s, _)| s).collect()
    }
    /// The scores of the steps reaching the best score; the other steps get
    /// none. No allocation.
    pub fn only_optimal(&self) -> StepScores {
        let best = self.best();
        let mut kept = StepScores::default();
        for (step, v) in self.iter() {
            if Some(v) == best {
                kept.set(step, Some(v));
            }
        }
        kept
    }
}

impl fmt::Debug for StepScores {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter().map(|(s, v)| (s.name(), v))).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_scores_set_get_and_iterate_spine_steps() {
        let mut s = StepScores::new(&[(Step::Shift, Some(3)), (Step::RightArcAt(2), Some(4))]);
        s.set(Step::LeftArcAt(1), Some(0));
        s.set(Step::LeftArcAt(SPINE_CAPACITY as u32 + 1), Some(9)); // beyond the capacity: ignored
        assert_eq!(s.get(Step::RightArcAt(2)), Some(4));
        assert_eq!(s.get(Step::RightArcAt(1)), None);
        let all: Vec<(Step, u32)> = s.iter().collect();
        assert_eq!(all, [(Step::Shift, 3), (Step::LeftArcAt(1), 0), (Step::RightArcAt(2), 4)]);
        assert_eq!(s.optimal(), [Step::RightArcAt(2)]);
        s.set(Step::RightArcAt(2), None);
        s.set(Step::LeftArcAt(1), None);
        assert_eq!(s, StepScores::new(&[(Step::Shift, Some(3))]), "unsetting restores equality");
    }
}
