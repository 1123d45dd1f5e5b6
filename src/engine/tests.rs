//! Unit checks of the engine on the Table 3 grammar built in code; the
//! brute-force comparisons over random grammars live in `tests/engine.rs`.

use super::*;
use crate::grammar::GrammarBuilder;
use crate::semiring::{CheckedCount, Count, MaxCount, MaxPlus};

fn projective() -> Grammar {
    let mut b = GrammarBuilder::new();
    b.lexical("S", "S", "a").finish("S", "S", "S").right_attach("S", "S", "S").left_attach("S", "S", "S");
    b.build().unwrap()
}

#[test]
fn counts_projective_trees() {
    // Projective trees on n words with an artificial root 0 (A006013).
    let expected = [1u64, 1, 3, 12, 55, 273, 1428, 7752, 43263, 246675, 1430715, 8414640, 50067108];
    let g = projective();
    let a = g.terminal("a").unwrap();
    let mut p = Parser::<CheckedCount>::new(&g);
    for (n, &e) in expected.iter().enumerate() {
        let w = p.parse(&vec![a; n + 1], |_, _| CheckedCount::one()).unwrap();
        assert_eq!(w.get(), Ok(e), "n = {n}");
    }
}

#[test]
fn best_tree_of_a_projective_gold_tree_is_itself() {
    let g = projective();
    let a = g.terminal("a").unwrap();
    let gold = DepTree::from_heads(&[2, 0, 4, 2, 4]).unwrap();
    let mut p = Parser::<MaxPlus>::new(&g);
    let w = p.parse(&[a; 6], |h, d| MaxPlus::new((gold.head(d) == h) as i64)).unwrap();
    assert_eq!(w, MaxPlus::new(5));
    assert_eq!(p.best_derivation().unwrap().tree, gold);

    let mut p = Parser::<MaxCount>::new(&g);
    let w = p.parse(&[a; 6], |h, d| MaxCount::new((gold.head(d) == h) as i64)).unwrap();
    assert_eq!(w.count, Count::new(1));
}

#[test]
fn empty_input_is_an_error() {
    let g = projective();
    let mut p = Parser::<CheckedCount>::new(&g);
    assert_eq!(p.parse(&[], |_, _| CheckedCount::one()), Err(EngineError::EmptyInput));
}

use crate::tree::DepTree;

#[test]
fn progress_counts_every_split_point_once_and_ends_at_the_total() {
    use std::cell::RefCell;
    use std::rc::Rc;
    let g = projective();
    let a = g.terminal("a").unwrap();
    let mut p = Parser::<Count>::new(&g);
    for size in 1..12usize {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let log = seen.clone();
        let w = progress::with_progress(
            move |done, total| log.borrow_mut().push((done, total)),
            || p.parse(&vec![a; size], |_, _| Count::one()).unwrap(),
        );
        assert_eq!(w, p.parse(&vec![a; size], |_, _| Count::one()).unwrap());
        let seen = seen.borrow();
        // One report per width, growing, ending at the cells × split points counted by hand.
        let by_hand: u64 = (1..size).map(|w| ((size - w) * w) as u64).sum();
        assert_eq!(seen.len(), size - 1, "size {size}");
        assert!(seen.windows(2).all(|p| p[0].0 < p[1].0));
        assert!(seen.iter().all(|&(_, total)| total == by_hand));
        assert_eq!(seen.last().map(|&(d, _)| d), (size > 1).then_some(by_hand));
    }
}

#[test]
fn progress_callbacks_nest_and_are_removed_afterwards() {
    use std::cell::Cell;
    use std::rc::Rc;
    let g = projective();
    let a = g.terminal("a").unwrap();
    let mut p = Parser::<Count>::new(&g);
    let (outer, inner) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
    let (o, i) = (outer.clone(), inner.clone());
    progress::with_progress(
        move |_, _| o.set(o.get() + 1),
        || {
            progress::with_progress(move |_, _| i.set(i.get() + 1), || p.parse(&[a; 4], |_, _| Count::one()).unwrap());
            p.parse(&[a; 5], |_, _| Count::one()).unwrap();
        },
    );
    assert_eq!((outer.get(), inner.get()), (4, 3));
    p.parse(&[a; 5], |_, _| Count::one()).unwrap();
    assert_eq!((outer.get(), inner.get()), (4, 3));
    assert!(progress::current().is_none());
}
