//! The model-file reader of `tabula parse --model`: any bytes give a model
//! or an error, never a panic or an allocation beyond what the bytes hold;
//! a model read back writes the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::parser::Model;

fuzz_target!(|data: &[u8]| {
    if let Ok(model) = Model::from_bytes(data) {
        assert_eq!(model.to_bytes(), data, "a model read back writes the same bytes");
    }
});
