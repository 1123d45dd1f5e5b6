//! `tabula eval`'s reading and alignment of a gold and a predicted file:
//! any pair of inputs (the data split at its first byte's position) gives
//! scores or an error naming a file, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::parser::eval::evaluate;

fuzz_target!(|data: &[u8]| {
    let Some((&at, rest)) = data.split_first() else { return };
    let at = usize::from(at) * rest.len() / 256;
    let (gold, pred) = rest.split_at(at);
    match evaluate(gold, "gold.conllu", pred, "pred.conllu") {
        Ok(e) => assert!(e.all.heads <= e.all.words),
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains("gold.conllu") || msg.contains("pred.conllu"), "{msg}");
        }
    }
});
