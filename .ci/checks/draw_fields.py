"""Pictures of a sentence whose fields hold control characters and XML
specials (`tabula draw FIELDS.conllu -o X.svg` and `-o X.html`), in
headless Chromium.

The SVG must open as an image, not as Chromium's XML error page (one raw
U+0001 in a FORM used to make the whole SVG unreadable); the page must
draw the sentence. In both, each field shows with its control characters
written visibly (`\\x01`), and the DOM holds no control character but
newline. Standard library only.

Usage: draw_fields.py CHROMIUM PICTURE.svg PAGE.html
"""

import subprocess
import sys
from pathlib import Path

# What the fields of .ci/checks/draw.sh's FIELDS.conllu look like drawn.
SHOWN = ["K\\x01m", "\\x9b2J", "X\\x08", "root\\x1b[2J", "s\\x1b]0;t\\x07"]


def dump(chromium, path, budget=None):
    args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--window-size=1400,900", "--dump-dom", Path(path).resolve().as_uri()]
    if budget:
        args.insert(-1, f"--virtual-time-budget={budget}")
    return subprocess.run(args, capture_output=True, text=True, timeout=300, check=True).stdout


def main():
    chromium, svg, page = sys.argv[1:4]
    failures = []

    def expect(what, ok):
        print(f"  {'ok' if ok else 'FAIL'} {what}")
        if not ok:
            failures.append(what)

    for name, dom in [("SVG", dump(chromium, svg)), ("page", dump(chromium, page, budget=5000))]:
        expect(f"{name}: opens without an XML error", "parsererror" not in dom)
        if name == "page":
            expect("page: the sentence is drawn", 'data-drawn="1"' in dom)
        for shown in SHOWN:
            expect(f"{name}: shows {shown}", shown in dom)
        stray = sorted({f"U+{ord(c):04X}" for c in dom if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0})
        expect(f"{name}: no control character in the DOM" + "".join(" " + c for c in stray), not stray)
    if failures:
        sys.exit(f"draw_fields.py: {len(failures)} check(s) failed: {', '.join(failures)}")


if __name__ == "__main__":
    main()
