//! The model-file reader of `tabula parse --model`: any bytes give a model
//! or an error, never a panic or an allocation beyond what the bytes hold;
//! a model read back writes the same bytes (a file of the current version),
//! or bytes that read back as the same model and are then written the same
//! (an older version's file).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tabula::parser::model::MODEL_VERSION;
use tabula::parser::Model;

fuzz_target!(|data: &[u8]| {
    if let Ok(model) = Model::from_bytes(data) {
        let bytes = model.to_bytes();
        if data.starts_with(format!("TABULA-PARSER-MODEL\nversion {MODEL_VERSION}\n").as_bytes()) {
            assert_eq!(bytes, data, "a model read back writes the same bytes");
        } else {
            let again = Model::from_bytes(&bytes).expect("a model's own bytes read back");
            assert!(again == model, "an older file's model reads back the same from the current version");
            assert_eq!(again.to_bytes(), bytes, "the current version's bytes are a fixed point");
        }
    }
});
