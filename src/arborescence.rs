//! The maximum spanning arborescence (Chu & Liu 1965; Edmonds 1967): the
//! highest-scoring dependency tree over positions 0 … n rooted at 0, any
//! tree (projective or not), as MST parsing uses it (McDonald et al. 2005).
//!
//! [`max_arborescence`] picks each word's best head; while the chosen arcs
//! hold a cycle, it contracts the cycle into one of its nodes, in place in
//! the one score table (an arc entering the cycle at v scores what it gains
//! over v's cycle arc; an arc leaving it, the best from any cycle node),
//! recording for each node outside the cycle which cycle node its arcs
//! stand for; once no cycle remains it expands the contractions in reverse
//! (Tarjan 1977's iterative form). After a contraction only the heads that
//! were cycle nodes change (to the contracted node) and the contracted node
//! chooses its head again, so a contraction costs O(n · cycle length) and
//! the whole O(n²) time (the cycles hold at most 2n nodes in all), O(n²)
//! memory: the table and the records, at most n entries per contraction.
//! [`max_single_root_tree`] also requires one child of the root: every root
//! arc is penalised by more than any tree can score, so the best tree has
//! one root arc, and the best such tree wins.
//!
//! Scores are exact integers ([`i64`], the ensemble's votes) or reals
//! ([`f64`], a model's arc scores, −∞ for an arc that may not be used):
//! any [`ArcScore`].

use std::ops::Sub;

/// The scores the arborescence compares: a total order on the values in
/// use, with differences, and one value below every arc, [`ArcScore::NONE`]
/// ("no arc").
pub trait ArcScore: Copy + PartialOrd + Sub<Output = Self> {
    /// Below every arc's score: no arc.
    const NONE: Self;
    /// The penalty of [`max_single_root_tree`]: more than any two trees of
    /// `nodes` nodes with arc scores of magnitude at most `span` differ by.
    fn penalty(nodes: usize, span: Self) -> Self;
    /// |self|.
    fn magnitude(self) -> Self;
    /// The zero score.
    fn zero() -> Self;
}

impl ArcScore for i64 {
    const NONE: i64 = i64::MIN / 4;
    fn penalty(nodes: usize, span: i64) -> i64 {
        2 * nodes as i64 * span + 1
    }
    fn magnitude(self) -> i64 {
        self.abs()
    }
    fn zero() -> i64 {
        0
    }
}

impl ArcScore for f64 {
    const NONE: f64 = f64::NEG_INFINITY;
    fn penalty(nodes: usize, span: f64) -> f64 {
        2.0 * nodes as f64 * span + 1.0
    }
    fn magnitude(self) -> f64 {
        self.abs()
    }
    fn zero() -> f64 {
        0.0
    }
}

/// The heads of words 1 … n (0: the root) of a highest-scoring tree rooted
/// at 0, where `score[h * (n + 1) + d]` is the score of the arc h → d
/// (self-arcs and arcs into 0 are ignored; a score of [`ArcScore::NONE`] or
/// below forbids the arc). Ties: any best tree.
///
/// # Panics
/// If no tree of allowed arcs exists (every word must be reachable from 0;
/// [`has_tree`] tells), or, for `i64`, if the sums overflow.
///
/// # Complexity
/// O(n²) time and memory.
pub fn max_arborescence<S: ArcScore>(n: usize, score: &[S]) -> Vec<usize> {
    assert_eq!(score.len(), (n + 1) * (n + 1), "a score per (head, dependent)");
    let nodes = n + 1;
    let mut s = vec![S::NONE; nodes * nodes];
    for h in 0..nodes {
        for d in 1..nodes {
            if h != d && score[h * nodes + d] > S::NONE {
                s[h * nodes + d] = score[h * nodes + d];
            }
        }
    }
    let heads = solve(nodes, s);
    heads[1..].to_vec()
}

/// [`max_arborescence`] with exactly one word attached to the root (UD's
/// trees). For `f64` the penalty costs the comparisons between trees about
/// 10⁻¹⁶ · n · (the largest |score|) of precision. O(n²).
///
/// # Panics
/// As [`max_arborescence`]. If every tree of allowed arcs gives the root
/// several children, the tree returned does too.
pub fn max_single_root_tree<S: ArcScore>(n: usize, score: &[S]) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    let nodes = n + 1;
    let span = score
        .iter()
        .enumerate()
        .filter(|&(i, &x)| i / nodes != i % nodes && i % nodes != 0 && x > S::NONE)
        .map(|(_, &x)| x.magnitude())
        .fold(S::zero(), |a, b| if b > a { b } else { a });
    // More than any two trees can differ by: one root arc fewer always wins.
    let penalty = S::penalty(nodes, span);
    let mut s = score.to_vec();
    // The arcs 0 → d, d ≥ 1: the first row.
    for x in &mut s[1..nodes] {
        if *x > S::NONE {
            *x = *x - penalty;
        }
    }
    max_arborescence(n, &s)
}

/// Whether some tree rooted at 0 uses only allowed arcs (scores above
/// [`ArcScore::NONE`]): every word reachable from 0. O(n²).
pub fn has_tree<S: ArcScore>(n: usize, score: &[S]) -> bool {
    let nodes = n + 1;
    let mut reached = vec![false; nodes];
    reached[0] = true;
    let mut stack = vec![0];
    while let Some(h) = stack.pop() {
        for d in 1..nodes {
            if !reached[d] && d != h && score[h * nodes + d] > S::NONE {
                reached[d] = true;
                stack.push(d);
            }
        }
    }
    reached.iter().all(|&r| r)
}

/// One contraction of a cycle into its node `rep`: the cycle's nodes with
/// their cycle heads, and for each node u outside it (then alive): the
/// cycle node that the best arc u → cycle enters and the one that the best
/// arc cycle → u leaves from.
struct Contraction {
    rep: usize,
    cycle: Vec<(usize, usize)>,
    outside: Vec<(usize, usize, usize)>,
}

/// The best arborescence rooted at 0 of the complete graph on `nodes`
/// nodes with scores `s` (NONE: no arc; every node but 0 has an arc from
/// 0); heads[0] = 0. Contracts in place in `s`.
fn solve<S: ArcScore>(nodes: usize, mut s: Vec<S>) -> Vec<usize> {
    let mut alive = vec![true; nodes];
    let mut best = vec![0usize; nodes];
    let mut history = Vec::new();
    let choose = |s: &[S], alive: &[bool], d: usize| -> usize {
        let mut b = None;
        for h in (0..nodes).filter(|&h| h != d && alive[h]) {
            if s[h * nodes + d] > S::NONE && b.is_none_or(|b: usize| s[h * nodes + d] > s[b * nodes + d]) {
                b = Some(h);
            }
        }
        b.expect("every node has an arc from the root")
    };
    for (d, b) in best.iter_mut().enumerate().skip(1) {
        *b = choose(&s, &alive, d);
    }
    let mut in_cycle = vec![false; nodes];
    while let Some(cycle) = find_cycle(&best, &alive) {
        let rep = cycle[0];
        cycle.iter().for_each(|&v| in_cycle[v] = true);
        let mut outside = Vec::new();
        let mut into = Vec::new();
        let mut from = Vec::new();
        for u in (0..nodes).filter(|&u| alive[u] && !in_cycle[u]) {
            // u → cycle: the arc that gains most over its cycle arc.
            let (mut gain, mut enter) = (S::NONE, cycle[0]);
            for &v in &cycle {
                let x = s[u * nodes + v];
                if x > S::NONE && x - s[best[v] * nodes + v] > gain {
                    (gain, enter) = (x - s[best[v] * nodes + v], v);
                }
            }
            // cycle → u: the best arc out of the cycle.
            let (mut out, mut leave) = (S::NONE, cycle[0]);
            if u != 0 {
                for &w in &cycle {
                    if s[w * nodes + u] > out {
                        (out, leave) = (s[w * nodes + u], w);
                    }
                }
            }
            outside.push((u, enter, leave));
            into.push(gain);
            from.push(out);
        }
        for (k, &(u, _, _)) in outside.iter().enumerate() {
            s[u * nodes + rep] = into[k];
            s[rep * nodes + u] = from[k];
        }
        for &v in &cycle[1..] {
            alive[v] = false;
        }
        let cycle_heads = cycle.iter().map(|&v| (v, best[v])).collect();
        // Only the heads in the cycle change: an arc from the cycle now
        // leaves `rep` with the best score of its nodes' (no other head's
        // best changes, since it already beat every cycle node), and `rep`
        // chooses among the arcs into the cycle.
        for &(u, _, _) in &outside {
            if u != 0 && in_cycle[best[u]] {
                best[u] = rep;
            }
        }
        best[rep] = choose(&s, &alive, rep);
        cycle.iter().for_each(|&v| in_cycle[v] = false);
        history.push(Contraction { rep, cycle: cycle_heads, outside });
    }
    let mut heads = best;
    heads[0] = 0;
    // Expand, the last contraction first: a head `rep` of a node outside
    // the cycle stands for the cycle node its best arc leaves from; the
    // cycle keeps its arcs but one, the arc into the node entered.
    for c in history.iter().rev() {
        let entering = heads[c.rep];
        for &(u, _, leave) in &c.outside {
            if u != 0 && heads[u] == c.rep {
                heads[u] = leave;
            }
        }
        let enter = c.outside.iter().find(|o| o.0 == entering).expect("the cycle's head is outside it").1;
        for &(v, cycle_head) in &c.cycle {
            heads[v] = if v == enter { entering } else { cycle_head };
        }
    }
    heads
}

/// A cycle of the graph where each `alive` node d ≥ 1 points to
/// `head[d]` (node 0 is the root), if any. O(n).
fn find_cycle(head: &[usize], alive: &[bool]) -> Option<Vec<usize>> {
    let n = head.len();
    // 0: unvisited, 1: on the current path, 2: done.
    let mut state = vec![0u8; n];
    state[0] = 2;
    let mut path = Vec::new();
    for start in (1..n).filter(|&v| alive[v]) {
        path.clear();
        let mut v = start;
        while state[v] == 0 {
            state[v] = 1;
            path.push(v);
            v = head[v];
        }
        if state[v] == 1 {
            let at = path.iter().position(|&x| x == v).expect("on the path");
            return Some(path[at..].to_vec());
        }
        path.iter().for_each(|&x| state[x] = 2);
    }
    None
}
