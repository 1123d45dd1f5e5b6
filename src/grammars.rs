//! The grammar files shipped with tabula, embedded in the library and binary.

/// `grammars/projective.grammar` (Nederhof 2019, Table 3): all projective trees.
pub const PROJECTIVE: &str = include_str!("../grammars/projective.grammar");

/// `grammars/shift-reduce.grammar` (Nederhof 2019, Table 4): computations of a
/// shift-reduce parser from a configuration; terminals `p` (stack below the
/// top) and `s` (top of stack and remaining input).
pub const SHIFT_REDUCE: &str = include_str!("../grammars/shift-reduce.grammar");

/// `grammars/shift-reduce-strict.grammar`: Table 4 without its last rule, the
/// strict left-before-right strategy.
pub const SHIFT_REDUCE_STRICT: &str = include_str!("../grammars/shift-reduce-strict.grammar");

/// `grammars/projective-single-root.grammar`: projective trees whose root
/// (position 0, terminal `root`) has exactly one child; words are terminal
/// `a` as in Table 3 (Nederhof 2019). Used by `--single-root`.
pub const PROJECTIVE_SINGLE_ROOT: &str = include_str!("../grammars/projective-single-root.grammar");

/// `grammars/arc-hybrid.grammar`: the arc sets an arc-hybrid parser can still
/// build from a configuration; terminals `p` (stack) and `b` (input).
pub const ARC_HYBRID: &str = include_str!("../grammars/arc-hybrid.grammar");

/// `grammars/arc-eager.grammar`: the arc sets an arc-eager parser can still
/// build from a configuration; terminals `r` (virtual root), `h` / `u`
/// (stack word with / without a head) and `b` (input).
pub const ARC_EAGER: &str = include_str!("../grammars/arc-eager.grammar");

/// Every shipped grammar by name (the file name without `.grammar`), as
/// `Grammar.shipped` in Python takes it.
pub const ALL: &[(&str, &str)] = &[
    ("projective", PROJECTIVE),
    ("projective-single-root", PROJECTIVE_SINGLE_ROOT),
    ("shift-reduce", SHIFT_REDUCE),
    ("shift-reduce-strict", SHIFT_REDUCE_STRICT),
    ("arc-hybrid", ARC_HYBRID),
    ("arc-eager", ARC_EAGER),
];

/// The text of the shipped grammar `name` (see [`ALL`]).
pub fn by_name(name: &str) -> Option<&'static str> {
    ALL.iter().find(|(n, _)| *n == name).map(|&(_, text)| text)
}
