//! Pseudo-projective lifting (Nivre & Nilsson 2005), the baseline of
//! Nederhof (2019), Table 6.

use crate::tree::DepTree;

/// Lifts non-projective arcs until the tree is projective: while some arc
/// (h, d) is non-projective (a word strictly between h and d is not a
/// descendant of h), the shortest such arc — ties broken by the leftmost
/// dependent — is replaced by (head(h), d). Arcs from the root are always
/// projective, so this terminates with a projective tree.
///
/// Complexity: O(n) for a projective tree; otherwise O(n²) per lift (an
/// Euler tour gives O(1) ancestor tests) and at most O(n²) lifts (each lift
/// shortens the path from d to the root), in practice a handful.
pub fn lift(gold: &DepTree) -> DepTree {
    if gold.is_projective() {
        return gold.clone();
    }
    let n = gold.len();
    let mut heads: Vec<usize> = std::iter::once(usize::MAX).chain(gold.heads().iter().copied()).collect();
    let mut enter = vec![0usize; n + 1];
    let mut leave = vec![0usize; n + 1];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    loop {
        euler_tour(&heads, &mut children, &mut enter, &mut leave);
        let is_ancestor = |a: usize, b: usize| enter[a] <= enter[b] && leave[b] <= leave[a];
        let mut best: Option<(usize, usize)> = None; // (length, dependent)
        for (d, &h) in heads.iter().enumerate().skip(1) {
            let (lo, hi) = if h < d { (h, d) } else { (d, h) };
            let len = hi - lo;
            if best.is_some_and(|(l, _)| l <= len) {
                continue;
            }
            if (lo + 1..hi).any(|k| !is_ancestor(h, k)) {
                best = Some((len, d));
            }
        }
        match best {
            None => break,
            Some((_, d)) => heads[d] = heads[heads[d]],
        }
    }
    DepTree::from_heads(&heads[1..]).expect("lifting keeps a tree")
}

/// Entry and exit times of a depth-first traversal from 0 of the tree
/// whose head of d is `heads[d]` (d ≥ 1; `heads[0]` is not read): a is an
/// ancestor of b (or b itself) when `enter[a] ≤ enter[b]` and
/// `leave[b] ≤ leave[a]`. `children` is scratch space. O(n).
pub(super) fn euler_tour(heads: &[usize], children: &mut [Vec<usize>], enter: &mut [usize], leave: &mut [usize]) {
    for c in children.iter_mut() {
        c.clear();
    }
    for d in 1..heads.len() {
        children[heads[d]].push(d);
    }
    let mut clock = 0;
    let mut stack = vec![(0usize, 0usize)];
    enter[0] = 0;
    while let Some(&mut (v, ref mut next)) = stack.last_mut() {
        if *next < children[v].len() {
            let c = children[v][*next];
            *next += 1;
            clock += 1;
            enter[c] = clock;
            stack.push((c, 0));
        } else {
            clock += 1;
            leave[v] = clock;
            stack.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifts_the_crossing_arc() {
        // 1 -> 3 crosses 0 -> 2: 3 is lifted to 1's head 0.
        let t = DepTree::from_heads(&[0, 0, 1]).unwrap();
        let l = lift(&t);
        assert!(l.is_projective());
        assert_eq!(l.heads(), &[0, 0, 0]);
    }
}
