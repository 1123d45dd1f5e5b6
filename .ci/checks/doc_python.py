"""Writes each ```python block of README.md, python/README.md and docs/*.md
to DIR as its own file (README_0.py, docs_engine_0.py, ...), for
`mypy --strict` in python.sh: the examples type-check against the stubs."""

import pathlib
import re
import sys

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
for md in ["README.md", "python/README.md", *sorted(str(p) for p in pathlib.Path("docs").glob("*.md"))]:
    text = pathlib.Path(md).read_text()
    for i, block in enumerate(re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)):
        (out / (md.replace("/", "_")[:-3] + f"_{i}.py")).write_text(block)
