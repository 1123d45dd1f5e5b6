"""tabula: exact dependency-parsing computations, with a Rust core.

Nederhof (2019), *Calculating the Optimal Step in Shift-Reduce Dependency
Parsing: From Cubic to Linear Time*, gives the oracles and the engine this
package exposes:

* optimal steps ("dynamic oracles") for arc-standard (Sec. 2 configurations
  and strategies; Sec. 4 cubic, Sec. 5 quadratic, Sec. 6 linear algorithms;
  Sec. 7 the incremental session), and for arc-hybrid and arc-eager (the
  grammar oracle, and closed forms for projective gold trees):
  :class:`Oracle`, :class:`Session`, :class:`Configuration`,
  :func:`scores_batch`, :func:`apply_batch`;
* optimal projectivization and counting of optimal projective trees
  (Sec. 3, Table 3; Sec. 8.1, Fig. 8): :func:`projectivize`, :func:`count`
  and their batch forms;
* the Eisner-Satta engine over any split bilexical grammar (Sec. 3,
  Table 2): :class:`Grammar`;
* CoNLL-U reading and byte-exact writing: :func:`read_conllu`,
  :func:`write_conllu`.

Gold trees are the heads of words 1..n (0 is the root), as a list, a tuple,
a NumPy integer array or a :class:`Tree`. Bad configurations or trees raise
``ValueError`` with the command line's messages; grammar files with errors
raise :class:`GrammarError`.
"""

from ._tabula import (
    Configuration,
    Grammar,
    GrammarError,
    Oracle,
    Sentence,
    Session,
    Tree,
    __version__,
    apply_batch,
    count,
    count_batch,
    parse_conllu,
    projectivize,
    projectivize_batch,
    read_conllu,
    scores_batch,
    steps,
    systems,
    write_conllu,
)

__all__ = [
    "Configuration",
    "Grammar",
    "GrammarError",
    "Oracle",
    "Sentence",
    "Session",
    "Tree",
    "__version__",
    "apply_batch",
    "count",
    "count_batch",
    "parse_conllu",
    "projectivize",
    "projectivize_batch",
    "read_conllu",
    "scores_batch",
    "steps",
    "systems",
    "write_conllu",
]
