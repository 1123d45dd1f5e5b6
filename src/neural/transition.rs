//! The transition model's decoder: greedy steps of one of tabula's
//! transition systems, as `tabula_parsing.neural`'s `parse_batches` takes
//! them. From each configuration, the step scorer sums the first MLP
//! layer's terms of the 11 positions [`fill_positions`] gathers (the
//! network's output `terms`; −1, no word, reads the absent row) and the
//! bias, applies tanh, and scores the system's steps with the first half of
//! the result: the best applicable step is taken (the first of equal
//! scores). The arc it builds gets the best label of that step's label
//! scores, from the second half (with a label `root`: exactly the arcs from
//! the root have it). A word left without a head (arc-eager) hangs from the
//! root with the label `root`.

use super::math::{best_label, dot, tanh_biased};
use crate::oracle::features::{fill_positions, step_columns, POSITIONS};
use crate::oracle::{Configuration, Step, System};

/// The step scorer of a transition model (the weights after the first
/// MLP layer's terms, read once from the graph).
pub(super) struct Scorer {
    system: System,
    columns: &'static [Step],
    /// The MLP's width m (the hidden layer is 2m: steps, then labels).
    m: usize,
    labels: usize,
    root_label: Option<usize>,
    hidden_bias: Vec<f32>,
    /// steps × m, row-major.
    step_weight: Vec<f32>,
    step_bias: Vec<f32>,
    /// (steps · labels) × m.
    label_weight: Vec<f32>,
    label_bias: Vec<f32>,
}

/// A thread's buffers for [`Scorer::parse`].
pub(super) struct Scratch {
    config: Configuration,
    row: [i64; POSITIONS.len()],
    hidden: Vec<f32>,
    given: Vec<Option<usize>>,
}

impl Scorer {
    /// The scorer of `system` from the graph's weight outputs (in the
    /// order `hidden_bias`, `step_weight`, `step_bias`, `label_weight`,
    /// `label_bias`), their sizes checked against `labels` label classes
    /// and the metadata's `steps` and `positions`; `Err`: what does not fit.
    pub(super) fn new(
        system: &str,
        steps: &[String],
        positions: &[String],
        labels: &[String],
        weights: [Vec<f32>; 5],
    ) -> Result<Scorer, String> {
        let system: System = system.parse().map_err(|e| format!("its system: {e}"))?;
        let columns = step_columns(system);
        if steps.len() != columns.len() || steps.iter().zip(columns).any(|(a, b)| a != b.name()) {
            return Err(format!("its steps ({}) are not {system}'s", steps.join(" ")));
        }
        if positions.iter().map(String::as_str).ne(POSITIONS) {
            return Err(format!("its positions ({}) are not those this tabula gathers", positions.join(" ")));
        }
        let [hidden_bias, step_weight, step_bias, label_weight, label_bias] = weights;
        let m = hidden_bias.len() / 2;
        let (s, l) = (columns.len(), labels.len());
        let sizes = [hidden_bias.len(), step_weight.len(), step_bias.len(), label_weight.len(), label_bias.len()];
        if m == 0 || sizes != [2 * m, s * m, s, s * l * m, s * l] {
            return Err(format!("its step scorer's weights have sizes {sizes:?} for {s} steps and {l} labels"));
        }
        Ok(Scorer {
            system,
            columns,
            m,
            labels: l,
            root_label: labels.iter().position(|x| x == "root"),
            hidden_bias,
            step_weight,
            step_bias,
            label_weight,
            label_bias,
        })
    }

    /// Buffers for [`Scorer::parse`].
    pub(super) fn scratch(&self) -> Scratch {
        Scratch {
            config: Configuration::initial(self.system, 0),
            row: [0; POSITIONS.len()],
            hidden: vec![0.0; 2 * self.m],
            given: Vec::new(),
        }
    }

    /// The greedy parse of a sentence of `n` words from its `terms`
    /// ((t + 1) × 11 × 2m, row-major, for a batch padded to t ≥ n + 1
    /// positions; row t the absent word's): the head of each word 1 … n
    /// and the index of its label (`None`: `root` for a word left without
    /// a head).
    pub(super) fn parse(
        &self,
        terms: &[f32],
        n: usize,
        t: usize,
        scratch: &mut Scratch,
    ) -> Result<(Vec<usize>, Vec<Option<usize>>), String> {
        let width = 2 * self.m;
        let p = POSITIONS.len();
        if t <= n || terms.len() != (t + 1) * p * width {
            return Err(format!("terms of {} numbers for {n} words padded to {t} positions", terms.len()));
        }
        let Scratch { config, row, hidden, given } = scratch;
        config.reset(self.system, n);
        given.clear();
        given.resize(n + 1, None);
        while !config.is_final() {
            fill_positions(config, row);
            // Σ over the positions in their order, then the bias (the
            // Python scorer's sum and addition).
            for (j, x) in row.iter().enumerate() {
                let at = if *x < 0 { t } else { *x as usize };
                let t = &terms[(at * p + j) * width..][..width];
                if j == 0 {
                    hidden.copy_from_slice(t);
                } else {
                    hidden.iter_mut().zip(t).for_each(|(h, v)| *h += v);
                }
            }
            // tanh of the steps' half now, of the labels' half only for a
            // step that builds an arc.
            let (hs, hl) = hidden.split_at_mut(self.m);
            let (bs, bl) = self.hidden_bias.split_at(self.m);
            tanh_biased(hs, bs);
            let mut best: Option<(usize, f32)> = None;
            for (k, &step) in self.columns.iter().enumerate() {
                if !config.is_applicable(step) {
                    continue;
                }
                let s = dot(hs, &self.step_weight[k * self.m..][..self.m]) + self.step_bias[k];
                if best.is_none_or(|(_, b)| s > b) {
                    best = Some((k, s));
                }
            }
            let (k, _) = best.ok_or_else(|| format!("no step of {} applies before the end", self.system))?;
            let step = self.columns[k];
            if let Some((h, d)) = config.arc(step) {
                tanh_biased(hl, bl);
                given[d] = best_label(self.labels, self.root_label, h == 0, |l| {
                    let at = k * self.labels + l;
                    dot(hl, &self.label_weight[at * self.m..][..self.m]) + self.label_bias[at]
                });
            }
            config.apply(step).map_err(|e| e.to_string())?;
        }
        let heads: Vec<usize> = (1..=n).map(|d| config.head(d).unwrap_or(0)).collect();
        let labels = heads
            .iter()
            .zip(&given[1..])
            .map(|(&h, &l)| if h == 0 && (l.is_none() || self.root_label.is_some()) { None } else { l })
            .collect();
        Ok((heads, labels))
    }
}
