//! The oracle's input: a JSON line as `tabula oracle` reads it (stack,
//! buffer, gold, optional arcs, system, strategy), validated into a
//! configuration, then scored by every algorithm. Nothing may panic; with a
//! projective gold tree every algorithm available for the system (cubic,
//! quadratic, linear or closed form, auto) gives the same scores. Every
//! applicable step then leads to the configuration that the checked
//! constructors rebuild from its stack, input and arcs (what a step keeps
//! of the arcs, e.g. arc-eager-nm's replaced heads, equals the arcs).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tabula::oracle::{Algorithm, Configuration, Oracle, Strategy, System};
use tabula::tree::DepTree;

fn nodes(v: Option<&Value>) -> Option<Vec<usize>> {
    v?.as_array()?.iter().map(|x| x.as_u64().and_then(|x| usize::try_from(x).ok())).collect()
}

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(data) else { return };
    let (Some(stack), Some(buffer)) = (nodes(obj.get("stack")), nodes(obj.get("buffer"))) else { return };
    let Some(gold) = obj.get("gold").and_then(Value::as_array) else { return };
    if gold.first().and_then(Value::as_i64) != Some(-1) {
        return;
    }
    let Some(heads) =
        gold[1..].iter().map(|h| h.as_u64().and_then(|h| usize::try_from(h).ok())).collect::<Option<Vec<_>>>()
    else {
        return;
    };
    // Small sentences: the cubic algorithm is O(n³) per call.
    if heads.len() > 40 {
        return;
    }
    let Ok(gold) = DepTree::from_heads(&heads) else { return };
    let system = match obj.get("system").and_then(Value::as_str) {
        Some(s) => match s.parse::<System>() {
            Ok(s) => s,
            Err(_) => return,
        },
        None => System::ArcStandard,
    };
    let strategy = match obj.get("strategy").and_then(Value::as_str) {
        Some(s) => match s.parse::<Strategy>() {
            Ok(s) => s,
            Err(_) => return,
        },
        None => Strategy::Lbr,
    };
    let arcs: Option<Vec<(usize, usize)>> = obj.get("arcs").and_then(Value::as_array).and_then(|a| {
        a.iter()
            .map(|p| {
                let p = p.as_array()?;
                Some((usize::try_from(p.first()?.as_u64()?).ok()?, usize::try_from(p.get(1)?.as_u64()?).ok()?))
            })
            .collect()
    });
    let config = match &arcs {
        Some(arcs) => Configuration::with_arcs(system, &stack, &buffer, arcs, gold.len()),
        None => Configuration::new(system, &stack, &buffer, gold.len()),
    };
    let Ok(config) = config else { return };
    let mut oracle = Oracle::new();
    let mut answers = Vec::new();
    for algorithm in [Algorithm::Cubic, Algorithm::Quadratic, Algorithm::Linear, Algorithm::Auto] {
        if let Ok(s) = oracle.scores(&config, &gold, strategy, algorithm) {
            answers.push((algorithm, s));
        }
    }
    if gold.is_projective() {
        for w in answers.windows(2) {
            assert_eq!(w[0].1, w[1].1, "{:?} and {:?} disagree", w[0].0, w[1].0);
        }
    }
    for step in config.applicable_steps().collect::<Vec<_>>() {
        let mut next = config.clone();
        next.apply(step).expect("an applicable step applies");
        let arcs: Vec<(usize, usize)> = next.arcs().collect();
        let rebuilt = match next.unshifted() {
            Some(u) => Configuration::with_unshifted(system, next.stack(), u, &arcs, gold.len()),
            None => {
                let buffer: Vec<usize> = next.buffer().collect();
                Configuration::with_arcs(system, next.stack(), &buffer, &arcs, gold.len())
            }
        };
        // Systems whose configurations need more than arcs (LR-spine's spines) are left out.
        if let Ok(rebuilt) = rebuilt {
            assert_eq!(next, rebuilt, "after {step}");
        }
    }
});
