//! Non-monotonic arc-eager (Honnibal, Goldberg & Johnson 2013; Honnibal &
//! Johnson 2015) against brute force:
//!
//! * every step lowers the potential Φ of `docs/systems.md`, so every
//!   computation ends (every reachable configuration, n ≤ 6);
//! * the brute force's scores equal the gold arcs of the final trees of an
//!   unmemoised enumeration of every computation (n ≤ 4), so that arcs
//!   built and then replaced do not count;
//! * the tabular oracle equals the brute force on every reachable
//!   configuration of every gold tree with n ≤ 5 and every projective one
//!   with n = 6 (every tree of n words by hand: the ignored test with
//!   `TABULA_NM_N=n`), and on random configurations of random trees up to
//!   n = 10;
//! * `Configuration::with_arcs` / `with_unshifted` accept every reachable
//!   configuration (n ≤ 5).

mod common;

use common::{
    against_brute_force, all_trees, projective_trees, random_tree, reachable_configurations_by, reachable_with_arcs,
};
use rand::{Rng, SeedableRng};
use tabula::oracle::arc_eager_nm::potential;
use tabula::oracle::exhaustive::Exhaustive;
use tabula::oracle::{Algorithm, Configuration, Oracle, Step, Strategy, System};
use tabula::tree::DepTree;

const NM: System = System::ArcEagerNm;

/// What the future of a configuration depends on: the stack with which
/// words have a head, b₁ and whether it is an unshifted word.
type Key = (Vec<(usize, bool)>, Option<usize>, bool);

fn key(c: &Configuration) -> Key {
    (c.stack().iter().map(|&a| (a, c.head(a).is_some())).collect(), c.next_input(), c.unshifted().is_some())
}

fn configurations(n: usize) -> Vec<Configuration> {
    reachable_configurations_by(NM, n, key)
}

#[test]
fn every_step_lowers_the_potential_so_every_computation_ends() {
    for n in 0..=6 {
        for c in configurations(n) {
            assert!(potential(&c) <= 7 * n + 3);
            for step in c.applicable_steps() {
                let mut d = c.clone();
                d.apply(step).unwrap();
                assert!(potential(&d) < potential(&c), "{step} at {c:?}");
            }
            assert!(c.applicable_steps().next().is_some(), "a non-final configuration without a step: {c:?}");
        }
        assert_eq!(potential(&Configuration::initial(NM, n)), 4 * n + 1);
    }
}

/// The most gold arcs into words still on the stack or in the input of any
/// final tree, by following every computation (no memo).
fn best_final(c: &Configuration, gold: &DepTree, live: &[usize]) -> u32 {
    if c.is_final() {
        return live.iter().filter(|&&d| c.head(d).is_some_and(|h| gold.has_arc(h, d))).count() as u32;
    }
    c.applicable_steps()
        .map(|step| {
            let mut d = c.clone();
            d.apply(step).unwrap();
            best_final(&d, gold, live)
        })
        .max()
        .expect("a non-final configuration has a step")
}

#[test]
fn the_brute_force_counts_the_gold_arcs_of_the_final_tree() {
    let mut checked = 0;
    for n in 1..=4 {
        let configs = configurations(n);
        for gold in all_trees(n) {
            let mut brute = Exhaustive::new(&gold, Strategy::None);
            for c in &configs {
                let live: Vec<usize> = c.stack()[1..].iter().copied().chain(c.buffer()).collect();
                let scores = brute.step_scores(c).unwrap();
                for step in c.applicable_steps() {
                    let mut d = c.clone();
                    d.apply(step).unwrap();
                    assert_eq!(scores.get(step), Some(best_final(&d, &gold, &live)), "{step}, gold {gold:?}, {c:?}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked}");
}

fn tabular_equals_brute_force(max_n: usize, trees: impl Fn(usize) -> Vec<DepTree>) -> usize {
    tabular_equals_brute_force_with(1..=max_n, trees)
}

fn tabular_equals_brute_force_with(
    sizes: std::ops::RangeInclusive<usize>,
    trees: impl Fn(usize) -> Vec<DepTree>,
) -> usize {
    against_brute_force(sizes, configurations, trees, |oracle, gold, c, want| {
        let got = oracle.scores(c, gold, Strategy::None, Algorithm::Tabular).unwrap();
        assert_eq!(got, want, "gold {gold:?}, {c:?}");
    })
}

#[test]
fn the_tabular_oracle_equals_the_brute_force_on_all_trees_up_to_5() {
    assert!(tabular_equals_brute_force(5, all_trees) > 600_000);
}

#[test]
fn the_tabular_oracle_equals_the_brute_force_on_all_projective_trees_of_6() {
    let projective = |n| projective_trees(n).to_vec();
    let checked = against_brute_force(6..=6, configurations, projective, |oracle, gold, c, want| {
        let got = oracle.scores(c, gold, Strategy::None, Algorithm::Tabular).unwrap();
        assert_eq!(got, want, "gold {gold:?}, {c:?}");
    });
    assert!(checked > 1_000_000, "only {checked}");
}

/// By hand (about 2 minutes for n = 6 on two busy cores; see
/// `docs/systems.md` for n = 7): every tree of `TABULA_NM_N` words.
#[test]
#[ignore]
fn by_hand_the_tabular_oracle_equals_the_brute_force_on_all_trees_of_n() {
    let n = std::env::var("TABULA_NM_N").ok().and_then(|v| v.parse().ok()).unwrap_or(6);
    let trees =
        |n| if std::env::var("TABULA_NM_PROJECTIVE").is_ok() { projective_trees(n).to_vec() } else { all_trees(n) };
    let start = std::time::Instant::now();
    let checked = tabular_equals_brute_force_with(n..=n, trees);
    eprintln!(
        "n = {n}: {} configurations, {checked} (tree, configuration) pairs in {:.1?}",
        configurations(n).len(),
        start.elapsed()
    );
}

#[test]
fn the_tabular_oracle_equals_the_brute_force_on_random_trees_up_to_10() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(20);
    let mut oracle = Oracle::new();
    let mut checked = 0;
    for _ in 0..100 {
        let n = rng.gen_range(7..=10);
        let gold = random_tree(n, 0.2, &mut rng);
        let mut brute = Exhaustive::new(&gold, Strategy::None);
        let mut c = Configuration::initial(NM, n);
        while !c.is_final() {
            let want = brute.step_scores(&c).unwrap();
            let got = oracle.scores(&c, &gold, Strategy::None, Algorithm::Auto).unwrap();
            assert_eq!(got, want, "gold {gold:?}, {c:?}");
            checked += 1;
            // Mostly optimal steps, sometimes any: the walk visits repaired and unshifted configurations.
            let steps: Vec<Step> = if rng.gen_bool(0.6) { want.optimal() } else { c.applicable_steps().collect() };
            c.apply(steps[rng.gen_range(0..steps.len())]).unwrap();
        }
    }
    assert!(checked > 1_000, "only {checked}");
}

#[test]
fn the_checked_constructors_accept_every_reachable_configuration() {
    for n in 0..=5 {
        for c in reachable_with_arcs(NM, n) {
            let arcs: Vec<(usize, usize)> = c.arcs().collect();
            let rebuilt = match c.unshifted() {
                Some(w) => Configuration::with_unshifted(NM, c.stack(), w, &arcs, n),
                None => {
                    let buffer: Vec<usize> = c.buffer().collect();
                    Configuration::with_arcs(NM, c.stack(), &buffer, &arcs, n)
                }
            };
            assert_eq!(rebuilt.as_ref(), Ok(&c), "{c:?}");
        }
    }
}
