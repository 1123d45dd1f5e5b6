"""tabula_parsing: exact dependency-parsing computations and a trained
dependency parser, with a Rust core (the ``tabula`` command line's).

Nederhof (2019), *Calculating the Optimal Step in Shift-Reduce Dependency
Parsing: From Cubic to Linear Time*, gives the oracles and the engine this
package exposes:

* optimal steps ("dynamic oracles") for arc-standard (Sec. 2 configurations
  and strategies; Sec. 4 cubic, Sec. 5 quadratic, Sec. 6 linear algorithms;
  Sec. 7 the incremental session), for arc-hybrid and arc-eager (the
  grammar oracle, and closed forms for projective gold trees), LR-spine
  and Attardi's system: :class:`Oracle`, :class:`Session`,
  :class:`Configuration`, :func:`scores_batch`, :func:`apply_batch`, and
  :class:`OracleBatch`, the oracle of a minibatch for a neural parser's
  training loop (:mod:`tabula_parsing.neural` trains a BiLSTM parser with it);
* a transition-based parser trained with those oracles, greedy or with a
  beam, as ``tabula train``, ``parse`` and ``eval``: :class:`Parser`,
  :func:`evaluate`; and the tagger that fills UPOS (and FEATS) for it, as
  ``tabula train-tagger`` and ``tag``: :class:`Tagger`;
* optimal projectivization and counting of optimal projective trees
  (Sec. 3, Table 3; Sec. 8.1, Fig. 8): :func:`projectivize`, :func:`count`
  and their batch forms;
* the Eisner-Satta engine over any split bilexical grammar (Sec. 3,
  Table 2): :class:`Grammar`; with real arc scores, the distribution over
  its trees (log-partition, marginals, entropy, k best, samples) from NumPy
  arrays, and in :mod:`tabula_parsing.nonprojective` the same over all
  trees by the Matrix-Tree theorem (Koo et al. 2007);
* CoNLL-U reading and byte-exact writing: :func:`read_conllu`,
  :func:`write_conllu`, :class:`Sentence`; :func:`write_file` writes any
  output as the command line's ``-o`` does, and :func:`check_output` checks
  before a long computation that it could.

Gold trees are the heads of words 1..n (0 is the root), as a list, a tuple,
a NumPy integer array or a :class:`Tree`; a leading -1 (the root's slot) is
accepted and dropped. Bad configurations or trees raise ``ValueError`` with
the command line's messages; grammar files with errors raise
:class:`GrammarError`; unreadable files ``OSError``; computations beyond the
memory limit (:func:`set_max_memory`) ``MemoryError``.
"""

from ._tabula import (
    Configuration,
    Grammar,
    GrammarError,
    Oracle,
    OracleBatch,
    Parser,
    Sentence,
    Session,
    Tagger,
    Tree,
    __version__,
    apply_batch,
    check_input,
    check_output,
    count,
    count_batch,
    deprojectivize,
    ensemble,
    evaluate,
    file_kind,
    max_memory,
    parse_conllu,
    projectivize,
    projectivize_batch,
    pseudo_projective_decode,
    pseudo_projective_encode,
    read_conllu,
    scores_batch,
    set_max_memory,
    shown,
    steps,
    systems,
    write_conllu,
    write_file,
)

__all__ = [
    "Configuration",
    "Grammar",
    "GrammarError",
    "Oracle",
    "OracleBatch",
    "Parser",
    "Sentence",
    "Session",
    "Tagger",
    "Tree",
    "__version__",
    "apply_batch",
    "check_input",
    "check_output",
    "count",
    "count_batch",
    "deprojectivize",
    "ensemble",
    "evaluate",
    "file_kind",
    "max_memory",
    "parse_conllu",
    "projectivize",
    "projectivize_batch",
    "pseudo_projective_decode",
    "pseudo_projective_encode",
    "read_conllu",
    "scores_batch",
    "set_max_memory",
    "shown",
    "steps",
    "systems",
    "write_conllu",
    "write_file",
]

# Pictures of trees, as ``tabula draw``: :func:`draw`; a :class:`Sentence`
# shows itself as an arc diagram in Jupyter (``_repr_svg_``).
from ._tabula import draw  # noqa: E402

__all__ += ["draw"]

# A small synthetic treebank shipped with the package (six sentences written
# for tabula, a copy of data/sample.conllu), which the docstring examples
# read: they run from any directory.
import os as _os  # noqa: E402

SAMPLE: str = _os.path.join(_os.path.dirname(__file__), "sample.conllu")
"""The path of the package's sample CoNLL-U file."""

__all__ += ["SAMPLE"]
