//! No command replaces one of its inputs, or a file that cannot be written.
//!
//! Regression tests: `train X -o X` used to replace the training treebank with
//! the model, `parse in -o in`, `count in --tsv in` and `count in --plot in`
//! the input with their output, and a read-only (0444) output was replaced
//! by the rename. Now each is refused before any work, naming both paths,
//! and the files are left as they were.

#![cfg(unix)]

mod common;

use common::{scratch_in, stderr_of as stderr, tabula_in};

fn scratch(name: &str) -> PathBuf {
    scratch_in("cli_inputs_kept", name)
}

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

/// A scratch directory with `in.conllu` (a small projective treebank).
fn with_input(name: &str) -> (PathBuf, String) {
    let dir = scratch(name);
    let text = fs::read_to_string(format!("{DATA}/conllu/projective.conllu")).unwrap();
    fs::write(dir.join("in.conllu"), &text).unwrap();
    (dir, text)
}

/// A small model `model.bin` in `dir`.
fn train_model(dir: &Path) {
    let o = tabula_in(
        dir,
        &["train", "in.conllu", "-o", "model.bin", "--epochs", "1", "--step-bits", "8", "--label-bits", "6"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Runs `args` in `dir`, expects exit status 1 and exactly `message` on
/// standard error, and `in.conllu` still holding `text`.
fn refused(dir: &Path, args: &[&str], message: &str, text: &str) {
    let o = tabula_in(dir, args);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
    assert_eq!(stderr(&o), format!("error: {message}\n"), "{args:?}");
    assert_eq!(fs::read_to_string(dir.join("in.conllu")).unwrap(), text, "{args:?} changed the input");
}

#[test]
fn every_command_refuses_to_write_over_its_input() {
    let (dir, text) = with_input("same");
    train_model(&dir);
    let same = "it is the same file as the input in.conllu, which would be replaced";
    refused(&dir, &["train", "in.conllu", "-o", "in.conllu"], &format!("cannot write in.conllu: {same}"), &text);
    refused(
        &dir,
        &["parse", "--model", "model.bin", "in.conllu", "-o", "in.conllu"],
        &format!("cannot write in.conllu: {same}"),
        &text,
    );
    refused(&dir, &["projectivize", "in.conllu", "-o", "in.conllu"], &format!("cannot write in.conllu: {same}"), &text);
    refused(&dir, &["count", "in.conllu", "--tsv", "in.conllu"], &format!("cannot write in.conllu: {same}"), &text);
    refused(&dir, &["count", "in.conllu", "--plot", "in.conllu"], &format!("cannot write in.conllu: {same}"), &text);
    refused(
        &dir,
        &["oracle", "--walk", "in.conllu", "--plot", "in.conllu"],
        &format!("cannot write in.conllu: {same}"),
        &text,
    );
    // `./x` and `x`.
    refused(
        &dir,
        &["projectivize", "./in.conllu", "-o", "in.conllu"],
        "cannot write in.conllu: it is the same file as the input ./in.conllu, which would be replaced",
        &text,
    );
    // The other inputs: --dev, --init, --model, a --prefer file.
    fs::write(dir.join("dev.conllu"), &text).unwrap();
    refused(
        &dir,
        &["train", "in.conllu", "--dev", "dev.conllu", "-o", "dev.conllu"],
        "cannot write dev.conllu: it is the same file as the input dev.conllu, which would be replaced",
        &text,
    );
    let model = fs::read(dir.join("model.bin")).unwrap();
    for args in [
        vec!["train", "in.conllu", "--init", "model.bin", "--step-bits", "8", "--label-bits", "6", "-o", "model.bin"],
        vec!["parse", "--model", "model.bin", "in.conllu", "-o", "model.bin"],
    ] {
        refused(
            &dir,
            &args,
            "cannot write model.bin: it is the same file as the input model.bin, which would be replaced",
            &text,
        );
        assert_eq!(fs::read(dir.join("model.bin")).unwrap(), model);
    }
    fs::write(dir.join("w.weights"), "root -1\n").unwrap();
    refused(
        &dir,
        &["projectivize", "in.conllu", "--prefer", "w.weights", "-o", "w.weights"],
        "cannot write w.weights: it is the same file as the input w.weights, which would be replaced",
        &text,
    );
    assert_eq!(fs::read_to_string(dir.join("w.weights")).unwrap(), "root -1\n");
}

#[test]
fn links_to_the_input_are_caught() {
    let (dir, text) = with_input("links");
    fs::hard_link(dir.join("in.conllu"), dir.join("hard.conllu")).unwrap();
    std::os::unix::fs::symlink("in.conllu", dir.join("soft.conllu")).unwrap();
    for out in ["hard.conllu", "soft.conllu"] {
        refused(
            &dir,
            &["projectivize", "in.conllu", "-o", out],
            &format!("cannot write {out}: it is the same file as the input in.conllu, which would be replaced"),
            &text,
        );
    }
    fs::create_dir(dir.join("sub")).unwrap();
    refused(
        &dir,
        &["count", "sub/../in.conllu", "--tsv", "in.conllu"],
        "cannot write in.conllu: it is the same file as the input sub/../in.conllu, which would be replaced",
        &text,
    );
}

#[test]
fn standard_input_redirected_from_the_output_is_caught() {
    let (dir, text) = with_input("stdin");
    let o = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .current_dir(&dir)
        .args(["projectivize", "-o", "in.conllu"])
        .stdin(Stdio::from(fs::File::open(dir.join("in.conllu")).unwrap()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: cannot write in.conllu: it is the same file as standard input, which would be replaced\n"
    );
    assert_eq!(fs::read_to_string(dir.join("in.conllu")).unwrap(), text);
}

#[test]
fn tsv_and_plot_must_differ() {
    let (dir, text) = with_input("tsv_plot");
    refused(
        &dir,
        &["count", "in.conllu", "--tsv", "out", "--plot", "./out"],
        "--tsv out and --plot ./out are the same file",
        &text,
    );
    assert!(!dir.join("out").exists());
}

#[test]
fn read_only_outputs_are_not_replaced() {
    let (dir, text) = with_input("read_only");
    train_model(&dir);
    let ro = dir.join("ro");
    fs::write(&ro, "keep\n").unwrap();
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o444)).unwrap();
    let message = "cannot write ro: the file is read-only (mode 0444)";
    for args in [
        vec!["train", "in.conllu", "-o", "ro", "--step-bits", "8", "--label-bits", "6"],
        vec!["parse", "--model", "model.bin", "in.conllu", "-o", "ro"],
        vec!["projectivize", "in.conllu", "-o", "ro"],
        vec!["count", "in.conllu", "--tsv", "ro"],
        vec!["count", "in.conllu", "--plot", "ro"],
        vec!["oracle", "--walk", "in.conllu", "--plot", "ro"],
    ] {
        refused(&dir, &args, message, &text);
        assert_eq!(fs::read_to_string(&ro).unwrap(), "keep\n", "{args:?}");
    }
    // Checked before the work: nothing is read, not even a missing input.
    refused(&dir, &["train", "missing.conllu", "-o", "ro"], message, &text);
    let mut names: Vec<String> =
        fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    names.sort();
    assert_eq!(names, ["in.conllu", "model.bin", "ro"]);
}

/// Writing over an ordinary output file, and over a different file of the same
/// name elsewhere, still works.
#[test]
fn other_outputs_are_still_replaced() {
    let (dir, _) = with_input("ordinary");
    fs::write(dir.join("out.conllu"), "old\n").unwrap();
    let o = tabula_in(&dir, &["projectivize", "in.conllu", "-o", "out.conllu"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(fs::read_to_string(dir.join("out.conllu")).unwrap().contains("# sent_id"));
    fs::create_dir(dir.join("sub")).unwrap();
    fs::copy(dir.join("in.conllu"), dir.join("sub/in.conllu")).unwrap();
    let o = tabula_in(&dir, &["projectivize", "sub/in.conllu", "-o", "in.conllu"]);
    assert!(o.status.success(), "{}", stderr(&o));
}
