//! Brute-force references shared by the integration tests.
//!
//! Everything here is deliberately naive and independent of the engine's
//! recurrences (Nederhof 2019, Table 2):
//!
//! * [`all_trees`] enumerates every head vector and keeps the trees;
//!   [`projective_trees`] keeps those whose every yield is an interval;
//! * [`count_decorations`] counts the derivations of a split bilexical
//!   grammar that build one given tree, by walking each word's chain of
//!   attachment rules over its children (nearest child first);
//! * [`brute_force`] sums, over all projective trees, one copy of the tree's
//!   arc-weight product per derivation;
//! * [`shift_reduce_trees`] simulates every computation of the arc-standard
//!   parser of Table 1 and collects the trees it builds;
//! * [`random_projective`] draws a random projective tree (every projective
//!   tree has positive probability);
//! * [`brute_force_arc_sums`] is [`brute_force`] restricted, for each arc,
//!   to the trees that contain it;
//! * [`brute_force_combo_sums`] lists every derivation of every projective
//!   tree with the rule combinations it uses, and sums their weights per
//!   combination;
//! * [`random_grammar`] draws random split grammars, inputs and weights.
#![allow(dead_code)]

pub mod random_grammar;

use rand::Rng;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};
use tabula::grammar::{Category, Grammar, LeftState, RightState, Terminal};
use tabula::oracle::exhaustive::Exhaustive;
use tabula::oracle::{Configuration, Oracle, Step, StepScores, Strategy, System};
use tabula::semiring::Semiring;
use tabula::tree::DepTree;

/// Every dependency tree over positions 0 … n with root 0, projective or
/// not: all (n+1)ⁿ head vectors, minus those with a self-loop or a cycle.
/// O((n+1)ⁿ · n).
pub fn all_trees(n: usize) -> Vec<DepTree> {
    let mut heads = vec![0usize; n];
    let mut out = Vec::new();
    loop {
        if heads.iter().enumerate().all(|(i, &h)| h != i + 1) {
            if let Ok(t) = DepTree::from_heads(&heads) {
                out.push(t);
            }
        }
        // Odometer over {0 … n}ⁿ.
        let mut i = 0;
        loop {
            if i == n {
                return out;
            }
            heads[i] += 1;
            if heads[i] <= n {
                break;
            }
            heads[i] = 0;
            i += 1;
        }
    }
}

/// Whether the descendants of every node (itself included) form an interval
/// of positions: the definition of projectivity in Sec. 2, checked naively.
pub fn is_projective(tree: &DepTree) -> bool {
    let n = tree.len();
    (0..=n).all(|v| {
        let yield_: Vec<usize> = (0..=n).filter(|&u| is_descendant(tree, u, v)).collect();
        yield_.last().unwrap() - yield_[0] + 1 == yield_.len()
    })
}

/// Whether `u` is `v` or below it.
pub fn is_descendant(tree: &DepTree, mut u: usize, v: usize) -> bool {
    loop {
        if u == v {
            return true;
        }
        if u == 0 {
            return false;
        }
        u = tree.head(u);
    }
}

/// The projective trees over positions 0 … n (n ≤ 7), computed once per n by
/// filtering [`all_trees`].
pub fn projective_trees(n: usize) -> Arc<Vec<DepTree>> {
    type Cache = Mutex<Vec<Option<Arc<Vec<DepTree>>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    assert!(n <= 7, "brute force over (n+1)^n head vectors is for n <= 7");
    let cache = CACHE.get_or_init(|| Mutex::new(vec![None; 8]));
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    cache[n].get_or_insert_with(|| Arc::new(all_trees(n).into_iter().filter(is_projective).collect())).clone()
}

/// Children of `v`: left ones nearest first (descending positions), right
/// ones nearest first (ascending positions).
pub fn children(tree: &DepTree, v: usize) -> (Vec<usize>, Vec<usize>) {
    let n = tree.len();
    let left = (1..v).rev().filter(|&d| tree.head(d) == v).collect();
    let right = (v + 1..=n).filter(|&d| tree.head(d) == v).collect();
    (left, right)
}

/// The number of derivations of `grammar` on `input` whose dependency tree
/// is `tree` (0 if the grammar cannot build it).
///
/// A derivation decorates every word v with a category A_v (the root: the
/// start category) and a finish rule `A_v -> (B, C)`; B must be reached
/// from v's lexical left state by applying, to v's left children taken
/// nearest first, one left attachment rule `(B', _) -> A_c (B, _)` each
/// (the lexical state is the innermost one: derived top-down, the outermost
/// child comes first); likewise C on the right. Every choice (category,
/// finish rule, attachment rule per child) is enumerated explicitly; the
/// count of a word multiplies the counts of its children's subtrees in the
/// categories chosen for them. Exponential in the chain lengths.
pub fn count_decorations(g: &Grammar, input: &[Terminal], tree: &DepTree) -> u128 {
    assert_eq!(input.len(), tree.len() + 1);
    let mut memo = vec![None; input.len() * g.num_categories()];
    subtree_count(g, input, tree, 0, g.start(), &mut memo)
}

fn subtree_count(
    g: &Grammar,
    input: &[Terminal],
    tree: &DepTree,
    v: usize,
    category: Category,
    memo: &mut Vec<Option<u128>>,
) -> u128 {
    let key = v * g.num_categories() + category.index();
    if let Some(c) = memo[key] {
        return c;
    }
    let (left, right) = children(tree, v);
    let (lex_left, lex_right) = g.lexical(input[v]);
    let mut total = 0u128;
    for f in g.finish_rules().iter().filter(|f| f.category == category) {
        let l = left_chains(g, input, tree, &left, lex_left, f.left, memo);
        if l == 0 {
            continue;
        }
        let r = right_chains(g, input, tree, &right, lex_right, f.right, memo);
        total += l * r;
    }
    memo[key] = Some(total);
    total
}

/// Σ over every sequence of left attachment rules taking `state` through the
/// children `kids` (nearest first) to `target`, of the product of the
/// children's subtree counts.
fn left_chains(
    g: &Grammar,
    input: &[Terminal],
    tree: &DepTree,
    kids: &[usize],
    state: LeftState,
    target: LeftState,
    memo: &mut Vec<Option<u128>>,
) -> u128 {
    let Some((&c, rest)) = kids.split_first() else {
        return (state == target) as u128;
    };
    let mut total = 0;
    for rule in g.left_rules().iter().filter(|r| r.from == state) {
        let sub = subtree_count(g, input, tree, c, rule.child, memo);
        if sub != 0 {
            total += sub * left_chains(g, input, tree, rest, rule.to, target, memo);
        }
    }
    total
}

/// The right-hand mirror of [`left_chains`].
fn right_chains(
    g: &Grammar,
    input: &[Terminal],
    tree: &DepTree,
    kids: &[usize],
    state: RightState,
    target: RightState,
    memo: &mut Vec<Option<u128>>,
) -> u128 {
    let Some((&c, rest)) = kids.split_first() else {
        return (state == target) as u128;
    };
    let mut total = 0;
    for rule in g.right_rules().iter().filter(|r| r.from == state) {
        let sub = subtree_count(g, input, tree, c, rule.child, memo);
        if sub != 0 {
            total += sub * right_chains(g, input, tree, rest, rule.to, target, memo);
        }
    }
    total
}

/// Whether the decoration `words[v] = (category, final left state, final
/// right state)` of `tree` is a derivation of `grammar` on `input`: the root
/// has the start category, every word's triple is a finish rule, and some
/// sequence of attachment rules leads from the lexical states through the
/// children's categories (nearest first) to the final states.
pub fn is_derivation(
    g: &Grammar,
    input: &[Terminal],
    tree: &DepTree,
    words: &[(Category, LeftState, RightState)],
) -> bool {
    if words.len() != input.len() || tree.len() + 1 != input.len() || words[0].0 != g.start() {
        return false;
    }
    (0..input.len()).all(|v| {
        let (cat, fl, fr) = words[v];
        if !g.finish_rules().iter().any(|f| (f.category, f.left, f.right) == (cat, fl, fr)) {
            return false;
        }
        let (left, right) = children(tree, v);
        let (lex_left, lex_right) = g.lexical(input[v]);
        let mut states = vec![lex_left];
        for &c in &left {
            let next: Vec<_> = g
                .left_rules()
                .iter()
                .filter(|r| states.contains(&r.from) && r.child == words[c].0)
                .map(|r| r.to)
                .collect();
            states = next;
        }
        let mut rstates = vec![lex_right];
        for &c in &right {
            let next: Vec<_> = g
                .right_rules()
                .iter()
                .filter(|r| rstates.contains(&r.from) && r.child == words[c].0)
                .map(|r| r.to)
                .collect();
            rstates = next;
        }
        states.contains(&fl) && rstates.contains(&fr)
    })
}

/// x ⊕ x ⊕ … ⊕ x (`times` copies; 𝟘 for none), by doubling: O(log times).
pub fn repeat<S: Semiring>(x: &S, mut times: u128) -> S {
    let mut acc = S::zero();
    let mut power = x.clone();
    while times > 0 {
        if times & 1 == 1 {
            acc.plus_assign(&power);
        }
        let p = power.clone();
        power.plus_assign(&p);
        times >>= 1;
    }
    acc
}

/// W by brute force: ⊕ over the projective trees over 0 … n (n = |input| − 1
/// ≤ 7) and over the derivations building each, of ⊗ of the tree's arc
/// weights `weight(head, dependent)`.
pub fn brute_force<S: Semiring>(g: &Grammar, input: &[Terminal], weight: impl Fn(usize, usize) -> S) -> S {
    let n = input.len() - 1;
    let mut total = S::zero();
    for tree in projective_trees(n).iter() {
        let count = count_decorations(g, input, tree);
        if count == 0 {
            continue;
        }
        let w = tree.arcs().fold(S::one(), |acc, (h, d)| acc.times(&weight(h, d)));
        total.plus_assign(&repeat(&w, count));
    }
    total
}

/// For every arc h → d (row-major, (n+1)×(n+1)), the sum that
/// [`brute_force`] makes over the projective trees containing the arc; 𝟘 on
/// the diagonal. O((n+1)ⁿ · n).
pub fn brute_force_arc_sums<S: Semiring>(
    g: &Grammar,
    input: &[Terminal],
    weight: impl Fn(usize, usize) -> S,
) -> Vec<S> {
    let size = input.len();
    let mut out = vec![S::zero(); size * size];
    for tree in projective_trees(size - 1).iter() {
        let count = count_decorations(g, input, tree);
        if count == 0 {
            continue;
        }
        let w = repeat(&tree.arcs().fold(S::one(), |acc, (h, d)| acc.times(&weight(h, d))), count);
        for (h, d) in tree.arcs() {
            out[h * size + d].plus_assign(&w);
        }
    }
    out
}

/// One derivation of a subtree: the finish rule of its root and the
/// attachments below it, as (left?, index into `left_combos` / `right_combos`).
#[derive(Clone, Debug)]
pub struct SubDerivation {
    pub finish: usize,
    pub uses: Vec<(bool, usize)>,
}

/// Every derivation of the subtree of `v` in category `category`, listed
/// explicitly (the count is [`count_decorations`]'s). Exponential.
pub fn derivations(
    g: &Grammar,
    input: &[Terminal],
    tree: &DepTree,
    v: usize,
    category: Category,
) -> Vec<SubDerivation> {
    let (left, right) = children(tree, v);
    let (lex_left, lex_right) = g.lexical(input[v]);
    let mut out = Vec::new();
    for (f, rule) in g.finish_rules().iter().enumerate().filter(|(_, r)| r.category == category) {
        let lefts = chains(
            left.len(),
            lex_left.index(),
            rule.left.index(),
            g.left_rules().iter().map(|r| (r.from.index(), r.to.index())),
        );
        let rights = chains(
            right.len(),
            lex_right.index(),
            rule.right.index(),
            g.right_rules().iter().map(|r| (r.from.index(), r.to.index())),
        );
        for l in &lefts {
            for r in &rights {
                let mut partial: Vec<Vec<(bool, usize)>> = vec![Vec::new()];
                let kids = left
                    .iter()
                    .zip(l)
                    .map(|(&k, &a)| (k, a, true))
                    .chain(right.iter().zip(r).map(|(&k, &a)| (k, a, false)));
                for (kid, attach, is_left) in kids {
                    let child = if is_left { g.left_rules()[attach].child } else { g.right_rules()[attach].child };
                    let subs = derivations(g, input, tree, kid, child);
                    let mut next = Vec::new();
                    for p in &partial {
                        for s in &subs {
                            let combo = if is_left {
                                g.left_combos()
                                    .iter()
                                    .position(|c| c.attach as usize == attach && c.finish as usize == s.finish)
                            } else {
                                g.right_combos()
                                    .iter()
                                    .position(|c| c.attach as usize == attach && c.finish as usize == s.finish)
                            };
                            let mut uses = p.clone();
                            uses.extend_from_slice(&s.uses);
                            uses.push((is_left, combo.expect("a finish rule of the attached category")));
                            next.push(uses);
                        }
                    }
                    partial = next;
                }
                out.extend(partial.into_iter().map(|uses| SubDerivation { finish: f, uses }));
            }
        }
    }
    out
}

/// Every sequence of `len` rules (from, to) leading from state `from` to `to`, as rule indices.
fn chains(len: usize, from: usize, to: usize, rules: impl Iterator<Item = (usize, usize)> + Clone) -> Vec<Vec<usize>> {
    if len == 0 {
        return if from == to { vec![Vec::new()] } else { Vec::new() };
    }
    let mut out = Vec::new();
    for (i, (a, b)) in rules.clone().enumerate() {
        if a == from {
            for mut rest in chains(len - 1, b, to, rules.clone()) {
                rest.insert(0, i);
                out.push(rest);
            }
        }
    }
    out
}

/// (per left combo, per right combo, per start rule): the sum over the
/// derivations of every projective tree of their weights, once per use.
pub fn brute_force_combo_sums<S: Semiring>(
    g: &Grammar,
    input: &[Terminal],
    weight: impl Fn(usize, usize) -> S,
) -> (Vec<S>, Vec<S>, Vec<S>) {
    let mut left = vec![S::zero(); g.left_combos().len()];
    let mut right = vec![S::zero(); g.right_combos().len()];
    let starts: Vec<usize> =
        (0..g.finish_rules().len()).filter(|&f| g.finish_rules()[f].category == g.start()).collect();
    let mut start = vec![S::zero(); starts.len()];
    for tree in projective_trees(input.len() - 1).iter() {
        let all = derivations(g, input, tree, 0, g.start());
        assert_eq!(all.len() as u128, count_decorations(g, input, tree));
        let w = tree.arcs().fold(S::one(), |acc, (h, d)| acc.times(&weight(h, d)));
        for d in all {
            start[starts.iter().position(|&f| f == d.finish).unwrap()].plus_assign(&w);
            for (is_left, c) in d.uses {
                if is_left {
                    left[c].plus_assign(&w)
                } else {
                    right[c].plus_assign(&w)
                }
            }
        }
    }
    (left, right, start)
}

/// The arc-standard parser of Table 1, run exhaustively from the
/// configuration with stack a₀ … a_k (positions 0 … k) and remaining input
/// b₁ … b_m (positions k+1 … k+m) and no arcs, to the final configuration
/// (stack a₀, empty input). Returns the set of trees built, as head vectors
/// of positions 1 … k+m. Transitions: shift; reduce_left (the second-topmost
/// a₁ becomes the head of the topmost a₂); reduce_right (a₂ becomes the head
/// of a₁, only with a third element below). Exponential; k + m ≤ 8 or so.
pub fn shift_reduce_trees(k: usize, m: usize) -> HashSet<Vec<usize>> {
    let size = k + m + 1;
    let mut seen = HashSet::new();
    let mut out = HashSet::new();
    let mut todo = vec![((0..=k).collect::<Vec<usize>>(), k + 1, vec![usize::MAX; size])];
    while let Some(config) = todo.pop() {
        if !seen.insert(config.clone()) {
            continue;
        }
        let (stack, next, heads) = config;
        if stack.len() == 1 && next == size {
            out.insert(heads[1..].to_vec());
            continue;
        }
        if next < size {
            let mut s = stack.clone();
            s.push(next);
            todo.push((s, next + 1, heads.clone()));
        }
        let len = stack.len();
        if len >= 2 {
            let (a1, a2) = (stack[len - 2], stack[len - 1]);
            let mut h = heads.clone();
            h[a2] = a1;
            todo.push((stack[..len - 1].to_vec(), next, h));
            if len >= 3 {
                let mut h = heads.clone();
                h[a1] = a2;
                let mut s = stack[..len - 2].to_vec();
                s.push(a2);
                todo.push((s, next, h));
            }
        }
    }
    out
}

/// What the future of a configuration depends on: the stack, the next
/// input node and which stack words have a head.
pub type LiveKey = (Vec<(usize, bool)>, Option<usize>);

/// The [`LiveKey`] of `c`.
pub fn live_key(c: &Configuration) -> LiveKey {
    (c.stack().iter().map(|&a| (a, c.head(a).is_some())).collect(), c.next_input())
}

/// Every non-final configuration of `system` reachable from the initial one
/// for n words (any steps), one per [`live_key`] (the first found), in a
/// fixed order (by that key).
pub fn reachable_configurations_of(system: System, n: usize) -> Vec<Configuration> {
    reachable_configurations_by(system, n, live_key)
}

/// [`reachable_configurations_of`] with one configuration per `key` (which
/// must tell apart every pair of configurations an oracle may score
/// differently), in the order of the keys.
pub fn reachable_configurations_by<K: Ord + std::hash::Hash>(
    system: System,
    n: usize,
    key: impl Fn(&Configuration) -> K,
) -> Vec<Configuration> {
    reachable_configurations_from(Configuration::initial(system, n), key)
}

/// [`reachable_configurations_by`] from `start`.
pub fn reachable_configurations_from<K: Ord + std::hash::Hash>(
    start: Configuration,
    key: impl Fn(&Configuration) -> K,
) -> Vec<Configuration> {
    let mut seen = HashMap::new();
    let mut todo = vec![start];
    while let Some(c) = todo.pop() {
        let key = key(&c);
        if seen.contains_key(&key) {
            continue;
        }
        for step in c.applicable_steps().collect::<Vec<_>>() {
            let mut d = c.clone();
            d.apply(step).expect("applicable");
            todo.push(d);
        }
        seen.insert(key, c);
    }
    let mut v: Vec<_> = seen.into_iter().filter(|(_, c)| !c.is_final()).collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v.into_iter().map(|(_, c)| c).collect()
}

/// [`reachable_configurations_of`] arc-standard.
pub fn reachable_configurations(n: usize) -> Vec<Configuration> {
    reachable_configurations_of(System::ArcStandard, n)
}

/// A random projective tree over 0 … n: the words of an interval are split
/// into consecutive segments, each a subtree whose random root hangs from
/// the interval's head (the root 0 gets one or several children). Every
/// projective tree has positive probability.
pub fn random_projective(n: usize, rng: &mut impl Rng) -> DepTree {
    fn fill(lo: usize, hi: usize, head: usize, heads: &mut [usize], rng: &mut impl Rng) {
        let mut s = lo;
        while s <= hi {
            let e = rng.gen_range(s..=hi);
            let r = rng.gen_range(s..=e);
            heads[r - 1] = head;
            if r > s {
                fill(s, r - 1, r, heads, rng);
            }
            fill(r + 1, e, r, heads, rng);
            s = e + 1;
        }
    }
    let mut heads = vec![0; n];
    fill(1, n, 0, &mut heads, rng);
    let t = DepTree::from_heads(&heads).expect("a tree");
    assert!(t.is_projective());
    t
}

/// Runs the `tabula` binary with `args` on `stdin`. The input is written from
/// a thread (a long input would otherwise fill the output pipe and deadlock);
/// the command may exit before reading it all (bad arguments), and a broken
/// pipe then is not a failure of the test.
pub fn tabula_with_stdin(args: &[&str], stdin: &str) -> std::process::Output {
    tabula_with_stdin_bytes(args, stdin.as_bytes())
}

/// [`tabula_with_stdin`] with any bytes on standard input.
pub fn tabula_with_stdin_bytes(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || pipe.write_all(&input));
    let out = child.wait_with_output().unwrap();
    let _ = writer.join().unwrap();
    out
}

/// Runs the `tabula` binary with `args` in the folder `dir`.
pub fn tabula_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tabula")).current_dir(dir).args(args).output().unwrap()
}

/// A fresh, empty folder `suite/name` under the tests' scratch space.
pub fn scratch_in(suite: &str, name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(suite).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The standard error of a run, as text.
pub fn stderr_of(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `args` in `dir` and expects exit status 1 with exactly `error: {message}` on stderr.
pub fn fails_in(dir: &std::path::Path, args: &[&str], message: &str) {
    let o = tabula_in(dir, args);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr_of(&o));
    assert_eq!(stderr_of(&o), format!("error: {message}\n"), "{args:?}");
}

/// Every configuration of `system` reachable from the initial one for n
/// words, arcs included (no two alike).
pub fn reachable_with_arcs(system: System, n: usize) -> HashSet<Configuration> {
    reachable_with_arcs_from(Configuration::initial(system, n))
}

/// [`reachable_with_arcs`] from `start`.
pub fn reachable_with_arcs_from(start: Configuration) -> HashSet<Configuration> {
    let mut seen = HashSet::new();
    let mut todo = vec![start];
    while let Some(c) = todo.pop() {
        if seen.contains(&c) {
            continue;
        }
        for step in c.applicable_steps().collect::<Vec<_>>() {
            let mut d = c.clone();
            d.apply(step).expect("applicable");
            todo.push(d);
        }
        seen.insert(c);
    }
    seen
}

/// Whether the exhaustive checks run whole: `TABULA_TEST_FULL=1`, which
/// `.ci/run` sets. Without it the largest sizes are sampled (see [`sampled`]
/// and [`full_or`]) so that `cargo test --release` takes a few minutes.
pub fn full() -> bool {
    std::env::var_os("TABULA_TEST_FULL").is_some_and(|v| v != "0")
}

/// `items` whole in a full run ([`full`]), else every `stride`-th one from
/// the first, so that the sample still spans the enumeration's order.
pub fn sampled<T>(items: Vec<T>, stride: usize) -> Vec<T> {
    if full() {
        items
    } else {
        items.into_iter().step_by(stride).collect()
    }
}

/// `quick` in a default run, `whole` in a full one ([`full`]).
pub fn full_or<T>(quick: T, whole: T) -> T {
    if full() {
        whole
    } else {
        quick
    }
}

/// For each n in `sizes`, every gold tree of `trees(n)` and every
/// configuration of `configs(n)`: `check(oracle, gold, c, want)` with `want`
/// the brute force's scores (strategy none). The trees run in parallel,
/// each thread with its own [`Oracle`]. Returns the number of (tree,
/// configuration) pairs checked.
pub fn against_brute_force(
    sizes: std::ops::RangeInclusive<usize>,
    configs: impl Fn(usize) -> Vec<Configuration>,
    trees: impl Fn(usize) -> Vec<DepTree>,
    check: impl Fn(&mut Oracle<'static>, &DepTree, &Configuration, StepScores) + Sync,
) -> usize {
    let mut checked = 0;
    for n in sizes {
        let configs = configs(n);
        checked += trees(n)
            .par_iter()
            .map_init(Oracle::new, |oracle, gold| {
                let mut brute = Exhaustive::new(gold, Strategy::None);
                for c in &configs {
                    check(oracle, gold, c, brute.step_scores(c).expect("the brute force answers"));
                }
                configs.len()
            })
            .sum::<usize>();
    }
    checked
}

/// A random tree over 0 … n, projective or not: the words in a random
/// order, each attached to the root with probability `root_p` (the first
/// always) and otherwise to a word earlier in that order.
pub fn random_tree(n: usize, root_p: f64, rng: &mut impl Rng) -> DepTree {
    let mut order: Vec<usize> = (1..=n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.gen_range(0..=i));
    }
    let mut heads = vec![0; n];
    for (k, &d) in order.iter().enumerate() {
        heads[d - 1] = if k == 0 || rng.gen_bool(root_p) { 0 } else { order[rng.gen_range(0..k)] };
    }
    DepTree::from_heads(&heads).expect("a tree")
}

/// The tree over 0 … n that proptest's `order` and `picks` describe: nodes in random order, each headed by 0 or a
/// node earlier in that order (any tree, projective or not).
pub fn tree_from_picks(order: &[usize], picks: &[usize]) -> DepTree {
    let mut heads = vec![0usize; order.len()];
    for (i, &v) in order.iter().enumerate() {
        let choice = picks[i] % (i + 1);
        heads[v - 1] = if choice == 0 { 0 } else { order[choice - 1] };
    }
    DepTree::from_heads(&heads).expect("built acyclic")
}

/// Follows `choices` (mod the applicable steps) from the initial configuration.
pub fn follow_choices(system: System, n: usize, choices: &[usize]) -> Configuration {
    let mut c = Configuration::initial(system, n);
    for &x in choices {
        let steps: Vec<Step> = c.applicable_steps().collect();
        let mut d = c.clone();
        d.apply(steps[x % steps.len()]).unwrap();
        if d.is_final() {
            break;
        }
        c = d;
    }
    c
}

/// A toy treebank of `n` sentences `NOUN VERB DET (ADJ) NOUN .` where
/// `watch` and `saw` are nouns after a determiner or an adjective and verbs
/// after a noun (the context decides), with FEATS that follow from the
/// word and its tag. Valid CoNLL-U with trees (the verb is the root).
pub fn toy_treebank(n: usize, seed: u64) -> String {
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
    let subjects = [("dogs", "Number=Plur"), ("cats", "Number=Plur"), ("Mary", "Number=Sing")];
    let verbs = [("watch", "Tense=Pres"), ("saw", "Tense=Past"), ("like", "Tense=Pres"), ("see", "Tense=Pres")];
    let dets = [("the", "Definite=Def"), ("a", "Definite=Ind")];
    let adjs = ["big", "old", "red"];
    let objects = [("watch", "Number=Sing"), ("saw", "Number=Sing"), ("dog", "Number=Sing"), ("ball", "Number=Sing")];
    let mut out = String::new();
    for s in 0..n {
        out.push_str(&format!("# sent_id = toy-{s}\n"));
        let (subj, sf) = subjects[rng.gen_range(0..subjects.len())];
        let (verb, vf) = verbs[rng.gen_range(0..verbs.len())];
        let (det, df) = dets[rng.gen_range(0..dets.len())];
        let adj = rng.gen_bool(0.5).then(|| adjs[rng.gen_range(0..adjs.len())]);
        let (obj, of) = objects[rng.gen_range(0..objects.len())];
        let noun_at = if adj.is_some() { 5 } else { 4 };
        let mut words: Vec<(&str, &str, &str, usize, &str)> = vec![
            (subj, if subj == "Mary" { "PROPN" } else { "NOUN" }, sf, 2, "nsubj"),
            (verb, "VERB", vf, 0, "root"),
            (det, "DET", df, noun_at, "det"),
        ];
        if let Some(a) = adj {
            words.push((a, "ADJ", "Degree=Pos", noun_at, "amod"));
        }
        words.push((obj, "NOUN", of, 2, "obj"));
        words.push((".", "PUNCT", "_", 2, "punct"));
        for (i, (form, upos, feats, head, deprel)) in words.iter().enumerate() {
            out.push_str(&format!("{}\t{form}\t_\t{upos}\t_\t{feats}\t{head}\t{deprel}\t_\t_\n", i + 1));
        }
        out.push('\n');
    }
    out
}

/// `data` compressed as xz (preset 6).
pub fn xz(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut w = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(6)).unwrap();
    w.write_all(data).unwrap();
    w.finish().unwrap()
}

/// `data` compressed as gzip.
pub fn gz(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    w.write_all(data).unwrap();
    w.finish().unwrap()
}
