//! No abort on large inputs: the oracle refuses what would exceed the memory
//! limit before allocating, and the linear algorithm's memory and stack stay
//! proportional to what it uses.
//!
//! Regression tests for issue 10: a 60,000-word non-projective gold tree
//! aborted the process ("memory allocation of 28800960008 bytes failed"), and
//! the linear algorithm allocated a dense O(k²) memo (3.4 GB on a
//! 12,000-deep stack; a 300,000-deep one aborted). One test function, as it
//! changes the process-wide limit.

use tabula::memory::{self, TooMuchMemory};
use tabula::oracle::{Algorithm, Configuration, Oracle, OracleError, Strategy, System};
use tabula::tree::DepTree;

/// The chain 0 → 1 → 2 → … → n, with the arcs of 2 and 3 crossed when `cross`.
fn chain(n: usize, cross: bool) -> DepTree {
    let mut heads: Vec<usize> = (0..n).collect();
    if cross {
        // 1 → 3 and 4 → 2 cross.
        heads[0] = 0;
        heads[1] = 4;
        heads[2] = 1;
        heads[3] = 1;
    }
    DepTree::from_heads(&heads).unwrap()
}

fn too_much(e: &OracleError) -> bool {
    matches!(e, OracleError::TooMuchMemory(_) | OracleError::Engine(tabula::engine::EngineError::TooMuchMemory(_)))
}

#[test]
fn limits() {
    let mut oracle = Oracle::new();

    // What the linear algorithm gives on a chain with everything shifted,
    // checked against the quadratic one where it is small.
    let all_shifted = |oracle: &mut Oracle, k: usize, algorithm| {
        let stack: Vec<usize> = (0..=k).collect();
        let c = Configuration::new(System::ArcStandard, &stack, &[], k).unwrap();
        oracle.scores(&c, &chain(k, false), Strategy::Lbr, algorithm).unwrap()
    };
    for k in [3, 10, 200] {
        let linear = all_shifted(&mut oracle, k, Algorithm::Linear);
        assert_eq!(linear, all_shifted(&mut oracle, k, Algorithm::Quadratic));
        assert_eq!(linear.get(tabula::oracle::Step::ReduceRight), Some(k as u32 - 2));
    }

    // A deep stack: the linear algorithm answers (sparse memo, growing stack).
    let k = 300_000;
    let stack: Vec<usize> = (0..=k).collect();
    let gold = chain(k, false);
    let c = Configuration::new(System::ArcStandard, &stack, &[], k).unwrap();
    let s = oracle.scores(&c, &gold, Strategy::Lbr, Algorithm::Linear).unwrap();
    assert_eq!(s.get(tabula::oracle::Step::ReduceRight), Some(k as u32 - 2));

    // The quadratic algorithm's dense memo would need ~2 TiB: refused.
    let e = oracle.scores(&c, &gold, Strategy::Lbr, Algorithm::Quadratic).unwrap_err();
    assert!(too_much(&e), "{e}");
    assert!(e.to_string().contains("more than the limit of 8.0 GiB"), "{e}");

    // A long non-projective gold tree: the cubic chart is refused, not allocated.
    let n = 60_000;
    let gold = chain(n, true);
    let buffer: Vec<usize> = (1..=n).collect();
    let c = Configuration::new(System::ArcStandard, &[0], &buffer, n).unwrap();
    for algorithm in [Algorithm::Cubic, Algorithm::Auto] {
        let e = oracle.scores(&c, &gold, Strategy::Lbr, algorithm).unwrap_err();
        assert!(too_much(&e), "{e}");
    }
    for system in [System::ArcHybrid, System::ArcEager] {
        let c = Configuration::new(system, &[0], &buffer, n).unwrap();
        let e = oracle.scores(&c, &gold, Strategy::Lbr, Algorithm::Auto).unwrap_err();
        assert!(too_much(&e), "{system}: {e}");
    }

    // A lower limit applies to smaller inputs; the linear algorithm still answers.
    memory::set_max_memory(1 << 20);
    let n = 1000;
    let gold = chain(n, false);
    let stack: Vec<usize> = (0..=n).collect();
    let c = Configuration::new(System::ArcStandard, &stack, &[], n).unwrap();
    let e = oracle.scores(&c, &gold, Strategy::Lbr, Algorithm::Quadratic).unwrap_err();
    match e {
        OracleError::TooMuchMemory(TooMuchMemory { needed, limit, .. }) => {
            assert_eq!(limit, 1 << 20);
            assert!(needed > limit);
        }
        other => panic!("{other}"),
    }
    assert!(oracle.scores(&c, &gold, Strategy::Lbr, Algorithm::Linear).is_ok());
    let gold = chain(n, true);
    let buffer: Vec<usize> = (1..=n).collect();
    let c = Configuration::new(System::ArcStandard, &[0], &buffer, n).unwrap();
    assert!(too_much(&oracle.scores(&c, &gold, Strategy::Lbr, Algorithm::Cubic).unwrap_err()));
    memory::set_max_memory(memory::DEFAULT_MAX_MEMORY);
}

/// Regression (issue 10): `{"stack":[0],"buffer":[1,1,1],"gold":[-1,0]}`
/// underflowed in `Configuration::new` (a panic in a debug build, a nonsense
/// range "0..=1" in the message in release). Validation comes before any
/// arithmetic, and the message names the expected words.
#[test]
fn configurations_are_validated_before_arithmetic() {
    let e = Configuration::new(System::ArcStandard, &[0], &[1, 1, 1], 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the remaining input must be the words 1 to 1 (a suffix of the sentence after the stack), but it is [1, 1, 1]"
    );
    assert!(Configuration::new(System::ArcStandard, &[0, 0], &[], 1).is_err());
    assert!(Configuration::new(System::ArcStandard, &[0, 2, 1], &[], 2).is_err());
    assert!(Configuration::new(System::ArcStandard, &[0, 5], &[], 2).is_err());
    assert!(Configuration::new(System::ArcStandard, &[], &[1], 1).is_err());
    assert!(Configuration::new(System::ArcStandard, &[0], &[usize::MAX], 1).is_err());
    let long: Vec<usize> = (1..=100).collect();
    let e = Configuration::new(System::ArcStandard, &[0], &long, 200).unwrap_err().to_string();
    assert!(e.contains("the words 101 to 200"), "{e}");
    assert!(e.ends_with("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, … (90 more)]"), "{e}");
}
