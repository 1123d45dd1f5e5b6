//! `Output::check`: the refusals of `Output::create_apart`, made before any
//! work and writing nothing (the neural parser checks its model path before
//! its first epoch with it, through Python's `check_output`).
//!
//! Regression: the neural commands wrote their output over an input given
//! again as the output, or through a symbolic or hard link to it.

#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};
use tabula::output::Output;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("output_check").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    v.sort();
    v
}

#[test]
fn an_input_or_a_link_to_it_is_refused_and_nothing_is_written() {
    let dir = scratch("links");
    let input = dir.join("train.conllu");
    fs::write(&input, "1\ta\t_\tX\t_\t_\t0\troot\t_\t_\n\n").unwrap();
    let symlink = dir.join("sym.pt");
    std::os::unix::fs::symlink(&input, &symlink).unwrap();
    let hardlink = dir.join("hard.pt");
    fs::hard_link(&input, &hardlink).unwrap();
    for out in [&input, &symlink, &hardlink] {
        let e = Output::check(Some(out), &[input.as_path()]).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        assert_eq!(
            e.to_string(),
            format!(
                "cannot write {}: it is the same file as the input {}, which would be replaced",
                out.display(),
                input.display()
            )
        );
    }
    // Another path is fine, and checking it creates nothing.
    Output::check(Some(&dir.join("model.pt")), &[input.as_path()]).unwrap();
    Output::check(Some(Path::new("/dev/null")), &[Path::new("/dev/null")]).unwrap();
    Output::check(Some(Path::new("-")), &[input.as_path()]).unwrap();
    assert_eq!(names(&dir), ["hard.pt", "sym.pt", "train.conllu"]);
}

#[test]
fn the_refusals_of_create_are_made_too() {
    let dir = scratch("create");
    let e = Output::check(Some(&dir.join("missing").join("m.pt")), &[]).unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");
    let e = Output::check(Some(&dir), &[]).unwrap_err();
    assert!(e.to_string().ends_with("it is a directory"), "{e}");
    assert!(names(&dir).is_empty());
}
