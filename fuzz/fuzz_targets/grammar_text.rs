//! The grammar text parser and compiler: any text gives a grammar or
//! diagnostics, never a panic; a grammar prints to text that parses to a
//! grammar printing the same way, and the engine runs on it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::engine::Parser;
use tabula::grammar::text::parse_str;
use tabula::semiring::{Boolean, Semiring};

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let parsed = match parse_str("fuzz.grammar", src) {
        Ok(p) => p,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let g = parsed.grammar;
    let printed = g.to_string();
    let again = parse_str("printed.grammar", &printed).expect("a printed grammar parses");
    assert_eq!(again.grammar.to_string(), printed, "printing is stable");
    // Parse every terminal string of length ≤ 3 over the first two terminals.
    let terminals: Vec<_> = g.terminals().take(2).collect();
    let mut parser = Parser::<Boolean>::new(&g);
    for len in 1..=3usize {
        for mask in 0..terminals.len().pow(len as u32) {
            let mut m = mask;
            let input: Vec<_> = (0..len)
                .map(|_| {
                    let t = terminals[m % terminals.len()];
                    m /= terminals.len();
                    t
                })
                .collect();
            parser.parse(&input, |_, _| Boolean::one()).expect("a valid input parses");
        }
    }
});
