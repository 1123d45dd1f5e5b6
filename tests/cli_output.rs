//! Output paths (`-o`, `--tsv`, `--plot`) never harm their target, and every
//! command ends quietly when its reader closes standard output.
//!
//! Regression tests for issue 10: `-o /dev/null` used to replace the device
//! with a regular file (run as root), a symbolic link was replaced by a
//! file, an interrupted run left a temporary file, an unwritable output was
//! reported only after all the input was read and named the temporary file,
//! and `grammar check | true` panicked.

#![cfg(unix)]

use std::fs;
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

fn tabula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabula")).args(args).output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_output").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn nonprojective() -> String {
    format!("{DATA}/conllu/nonprojective.conllu")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    v.sort();
    v
}

fn assert_dev_null_intact() {
    let m = fs::symlink_metadata("/dev/null").unwrap();
    assert!(m.file_type().is_char_device(), "/dev/null is no longer a character device");
}

#[test]
fn dev_null_stays_a_device() {
    // Another program on a shared machine may already have replaced it (what
    // tabula itself used to do): then there is nothing to check here.
    if !fs::symlink_metadata("/dev/null").is_ok_and(|m| m.file_type().is_char_device()) {
        eprintln!("dev_null_stays_a_device: /dev/null is not a character device before the test; skipped");
        return;
    }
    let input = nonprojective();
    let dir = scratch("dev_null");
    let svg = dir.join("plot.svg");
    for args in [
        vec!["projectivize", &input, "-o", "/dev/null"],
        vec!["count", &input, "--tsv", "/dev/null"],
        vec!["count", &input, "--tsv", "/dev/null", "--plot", "/dev/null"],
    ] {
        let o = tabula(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_dev_null_intact();
    }
    let o = tabula(&["count", &input, "--tsv", "/dev/null", "--plot", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let plot = fs::read_to_string(&svg).unwrap();
    assert!(plot.contains("<svg"));
    // The title names the file; no yellow; no `.0` on tick labels.
    let name = std::path::Path::new(&input).file_name().unwrap().to_string_lossy().into_owned();
    assert!(plot.contains(&format!("geometric mean of their number: {name}")), "{plot}");
    assert!(!plot.contains("#F0E442") && !plot.contains("#FFFF00"), "no yellow");
    let decimal_zero =
        |l: &str| l.strip_suffix(".0").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    assert!(!plot.lines().any(|l| decimal_zero(l.trim())), "integer tick labels");
    assert!(plot.lines().any(|l| l.trim() == "10"), "tick labels as text lines");
}

/// `-o /dev/stdout` writes to standard output (here a pipe) in place.
#[test]
fn dev_stdout_is_standard_output() {
    let o = tabula(&["projectivize", &nonprojective(), "-o", "/dev/stdout"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("# sent_id"));
    let o = tabula(&["count", &nonprojective(), "--tsv", "/dev/stdout"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("index\t"));
}

#[test]
fn fifo_is_written_in_place() {
    let dir = scratch("fifo");
    let fifo = dir.join("out.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    let o = tabula(&["projectivize", &nonprojective(), "-o", fifo.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(reader.join().unwrap().contains("# sent_id"));
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(listing(&dir), ["out.fifo"]);
}

#[test]
fn symlinks_are_followed_not_replaced() {
    let dir = scratch("symlink");
    fs::create_dir(dir.join("real")).unwrap();
    fs::write(dir.join("real/target.conllu"), "old\n").unwrap();
    std::os::unix::fs::symlink("real/target.conllu", dir.join("link.conllu")).unwrap();
    let link = dir.join("link.conllu");
    let o = tabula(&["projectivize", &nonprojective(), "-o", link.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(fs::read_to_string(dir.join("real/target.conllu")).unwrap().contains("# sent_id"));
    assert_eq!(listing(&dir), ["link.conllu", "real"]);
    assert_eq!(listing(&dir.join("real")), ["target.conllu"]);

    // A dangling link: the file is created where it points.
    std::os::unix::fs::symlink("real/new.tsv", dir.join("dangling.tsv")).unwrap();
    let o = tabula(&["count", &nonprojective(), "--tsv", dir.join("dangling.tsv").to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(fs::symlink_metadata(dir.join("dangling.tsv")).unwrap().file_type().is_symlink());
    assert!(fs::read_to_string(dir.join("real/new.tsv")).unwrap().starts_with("index\t"));
}

#[test]
fn permissions_of_the_target_are_kept() {
    let dir = scratch("permissions");
    let out = dir.join("out.conllu");
    fs::write(&out, "old\n").unwrap();
    fs::set_permissions(&out, fs::Permissions::from_mode(0o640)).unwrap();
    let o = tabula(&["projectivize", &nonprojective(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o640);
}

#[test]
fn unwritable_output_is_reported_first_by_its_name() {
    let dir = scratch("unwritable");
    let missing = dir.join("no/such/dir/out.conllu");
    // The input does not exist either: the output is checked first.
    let o = tabula(&["projectivize", "no-such-input.conllu", "-o", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains(&format!("cannot write {}", missing.display())), "{err}");
    assert!(!err.contains("tabula-tmp"), "{err}");
    let o = tabula(&["count", "no-such-input.conllu", "--tsv", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("it is a directory"), "{}", stderr(&o));
    let o = tabula(&["count", "no-such-input.conllu", "--plot", missing.to_str().unwrap()]);
    assert!(stderr(&o).contains(&format!("cannot write {}", missing.display())), "{}", stderr(&o));
    assert_eq!(listing(&dir), Vec::<String>::new());
}

#[test]
fn failure_leaves_the_target_and_no_temporary_file() {
    let dir = scratch("failure");
    let out = dir.join("out.conllu");
    fs::write(&out, "old\n").unwrap();
    let bad = dir.join("bad.conllu");
    fs::write(&bad, "1\tw\t_\t_\t_\t_\t7\tdep\t_\t_\n\n").unwrap();
    let o = tabula(&["projectivize", bad.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(fs::read_to_string(&out).unwrap(), "old\n");
    assert_eq!(listing(&dir), ["bad.conllu", "out.conllu"]);
}

/// SIGTERM, SIGINT and SIGHUP while the output is being written delete the temporary file.
#[test]
fn signals_delete_the_temporary_file() {
    for signal in ["TERM", "INT", "HUP"] {
        let dir = scratch(&format!("signal_{signal}"));
        let out = dir.join("out.conllu");
        let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
            .args(["projectivize", "-o", out.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(fs::read_to_string(nonprojective()).unwrap().as_bytes()).unwrap();
        // Wait for the temporary file, then interrupt (stdin stays open).
        let start = Instant::now();
        while listing(&dir).is_empty() {
            assert!(start.elapsed() < Duration::from_secs(20), "no temporary file appeared");
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(100));
        let kill = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
        assert!(kill.success());
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.code(), Some(130), "SIG{signal}");
        assert_eq!(listing(&dir), Vec::<String>::new(), "SIG{signal} left a file");
    }
}

/// Runs `args` with standard output read by a pipe closed at once (as
/// `… | true`); returns the exit code and standard error.
fn closed_pipe(args: &[&str], stdin: Option<&[u8]>) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    if let (Some(mut pipe), Some(bytes)) = (child.stdin.take(), stdin) {
        let _ = pipe.write_all(bytes);
    }
    let o = child.wait_with_output().unwrap();
    (o.status.code(), stderr(&o))
}

/// Many sentences, so that the output does not fit a pipe buffer.
fn big_input(dir: &Path) -> PathBuf {
    let path = dir.join("big.conllu");
    let one = fs::read_to_string(nonprojective()).unwrap();
    fs::write(&path, one.repeat(2000)).unwrap();
    path
}

#[test]
fn closed_stdout_ends_quietly() {
    let dir = scratch("pipe");
    let big = big_input(&dir);
    let big = big.to_str().unwrap();
    let grammar = format!("{DATA}/../../grammars/projective.grammar");
    let json = r#"{"stack":[0],"buffer":[1,2],"gold":[-1,0,1]}"#.to_owned() + "\n";
    let jsons = json.repeat(20000);
    let walk_input = format!("{DATA}/conllu/nonprojective.conllu");
    let cases: Vec<(Vec<&str>, Option<&[u8]>)> = vec![
        (vec!["projectivize", big], None),
        (vec!["projectivize", big, "--threads", "2"], None),
        (vec!["projectivize", big, "--method", "lift"], None),
        (vec!["count", big], None),
        (vec!["oracle"], Some(jsons.as_bytes())),
        (vec!["oracle", "--walk", &walk_input], None),
        (vec!["grammar", "check", &grammar], None),
        (vec!["grammar", "parse", &grammar, "--input", "a a a", "--semiring", "count"], None),
        (vec!["demo"], None),
    ];
    for (args, stdin) in cases {
        let (code, err) = closed_pipe(&args, stdin);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{args:?}: {err}");
    }
}

#[test]
fn full_device_is_an_error_not_a_panic() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let grammar = format!("{DATA}/../../grammars/projective.grammar");
    for args in [vec!["grammar", "check", &grammar], vec!["demo"], vec!["projectivize", &nonprojective()]] {
        let o = Command::new(env!("CARGO_BIN_EXE_tabula"))
            .args(&args)
            .stdout(fs::OpenOptions::new().write(true).open("/dev/full").unwrap())
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("cannot write standard output") && !err.contains("panicked"), "{args:?}: {err}");
    }
    let o = tabula(&["projectivize", &nonprojective(), "-o", "/dev/full"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot write /dev/full"), "{}", stderr(&o));
    assert!(fs::symlink_metadata("/dev/full").unwrap().file_type().is_char_device());
}

/// A killed run (`kill -9`) leaves its temporary file: the next run that
/// writes the same output removes it, and leaves alone those of runs still
/// going (here: process 1, which always runs) and files of other names.
#[cfg(target_os = "linux")]
#[test]
fn the_next_run_removes_the_temporary_files_of_killed_runs() {
    let dir = scratch("stale");
    let out = dir.join("out.conllu");
    // No process has a number above the kernel's limit (2^22).
    let stale = dir.join(".out.conllu.999999999.AbC123.tabula-tmp");
    let running = dir.join(".out.conllu.1.XyZ789.tabula-tmp");
    let other = dir.join(".other.conllu.999999999.AbC123.tabula-tmp");
    for p in [&stale, &running, &other] {
        fs::write(p, "partial").unwrap();
    }
    let o = tabula(&["projectivize", &nonprojective(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stale.exists(), "the killed run's temporary file is still there");
    assert!(running.exists() && other.exists());
    assert!(fs::read_to_string(&out).unwrap().contains("# "));
}
