"""Log-partition and arc marginals over *all* dependency trees, projective or
not, by the Matrix-Tree theorem (Koo, Globerson, Carreras & Collins 2007,
*Structured Prediction Models via the Matrix-Tree Theorem*), beside the
projective ones of :meth:`tabula_parsing.Grammar.log_partition` and
:meth:`tabula_parsing.Grammar.marginals` on the same scores.

``scores`` is an (n+1)x(n+1) matrix of arc log-potentials (anything NumPy
converts to float64), row = head, column = dependent, position 0 the root;
the diagonal and column 0 are ignored and -inf forbids an arc. A tree's
weight is exp of the sum of its arcs' scores. ``single_root=True`` sums over
the trees in which the root has exactly one child. The determinant and the
marginals come from a subtraction-free elimination of the Laplacian
(Grassmann, Taksar & Heyman 1985), in log space where the numbers leave the
float64 range, so they are correct to rounding (1e-9 or better) for scores
of any size and spread, even when cycles of heavy arcs outweigh every tree
by e^1000. Cost O(n^3): about n^3/3 multiply-adds for the log-partition,
2 n^3 for the marginals.

>>> import numpy as np
>>> from tabula_parsing import nonprojective
>>> scores = np.zeros((3, 3))  # two words: 3 trees, 2 with one root child
>>> round(float(np.exp(nonprojective.log_partition(scores))), 9)
3.0
>>> round(float(np.exp(nonprojective.log_partition(scores, single_root=True))), 9)
2.0
>>> nonprojective.marginals(scores).sum(axis=0).round(9).tolist()  # one head per word
[0.0, 1.0, 1.0]
"""

from __future__ import annotations

from typing import Any, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import _tabula

__all__ = ["log_partition", "log_partition_batch", "marginals", "marginals_batch"]

_Scores = Union[npt.ArrayLike, npt.NDArray[Any]]
#: Many score matrices: a sequence of them (of any sizes), or one 3-D array
#: of B matrices of the same size.
_ScoresBatch = Union[Sequence[_Scores], npt.NDArray[Any]]


def log_partition(scores: _Scores, single_root: bool = False) -> float:
    """ln Z over the non-projective trees: the log-determinant of the
    Laplacian (Koo et al. 2007), exact to rounding for scores of any spread.
    -inf if no tree has positive weight;
    ``ValueError`` for a non-square matrix or a NaN or +inf score. O(n^3)."""
    return _tabula.nonprojective_log_partition(scores, single_root)


def marginals(scores: _Scores, single_root: bool = False) -> npt.NDArray[np.float64]:
    """Arc marginals P(h -> d) over the non-projective trees, the gradient of
    :func:`log_partition`: an (n+1)x(n+1) float64 array, row = head, column =
    dependent (each column d >= 1 sums to 1), exact to rounding (1e-9 or
    better) for scores of any spread.
    ``ValueError`` if no tree has positive weight. O(n^3)."""
    return _tabula.nonprojective_marginals(scores, single_root)


def log_partition_batch(scores: _ScoresBatch, single_root: bool = False) -> npt.NDArray[np.float64]:
    """:func:`log_partition` of many matrices (of any sizes), on threads with
    the GIL released: a float64 array."""
    return _tabula.nonprojective_log_partition_batch(scores, single_root)


def marginals_batch(scores: _ScoresBatch, single_root: bool = False) -> list[npt.NDArray[np.float64]]:
    """:func:`marginals` of many matrices, on threads with the GIL released."""
    return _tabula.nonprojective_marginals_batch(scores, single_root)
