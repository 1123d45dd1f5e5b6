"""``python -m tabula_parsing.neural train|parse``: the neural parser from the
shell, with ``tabula train``'s and ``tabula parse``'s option names.

    python -m tabula_parsing.neural train TRAIN -o MODEL [--dev DEV] [--parser transition|biaffine]
        [--system S] [--oracle static|dynamic] [--projectivize none|optimal|lift]
        [--arc-loss local|crf] [--trees CLASS|FILE.grammar]
        [--pseudo-projective head|path|head+path] [--feats] [--epochs N] [--seed S]
        [--checkpoint FILE] [--device cpu|cuda|cuda:N] [--threads N] …
    python -m tabula_parsing.neural parse --model MODEL [IN] [-o OUT] [--device cpu|cuda|cuda:N]
        [--batch-size N] [--threads N]
    python -m tabula_parsing.neural export MODEL.pt MODEL.onnx [--check FILE]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any, Optional, Sequence, TextIO

from .model import Dimensions
from .parser import FEATS_DIM, TrainingInterrupted, load, train
from .train import Options


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m tabula_parsing.neural",
        description="BiLSTM dependency parsers: a transition parser (Kiperwasser & Goldberg 2016) trained with "
        "tabula's exact oracles, and a biaffine graph-based parser (Dozat & Manning 2017) trained through "
        "tabula's tree CRFs.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="train a parser on a CoNLL-U file (gold UPOS, HEAD, DEPREL)")
    t.add_argument("train", help="training treebank (CoNLL-U, plain, xz or gzip)")
    t.add_argument("-o", "--output", required=True, help="where to write the model")
    t.add_argument("--dev", help="development treebank, scored after every epoch; the best epoch (LAS) is kept")
    t.add_argument(
        "--parser",
        choices=["transition", "biaffine"],
        default="transition",
        help="transition: greedy steps learned from the oracles; biaffine: arc scores and the best tree "
        "[default: transition]",
    )
    t.add_argument(
        "--arc-loss",
        choices=["local", "crf"],
        help="biaffine: each word's head by a cross-entropy (local), or the tree CRF of --trees [default: crf]",
    )
    t.add_argument(
        "--trees",
        metavar="CLASS|FILE",
        help="biaffine: the trees the CRF sums over and parsing returns: projective, projective-single-root, "
        "nonprojective, nonprojective-single-root, or a grammar file [default: nonprojective-single-root]",
    )
    t.add_argument("--system", help="transition system [default: arc-hybrid]")
    t.add_argument("--oracle", choices=["static", "dynamic"], help="[default: dynamic]")
    t.add_argument("--algorithm", help="the dynamic oracle's algorithm [default: auto]")
    t.add_argument("--strategy", help="the dynamic oracle's strategy (as tabula train)")
    t.add_argument("--projectivize", choices=["none", "optimal", "lift"], help="non-projective training trees [default: optimal]")
    t.add_argument("--pseudo-projective", choices=["head", "path", "head+path"], help="encode the moves in DEPREL (Nivre & Nilsson 2005)")
    t.add_argument("--feats", action="store_true", help="also read the FEATS column")
    t.add_argument(
        "--embeddings",
        metavar="FILE",
        help="pre-trained word vectors, kept fixed and read beside the trained ones: word2vec's or GloVe's "
        "text format, or a NumPy .npz with arrays `words` and `vectors`",
    )
    t.add_argument(
        "--tagger",
        metavar="TAGGER",
        help="train on this tagger's UPOS (and FEATS) instead of the files' (`tabula train-tagger`), "
        "as parse --tagger reads them",
    )
    t.add_argument(
        "--jackknife",
        type=int,
        metavar="K",
        help="with --tagger: each of K folds of the training file tagged by a tagger trained like TAGGER on the others",
    )
    t.add_argument(
        "--epochs",
        type=int,
        help="passes over the training file [default: 20; with fewer than 500 training sentences "
        "40 for the transition parser, 60 for the biaffine parser]",
    )
    t.add_argument(
        "--checkpoint",
        metavar="FILE",
        help="write the whole run to FILE after every epoch; where FILE exists, continue the run from it "
        "(the same files and options; a larger --epochs continues a finished run)",
    )
    t.add_argument("--batch-size", type=int, default=32, help="sentences per minibatch [default: 32]")
    t.add_argument("--seed", type=int, default=1)
    t.add_argument(
        "--explore-from", type=int, help="epochs that follow the oracle before exploration starts [default: 1]"
    )
    t.add_argument(
        "--explore-p", type=float, help="probability of following a wrong step of the network [default: 0.9]"
    )
    t.add_argument(
        "--loss", choices=["ce", "hinge"], help="step loss: cross-entropy of the optimal set, or hinge [default: ce]"
    )
    t.add_argument("--learning-rate", type=float, default=1e-3)
    t.add_argument(
        "--average",
        type=float,
        default=0.0,
        metavar="DECAY",
        help="score dev and save a moving average of the weights, this decay per update (e.g. 0.999) [default: 0: none]",
    )
    t.add_argument("--max-words", type=int, help="leave out training sentences longer than N words [default: 1000, 200 where the oracle builds tables]")
    t.add_argument(
        "--max-gamma",
        type=int,
        help="Attardi only: the limit of its oracle's table on the stack and reduced input; "
        "a sentence past it is left for the rest of the epoch [default: 48]",
    )
    t.add_argument(
        "--max-pairs",
        type=int,
        help="Attardi only: the budget of one call of its oracle's table, in pairs of items combined "
        "(about 10-20 ns each); a sentence past it is left for the rest of the epoch [default: none]",
    )
    t.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N [default: cpu]")
    t.add_argument("--threads", type=int, help="PyTorch's CPU threads")
    d = Dimensions()
    t.add_argument("--word-dim", type=int, default=d.word)
    t.add_argument("--upos-dim", type=int, default=d.upos)
    t.add_argument("--feats-dim", type=int, help=f"with --feats [default: {FEATS_DIM}]")
    t.add_argument("--char-dim", type=int, default=d.char, help="0: no character encoder")
    t.add_argument(
        "--char-filters", type=int, help=f"the character encoder's output [default: {d.char_filters}]"
    )
    t.add_argument("--lstm-dim", type=int, default=d.lstm, help="BiLSTM units per direction")
    t.add_argument("--layers", type=int, default=d.layers, help="BiLSTM layers")
    t.add_argument("--mlp-dim", type=int, default=d.mlp, help="the transition MLP; biaffine: the label MLPs")
    t.add_argument("--arc-mlp-dim", type=int, help=f"biaffine: the arc MLPs [default: {d.arc_mlp}]")
    t.add_argument("--dropout", type=float, default=d.dropout, help="on the BiLSTM's input and output and the MLP")
    t.add_argument(
        "--word-dropout",
        type=float,
        default=Options.word_dropout,
        metavar="ALPHA",
        help="a training word seen c times is read as the unknown word with probability ALPHA / (ALPHA + c) "
        "[default: 0.25]",
    )
    t.add_argument("--quiet", action="store_true", help="no epoch lines on standard error")
    q = sub.add_parser("parse", help="fill HEAD and DEPREL of a CoNLL-U file, nothing else changes")
    q.add_argument("input", nargs="?", default="-", help="CoNLL-U to parse [default: standard input]")
    q.add_argument("--model", required=True, help="a model saved by train")
    q.add_argument("-o", "--output", help="where to write (`-`: standard output) [default: standard output]")
    q.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N [default: cpu]")
    q.add_argument("--batch-size", type=int, help="sentences per batch [default: 128]")
    q.add_argument("--threads", type=int, help="PyTorch's CPU threads [default: PyTorch's]")
    q.add_argument(
        "--tagger", metavar="TAGGER", help="fill UPOS (and FEATS) with this tagger first (`tabula train-tagger`)"
    )
    e = sub.add_parser(
        "export",
        help="write a model as one ONNX file (network, vocabularies, options), which "
        "`tabula parse --model MODEL.onnx` runs without Python",
    )
    e.add_argument("model", help="a model saved by train (either parser)")
    e.add_argument("output", help="the ONNX file to write")
    e.add_argument(
        "--check",
        metavar="FILE",
        help="CoNLL-U whose first 20 sentences the exported graph and the network score; "
        "their largest difference is printed (biaffine: the arc scores; transition: the "
        "first MLP layer's terms) [default: no check]",
    )
    return p


def _warning(message: Any, category: Any, filename: str, lineno: int, file: Optional[TextIO] = None, line: Optional[str] = None) -> None:
    """Warnings as the command line prints them: ``warning: …`` on standard error."""
    print(f"warning: {message}", file=sys.stderr)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    shown = warnings.showwarning
    warnings.showwarning = _warning
    try:
        return _run(args)
    finally:
        warnings.showwarning = shown


def _run(args: argparse.Namespace) -> int:
    try:
        if args.command == "train":
            dims = Dimensions(
                word=args.word_dim,
                upos=args.upos_dim,
                feats=args.feats_dim if args.feats_dim is not None else 0,
                char=args.char_dim,
                char_filters=args.char_filters if args.char_filters is not None else Dimensions().char_filters,
                lstm=args.lstm_dim,
                layers=args.layers,
                mlp=args.mlp_dim,
                arc_mlp=args.arc_mlp_dim if args.arc_mlp_dim is not None else Dimensions().arc_mlp,
                dropout=args.dropout,
            )
            if args.char_filters is not None and args.char_dim == 0:
                raise ValueError("--char-filters has no effect with --char-dim 0 (no character encoder)")
            if args.feats and args.feats_dim == 0:
                raise ValueError("--feats-dim must be at least 1, found 0")
            # The options of one parser only go through when given, so that
            # the other parser refuses them.
            chosen = {
                key: getattr(args, key)
                for key in [
                    "system", "oracle", "algorithm", "strategy", "explore_from", "explore_p", "loss",
                    "max_gamma", "max_pairs", "arc_loss", "trees",
                ]
                if getattr(args, key) is not None
            }
            if args.arc_mlp_dim is not None and args.parser != "biaffine":
                raise ValueError("--arc-mlp-dim has no effect with --parser transition")
            model = train(
                args.train,
                args.output,
                dev=args.dev,
                verbose=not args.quiet,
                checkpoint=args.checkpoint,
                parser=args.parser,
                projectivize=args.projectivize,
                pseudo_projective=args.pseudo_projective,
                feats=args.feats,
                epochs=args.epochs,
                batch_size=args.batch_size,
                seed=args.seed,
                learning_rate=args.learning_rate,
                average=args.average,
                word_dropout=args.word_dropout,
                max_words=args.max_words,
                embeddings=args.embeddings,
                tagger=args.tagger,
                jackknife=args.jackknife,
                device=args.device,
                threads=args.threads,
                dims=dims,
                **chosen,
            )
            print(f"{args.output}: epoch {model.epoch} kept", file=sys.stderr)
        elif args.command == "export":
            from .. import _tabula as tp
            from .export import export

            check = tp.read_conllu(args.check)[:20] if args.check else None
            worst = export(args.model, args.output, check=check)
            if check:
                print(
                    f"{args.output}: the graph's scores differ from the network's by at most {worst:.3g} "
                    f"on {len(check)} sentences",
                    file=sys.stderr,
                )
        else:
            model = load(args.model)
            source = "/dev/stdin" if args.input == "-" else args.input
            output = None if args.output == "-" else args.output
            text = model.parse_file(
                source,
                output,
                device=args.device,
                batch_size=args.batch_size,
                progress=True,
                threads=args.threads,
                tagger=args.tagger,
            )
            if args.output is None or args.output == "-":
                sys.stdout.write(text)
    except (ValueError, OSError) as e:
        # An OSError of Python's own names the file after the reason: put it first, as tabula does.
        message = f"{e.filename}: {e.strerror}" if isinstance(e, OSError) and e.filename and e.strerror else e
        print(f"error: {message}", file=sys.stderr)
        return 1
    except (RuntimeError, MemoryError) as e:
        if not _out_of_memory(e):
            raise
        first = (str(e).strip().splitlines() or ["no message"])[0]
        advice = (
            "try a smaller --batch-size, or leave out long sentences with --max-words"
            if args.command == "train"
            else "try a smaller --batch-size (long sentences need the most memory)"
        )
        print(f"error: out of memory on {args.device}: {first}; {advice}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as e:
        # On a terminal, after the `^C` the terminal shows.
        print(("\n" if sys.stderr.isatty() else "") + _interrupted(args, e), file=sys.stderr)
        return 130
    return 0


def _out_of_memory(e: BaseException) -> bool:
    """PyTorch's out-of-memory errors (``torch.OutOfMemoryError`` on a GPU,
    a RuntimeError "can't allocate memory" on the CPU) and Python's."""
    text = str(e).lower()
    return isinstance(e, MemoryError) or "out of memory" in text or "can't allocate" in text


def _interrupted(args: argparse.Namespace, e: KeyboardInterrupt) -> str:
    """What Ctrl-C left: for training, the model file of the epoch kept so
    far, or none; for parsing, no output."""
    if args.command != "train":
        return "interrupted: no output written"
    if isinstance(e, TrainingInterrupted) and e.epoch is not None:
        best = "the best on --dev so far" if args.dev else "the last finished"
        text = f"interrupted: {args.output} holds the model of epoch {e.epoch} ({best})"
    elif isinstance(e, TrainingInterrupted) and e.finished:
        text = f"interrupted before a model was written to {args.output}"
    else:
        text = f"interrupted before the first epoch ended: no model written to {args.output}"
    if isinstance(e, TrainingInterrupted) and e.checkpoint is not None and e.finished:
        text += f"; {e.checkpoint} holds the run after epoch {e.finished}: the same command continues it"
    return text


if __name__ == "__main__":
    sys.exit(main())
