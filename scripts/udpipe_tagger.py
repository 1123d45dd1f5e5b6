"""Trains UDPipe 1's tagger alone (tokenizer=none, parser=none; the tagger
with its defaults, or TAGGER_OPTIONS) and tags a test file with it: the
anchor for `tabula train-tagger` (issue 21, item 3). Only runs UDPipe (PyPI
ufal.udpipe); used by scripts/tagger-compare.sh.

Usage: udpipe_tagger.py train TRAIN.conllu DEV.conllu MODEL [TAGGER_OPTIONS]
       udpipe_tagger.py tag MODEL TEST.conllu OUT.conllu
Prints one line of JSON: wall-clock and CPU seconds (training, or tagging
without loading the model) and the words processed.
"""
import json
import sys
import time

import ufal.udpipe as u

from udpipe_compare import read, words


def main(argv):
    if len(argv) in (5, 6) and argv[1] == "train":
        train, dev, model = read(argv[2]), read(argv[3]), argv[4]
        err = u.ProcessingError()
        start, cpu = time.perf_counter(), time.process_time()
        options = argv[5] if len(argv) == 6 else "default"
        data = u.Trainer.train("morphodita_parsito", train, dev, "none", options, "none", err)
        secs, cpu = time.perf_counter() - start, time.process_time() - cpu
        if err.occurred() and not data:
            sys.exit(f"training failed: {err.message}")
        with open(model, "wb") as f:
            f.write(data)
        print(json.dumps({"train_seconds": secs, "train_cpu_seconds": cpu, "words": words(argv[2])}))
    elif len(argv) == 5 and argv[1] == "tag":
        model = u.Model.load(argv[2])
        if model is None:
            sys.exit(f"{argv[2]}: cannot load the model")
        pipeline = u.Pipeline(model, "conllu", u.Pipeline.DEFAULT, u.Pipeline.NONE, "conllu")
        with open(argv[3], encoding="utf-8") as f:
            text = f.read()
        err = u.ProcessingError()
        start, cpu = time.perf_counter(), time.process_time()
        out = pipeline.process(text, err)
        secs, cpu = time.perf_counter() - start, time.process_time() - cpu
        if err.occurred():
            sys.exit(f"tagging failed: {err.message}")
        with open(argv[4], "w", encoding="utf-8") as f:
            f.write(out)
        n = words(argv[3])
        print(json.dumps({"tag_seconds": secs, "tag_cpu_seconds": cpu, "words": n, "words_per_second": n / secs}))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
