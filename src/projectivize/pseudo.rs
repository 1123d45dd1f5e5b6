//! Pseudo-projective encoding and decoding (Nivre & Nilsson 2005): the
//! DEPREL of every word that projectivization moved says how to find its
//! original head again, so that a projective parser trained on the encoded
//! trees can output non-projective ones after [`decode`].
//!
//! # The label format
//!
//! MaltParser's, when it merges its pseudo-projective columns into DEPREL
//! (Nivre & Nilsson's d↑h is written `d|h`, their p↓ is `p%`):
//!
//! | DEPREL | meaning | schemes |
//! |---|---|---|
//! | `d\|h` | a moved word of relation `d`; its original head has relation `h` | head, head+path |
//! | `d\|` | a moved word of relation `d`: its original head is at the end of the marked path, or the root position 0 if there is none | path; all schemes for a word whose original head is 0 |
//! | `p%` | a word on the path from a moved word's new head to its original head | path, head+path |
//! | `d\|h%`, `d\|%` | both | path, head+path |
//!
//! `h` is the original DEPREL of the original head (never an encoded one).
//! The root position 0 has no relation: a word moved away from it is
//! written `d|` in every scheme (with the path scheme, that is also the
//! label of a word moved away from a word; the decoder tells them apart by
//! the marks).
//!
//! # Where the original head is
//!
//! Lifting (Nivre & Nilsson 2005, [`lift`](super::lift)) moves a word from
//! its head to its head's head, so the new head is an ancestor of the
//! original one, and their search looks among the new head's descendants.
//! Optimal projectivization (Nederhof 2019) may attach a word anywhere: the
//! new head h′ need not be an ancestor of the original head g. Both are
//! covered by marking, and searching, the tree path from h′ to g:
//!
//! * **Encoding** marks (`%`) every word on the path from g up to, not
//!   including, the lowest common ancestor a of h′ and g in the projective
//!   tree. For lifting, a = h′ and these are exactly the words whose arcs
//!   the lifts went up through, as in Nivre & Nilsson.
//! * **Decoding** searches level by level, climbing from h′: level 0 is the
//!   subtree of h′ (h′ excluded), level k ≥ 1 is the k-th ancestor a_k of h′
//!   and then its subtree less that of a_(k−1). Within a level, breadth first,
//!   each node's children nearest to the moved word first (MaltParser's
//!   order). The moved word's own subtree is never searched, so the result is
//!   always a tree. Level 0 alone is Nivre & Nilsson's search.
//!
//! What a level looks for, by what the label of the moved word d carries:
//!
//! * `d|h` (head): the first word whose relation is `h`. With marks present
//!   (head+path), first the marked words reachable from the level's top
//!   through marked words only: the first with relation `h` and no marked
//!   child, else the first with relation `h`; if no level has one, the
//!   plain head search.
//! * `d|` (path, or a word moved away from the root): if some moved word of
//!   the sentence names a relation (`d|h`, a head scheme), the root position
//!   0; else the first marked word without marked children, following marked
//!   words only, and if no level has a marked word, the root position 0.
//!
//! Moved words are resolved top-down (preorder of the current tree), in
//! passes until a pass resolves none (a word whose original head was moved
//! itself may need its head's decoding first); a word whose search fails
//! keeps its head. Every DEPREL comes back plain.
//!
//! # What is guaranteed
//!
//! * **head** and **head+path** restore the original tree from *any* pair of
//!   trees (original, moved) over the same words — lifting's, the optimal
//!   projectivization's, or any other — when the words' relations are
//!   pairwise distinct: the head's relation then names the head, every word
//!   outside the moved word's subtree is searched, and while some moved word
//!   waits for its head to leave its subtree, another one (inside that
//!   subtree, following the original heads) can be resolved, so every pass
//!   makes progress. `tests/pseudo_projective.rs` checks it for lifting and
//!   optimal projectivization on every tree of up to 6 words (7 for the
//!   table of `docs/projectivize.md`), and for those and a random other tree
//!   on random trees of up to 30 words.
//! * With repeated relations neither is exact (a nearer word may have the
//!   same relation); head+path, which searches the marked path first, is
//!   right more often than head.
//! * **path** is not exact even with distinct relations: the marked paths
//!   of two moved words may meet, and the first path end found may be the
//!   other word's.
//! * Always: decoding moves only words marked as moved, never fails on any
//!   label (a DEPREL that is not of the forms above is kept as it is and
//!   counted in [`Decoded::malformed`]), and returns a tree.
//!
//! The exhaustive counts, per method, scheme and number of distinct
//! relations, are in `docs/projectivize.md`.
//!
//! Complexity: [`encode`] O(n + Σ path lengths); [`decode`] O(n) per moved
//! word and pass.

use crate::conllu::{ConlluError, Sentence};
use crate::tree::DepTree;
use std::collections::VecDeque;

/// The mark of a moved word (Nivre & Nilsson's ↑), between its relation and
/// the relation of its original head.
pub const MOVED: char = '|';
/// The mark of a word on a moved word's path (Nivre & Nilsson's ↓), at the
/// end of the DEPREL.
pub const PATH: char = '%';

/// What the DEPREL of a moved word carries (Nivre & Nilsson 2005, Sec. 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// `d|h`: the relation of the original head.
    Head,
    /// `d|` on the moved word, `p%` on the path to its original head.
    Path,
    /// Both: `d|h` and `p%`.
    HeadPath,
}

impl Scheme {
    /// All schemes, in the order of the documentation.
    pub const ALL: [Scheme; 3] = [Scheme::Head, Scheme::Path, Scheme::HeadPath];

    /// The name used on the command line and in model files: `head`,
    /// `path`, `head+path`.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Head => "head",
            Scheme::Path => "path",
            Scheme::HeadPath => "head+path",
        }
    }

    /// The scheme of a [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<Scheme> {
        Scheme::ALL.into_iter().find(|s| s.name() == name)
    }

    fn has_head(self) -> bool {
        matches!(self, Scheme::Head | Scheme::HeadPath)
    }

    fn has_path(self) -> bool {
        matches!(self, Scheme::Path | Scheme::HeadPath)
    }
}

impl std::fmt::Display for Scheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a sentence cannot be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PseudoError {
    /// The projective tree and the original do not have the same words.
    #[error("the original tree has {original} words but the projective one {projective}")]
    Lengths { original: usize, projective: usize },
    /// Not one label per word.
    #[error("the sentence has {words} words but {labels} labels")]
    Labels { words: usize, labels: usize },
    /// A relation with a character the encoding uses as a mark: the
    /// encoded label could not be read back.
    #[error(
        "DEPREL `{}` of word {word} contains `{mark}`, which the pseudo-projective encoding uses to mark moved words",
        crate::shown::shown(.label)
    )]
    Reserved { word: usize, label: String, mark: char },
    /// An empty relation.
    #[error("the DEPREL of word {word} is empty")]
    Empty { word: usize },
    /// Decoding would look at more than [`search_budget`] words: labels
    /// crafted so that many moved words each search the whole tree.
    #[error(
        "decoding the pseudo-projective labels would look at more than {budget} words \
         ({moved} moved words, most searching the whole tree of {words}): \
         these are not labels a pseudo-projective parser writes"
    )]
    SearchBudget { words: usize, moved: usize, budget: usize },
}

/// How many words [`decode`] may look at for a sentence of `n` words: 64
/// per word and 4 million more. Decoding a parser's output looks at a few
/// times n (a moved word's search stops near its head); labels crafted so
/// that every word is moved and searches the whole tree would need n² or
/// more, and are refused within this bound instead.
pub fn search_budget(n: usize) -> usize {
    4_000_000 + 64 * n
}

/// The encoded labels of a sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// The DEPREL of word i + 1.
    pub labels: Vec<String>,
    /// Words whose head the projective tree changed (all marked `d|…`).
    pub moved: usize,
}

/// Encodes the move from `original` to `projective` (any two trees over the
/// same words; normally the second is [`lift`](super::lift)'s or the
/// optimal projectivization of the first) in the relations `labels` of
/// `original` (see the [module documentation](self)). O(n + Σ path lengths).
///
/// ```
/// use tabula::projectivize::lift;
/// use tabula::projectivize::pseudo::{decode, encode, Scheme};
/// use tabula::tree::DepTree;
/// let gold = DepTree::from_heads(&[0, 1, 5, 2, 1]).unwrap(); // 5 -> 3 and 2 -> 4 cross
/// let lifted = lift(&gold); // both lifted to 1
/// let labels = ["root", "acl", "obj", "obl", "conj"];
/// let e = encode(&gold, &lifted, &labels, Scheme::HeadPath).unwrap();
/// assert_eq!(e.labels, ["root", "acl%", "obj|conj", "obl|acl", "conj%"]);
/// let back = decode(&lifted, &e.labels).unwrap();
/// assert_eq!(back.tree, gold);
/// assert_eq!(back.labels, labels);
/// ```
pub fn encode<S: AsRef<str>>(
    original: &DepTree,
    projective: &DepTree,
    labels: &[S],
    scheme: Scheme,
) -> Result<Encoded, PseudoError> {
    let n = original.len();
    if projective.len() != n {
        return Err(PseudoError::Lengths { original: n, projective: projective.len() });
    }
    if labels.len() != n {
        return Err(PseudoError::Labels { words: n, labels: labels.len() });
    }
    for (i, l) in labels.iter().enumerate() {
        let l = l.as_ref();
        if l.is_empty() {
            return Err(PseudoError::Empty { word: i + 1 });
        }
        if let Some(mark) = l.chars().find(|&c| c == MOVED || c == PATH) {
            return Err(PseudoError::Reserved { word: i + 1, label: l.to_owned(), mark });
        }
    }
    let head = |d: usize| projective.head(d);
    let mut moved_head: Vec<Option<&str>> = vec![None; n + 1];
    let mut is_moved = vec![false; n + 1];
    let mut on_path = vec![false; n + 1];
    // stamp[v] == d: v is an ancestor-or-self of d's new head.
    let mut stamp = vec![0usize; n + 1];
    let mut moved = 0;
    for d in 1..=n {
        let (g, new) = (original.head(d), projective.head(d));
        if g == new {
            continue;
        }
        moved += 1;
        is_moved[d] = true;
        if g == 0 {
            continue; // `d|`: nothing to name, no path below the root
        }
        if scheme.has_head() {
            moved_head[d] = Some(labels[g - 1].as_ref());
        }
        if scheme.has_path() {
            let mut v = new;
            loop {
                stamp[v] = d;
                if v == 0 {
                    break;
                }
                v = head(v);
            }
            let mut v = g;
            while stamp[v] != d {
                on_path[v] = true;
                v = head(v);
            }
        }
    }
    let labels = (1..=n)
        .map(|d| {
            let mut l = labels[d - 1].as_ref().to_owned();
            if is_moved[d] {
                l.push(MOVED);
                l.push_str(moved_head[d].unwrap_or(""));
            }
            if on_path[d] {
                l.push(PATH);
            }
            l
        })
        .collect();
    Ok(Encoded { labels, moved })
}

/// The words whose arc in `tree` is non-projective: some word strictly
/// between the word and its head is not a descendant of the head. Sorted.
/// O(n log n): an Euler tour, and range minima and maxima of its entry
/// times over the words an arc spans.
pub fn nonprojective_words(tree: &DepTree) -> Vec<usize> {
    let n = tree.len();
    let heads: Vec<usize> = std::iter::once(DepTree::NO_HEAD).chain(tree.heads().iter().copied()).collect();
    let mut children = vec![Vec::new(); n + 1];
    let (mut enter, mut leave) = (vec![0usize; n + 1], vec![0usize; n + 1]);
    super::lift::euler_tour(&heads, &mut children, &mut enter, &mut leave);
    // Every word strictly between h and d is below h iff their entry times
    // all lie inside h's (entered after h, left before): the least and the
    // greatest entry time over the range, from sparse tables.
    let least = SparseTable::new(&enter, usize::min);
    let greatest = SparseTable::new(&enter, usize::max);
    (1..=n)
        .filter(|&d| {
            let h = tree.head(d);
            let (lo, hi) = (h.min(d), h.max(d));
            lo + 1 < hi && (least.query(lo + 1, hi) <= enter[h] || greatest.query(lo + 1, hi) >= leave[h])
        })
        .collect()
}

/// Range minima (or maxima) of a slice in O(1) after O(n log n).
struct SparseTable {
    rows: Vec<Vec<usize>>,
    pick: fn(usize, usize) -> usize,
}

impl SparseTable {
    fn new(values: &[usize], pick: fn(usize, usize) -> usize) -> SparseTable {
        let mut rows = vec![values.to_vec()];
        let mut width = 1;
        while 2 * width <= values.len() {
            let last = &rows[rows.len() - 1];
            let next: Vec<usize> = (0..=values.len() - 2 * width).map(|i| pick(last[i], last[i + width])).collect();
            rows.push(next);
            width *= 2;
        }
        SparseTable { rows, pick }
    }

    /// `pick` over `values[from..to]` (`from < to`).
    fn query(&self, from: usize, to: usize) -> usize {
        let k = (usize::BITS - 1 - (to - from).leading_zeros()) as usize;
        let row = &self.rows[k];
        (self.pick)(row[from], row[to - (1 << k)])
    }
}

/// One label read back: its plain relation and its marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark<'a> {
    /// The relation without marks (the whole label if it is malformed).
    pub plain: &'a str,
    /// `Some(h)` for `d|h`, `Some("")` for `d|`, `None` if not moved.
    pub moved: Option<&'a str>,
    /// Whether the label ends in `%`.
    pub path: bool,
    /// Whether the label contains a mark character but is not of the form
    /// `d`, `d|h`, `d|`, each optionally followed by one `%`, with `d`
    /// non-empty and neither `d` nor `h` containing `|` or `%`.
    pub malformed: bool,
}

impl<'a> Mark<'a> {
    /// Reads a label. Never fails: a malformed label is its own plain
    /// relation, without marks. O(length).
    pub fn parse(label: &'a str) -> Mark<'a> {
        let plain_only = Mark { plain: label, moved: None, path: false, malformed: false };
        if !label.contains([MOVED, PATH]) {
            return plain_only;
        }
        let malformed = Mark { malformed: true, ..plain_only };
        let (rest, path) = match label.strip_suffix(PATH) {
            Some(rest) => (rest, true),
            None => (label, false),
        };
        let (plain, moved) = match rest.split_once(MOVED) {
            Some((d, h)) => (d, Some(h)),
            None => (rest, None),
        };
        let clean = |s: &str| !s.contains([MOVED, PATH]);
        if plain.is_empty() || !clean(plain) || !moved.is_none_or(clean) {
            return malformed;
        }
        Mark { plain, moved, path, malformed: false }
    }
}

/// The labels with their marks removed. O(total length).
pub fn plain_labels<S: AsRef<str>>(labels: &[S]) -> Vec<String> {
    labels.iter().map(|l| Mark::parse(l.as_ref()).plain.to_owned()).collect()
}

/// A decoded sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The tree with the moved words reattached.
    pub tree: DepTree,
    /// The plain DEPREL of word i + 1 (marks removed).
    pub labels: Vec<String>,
    /// Words marked as moved (`d|…`).
    pub moved: usize,
    /// Of those, the ones whose search found a head (the others keep theirs).
    pub reattached: usize,
    /// Labels that contain `|` or `%` but not in the encoding's forms: kept
    /// unchanged, as plain relations.
    pub malformed: usize,
}

/// Undoes [`encode`] on any tree with encoded labels (a parser's output
/// included; see the [module documentation](self) for the search).
/// Errors if there is not one label per word, or if decoding would look at
/// more than [`search_budget`] words (so O(n) time on any labels). A moved
/// word whose search cannot succeed (no word has the relation it names, no
/// word is marked) is answered without looking, so that labels such as
/// `a|nowhere` on every word cost O(n) in all.
pub fn decode<S: AsRef<str>>(tree: &DepTree, labels: &[S]) -> Result<Decoded, PseudoError> {
    let n = tree.len();
    if labels.len() != n {
        return Err(PseudoError::Labels { words: n, labels: labels.len() });
    }
    let marks: Vec<Mark<'_>> = labels.iter().map(|l| Mark::parse(l.as_ref())).collect();
    let malformed = marks.iter().filter(|m| m.malformed).count();
    let moved = marks.iter().filter(|m| m.moved.is_some()).count();
    let mut search = Search::new(tree, &marks);
    let budget = search_budget(n);
    search.left = budget;
    let mut pending: Vec<bool> = std::iter::once(false).chain(marks.iter().map(|m| m.moved.is_some())).collect();
    let mut reattached = 0;
    let mut order = Vec::with_capacity(n + 1);
    loop {
        let before = reattached;
        search.preorder(&mut order);
        search.spend(order.len());
        for &d in &order {
            if !pending[d] {
                continue;
            }
            let found = search.find(d);
            if search.left == 0 {
                return Err(PseudoError::SearchBudget { words: n, moved, budget });
            }
            if let Some(h) = found {
                if search.heads[d] != h {
                    search.heads[d] = h;
                    search.dirty = true;
                }
                pending[d] = false;
                reattached += 1;
            }
        }
        if reattached == before || !pending.contains(&true) {
            break;
        }
    }
    let tree = DepTree::from_positions(&search.heads).expect("decoding never attaches a word inside its own subtree");
    let labels = marks.iter().map(|m| m.plain.to_owned()).collect();
    Ok(Decoded { tree, labels, moved, reattached, malformed })
}

/// The decoder's working state: the current heads and scratch space.
struct Search<'m, 'a> {
    /// Head of every position (position 0: [`DepTree::NO_HEAD`]).
    heads: Vec<usize>,
    marks: &'m [Mark<'a>],
    /// Whether some moved word names its head's relation (`d|h`): then the
    /// sentence was encoded with a head scheme, and `d|` means the root.
    named: bool,
    children: Vec<Vec<usize>>,
    /// Whether `heads` changed since `children` was built.
    dirty: bool,
    /// How many words have each plain relation, and how many are marked
    /// (`%`): a search for a relation no word has, or along marks where
    /// there are none, fails without looking.
    relations: std::collections::HashMap<&'a str, usize>,
    marked: usize,
    /// `inside[v] == stamp`: v is in the moved word's subtree.
    inside: Vec<u32>,
    stamp: u32,
    queue: VecDeque<usize>,
    buf: Vec<usize>,
    /// Words decoding may still look at (see [`search_budget`]); at 0 every
    /// search fails at once and `decode` returns the error.
    left: usize,
}

/// What a level of the search looks for.
#[derive(Clone, Copy)]
enum Want<'a> {
    /// The first word of relation `h`.
    Relation(&'a str),
    /// Along marked words: the first without marked children (of relation
    /// `h`, if given; else, the first of relation `h` at all).
    Path(Option<&'a str>),
}

impl<'m, 'a> Search<'m, 'a> {
    fn new(tree: &DepTree, marks: &'m [Mark<'a>]) -> Self {
        let n = tree.len();
        let mut heads = Vec::with_capacity(n + 1);
        heads.push(DepTree::NO_HEAD);
        heads.extend_from_slice(tree.heads());
        Search {
            heads,
            marks,
            named: marks.iter().any(|m| m.moved.is_some_and(|h| !h.is_empty())),
            children: vec![Vec::new(); n + 1],
            dirty: true,
            relations: marks.iter().fold(std::collections::HashMap::new(), |mut m, mark| {
                *m.entry(mark.plain).or_insert(0) += 1;
                m
            }),
            marked: marks.iter().filter(|m| m.path).count(),
            inside: vec![0; n + 1],
            stamp: 0,
            queue: VecDeque::new(),
            buf: Vec::new(),
            left: usize::MAX,
        }
    }

    /// Counts `words` looked at against the budget; false once it is spent.
    fn spend(&mut self, words: usize) -> bool {
        self.left = self.left.saturating_sub(words);
        self.left > 0
    }

    /// The children of every position, from `heads`, unless up to date. O(n).
    fn rebuild_children(&mut self) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        for c in &mut self.children {
            c.clear();
        }
        for d in 1..self.heads.len() {
            self.children[self.heads[d]].push(d);
        }
    }

    /// The positions in preorder (children left to right) of the current tree.
    fn preorder(&mut self, order: &mut Vec<usize>) {
        self.rebuild_children();
        order.clear();
        let mut stack = vec![0usize];
        while let Some(v) = stack.pop() {
            order.push(v);
            stack.extend(self.children[v].iter().rev());
        }
    }

    fn relation(&self, v: usize) -> Option<&'a str> {
        (v >= 1).then(|| self.marks[v - 1].plain)
    }

    fn marked(&self, v: usize) -> bool {
        v >= 1 && self.marks[v - 1].path
    }

    /// The original head of the moved word `d`, if the search finds one.
    fn find(&mut self, d: usize) -> Option<usize> {
        let moved = self.marks[d - 1].moved?;
        // Answers that need no search (the same as the search's).
        let no_marks = self.marked == 0;
        if moved.is_empty() && (self.named || no_marks) {
            return Some(0);
        }
        if !moved.is_empty() && no_marks && !self.relations.contains_key(moved) {
            return None;
        }
        self.rebuild_children();
        // Mark d's subtree: never searched.
        self.stamp += 1;
        let mut stack = vec![d];
        while let Some(v) = stack.pop() {
            self.inside[v] = self.stamp;
            stack.extend_from_slice(&self.children[v]);
            if !self.spend(1) {
                return None;
            }
        }
        if moved.is_empty() {
            if self.named {
                return Some(0);
            }
            return self.climb(d, Want::Path(None)).or(Some(0));
        }
        self.climb(d, Want::Path(Some(moved))).or_else(|| self.climb(d, Want::Relation(moved)))
    }

    /// Level by level from d's head up to the root (module documentation).
    fn climb(&mut self, d: usize, want: Want<'a>) -> Option<usize> {
        let mut top = self.heads[d];
        let mut below: Option<usize> = None;
        loop {
            if let Some(found) = self.level(d, top, below, want) {
                return Some(found);
            }
            if top == 0 || self.left == 0 {
                return None;
            }
            below = Some(top);
            top = self.heads[top];
        }
    }

    /// The children of `v` that may be searched (not d's subtree, not the
    /// level below), nearest to `d` first, into `self.buf`.
    fn searchable_children(&mut self, v: usize, d: usize, below: Option<usize>, marked_only: bool) {
        self.buf.clear();
        if !self.spend(1 + self.children[v].len()) {
            return;
        }
        for &c in &self.children[v] {
            if self.inside[c] != self.stamp && Some(c) != below && (!marked_only || self.marked(c)) {
                self.buf.push(c);
            }
        }
        self.buf.sort_by_key(|&c| (c.abs_diff(d), c));
    }

    fn level(&mut self, d: usize, top: usize, below: Option<usize>, want: Want<'a>) -> Option<usize> {
        self.queue.clear();
        match want {
            Want::Relation(h) => {
                if below.is_some() && self.relation(top) == Some(h) {
                    return Some(top);
                }
                self.searchable_children(top, d, below, false);
                self.queue.extend(self.buf.iter().copied());
                while let Some(v) = self.queue.pop_front() {
                    if self.relation(v) == Some(h) {
                        return Some(v);
                    }
                    self.searchable_children(v, d, None, false);
                    self.queue.extend(self.buf.iter().copied());
                }
                None
            }
            Want::Path(h) => {
                let mut second = None;
                self.searchable_children(top, d, below, true);
                self.queue.extend(self.buf.iter().copied());
                while let Some(v) = self.queue.pop_front() {
                    self.searchable_children(v, d, None, true);
                    let fits = h.is_none_or(|h| self.relation(v) == Some(h));
                    if fits && self.buf.is_empty() {
                        return Some(v);
                    }
                    if fits && second.is_none() {
                        second = Some(v);
                    }
                    self.queue.extend(self.buf.iter().copied());
                }
                second.filter(|_| h.is_some())
            }
        }
    }
}

/// A CoNLL-U block rewritten by [`encode_block`], and its round trip.
pub struct EncodedBlock {
    pub bytes: Vec<u8>,
    pub moved: usize,
    /// Moved words whose original head decoding finds.
    pub restored: usize,
    /// Non-projective arcs of the input, and how many decoding restores.
    pub nonprojective: usize,
    pub nonprojective_restored: usize,
    /// Moved words whose new head is not an ancestor of the original head
    /// in the projective tree (never with lifting), and how many come back.
    pub off_path: usize,
    pub off_path_restored: usize,
}

/// The HEAD and DEPREL ranges of each word of a block and the line of each.
fn word_fields(text: &[u8], first_line: usize) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>, usize)> {
    crate::conllu::fields::field_lines(text)
        .filter(|l| l.is_word(text))
        .filter_map(|l| Some((l.field(6)?, l.field(7)?, first_line + l.index)))
        .collect()
}

/// Encodes the move from the sentence's tree to `tree` in the DEPREL
/// column of its block (`None`: the tree is kept, and only its relations
/// are checked: `Ok(None)`) and measures the round trip (encode, decode)
/// against the sentence's tree, as `tabula projectivize --encode` writes
/// and counts it. Only the HEAD and DEPREL of changed words are rewritten.
/// Errors name the line of the word. O(bytes + n²).
pub fn encode_block(
    sentence: &Sentence,
    tree: Option<&DepTree>,
    scheme: Scheme,
    file: &str,
) -> Result<Option<EncodedBlock>, ConlluError> {
    let raw = sentence.raw();
    let fields = word_fields(&raw.text, raw.first_line);
    let fail = |line: usize, message: String| ConlluError {
        file: file.into(),
        line,
        kind: crate::conllu::ErrorKind::Rejected(message),
    };
    let mut labels = Vec::with_capacity(fields.len());
    for (_, deprel, line) in &fields {
        let text = std::str::from_utf8(&raw.text[deprel.clone()])
            .map_err(|_| fail(*line, "the DEPREL field is not valid UTF-8 (--encode writes it)".into()))?;
        labels.push(text);
    }
    let gold = sentence.tree();
    let moved = tree.unwrap_or(gold);
    let e = encode(gold, moved, &labels, scheme).map_err(|e| {
        let line = match &e {
            PseudoError::Reserved { word, .. } | PseudoError::Empty { word } => fields[word - 1].2,
            _ => raw.first_line,
        };
        fail(line, e.to_string())
    })?;
    let Some(tree) = tree else { return Ok(None) };
    let back = decode(tree, &e.labels).map_err(|e| fail(raw.first_line, e.to_string()))?;
    let changed: Vec<usize> = (1..=gold.len()).filter(|&d| gold.head(d) != tree.head(d)).collect();
    let restored = changed.iter().filter(|&&d| back.tree.head(d) == gold.head(d)).count();
    let above = |a: usize, mut v: usize| {
        while v != 0 && v != a {
            v = tree.head(v);
        }
        v == a
    };
    let off_path: Vec<usize> = changed.iter().copied().filter(|&d| !above(tree.head(d), gold.head(d))).collect();
    let off_path_restored = off_path.iter().filter(|&&d| back.tree.head(d) == gold.head(d)).count();
    let nonprojective_words = nonprojective_words(gold);
    let nonprojective_restored = nonprojective_words.iter().filter(|&&d| back.tree.head(d) == gold.head(d)).count();
    let mut bytes = Vec::with_capacity(raw.text.len() + 16 * changed.len());
    let mut done = 0;
    for (i, (head, deprel, _)) in fields.iter().enumerate() {
        let d = i + 1;
        if tree.head(d) == gold.head(d) && e.labels[i] == labels[i] {
            continue;
        }
        bytes.extend_from_slice(&raw.text[done..head.start]);
        bytes.extend_from_slice(tree.head(d).to_string().as_bytes());
        bytes.push(b'\t');
        bytes.extend_from_slice(e.labels[i].as_bytes());
        done = deprel.end;
    }
    bytes.extend_from_slice(&raw.text[done..]);
    Ok(Some(EncodedBlock {
        bytes,
        moved: changed.len(),
        restored,
        nonprojective: nonprojective_words.len(),
        nonprojective_restored,
        off_path: off_path.len(),
        off_path_restored,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_labels() {
        let m = Mark::parse("obj|nsubj%");
        assert_eq!((m.plain, m.moved, m.path, m.malformed), ("obj", Some("nsubj"), true, false));
        let m = Mark::parse("obj|");
        assert_eq!((m.plain, m.moved, m.path), ("obj", Some(""), false));
        assert_eq!(Mark::parse("nmod:poss").plain, "nmod:poss");
        for bad in ["|", "%", "|x", "a|b|c", "a%%", "a%|b", "a|b%c", "%a"] {
            let m = Mark::parse(bad);
            assert!(m.malformed && m.plain == bad && m.moved.is_none() && !m.path, "{bad}");
        }
    }

    #[test]
    fn lifted_word_comes_back() {
        // 1 -> 3 crosses 0 -> 2: lifting attaches 3 to 0.
        let gold = DepTree::from_heads(&[0, 0, 1]).unwrap();
        let lifted = super::super::lift(&gold);
        for scheme in Scheme::ALL {
            let e = encode(&gold, &lifted, &["a", "b", "c"], scheme).unwrap();
            let d = decode(&lifted, &e.labels).unwrap();
            assert_eq!(d.tree, gold, "{scheme}: {:?}", e.labels);
            assert_eq!(d.labels, ["a", "b", "c"]);
        }
    }
}
