//! The maximum spanning arborescence (Chu & Liu 1965; Edmonds 1967): the
//! highest-scoring dependency tree over positions 0 … n rooted at 0, any
//! tree (projective or not), as MST parsing uses it (McDonald et al. 2005).
//!
//! [`max_arborescence`] picks each word's best head; while the chosen arcs
//! hold a cycle, it contracts the cycle into one node (an arc entering the
//! cycle at v scores what it gains over v's cycle arc), solves the smaller
//! problem and expands. O(n³) (at most n contractions of O(n²) each).
//! [`max_single_root_tree`] also requires one child of the root: every root
//! arc is penalised by more than any tree can score, so the best tree has
//! one root arc, and the best such tree wins.

/// An arc score that no arc has: "no arc".
const NONE: i64 = i64::MIN / 4;

/// The heads of words 1 … n (0: the root) of a highest-scoring tree rooted
/// at 0, where `score[h * (n + 1) + d]` is the score of the arc h → d
/// (self-arcs and arcs into 0 are ignored; every score must be above
/// `i64::MIN / 4` and the sums must fit in i64). Ties: any best tree. O(n³).
pub fn max_arborescence(n: usize, score: &[i64]) -> Vec<usize> {
    assert_eq!(score.len(), (n + 1) * (n + 1), "a score per (head, dependent)");
    let nodes = n + 1;
    let mut s = vec![NONE; nodes * nodes];
    for h in 0..nodes {
        for d in 1..nodes {
            if h != d {
                s[h * nodes + d] = score[h * nodes + d];
            }
        }
    }
    let heads = solve(nodes, &s);
    heads[1..].to_vec()
}

/// [`max_arborescence`] with exactly one word attached to the root (UD's
/// trees). O(n³).
pub fn max_single_root_tree(n: usize, score: &[i64]) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    let nodes = n + 1;
    let span = score
        .iter()
        .enumerate()
        .filter(|&(i, _)| i / nodes != i % nodes && i % nodes != 0)
        .map(|(_, &x)| x.unsigned_abs())
        .max()
        .unwrap_or(0);
    // More than any two trees can differ by: one root arc fewer always wins.
    let penalty = (2 * nodes as u64 * span + 1) as i64;
    let mut s = score.to_vec();
    // The arcs 0 → d, d ≥ 1: the first row.
    for x in &mut s[1..nodes] {
        *x -= penalty;
    }
    max_arborescence(n, &s)
}

/// The best arborescence rooted at 0 of the complete graph on `nodes`
/// nodes with scores `s` (NONE: no arc); heads[0] = 0.
fn solve(nodes: usize, s: &[i64]) -> Vec<usize> {
    // Each node's best incoming arc.
    let mut best = vec![0usize; nodes];
    for d in 1..nodes {
        let mut b = None;
        for h in 0..nodes {
            if h != d && s[h * nodes + d] > NONE && b.is_none_or(|b: usize| s[h * nodes + d] > s[b * nodes + d]) {
                b = Some(h);
            }
        }
        best[d] = b.expect("every node has an incoming arc");
    }
    let Some(cycle) = find_cycle(&best) else { return best };
    // Contract the cycle into node c: the other nodes keep their order.
    let in_cycle = {
        let mut v = vec![false; nodes];
        cycle.iter().for_each(|&x| v[x] = true);
        v
    };
    let outside: Vec<usize> = (0..nodes).filter(|&x| !in_cycle[x]).collect();
    let m = outside.len() + 1;
    let c = m - 1;
    let mut t = vec![NONE; m * m];
    // Which original arc each contracted arc stands for.
    let mut enter = vec![0usize; m]; // u → c: the cycle node entered
    let mut leave = vec![0usize; m]; // c → v: the cycle node left from
    for (a, &u) in outside.iter().enumerate() {
        for (b, &v) in outside.iter().enumerate() {
            if a != b {
                t[a * m + b] = s[u * nodes + v];
            }
        }
        // u → c: the best arc into the cycle, by its gain over the cycle arc.
        for &v in &cycle {
            let x = s[u * nodes + v];
            if x > NONE {
                let gain = x - s[best[v] * nodes + v];
                if gain > t[a * m + c] {
                    t[a * m + c] = gain;
                    enter[a] = v;
                }
            }
        }
        // c → u: the best arc out of the cycle.
        if u != 0 {
            for &w in &cycle {
                let x = s[w * nodes + u];
                if x > t[c * m + a] {
                    t[c * m + a] = x;
                    leave[a] = w;
                }
            }
        }
    }
    let sub = solve(m, &t);
    // Expand.
    let mut heads = best.clone();
    for (b, &v) in outside.iter().enumerate() {
        if v == 0 {
            continue;
        }
        heads[v] = if sub[b] == c { leave[b] } else { outside[sub[b]] };
    }
    let from = sub[c];
    heads[enter[from]] = outside[from];
    heads[0] = 0;
    heads
}

/// A cycle of the graph where each node d ≥ 1 points to `head[d]` (node 0
/// is the root), if any. O(n).
fn find_cycle(head: &[usize]) -> Option<Vec<usize>> {
    let n = head.len();
    // 0: unvisited, 1: on the current path, 2: done.
    let mut state = vec![0u8; n];
    state[0] = 2;
    for start in 1..n {
        let mut path = Vec::new();
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
