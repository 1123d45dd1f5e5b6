"""Trains UDPipe 1's parser alone (gold tags: tokenizer=none, tagger=none,
parser with its defaults) and parses a test file with it; used by
scripts/udpipe-compare.sh (issue 13). Only runs UDPipe (PyPI ufal.udpipe).

Usage: udpipe_compare.py train TRAIN.conllu DEV.conllu MODEL [PARSER_OPTIONS]
       udpipe_compare.py parse MODEL TEST.conllu OUT.conllu [PARSE_OPTIONS]
Prints one line of JSON: the wall-clock and CPU seconds (training, or parsing
without loading the model) and the words processed; for parsing also the
parse options and the beam UDPipe used.

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


def main(argv):
    if len(argv) in (5, 6) and argv[1] == "train":
        train, dev, model = read(argv[2]), read(argv[3]), argv[4]
        err = u.ProcessingError()
        start, cpu = time.perf_counter(), time.process_time()
        options = argv[5] if len(argv) == 6 else ""
        data = u.Trainer.train("morphodita_parsito", train, dev, "none", "none", options, err)
        secs, cpu = time.perf_counter() - start, time.process_time() - cpu
        if err.occurred() and not data:
            sys.exit(f"training failed: {err.message}")
        with open(model, "wb") as f:
            f.write(data)
        print(json.dumps({"train_seconds": secs, "train_cpu_seconds": cpu, "words": words(argv[2])}))
    elif len(argv) in (5, 6) and argv[1] == "parse":
        options = argv[5] if len(argv) == 6 else ""
        beam = parse_beam(options)
        model = u.Model.load(argv[2])
        if model is None:
            sys.exit(f"{argv[2]}: cannot load the model")
        pipeline = u.Pipeline(model, "conllu", u.Pipeline.NONE, options or u.Pipeline.DEFAULT, "conllu")
        with open(argv[3], encoding="utf-8") as f:
            text = f.read()
        err = u.ProcessingError()
        start, cpu = time.perf_counter(), time.process_time()
        out = pipeline.process(text, err)
        secs, cpu = time.perf_counter() - start, time.process_time() - cpu
        if err.occurred():
            sys.exit(f"parsing failed: {err.message}")
        with open(argv[4], "w", encoding="utf-8") as f:
            f.write(out)
        n = words(argv[3])
        print(json.dumps({"parse_seconds": secs, "parse_cpu_seconds": cpu, "words": n, "words_per_second": n / secs,
                          "words_per_cpu_second": n / cpu, "parse_options": options, "beam": beam}))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
