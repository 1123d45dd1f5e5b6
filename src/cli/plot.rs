//! What the command line's plots share: a palette that colour-blind readers
//! tell apart (Okabe & Ito's, without its yellow, faint on white), tick
//! labels without spurious decimals, and lines broken where an x value has
//! no data.

use plotters::style::RGBColor;

/// Okabe & Ito's colours without yellow: blue, vermilion, bluish green,
/// reddish purple, sky blue, orange, black.
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
];

/// The colour of the `i`-th line.
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// A tick label: whole numbers without decimals (`10000`, not `10000.0`),
/// smaller ones with up to two significant digits.
pub fn number(v: &f64) -> String {
    if *v >= 1.0 || *v == 0.0 {
        format!("{:.0}", v)
    } else {
        let digits = (1 - v.log10().floor() as i32).max(0) as usize;
        let s = format!("{v:.digits$}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// `points` (by increasing x) cut into runs of consecutive x: a line drawn
/// run by run leaves a gap where an x has no point.
pub fn runs<X: Copy + Into<u64>>(points: &[(X, f64)]) -> Vec<Vec<(X, f64)>> {
    let mut out: Vec<Vec<(X, f64)>> = Vec::new();
    for &(x, y) in points {
        match out.last_mut() {
            Some(run) if run.last().is_some_and(|&(px, _)| px.into() + 1 == x.into()) => run.push((x, y)),
            _ => out.push(vec![(x, y)]),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_runs() {
        assert_eq!(number(&10000.0), "10000");
        assert_eq!(number(&2.5), "2");
        assert_eq!(number(&0.25), "0.25");
        assert_eq!(number(&0.0042), "0.0042");
        let r = runs(&[(1u32, 1.0), (2, 2.0), (4, 4.0), (5, 5.0), (7, 7.0)]);
        assert_eq!(r.iter().map(Vec::len).collect::<Vec<_>>(), vec![2, 2, 1]);
        assert!(PALETTE.iter().all(|c| *c != RGBColor(240, 228, 66)), "no yellow");
    }
}
