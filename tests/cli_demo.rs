//! The README's main command: `tabula demo` on the embedded sample.

use std::process::Command;
use tabula::oracle::{exhaustive, Algorithm, Configuration, Oracle, Strategy, System};
use tabula::tree::DepTree;

#[test]
fn demo_runs_on_the_embedded_sample_and_optimal_beats_lifting() {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula")).arg("demo").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    // demo-6 is the sentence where lifting loses an arc that the optimum keeps.
    let row = text.lines().find(|l| l.starts_with("demo-6")).unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols, ["demo-6", "5", "yes", "4", "3", "2"]);
    assert!(text.contains("attachment score kept (Table 6): optimal 87.80 %, lift 85.37 % of 41 words"));
    // The oracle lines agree with the brute-force reference, for every system.
    let gold = DepTree::from_heads(&[2, 0, 4, 2, 2, 8, 8, 4]).unwrap();
    for system in System::ALL.into_iter().filter(|&s| Oracle::algorithms(s).contains(&Algorithm::Cubic)) {
        let config = Configuration::with_arcs(system, &[0, 1, 2, 3], &[4, 5, 6, 7, 8], &[], 8).unwrap();
        let strategy = if system == System::Attardi { Strategy::None } else { Strategy::Lbr };
        let s = exhaustive::step_scores(&config, &gold, strategy).unwrap();
        let steps: Vec<String> = system
            .steps()
            .iter()
            .map(|&st| format!("{st} {}", s.get(st).map_or("n/a".to_owned(), |v| v.to_string())))
            .collect();
        let line = format!("  {system}: stack [0, 1, 2, 3], input 4 to 8: {}", steps.join(", "));
        assert!(text.contains(&line), "{line}\n{text}");
    }
}
