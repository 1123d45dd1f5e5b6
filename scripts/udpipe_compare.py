"""Trains one component of UDPipe 1 alone and runs it on a test file: the
parser (gold tags: tokenizer=none, tagger=none, parser with its defaults or
PARSER_OPTIONS) for scripts/udpipe-compare.sh, or the tagger (tokenizer=none,
parser=none, tagger with its defaults or TAGGER_OPTIONS) for
scripts/tagger-udpipe.sh. Only runs UDPipe (PyPI ufal.udpipe).

Usage: udpipe_compare.py train TRAIN.conllu DEV.conllu MODEL [PARSER_OPTIONS]
       udpipe_compare.py parse MODEL TEST.conllu OUT.conllu [PARSE_OPTIONS]
       udpipe_compare.py train-tagger TRAIN.conllu DEV.conllu MODEL [TAGGER_OPTIONS]
       udpipe_compare.py tag MODEL TEST.conllu OUT.conllu
Prints one line of JSON: the wall-clock and CPU seconds (training, or
parsing / tagging without loading the model) and the words processed; for
parsing also the parse options and the beam UDPipe used.

PARSE_OPTIONS are UDPipe's parser options at parse time ("name=value;..."),
passed to Pipeline instead of Pipeline.DEFAULT. The Parsito parser of UDPipe
1 reads one: beam_search, the beam size, 5 when not given (1 = greedy;
src/model/model_morphodita_parsito.cpp). UDPipe ignores any other name
silently (e.g. "beam_size=1" would parse with beam 5), so they are refused.
"""
import json
import sys
import time

import ufal.udpipe as u


def read(path):
    fmt = u.InputFormat.newConlluInputFormat()
    with open(path, encoding="utf-8") as f:
        fmt.setText(f.read())
    out, err, s = u.Sentences(), u.ProcessingError(), u.Sentence()
    while fmt.nextSentence(s, err):
        out.append(s)
        s = u.Sentence()
    if err.occurred():
        sys.exit(f"{path}: {err.message}")
    return out


BEAM_DEFAULT = 5  # UDPipe 1's beam_search when the option is not given


def parse_beam(options):
    """The beam UDPipe parses with for OPTIONS; exits on options it would ignore."""
    beam = BEAM_DEFAULT
    for item in filter(None, options.split(";")):
        name, _, value = item.partition("=")
        if name != "beam_search" or not value.isdigit():
            sys.exit(f"parse options {options!r}: UDPipe's parser reads only beam_search=N at parse time"
                     " (it would ignore the rest silently)")
        beam = max(int(value), 1)  # 0 parses greedily too
    return beam


def words(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for l in f if l[:1].isdigit() and l.split("\t", 1)[0].isdigit())


def timed(work):
    """work()'s result, its wall-clock and its CPU seconds."""
    start, cpu = time.perf_counter(), time.process_time()
    result = work()
    return result, time.perf_counter() - start, time.process_time() - cpu


def train(train_path, dev_path, model_path, tagger, parser):
    """Trains UDPipe with these tagger and parser options ("none": left out)
    and prints the training's JSON line."""
    data, err = read(train_path), u.ProcessingError()
    model, secs, cpu = timed(lambda: u.Trainer.train("morphodita_parsito", data, read(dev_path), "none", tagger,
                                                     parser, err))
    if err.occurred() and not model:
        sys.exit(f"training failed: {err.message}")
    with open(model_path, "wb") as f:
        f.write(model)
    print(json.dumps({"train_seconds": secs, "train_cpu_seconds": cpu, "words": words(train_path)}))


def run(model_path, test_path, out_path, tagger, parser, what):
    """Runs the model's tagger and parser as Pipeline options say on TEST,
    writes OUT and returns the JSON fields of the run, named after `what`."""
    model = u.Model.load(model_path)
    if model is None:
        sys.exit(f"{model_path}: cannot load the model")
    pipeline = u.Pipeline(model, "conllu", tagger, parser, "conllu")
    with open(test_path, encoding="utf-8") as f:
        text = f.read()
    err = u.ProcessingError()
    out, secs, cpu = timed(lambda: pipeline.process(text, err))
    if err.occurred():
        sys.exit(f"{what} failed: {err.message}")
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(out)
    n = words(test_path)
    return {f"{what}_seconds": secs, f"{what}_cpu_seconds": cpu, "words": n, "words_per_second": n / secs,
            "words_per_cpu_second": n / cpu}


def main(argv):
    command, args, options = argv[1] if len(argv) > 1 else "", argv[2:5], argv[5] if len(argv) == 6 else None
    if len(argv) not in (5, 6) or (command == "tag" and options is not None):
        sys.exit(__doc__)
    if command == "train":
        train(*args, "none", options or "")
    elif command == "train-tagger":
        train(*args, options or "default", "none")
    elif command == "parse":
        options = options or ""
        beam = parse_beam(options)
        fields = run(*args, u.Pipeline.NONE, options or u.Pipeline.DEFAULT, "parse")
        print(json.dumps({**fields, "parse_options": options, "beam": beam}))
    elif command == "tag":
        print(json.dumps(run(*args, u.Pipeline.DEFAULT, u.Pipeline.NONE, "tag")))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
