#!/usr/bin/env bash
# Every ```sh block of README.md and docs/*.md runs as written, on small
# stand-ins of the treebanks the docs name (.ci/checks/doc_blocks.py says how).
set -euo pipefail
python3 .ci/checks/doc_blocks.py
