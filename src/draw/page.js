"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const S = data.sentences, F = data.files;
  const main = document.getElementById("pictures"), list = document.getElementById("list");
  const search = document.getElementById("search"), count = document.getElementById("count");
  const onlyDiff = document.getElementById("differences"), onlyNp = document.getElementById("nonprojective");
  const HEADING = 22;
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const plural = (n) => n + " difference" + (n === 1 ? "" : "s");

  function heading(s) {
    let h = esc(s[0]);
    if (F.length > 1) h += " · " + plural(s[1]);
    if (s[2]) h += " · non-projective";
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

  // Placeholders as tall as their pictures, so that the page scrolls true.
  let sections = "", items = "";
  for (let i = 0; i < S.length; i++) {
    const s = S[i];
    sections += '<section class="s" id="s' + i + '" style="height:' + (s[4] + HEADING + 8) + 'px"><div class="h">' +
      heading(s) + "</div></section>";
    items += '<a href="#" data-i="' + i + '">' + esc(s[0]) + (F.length > 1 && s[1] ? "<b>" + s[1] + "</b>" : "") +
      (s[2] ? "<i>np</i>" : "") + "</a>";
  }
  main.innerHTML = sections;
  list.innerHTML = items;
  const secs = main.children, links = list.children;
  const drawn = new Uint8Array(S.length);

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
        const i = +e.target.id.slice(1);
        draw(i);
        observer.unobserve(e.target);
      }
    }
  }, { root: main, rootMargin: "600px 0px" });

  // The first screen at once, the rest as it scrolls into view.
  function drawVisible() {
    const bottom = window.innerHeight + 600;
    for (let i = 0; i < S.length; i++) {
      if (secs[i].hidden) continue;
      const r = secs[i].getBoundingClientRect();
      if (r.top > bottom) break;
      if (r.bottom >= -600) draw(i);
    }
  }

  function apply() {
    const q = search.value.trim(), d = onlyDiff.checked, np = onlyNp.checked;
    let shown = 0;
    for (let i = 0; i < S.length; i++) {
      const s = S[i];
      const keep = (!q || s[0].includes(q)) && (!d || s[1] > 0) && (!np || s[2]);
      secs[i].hidden = !keep;
      links[i].hidden = !keep;
      if (keep) shown++;
    }
    count.textContent = shown + " of " + S.length + " sentences";
    document.body.dataset.shown = shown;
    const parts = [];
    if (q) parts.push("search=" + encodeURIComponent(q));
    if (d) parts.push("differences");
    if (np) parts.push("nonprojective");
    const hash = parts.length ? "#" + parts.join("&") : "";
    if (location.hash !== hash) history.replaceState(null, "", hash || location.pathname + location.search);
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
  search.addEventListener("input", apply);
  onlyDiff.addEventListener("change", apply);
  onlyNp.addEventListener("change", apply);
  window.addEventListener("hashchange", () => { fromHash(); apply(); });

  fromHash();
  apply();
  document.body.dataset.firstScreen = performance.now().toFixed(0);
  for (let i = 0; i < S.length; i++) observer.observe(secs[i]);
})();
