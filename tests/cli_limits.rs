//! Memory and file-size limits: every large allocation is refused with an
//! error before it is made, and model and weights files are read only when
//! they are regular files of the size their header states.
//!
//! Regression tests: `projectivize` on a long sentence allocated its
//! (n+1)² preference weights outside `--max-memory` and aborted; `train
//! --step-bits 28 --label-bits 26` allocated 9 GB outside it, aborted and
//! left a temporary file; `parse --model /dev/zero` and `--prefer
//! /dev/zero` read until memory ran out; a sparse 3 GB file with a model
//! header was read whole before being refused; a header edited to another
//! system was called "truncated".

#![cfg(unix)]

mod common;

use common::{fails_in as fails_with, scratch_in, stderr_of as stderr, tabula_in};

fn scratch(name: &str) -> PathBuf {
    scratch_in("cli_limits", name)
}

use std::fs;
use std::path::{Path, PathBuf};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    v.sort();
    v
}

/// One non-projective sentence of `n` words (a chain with a crossing at the start).
fn long_sentence(n: usize) -> String {
    let mut s = String::from("# sent_id = long\n");
    for i in 1..=n {
        let h = match i {
            1 => 0,
            3 => 5,
            4 | 5 => 1,
            _ => i - 1,
        };
        s.push_str(&format!("{i}\tw\t_\tX\t_\t_\t{h}\tdep\t_\t_\n"));
    }
    s.push('\n');
    s
}

#[test]
fn preference_weights_count_against_the_memory_limit() {
    let dir = scratch("prefer");
    fs::write(dir.join("long.conllu"), long_sentence(2000)).unwrap();
    let limit = "the limit of 8.0 MiB (raise it with --max-memory, or tabula::memory::set_max_memory)";
    fails_with(
        &dir,
        &["projectivize", "long.conllu", "--max-memory", "8M", "-o", "out.conllu"],
        // The chart (n² cells); the weights take O(n) (they were (n+1)² numbers, 30.5 MiB of 458.2).
        &format!("long.conllu:1: the preference weights and the chart for 2000 words would need about 427.8 MiB of memory, more than {limit}"),
    );
    assert_eq!(listing(&dir), ["long.conllu"]);
    // Without --max-memory, a sentence far too long for the default limit is an error too, at once
    // (if --max-words lets it through: by default it is copied unchanged).
    fs::write(dir.join("huge.conllu"), long_sentence(100_000)).unwrap();
    let o = tabula_in(&dir, &["projectivize", "huge.conllu", "--max-words", "100000"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).starts_with("error: huge.conllu:1: the preference weights and the chart for 100000 words would need about 1.0 TiB of memory"), "{}", stderr(&o));
    // By default it is copied unchanged, with a warning, and the exit status says that the
    // output is not all projective; --allow-long accepts that.
    let o = tabula_in(&dir, &["projectivize", "huge.conllu", "-o", "out.conllu"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("huge.conllu:1: 100000 words"), "{}", stderr(&o));
    assert_eq!(fs::read(dir.join("out.conllu")).unwrap(), fs::read(dir.join("huge.conllu")).unwrap());
    let o = tabula_in(&dir, &["projectivize", "huge.conllu", "-o", "allowed.conllu", "--allow-long"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read(dir.join("allowed.conllu")).unwrap(), fs::read(dir.join("huge.conllu")).unwrap());
}

#[test]
fn model_tables_count_against_the_memory_limit() {
    let dir = scratch("tables");
    fs::copy(format!("{DATA}/conllu/projective.conllu"), dir.join("train.conllu")).unwrap();
    fails_with(
        &dir,
        &["train", "train.conllu", "-o", "model.bin", "--step-bits", "28", "--label-bits", "26"],
        "training the model tables (2^28 rows × 3 step weights and 2^26 rows × 12 label weights) would need about 30.0 GiB of memory, more than the limit of 8.0 GiB (raise it with --max-memory, or tabula::memory::set_max_memory)",
    );
    // No temporary file left behind.
    assert_eq!(listing(&dir), ["train.conllu"]);
    let o = tabula_in(
        &dir,
        &["train", "train.conllu", "-o", "model.bin", "--epochs", "1", "--step-bits", "12", "--label-bits", "10"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    fails_with(
        &dir,
        &["parse", "--model", "model.bin", "train.conllu", "--max-memory", "100K"],
        "model.bin: reading the model (2^12 rows × 3 step weights and 2^10 rows × 12 label weights) would need about 240.0 KiB of memory, more than the limit of 100.0 KiB (raise it with --max-memory, or tabula::memory::set_max_memory)",
    );
}

#[test]
fn special_files_are_refused_as_models_and_weights() {
    let dir = scratch("special");
    fs::copy(format!("{DATA}/conllu/nonprojective.conllu"), dir.join("in.conllu")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero")).unwrap();
    for model in ["/dev/zero", "zero", "."] {
        fails_with(
            &dir,
            &["parse", "--model", model, "in.conllu"],
            &format!("{model}: not a regular file (a model is a file written by `tabula train`)"),
        );
    }
    for weights in ["/dev/zero", "zero", "."] {
        fails_with(
            &dir,
            &["projectivize", "in.conllu", "--prefer", weights],
            &format!("{weights}: not a regular file (a weights file is a text file of rules)"),
        );
    }
    let big = fs::File::create(dir.join("big.weights")).unwrap();
    big.set_len(20 << 20).unwrap();
    fails_with(
        &dir,
        &["projectivize", "in.conllu", "--prefer", "big.weights"],
        "big.weights: 20971520 bytes, more than a weights file may have (16777216)",
    );
}

/// A model of 2^8 and 2^6 rows trained in `dir` as `model.bin`; its bytes.
fn small_model(dir: &Path) -> Vec<u8> {
    fs::copy(format!("{DATA}/conllu/projective.conllu"), dir.join("train.conllu")).unwrap();
    let o = tabula_in(
        dir,
        &["train", "train.conllu", "-o", "model.bin", "--epochs", "1", "--step-bits", "8", "--label-bits", "6"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    fs::read(dir.join("model.bin")).unwrap()
}

#[test]
fn model_sizes_are_checked_against_the_header_before_reading() {
    let dir = scratch("sizes");
    let bytes = small_model(&dir);
    let len = bytes.len();
    // A sparse file of 3 GiB behind a valid header: refused at once, not read.
    let sparse = fs::File::create(dir.join("sparse.bin")).unwrap();
    std::io::Write::write_all(&mut &sparse, &bytes[..200]).unwrap();
    sparse.set_len(3 << 30).unwrap();
    let start = std::time::Instant::now();
    fails_with(
        &dir,
        &["parse", "--model", "sparse.bin", "train.conllu"],
        &format!("sparse.bin: the model file is corrupt: its header states {len} bytes, the file has 3221225472 (trailing bytes after the checksum)"),
    );
    assert!(start.elapsed().as_secs() < 5, "the sparse file was read");
    fs::write(dir.join("short.bin"), &bytes[..len - 10]).unwrap();
    fails_with(
        &dir,
        &["parse", "--model", "short.bin", "train.conllu"],
        &format!("short.bin: the model file is truncated: its header states {len} bytes, the file has {}", len - 10),
    );
    fs::write(dir.join("header.bin"), &bytes[..40]).unwrap();
    fails_with(
        &dir,
        &["parse", "--model", "header.bin", "train.conllu"],
        "header.bin: the model file is truncated (within its header)",
    );
}

#[test]
fn a_header_edited_to_another_system_is_called_so() {
    let dir = scratch("edited");
    let bytes = small_model(&dir);
    let text = String::from_utf8_lossy(&bytes[..100]).into_owned();
    assert!(text.contains("system arc-hybrid\n"), "{text}");
    let edited = |to: &str| {
        let at = bytes.windows(17).position(|w| w == b"system arc-hybrid").unwrap();
        let mut out = bytes[..at].to_vec();
        out.extend_from_slice(format!("system {to}").as_bytes());
        out.extend_from_slice(&bytes[at + 17..]);
        out
    };
    fs::write(dir.join("eager.bin"), edited("arc-eager")).unwrap();
    fails_with(
        &dir,
        &["parse", "--model", "eager.bin", "train.conllu"],
        "eager.bin: the model file is corrupt: its header says `system arc-eager`, but its tables have the size of an arc-standard or arc-hybrid model (the header was changed)",
    );
    // Arc-standard's tables have arc-hybrid's size: the checksum tells.
    fs::write(dir.join("standard.bin"), edited("arc-standard")).unwrap();
    fails_with(
        &dir,
        &["parse", "--model", "standard.bin", "train.conllu"],
        "standard.bin: the model file is corrupt: checksum mismatch",
    );
}

/// The tagger's memory message names its own tables (it used to speak of
/// label weights and 2^0 rows).
#[test]
fn the_tagger_names_its_own_tables() {
    let dir = scratch("tagger_tables");
    fs::copy(format!("{DATA}/conllu/projective.conllu"), dir.join("train.conllu")).unwrap();
    let o =
        tabula_in(&dir, &["train-tagger", "train.conllu", "-o", "tagger.bin", "--bits", "26", "--max-memory", "100M"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("error: the tagger's tables (1 table of 2^26 rows × "), "{err}");
    assert!(err.contains(" tags and 0 FEATS values) would need about "), "{err}");
    assert!(!err.contains("label weights") && !err.contains("2^0"), "{err}");
}

/// `--epochs` and `--threads` are bounded, with a message: `train --epochs
/// 2^64-1` ran for ever and `--threads 100000` spent seconds starting
/// threads before failing.
#[test]
fn epochs_and_threads_are_bounded() {
    let dir = scratch("bounds");
    fs::copy(format!("{DATA}/conllu/projective.conllu"), dir.join("train.conllu")).unwrap();
    let refused = |args: &[&str], message: &str| {
        let o = tabula_in(&dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    };
    let huge = "18446744073709551615";
    refused(&["train", "train.conllu", "-o", "m.bin", "--epochs", huge], "epochs is more than the limit of 1000");
    refused(&["train-tagger", "train.conllu", "-o", "t.bin", "--epochs", "1001"], "more than the limit of 1000");
    for command in [&["parse", "--model", "m.bin"][..], &["projectivize"], &["tag", "--tagger", "t.bin"]] {
        let args: Vec<&str> = command.iter().copied().chain(["train.conllu", "--threads", "100000"]).collect();
        refused(&args, "100000 threads is more than 4 per core of this machine");
    }
    assert_eq!(listing(&dir), ["train.conllu"]);
}

/// A beam's hypotheses and history (items × steps) count against
/// `--max-memory` before they are allocated.
#[test]
fn a_beam_counts_against_the_memory_limit() {
    let dir = scratch("beam_memory");
    fs::copy(format!("{DATA}/conllu/projective.conllu"), dir.join("train.conllu")).unwrap();
    let o = tabula_in(&dir, &["train", "train.conllu", "-o", "model.bin", "--epochs", "1", "--beam", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    fs::write(dir.join("long.conllu"), long_sentence(800)).unwrap();
    let o =
        tabula_in(&dir, &["parse", "--model", "model.bin", "long.conllu", "--beam", "1024", "--max-memory", "100M"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("a beam of 1024 over a sentence of 800 words would need about"), "{err}");
    let o = tabula_in(&dir, &["parse", "--model", "model.bin", "long.conllu", "--beam", "8", "--max-memory", "100M"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// `--max-memory` where nothing it bounds runs (linear passes over the
/// input) is refused rather than accepted and ignored.
#[test]
fn max_memory_is_refused_where_it_would_do_nothing() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample.conllu");
    let grammar = concat!(env!("CARGO_MANIFEST_DIR"), "/grammars/projective.grammar");
    for (args, name) in [
        (&["eval", sample, sample][..], "eval"),
        (&["draw", sample, "--text"][..], "draw"),
        (&["deprojectivize", sample][..], "deprojectivize"),
        (&["grammar", "check", grammar][..], "grammar check"),
        (&["projectivize", sample, "--method", "lift"][..], "projectivize --method lift"),
    ] {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let o = tabula_in(here, &[args, &["--max-memory", "1K"][..]].concat());
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!(
                "error: --max-memory bounds the computations of the engine, the oracles, training and parsing; \
                 {name} runs none (its work is linear in its input), so the option would do nothing\n"
            )
        );
        assert!(o.stdout.is_empty());
        assert!(tabula_in(here, args).status.success(), "{args:?} without the option");
    }
}
