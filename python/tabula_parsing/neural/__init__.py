"""A neural transition parser in PyTorch, trained with tabula's exact
oracles through the minibatch oracle :class:`tabula_parsing.OracleBatch`.

The network is Kiperwasser & Goldberg's (2016): embeddings of FORM, UPOS (and
FEATS with ``feats=True``) and a character encoder of the form (no
pre-trained vectors), a 2-layer BiLSTM over the sentence, and an MLP over
the BiLSTM vectors of the stack and input words and their outer children,
scoring the steps and the labels. Any of tabula's transition systems and
oracles trains it: ``system`` (arc-standard, arc-hybrid, arc-eager,
lr-spine, attardi, arc-eager-nm), ``oracle`` (static or dynamic, with error
exploration), ``projectivize`` (none, optimal, lift).

Install with the extra: ``pip install "./python[torch]"``. From the shell,
``python -m tabula_parsing.neural train TRAIN -o MODEL`` and
``python -m tabula_parsing.neural parse --model MODEL IN -o OUT`` mirror
``tabula train`` and ``tabula parse``; from Python:

>>> import tabula_parsing as tp
>>> from tabula_parsing import neural
>>> model = neural.train(tp.SAMPLE, epochs=2, seed=1,
...                      dims=neural.Dimensions(word=8, upos=4, char=0, lstm=8, mlp=8))
>>> [len(heads) for heads, labels in model.parse(tp.read_conllu(tp.SAMPLE))][:3]
[9, 9, 8]

Layout (as SuPar keeps its parsers): :mod:`.model` the network,
:mod:`.data` CoNLL-U to tensors and back, :mod:`.train` the loops,
:mod:`.parser` the trained model (train, save, load, parse),
:mod:`.export` a biaffine model as one ONNX file (``tabula parse`` runs it
without Python) and :mod:`.__main__` the command.
"""

from .export import export
from .model import Dimensions, Network
from .parser import NeuralParser, load, train
from .train import EpochReport, Options

__all__ = ["Dimensions", "EpochReport", "NeuralParser", "Network", "Options", "export", "load", "train"]
