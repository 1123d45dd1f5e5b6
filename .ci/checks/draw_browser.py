"""The page of `tabula draw GOLD PARSED -o PAGE.html` in headless Chromium.

Opens the page with each view of its fragment (none, a search by id, each
filter, both filters) through `chromium --headless --dump-dom` and checks
in the DOM that the sentence list has every sentence, that the search and
the filters show exactly the sentences they should (computed here from the
CoNLL-U files), that sentences are drawn lazily, and, with the page's
self-check over a tall window, that no two label boxes overlap and no
label is wider than its box as rendered. Saves a screenshot. Standard
library only.

Usage: draw_browser.py CHROMIUM PAGE.html GOLD PARSED SCREENSHOT.png
"""

import html
import re
import subprocess
import sys
import time
from pathlib import Path


def sentences(path):
    """(id, heads, deprels) of each sentence of a CoNLL-U file."""
    out, sid, heads, rels, number = [], None, [], [], 0
    for line in Path(path).read_text(encoding="utf-8").splitlines() + [""]:
        if not line:
            if heads:
                number += 1
                out.append((sid if sid is not None else str(number), heads, rels))
            sid, heads, rels = None, [], []
        elif line.startswith("# sent_id"):
            sid = line.split("=", 1)[1].strip()
        elif not line.startswith("#"):
            cols = line.split("\t")
            if cols[0].isdigit():
                heads.append(int(cols[6]))
                rels.append(cols[7])
    return out


def nonprojective(heads):
    """Whether two arcs cross (the root at position 0, left of the words)."""
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads, 1)]
    return any(a < c < b < e for a, b in arcs for c, e in arcs)


def dump(chromium, url, height=900, budget=None):
    args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--window-size=1400,{height}", "--dump-dom", url]
    if budget:
        args.insert(-1, f"--virtual-time-budget={budget}")
    start = time.monotonic()
    dom = subprocess.run(args, capture_output=True, text=True, timeout=300, check=True).stdout
    return dom, time.monotonic() - start


def body(dom, key):
    m = re.search(rf'<body[^>]*\sdata-{key}="([^"]*)"', dom)
    return m.group(1) if m else None


def visible_links(dom):
    nav = re.search(r'<nav id="list">(.*?)</nav>', dom, re.S).group(1)
    links = re.finditer(r'<a href="#" data-i="\d+" title="([^"]*)"( hidden="")?>', nav)
    return [html.unescape(m.group(1)) for m in links if not m.group(2)]


def main():
    chromium, page, gold, parsed, shot = sys.argv[1:6]
    g, p = sentences(gold), sentences(parsed)
    assert len(g) == len(p), "the files have the same sentences"
    differ = [a[0] for a, b in zip(g, p) if a[1:] != b[1:]]
    nonproj = [a[0] for a, b in zip(g, p) if nonprojective(a[1]) or nonprojective(b[1])]
    both = [s for s in differ if s in set(nonproj)]
    url = Path(page).resolve().as_uri()
    failures = []

    def expect(what, got, want):
        status = "ok" if got == want else "FAIL"
        shown = (lambda v: f"{len(v)} sentences" if isinstance(v, list) else repr(v))
        print(f"  {status} {what}: {shown(got) if got == want else f'{shown(got)}, expected {shown(want)}'}")
        if got != want and isinstance(got, list):
            print(f"    first difference: {next((a, b) for a, b in zip(got + [None] * len(want), want + [None] * len(got)) if a != b)}")
        if got != want:
            failures.append(what)

    # The plain view: the whole list, drawn lazily, and the first screen's time.
    dom, seconds = dump(chromium, url)
    print(f"plain view: {seconds:.2f} s to load and dump; first screen drawn after {body(dom, 'first-screen')} ms")
    expect("sentence list", visible_links(dom), [s[0] for s in g])
    expect("shown", body(dom, "shown"), str(len(g)))
    drawn = dom.count('data-drawn="1"')
    if len(g) > 100:
        expect("sentences drawn lazily (some, not all)", 0 < drawn < len(g), True)
    else:
        expect("sentences drawn", drawn > 0, True)

    # Search by id: the ids containing a piece of one of them.
    piece = g[len(g) // 3][0][-4:]
    want = [s[0] for s in g if piece in s[0]]
    dom, _ = dump(chromium, f"{url}#search={piece}")
    expect(f"search {piece!r}", visible_links(dom), want)

    for fragment, want in [("differences", differ), ("nonprojective", nonproj), ("differences&nonprojective", both)]:
        dom, _ = dump(chromium, f"{url}#{fragment}")
        expect(f"filter {fragment}", visible_links(dom), want)
        expect(f"filter {fragment} count", body(dom, "shown"), str(len(want)))

    # Label boxes as rendered, over the sentences of a tall window.
    dom, _ = dump(chromium, f"{url}#differences&check", height=12000, budget=20000)
    pictures, labels = body(dom, "checked-pictures"), body(dom, "checked-labels")
    print(f"self-check: {pictures} pictures, {labels} labels")
    expect("pictures checked", int(pictures or 0) > 10 or int(pictures or 0) == len(differ), True)
    expect("overlapping label boxes", body(dom, "overlaps"), "0")
    expect("labels wider than their box", body(dom, "overflows"), "0")

    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1400,900", f"--screenshot={shot}", f"{url}#differences"],
                   capture_output=True, timeout=300, check=True)
    expect("screenshot saved", Path(shot).stat().st_size > 10000, True)
    if failures:
        sys.exit(f"draw_browser.py: {len(failures)} check(s) failed: {', '.join(failures)}")


if __name__ == "__main__":
    main()
