//! What a neural transition parser reads of a [`Configuration`]: the
//! columns of its step scores ([`step_columns`]) and the word positions
//! its features gather ([`POSITIONS`], [`fill_positions`]). The minibatch
//! oracle of the Python package and the ONNX parser of the command line
//! share them, so a model trained with one parses the same with the other.

use super::{Configuration, Step, System, SPINE_CAPACITY};

/// The word positions [`fill_positions`] gathers, in its columns' order:
/// the top three stack words, the first two input words, and the leftmost
/// and rightmost children (on each side of the word) of s0, s1 and b0
/// (Kiperwasser & Goldberg 2016; Chen & Manning 2014).
pub const POSITIONS: [&str; 11] =
    ["s0", "s1", "s2", "b0", "b1", "s0_left", "s0_right", "s1_left", "s1_right", "b0_left", "b0_right"];

/// The steps of `system` in the order of a network's step columns: its
/// steps; LR-spine: `shift`, then `left_arc_K`, then `right_arc_K` for K =
/// 1 … [`SPINE_CAPACITY`] (every spine step its oracle scores). O(1).
pub fn step_columns(system: System) -> &'static [Step] {
    static SPINE: std::sync::OnceLock<Vec<Step>> = std::sync::OnceLock::new();
    if system != System::LrSpine {
        return system.steps();
    }
    SPINE.get_or_init(|| {
        let k = SPINE_CAPACITY as u32;
        std::iter::once(Step::Shift).chain((1..=k).map(Step::LeftArcAt)).chain((1..=k).map(Step::RightArcAt)).collect()
    })
}

/// Writes the [`POSITIONS`] of `c` into `row` (at least 11 long): s0, s1,
/// s2 (the stack's top three), b0, b1 (the first two input words), then the
/// leftmost child left of the word and the rightmost child right of it, for
/// s0, s1 and b0. 0 is the root, −1 where there is no such word. O(1).
pub fn fill_positions(c: &Configuration, row: &mut [i64]) {
    let stack = c.stack();
    let k = stack.len();
    let s = |i: usize| (i < k).then(|| stack[k - 1 - i]);
    let mut input = c.buffer();
    let b0 = input.next();
    let b1 = input.next();
    let pos = |x: Option<usize>| x.map_or(-1, |v| v as i64);
    let [s0, s1, s2] = [s(0), s(1), s(2)];
    row[0] = pos(s0);
    row[1] = pos(s1);
    row[2] = pos(s2);
    row[3] = pos(b0);
    row[4] = pos(b1);
    for (j, v) in [s0, s1, b0].into_iter().enumerate() {
        let (l, r) = v.map_or((None, None), |v| children(c, v));
        row[5 + 2 * j] = pos(l);
        row[6 + 2 * j] = pos(r);
    }
}

/// The leftmost dependent of `v` left of it and the rightmost right of it.
fn children(c: &Configuration, v: usize) -> (Option<usize>, Option<usize>) {
    let mut spine_l = c.left_spine(v);
    let mut spine_r = c.right_spine(v);
    spine_l.next();
    spine_r.next();
    (spine_l.next(), spine_r.next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_follow_the_configuration() {
        // Arc-standard on 4 words: shift 1, shift 2, reduce-left (the arc
        // 1 → 2, 2 popped), shift 3: stack 0 1 3, input 4; 1's rightmost
        // child 2.
        let mut c = Configuration::initial(System::ArcStandard, 4);
        for s in [Step::Shift, Step::Shift, Step::ReduceLeft, Step::Shift] {
            c.apply(s).unwrap();
        }
        let mut row = [0i64; 11];
        fill_positions(&c, &mut row);
        assert_eq!(row, [3, 1, 0, 4, -1, -1, -1, -1, 2, -1, -1]);
    }

    #[test]
    fn columns_are_the_steps_or_the_spine() {
        assert_eq!(step_columns(System::ArcHybrid), System::ArcHybrid.steps());
        let spine = step_columns(System::LrSpine);
        assert_eq!(spine.len(), 1 + 2 * SPINE_CAPACITY);
        assert_eq!(spine[1], Step::LeftArcAt(1));
        assert_eq!(spine[SPINE_CAPACITY + 1], Step::RightArcAt(1));
    }
}
