//! The engine (Nederhof 2019, Sec. 3, Table 2) against brute-force references
//! (`tests/common`): closed-form and enumerated tree counts, random split
//! grammars in every semiring, Viterbi backtrace, the shift-reduce grammars of
//! Table 4 against a simulation of Table 1, and chart reuse.

mod common;

use common::random_grammar::case;
use common::*;
use num_bigint::BigUint;
use proptest::prelude::*;
use tabula::engine::{Derivation, Parser};
use tabula::grammar::{text, Grammar, GrammarBuilder, Terminal};
use tabula::semiring::{Boolean, Count, LogSumExp, MaxCount, MaxPlus, Semiring};
use tabula::tree::DepTree;

fn load(name: &str, src: &str) -> Grammar {
    text::parse_str(name, src).expect("shipped grammar parses").grammar
}

fn projective() -> Grammar {
    load("projective.grammar", tabula::grammars::PROJECTIVE)
}

/// C(3n, n) / (2n + 1): the number of projective trees on n words below an
/// artificial root (ternary trees, OEIS A001764).
fn ternary_number(n: usize) -> BigUint {
    let mut binom = BigUint::from(1u32);
    for i in 0..n {
        binom = binom * BigUint::from(3 * n - i) / BigUint::from(i + 1);
    }
    binom / BigUint::from(2 * n + 1)
}

#[test]
fn projective_counts_match_closed_form() {
    let g = projective();
    let a = g.terminal("a").unwrap();
    let mut p = Parser::<Count>::new(&g);
    for n in 0..=12 {
        let w = p.parse(&vec![a; n + 1], |_, _| Count::one()).unwrap();
        assert_eq!(w.0, ternary_number(n), "n = {n}");
    }
}

#[test]
fn projective_counts_match_head_vector_enumeration() {
    let g = projective();
    let a = g.terminal("a").unwrap();
    let mut p = Parser::<Count>::new(&g);
    for n in 0..=7 {
        let trees = all_trees(n);
        let projective = trees.iter().filter(|t| is_projective(t)).count();
        let w = p.parse(&vec![a; n + 1], |_, _| Count::one()).unwrap();
        assert_eq!(w, Count::new(projective as u64), "n = {n}");
        // Every tree is counted once by the reference too.
        assert_eq!(brute_force(&g, &vec![a; n + 1], |_, _| Count::one()), w, "n = {n}");
    }
    // Sanity of the enumeration itself: Cayley's (n+1)^(n-1) rooted trees.
    assert_eq!(all_trees(4).len(), 125);
}

/// A grammar in which a head `h` needs its left children in a fixed order:
/// the lexical state L0 takes an `X` first (nearest), then a `Y` further
/// out; on the right, an `X` first, then a `Y`. `r` roots one H.
fn ordered_grammar() -> Grammar {
    let mut b = GrammarBuilder::new();
    b.start("Root")
        .lexical("N", "RootR", "r")
        .lexical("N", "N2", "x")
        .lexical("N", "N3", "y")
        .lexical("L0", "R0", "h")
        .finish("Root", "N", "RootDone")
        .finish("X", "N", "N2")
        .finish("Y", "N", "N3")
        .finish("H", "L2", "R2")
        .right_attach("RootDone", "RootR", "H")
        .left_attach("L1", "X", "L0")
        .left_attach("L2", "Y", "L1")
        .right_attach("R1", "R0", "X")
        .right_attach("R2", "R1", "Y");
    b.build().unwrap()
}

#[test]
fn nearest_child_is_attached_first() {
    let g = ordered_grammar();
    let words = |s: &str| g.terminals_of(s.split(' ')).unwrap();
    let mut p = Parser::<Count>::new(&g);
    // h has left children y (far), x (near) and right children x (near), y (far).
    for (sentence, expected) in [("r y x h x y", 1u64), ("r x y h x y", 0), ("r y x h y x", 0), ("r x y h y x", 0)] {
        let input = words(sentence);
        let w = p.parse(&input, |_, _| Count::one()).unwrap();
        assert_eq!(w, Count::new(expected), "{sentence}");
        assert_eq!(brute_force(&g, &input, |_, _| Count::one()), w, "{sentence}");
    }
    // And the one derivation builds the expected tree.
    let mut p = Parser::<MaxPlus>::new(&g);
    p.parse(&words("r y x h x y"), |_, _| MaxPlus::new(0)).unwrap();
    assert_eq!(p.best_derivation().unwrap().tree, DepTree::from_heads(&[3, 3, 0, 3, 3]).unwrap());
}

fn max_plus(w: Option<u8>) -> MaxPlus {
    w.map_or(MaxPlus::neg_inf(), |v| MaxPlus::new(v as i64))
}
fn max_count(w: Option<u8>) -> MaxCount {
    w.map_or(MaxCount::zero(), |v| MaxCount::new(v as i64))
}
fn count(w: Option<u8>) -> Count {
    Count::new(w.map_or(0, |v| v as u64 + 1))
}
fn boolean(w: Option<u8>) -> Boolean {
    Boolean(w.is_some())
}
fn log_sum_exp(w: Option<u8>) -> LogSumExp {
    w.map_or(LogSumExp::zero(), |v| LogSumExp(v as f64 * 0.7 - 0.5))
}

fn close(a: LogSumExp, b: LogSumExp) -> bool {
    a.0 == b.0 || (a.0 - b.0).abs() <= 1e-9 * a.0.abs().max(1.0)
}

/// The decoration of a backtraced derivation, as `is_derivation` takes it.
fn decoration(
    d: &Derivation,
) -> Vec<(tabula::grammar::Category, tabula::grammar::LeftState, tabula::grammar::RightState)> {
    d.words.iter().map(|w| (w.category, w.left, w.right)).collect()
}

fn score(tree: &DepTree, w: impl Fn(usize, usize) -> Option<u8>) -> Option<i64> {
    tree.arcs().map(|(h, d)| w(h, d).map(|v| v as i64)).sum()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_grammars_match_brute_force(case in case()) {
        let g = case.grammar();
        let input = case.input(&g);
        let w = |h, d| case.weight(h, d);

        let engine = Parser::<MaxPlus>::new(&g).parse(&input, |h, d| max_plus(w(h, d))).unwrap();
        prop_assert_eq!(engine, brute_force(&g, &input, |h, d| max_plus(w(h, d))));

        let engine = Parser::<Count>::new(&g).parse(&input, |h, d| count(w(h, d))).unwrap();
        prop_assert_eq!(engine, brute_force(&g, &input, |h, d| count(w(h, d))));

        let unit = Parser::<Count>::new(&g).parse(&input, |_, _| Count::one()).unwrap();
        prop_assert_eq!(unit, brute_force(&g, &input, |_, _| Count::one()));

        let engine = Parser::<MaxCount>::new(&g).parse(&input, |h, d| max_count(w(h, d))).unwrap();
        prop_assert_eq!(engine, brute_force(&g, &input, |h, d| max_count(w(h, d))));

        let engine = Parser::<Boolean>::new(&g).parse(&input, |h, d| boolean(w(h, d))).unwrap();
        prop_assert_eq!(engine, brute_force(&g, &input, |h, d| boolean(w(h, d))));

        let engine = Parser::<LogSumExp>::new(&g).parse(&input, |h, d| log_sum_exp(w(h, d))).unwrap();
        let reference = brute_force(&g, &input, |h, d| log_sum_exp(w(h, d)));
        prop_assert!(close(engine, reference), "engine {:?} vs brute force {:?}", engine, reference);
    }

    #[test]
    fn viterbi_derivation_is_a_best_derivation(case in case()) {
        let g = case.grammar();
        let input = case.input(&g);
        let w = |h, d| case.weight(h, d);

        let mut p = Parser::<MaxPlus>::new(&g);
        let best = p.parse(&input, |h, d| max_plus(w(h, d))).unwrap();
        match p.best_derivation() {
            None => prop_assert!(best.is_zero()),
            Some(d) => {
                prop_assert_eq!(best.finite(), score(&d.tree, w));
                prop_assert!(is_projective(&d.tree));
                prop_assert!(is_derivation(&g, &input, &d.tree, &decoration(&d)), "{:?}", d);
            }
        }

        // Max-count: the count is the number of derivations reaching the best
        // score, counted tree by tree.
        let mut p = Parser::<MaxCount>::new(&g);
        let mc = p.parse(&input, |h, d| max_count(w(h, d))).unwrap();
        prop_assert_eq!(mc.score, best);
        let n = input.len() - 1;
        let best_derivations: u128 = projective_trees(n)
            .iter()
            .filter(|t| !best.is_zero() && score(t, w) == best.finite())
            .map(|t| count_decorations(&g, &input, t))
            .sum();
        prop_assert_eq!(&mc.count.0, &BigUint::from(best_derivations));
        if let Some(d) = p.best_derivation() {
            prop_assert_eq!(best.finite(), score(&d.tree, w));
            prop_assert!(is_derivation(&g, &input, &d.tree, &decoration(&d)));
        }
    }

    #[test]
    fn projective_grammar_with_weights_matches_brute_force(
        n in 0..=6usize,
        weights in proptest::collection::vec(proptest::option::weighted(0.8, 0..3u8), 49),
    ) {
        let g = projective();
        let input = vec![g.terminal("a").unwrap(); n + 1];
        let w = |h: usize, d: usize| weights[h * 7 + d];
        let engine = Parser::<MaxCount>::new(&g).parse(&input, |h, d| max_count(w(h, d))).unwrap();
        prop_assert_eq!(engine, brute_force(&g, &input, |h, d| max_count(w(h, d))));
        let engine = Parser::<Count>::new(&g).parse(&input, |h, d| count(w(h, d))).unwrap();
        prop_assert_eq!(engine, brute_force(&g, &input, |h, d| count(w(h, d))));
    }
}

/// `p^k s^(m+1)`.
fn stack_input(g: &Grammar, k: usize, m: usize) -> Vec<Terminal> {
    let (p, s) = (g.terminal("p").unwrap(), g.terminal("s").unwrap());
    std::iter::repeat_n(p, k).chain(std::iter::repeat_n(s, m + 1)).collect()
}

/// The trees of the arc-standard simulation in which none of the stack
/// elements a₀ … a_(k−1) has a left child.
fn strict_trees(k: usize, m: usize) -> usize {
    shift_reduce_trees(k, m)
        .iter()
        .filter(|heads| (1..=heads.len()).all(|d| heads[d - 1] >= k || heads[d - 1] < d))
        .count()
}

#[test]
fn shift_reduce_grammar_counts_reachable_trees() {
    let g = load("shift-reduce.grammar", tabula::grammars::SHIFT_REDUCE);
    let mut p = Parser::<Count>::new(&g);
    let mut mismatches = Vec::new();
    for k in 0..=7 {
        for m in 0..=7 - k {
            let w = p.parse(&stack_input(&g, k, m), |_, _| Count::one()).unwrap();
            let simulated = shift_reduce_trees(k, m).len();
            if w != Count::new(simulated as u64) {
                mismatches.push(format!("k={k} m={m}: grammar {w:?}, simulation {simulated}"));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn shift_reduce_strict_grammar_counts_reachable_trees() {
    let g = load("shift-reduce-strict.grammar", tabula::grammars::SHIFT_REDUCE_STRICT);
    let mut p = Parser::<Count>::new(&g);
    let mut mismatches = Vec::new();
    for k in 0..=7 {
        for m in 0..=7 - k {
            let w = p.parse(&stack_input(&g, k, m), |_, _| Count::one()).unwrap();
            let simulated = strict_trees(k, m);
            if w != Count::new(simulated as u64) {
                mismatches.push(format!("k={k} m={m}: grammar {w:?}, simulation {simulated}"));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn shift_reduce_simulation_from_the_initial_configuration_gives_all_projective_trees() {
    // From (0, 1 … n, ∅) the parser builds exactly the projective trees (Sec. 2).
    for n in 0..=6 {
        let sim = shift_reduce_trees(0, n);
        assert_eq!(sim.len(), projective_trees(n).len(), "n = {n}");
        for t in projective_trees(n).iter() {
            assert!(sim.contains(t.heads()), "n = {n}: {t:?}");
        }
    }
}

#[test]
fn reused_chart_gives_identical_results() {
    let g = projective();
    let a = g.terminal("a").unwrap();
    let gold = DepTree::from_heads(&[3, 1, 0, 7, 7, 4, 3, 9, 3, 12, 12, 0]).unwrap();
    let long = vec![a; gold.len() + 1];
    let short = vec![a; 4];
    let w = |h: usize, d: usize| (gold.has_arc(h, d) as i64) + (h * 7 + d * 3).is_multiple_of(5) as i64;

    let mut fresh = Parser::<MaxCount>::new(&g);
    let first = fresh.parse(&long, |h, d| MaxCount::new(w(h, d))).unwrap();
    let first_tree = fresh.best_derivation().unwrap();

    let mut p = Parser::<MaxCount>::new(&g);
    assert_eq!(p.parse(&long, |h, d| MaxCount::new(w(h, d))).unwrap(), first);
    let short_value = p.parse(&short, |h, d| MaxCount::new(w(h, d))).unwrap();
    assert_eq!(short_value, Parser::<MaxCount>::new(&g).parse(&short, |h, d| MaxCount::new(w(h, d))).unwrap());
    assert_eq!(p.best_derivation().unwrap().tree.len(), 3);
    assert_eq!(p.parse(&long, |h, d| MaxCount::new(w(h, d))).unwrap(), first);
    assert_eq!(p.best_derivation().unwrap(), first_tree);

    let mut c = Parser::<Count>::new(&g);
    let long_count = c.parse(&long, |_, _| Count::one()).unwrap();
    assert_eq!(c.parse(&short, |_, _| Count::one()).unwrap(), Count::new(12));
    assert_eq!(c.parse(&long, |_, _| Count::one()).unwrap(), long_count);
}

/// Counts the heap allocations of the current thread, so that a test can
/// check that a warm parser allocates nothing.
mod allocation_counter {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        pub static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    }

    pub struct Counting;

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let _ = ALLOCATIONS.try_with(|a| a.set(a.get() + 1));
            System.alloc(layout)
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            System.dealloc(ptr, layout)
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let _ = ALLOCATIONS.try_with(|a| a.set(a.get() + 1));
            System.realloc(ptr, layout, new_size)
        }
    }

    pub fn count() -> usize {
        ALLOCATIONS.with(|a| a.get())
    }
}

#[global_allocator]
static GLOBAL: allocation_counter::Counting = allocation_counter::Counting;

#[test]
fn warm_parser_allocates_nothing() {
    let g = load("shift-reduce.grammar", tabula::grammars::SHIFT_REDUCE);
    let long = stack_input(&g, 5, 20);
    let short = stack_input(&g, 2, 3);
    let w = |h: usize, d: usize| ((h * 5 + d) % 3) as i64;
    let mut p = Parser::<MaxPlus>::new(&g);
    let mut mc = Parser::<MaxCount<tabula::semiring::CheckedCount>>::new(&g);
    p.parse(&long, |h, d| MaxPlus::new(w(h, d))).unwrap();
    mc.parse(&long, |h, d| MaxCount::new(w(h, d))).unwrap();
    let before = allocation_counter::count();
    for input in [&short, &long, &short] {
        p.parse(input, |h, d| MaxPlus::new(w(h, d))).unwrap();
        mc.parse(input, |h, d| MaxCount::new(w(h, d))).unwrap();
    }
    assert_eq!(allocation_counter::count() - before, 0);
    // The counter does see allocations.
    let v = std::hint::black_box(vec![1u8; 3]);
    assert!(allocation_counter::count() > before, "{v:?}");
}

/// One edit of a framed sequence: drop `drop` words at the left end (as a
/// shift or reduction does), set the terminal of position `at` (if any) and
/// toggle the weight of arc `flip` (if any), both counted from the left end.
#[derive(Clone, Debug)]
struct Edit {
    drop: usize,
    at: Option<(usize, usize)>,
    flip: Option<(usize, usize)>,
}

fn edit() -> impl proptest::strategy::Strategy<Value = Edit> {
    (0..3usize, proptest::option::of((0..7usize, 0..2usize)), proptest::option::of((0..7usize, 0..7usize)))
        .prop_map(|(drop, at, flip)| Edit { drop, at, flip })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// `parse_framed` along a sequence of inputs that lose words at the left
    /// end and change terminals and weights anywhere equals a fresh `parse`
    /// and the brute force at every step (max-plus and counting).
    #[test]
    fn framed_parses_along_a_sequence_equal_fresh_parses(case in case(), edits in proptest::collection::vec(edit(), 1..8)) {
        let g = case.grammar();
        let full = case.input(&g);
        let terminals: Vec<Terminal> = (0..case.lexical.len()).map(|t| g.terminal(&format!("t{t}")).unwrap()).collect();
        let frame = full.len();
        // The frame's terminals and weights (frame positions); the input is a suffix.
        let mut input = full.clone();
        let mut weights: Vec<Option<u8>> = case.weights.clone();
        let mut lo = 0usize;
        let mut framed_max = Parser::<MaxPlus>::new(&g);
        let mut framed_count = Parser::<Count>::new(&g);
        for e in std::iter::once(Edit { drop: 0, at: None, flip: None }).chain(edits) {
            lo = (lo + e.drop).min(frame - 1);
            if let Some((at, t)) = e.at {
                let p = lo + at % (frame - lo);
                input[p] = terminals[t % terminals.len()];
            }
            if let Some((h, d)) = e.flip {
                let (h, d) = (lo + h % (frame - lo), lo + d % (frame - lo));
                let cell = &mut weights[h * frame + d];
                *cell = if cell.is_some() { None } else { Some(1) };
            }
            let now = &input[lo..];
            let w = |h: usize, d: usize| weights[(h + lo) * frame + d + lo];
            let got = framed_max.parse_framed(frame, now, |h, d| max_plus(w(h, d))).unwrap();
            prop_assert_eq!(got, Parser::<MaxPlus>::new(&g).parse(now, |h, d| max_plus(w(h, d))).unwrap());
            prop_assert_eq!(got, brute_force(&g, now, |h, d| max_plus(w(h, d))));
            let got = framed_count.parse_framed(frame, now, |h, d| count(w(h, d))).unwrap();
            prop_assert_eq!(got, brute_force(&g, now, |h, d| count(w(h, d))));
        }
    }
}

#[test]
fn framed_parses_recompute_only_the_spans_that_see_a_change() {
    let g = projective();
    let a = g.terminal("a").unwrap();
    let w = |h: usize, d: usize| Count::new(((h + 2 * d) % 3) as u64);
    let mut p = Parser::<Count>::new(&g);
    let input = vec![a; 10];
    let full = p.parse_framed(10, &input, w).unwrap();
    assert_eq!(full, Parser::<Count>::new(&g).parse(&input, w).unwrap());
    assert_eq!(p.framed_spans(), 55, "a first parse fills every span");
    // The same input again: nothing to fill.
    assert_eq!(p.parse_framed(10, &input, w).unwrap(), full);
    assert_eq!(p.framed_spans(), 55);
    // Dropping the first word: the suffix's spans are all there.
    let shifted = |h: usize, d: usize| w(h + 1, d + 1);
    let suffix = p.parse_framed(10, &input[1..], shifted).unwrap();
    assert_eq!(suffix, Parser::<Count>::new(&g).parse(&input[1..], shifted).unwrap());
    assert_eq!(p.framed_spans(), 55);
    // A changed weight between positions 3 and 5 of the frame: the spans
    // starting at 1, 2, 3 (9 + 8 + 7 of them) are filled again.
    let changed = |h: usize, d: usize| if (h, d) == (2, 4) { Count::new(5) } else { shifted(h, d) };
    let value = p.parse_framed(10, &input[1..], changed).unwrap();
    assert_eq!(value, Parser::<Count>::new(&g).parse(&input[1..], changed).unwrap());
    assert_eq!(p.framed_spans(), 55 + 24);
    // A plain parse in between leaves nothing to reuse, and the chart-reading
    // calls refuse a framed chart.
    p.parse(&input[..4], w).unwrap();
    p.parse_framed(10, &input[1..], changed).unwrap();
    assert_eq!(p.framed_spans(), 55 + 24 + 45);
    let mut m = Parser::<MaxPlus>::new(&g);
    m.parse(&input, |_, _| MaxPlus::new(1)).unwrap();
    assert!(m.best_derivation().is_some());
    m.parse_framed(10, &input, |_, _| MaxPlus::new(1)).unwrap();
    assert!(m.best_derivation().is_none());
}
