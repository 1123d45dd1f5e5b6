//! The weight-matrix reader of `tabula grammar parse --weights`: any text
//! gives a matrix of the requested size or an error naming a line, never a
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::grammar::weights::parse_weights;

fuzz_target!(|data: &[u8]| {
    let Some((&size, rest)) = data.split_first() else { return };
    let Ok(src) = std::str::from_utf8(rest) else { return };
    let size = usize::from(size % 16);
    match parse_weights("fuzz.weights", src, size) {
        Ok(m) => {
            assert_eq!(m.len(), size);
            assert!(m.iter().all(|row| row.len() == size));
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.starts_with("fuzz.weights"), "{msg}");
            assert!(msg.len() < 1000, "message too long: {} bytes", msg.len());
        }
    }
});
