//! `tabula parse --model MODEL.onnx`: a neural model exported by
//! `python -m tabula_parsing.neural export`, run without Python.
//!
//! `tests/data/tiny-biaffine.onnx` is a biaffine model (sizes 8–16, two
//! epochs on `data/sample.conllu`, trees `nonprojective-single-root`), and
//! `tiny-biaffine.expected.conllu` the Python parser's output for the
//! sample; `tiny-arc-eager.onnx` and its `.expected.conllu` the same for a
//! transition model (arc-eager, sizes 4–8, two epochs; words left without
//! a head among its output). The command line must write the same bytes,
//! whatever the threads. (`python/tests/test_onnx.py` trains, exports and compares
//! afresh where PyTorch is installed.) Without the `onnx` feature, such a
//! model gets an error that says how to build with it.

mod common;

#[cfg(feature = "onnx")]
use common::scratch_in;
use common::{stderr_of, tabula_with_stdin};

const MODEL: &str = "tests/data/tiny-biaffine.onnx";
const SAMPLE: &str = "data/sample.conllu";

#[cfg(feature = "onnx")]
#[test]
fn an_exported_model_parses_as_the_python_parser_does() {
    for name in ["tiny-biaffine", "tiny-arc-eager"] {
        let model = format!("tests/data/{name}.onnx");
        let expected = std::fs::read_to_string(format!("tests/data/{name}.expected.conllu")).unwrap();
        for threads in ["1", "2"] {
            let o = tabula_with_stdin(&["parse", "--model", &model, SAMPLE, "--threads", threads], "");
            assert!(o.status.success(), "{name}: {}", stderr_of(&o));
            assert_eq!(String::from_utf8(o.stdout).unwrap(), expected, "{name}, --threads {threads}");
        }
    }
}

#[cfg(feature = "onnx")]
#[test]
fn the_perceptrons_options_are_refused_with_a_reason() {
    let o = tabula_with_stdin(&["parse", "--model", MODEL, SAMPLE, "--beam", "4"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr_of(&o).contains("--beam 4 has no effect with a neural model"), "{}", stderr_of(&o));
    let o = tabula_with_stdin(&["parse", "--model", MODEL, SAMPLE, "--constraints"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr_of(&o).contains("--constraints has no effect with a neural model"), "{}", stderr_of(&o));
    // The settings' own checks are the perceptron's.
    let o = tabula_with_stdin(&["parse", "--model", MODEL, SAMPLE, "--max-words", "0"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr_of(&o).contains("--max-words 0: no sentence is that short"), "{}", stderr_of(&o));
}

#[cfg(feature = "onnx")]
#[test]
fn a_file_that_is_not_an_exported_model_is_named() {
    let dir = scratch_in("cli_onnx", "not_a_model");
    let bogus = dir.join("bogus.onnx");
    std::fs::write(&bogus, b"\x08\x07no protobuf here \xff\xff\xff").unwrap();
    let o = tabula_with_stdin(&["parse", "--model", bogus.to_str().unwrap(), SAMPLE], "");
    assert_eq!(o.status.code(), Some(1));
    let expected = format!("error: {}: not a tabula neural model in ONNX: not ONNX", bogus.display());
    assert!(stderr_of(&o).starts_with(&expected), "{}", stderr_of(&o));
    let treebank = dir.join("treebank.onnx");
    std::fs::copy(SAMPLE, &treebank).unwrap();
    let o = tabula_with_stdin(&["parse", "--model", treebank.to_str().unwrap(), SAMPLE], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr_of(&o).contains("not a tabula neural model in ONNX: line 4 shows a CoNLL-U treebank"));
}

#[cfg(not(feature = "onnx"))]
#[test]
fn without_the_feature_an_exported_model_says_how_to_build_with_it() {
    let o = tabula_with_stdin(&["parse", "--model", MODEL, SAMPLE], "");
    assert_eq!(o.status.code(), Some(1));
    let expected = format!(
        "error: {MODEL}: a neural model in ONNX is parsed by a tabula built with the `onnx` feature \
         (cargo build --release --features onnx), which this one was not"
    );
    assert_eq!(stderr_of(&o).trim_end(), expected);
}
