//! The grammar files shipped with tabula, embedded in the library and binary.

/// `grammars/projective.grammar` (Nederhof 2019, Table 3): all projective trees.
pub const PROJECTIVE: &str = include_str!("../grammars/projective.grammar");
