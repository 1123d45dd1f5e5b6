"use strict";
// The page is written as: this script, then the sentences in chunks (a JSON
// array in a <script type="application/json"> each, followed by
// `tabula.add()`), then `tabula.finish()`. The first chunk is drawn as soon
// as it is read, so the first screen shows before the whole file is read.
const tabula = (function () {
  const F = JSON.parse(document.getElementById("files").textContent);
  const S = [];
  const main = document.getElementById("pictures"), list = document.getElementById("list");
  const search = document.getElementById("search"), count = document.getElementById("count");
  const onlyDiff = document.getElementById("differences"), onlyNp = document.getElementById("nonprojective");
  const HEADING = 22;
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const plural = (n) => n + " difference" + (n === 1 ? "" : "s");
  let drawn = [], firstScreen = false, finished = false;

  function heading(s) {
    let h = esc(s[0]);
    if (F.length > 1) h += " · " + plural(s[1]);
    // Each mark names the tree it is about: the one drawn (0), or another file's.
    if (s[2].includes(0)) h += " · non-projective";
    const others = s[2].filter((k) => k > 0).map((k) => esc(F[k]));
    if (others.length) h += " · non-projective in " + others.join(", ");
    return h;
  }

  // The SVG of sentence s: the markup of the library's svg::diagram.
  function svg(s) {
    const [, , , w, h, b, W, A] = s;
    let o = '<svg class="tree" width="' + w + '" height="' + h + '" viewBox="0 0 ' + w + " " + h + '">';
    for (let i = 0; i < W.length; i += 3) {
      o += '<text class="f" x="' + W[i] + '" y="' + (b + 20) + '" text-anchor="middle">' + esc(W[i + 1]) +
        '</text><text class="u" x="' + W[i] + '" y="' + (b + 36) + '" text-anchor="middle">' + esc(W[i + 2]) + "</text>";
    }
    let labels = "";
    for (let i = 0; i < A.length; i += 10) {
      const [f, t, top, c, l, lx, lw, hd, dp, k] = A.slice(i, i + 10);
      o += '<g class="a' + c + '"><path d="M' + f + " " + b + "V" + top + "H" + t + "V" + b + '"/><polygon points="' +
        (t - 4) + "," + (b - 8) + " " + (t + 4) + "," + (b - 8) + " " + t + "," + b + '"/></g>';
      const title = (hd ? W[3 * hd - 2] : "root") + " → " + W[3 * dp - 2] + ": " + l + (F.length > 1 ? " in " + F[k] : "");
      labels += '<g class="l' + c + '"><title>' + esc(title) + '</title><rect x="' + lx + '" y="' + (top - 7) +
        '" width="' + lw + '" height="15" rx="3"/><text x="' + (lx + (lw >> 1)) + '" y="' + (top + 4) +
        '" text-anchor="middle">' + esc(l) + "</text></g>";
    }
    return o + labels + "</svg>";
  }

  const secs = main.children, links = list.children;

  function draw(i) {
    if (drawn[i]) return;
    drawn[i] = 1;
    const el = secs[i];
    el.insertAdjacentHTML("beforeend", svg(S[i]));
    el.style.height = "";
    el.dataset.drawn = "1";
  }

  const observer = new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (e.isIntersecting) {
        draw(+e.target.id.slice(1));
        observer.unobserve(e.target);
      }
    }
  }, { root: main, rootMargin: "600px 0px" });

  // Draws the sentences on screen now (the observer does so too, later).
  function drawVisible() {
    const bottom = main.getBoundingClientRect().bottom + 600;
    for (let i = 0; i < S.length; i++) {
      if (secs[i].hidden) continue;
      const r = secs[i].getBoundingClientRect();
      if (r.top > bottom) break;
      if (r.bottom >= -600) draw(i);
    }
  }

  function keeps(s, q, d, np) {
    return (!q || s[0].includes(q)) && (!d || s[1] > 0) && (!np || s[2].length > 0);
  }

  // Shows the sentences that pass the search and the filters.
  function apply(from) {
    const q = search.value.trim(), d = onlyDiff.checked, np = onlyNp.checked;
    const any = q || d || np;
    let shown = 0;
    for (let i = 0; i < S.length; i++) {
      const keep = !any || keeps(S[i], q, d, np);
      if (i >= from && secs[i].hidden !== !keep) {
        secs[i].hidden = !keep;
        links[i].hidden = !keep;
      }
      if (keep) shown++;
    }
    count.textContent = shown + " of " + S.length + " sentences" + (finished ? "" : " (reading…)");
    document.body.dataset.shown = shown;
    return any;
  }

  function changed() {
    const q = search.value.trim();
    const parts = [];
    if (q) parts.push("search=" + encodeURIComponent(q));
    if (onlyDiff.checked) parts.push("differences");
    if (onlyNp.checked) parts.push("nonprojective");
    const hash = parts.length ? "#" + parts.join("&") : "";
    if (location.hash !== hash) history.replaceState(null, "", hash || location.pathname + location.search);
    apply(0);
    drawVisible();
  }

  function fromHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    search.value = h.get("search") || "";
    onlyDiff.checked = h.has("differences") && F.length > 1;
    onlyNp.checked = h.has("nonprojective");
  }

  list.addEventListener("click", (e) => {
    const a = e.target.closest("a");
    if (!a) return;
    e.preventDefault();
    const i = +a.dataset.i;
    draw(i);
    secs[i].scrollIntoView();
  });
  search.addEventListener("input", changed);
  onlyDiff.addEventListener("change", changed);
  onlyNp.addEventListener("change", changed);
  window.addEventListener("hashchange", () => { fromHash(); changed(); });
  fromHash();

  // A self-check (the fragment `#check`, used by the browser test): label
  // boxes as rendered that overlap, and label texts wider than their box,
  // over every sentence drawn so far.
  function check() {
    let pictures = 0, labels = 0, overlaps = 0, overflows = 0;
    for (const svg of main.querySelectorAll("svg.tree")) {
      pictures++;
      const boxes = [];
      for (const g of svg.querySelectorAll("g.l")) {
        const r = g.querySelector("rect").getBoundingClientRect(), t = g.querySelector("text").getBoundingClientRect();
        if (t.width > r.width + 0.5) overflows++;
        boxes.push(r);
      }
      labels += boxes.length;
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i], b = boxes[j];
          if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) overlaps++;
        }
      }
    }
    Object.assign(document.body.dataset, { checkedPictures: pictures, checkedLabels: labels, overlaps, overflows });
  }

  return {
    // Reads the chunk just before the calling script.
    add() {
      const chunk = JSON.parse(document.currentScript.previousElementSibling.textContent);
      const from = S.length;
      let sections = "", items = "";
      for (let j = 0; j < chunk.length; j++) {
        const s = chunk[j], i = from + j;
        S.push(s);
        sections += '<section class="s" id="s' + i + '" style="height:' + (s[4] + HEADING + 8) + 'px"><div class="h">' +
          heading(s) + "</div></section>";
        items += '<a href="#" data-i="' + i + '" title="' + esc(s[0]) + '">' + (F.length > 1 && s[1] ? "<b>" + s[1] + "</b>" : "") +
          (s[2].includes(0) ? "<i>np</i>" : s[2].length ? '<i class="other">(np)</i>' : "") + esc(s[0]) + "</a>";
      }
      main.insertAdjacentHTML("beforeend", sections);
      list.insertAdjacentHTML("beforeend", items);
      apply(from);
      for (let i = from; i < S.length; i++) observer.observe(secs[i]);
      if (!firstScreen) {
        drawVisible();
        const last = S.length ? secs[S.length - 1].getBoundingClientRect().top : 0;
        if (last > main.getBoundingClientRect().bottom) {
          firstScreen = true;
          document.body.dataset.firstScreen = performance.now().toFixed(0);
        }
      }
    },
    finish() {
      finished = true;
      apply(0);
      drawVisible();
      if (!firstScreen) document.body.dataset.firstScreen = performance.now().toFixed(0);
      document.body.dataset.ready = "1";
      if (new URLSearchParams(location.hash.slice(1)).has("check")) setTimeout(check, 300);
    },
  };
})();
