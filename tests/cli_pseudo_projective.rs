//! `tabula projectivize --encode` and `tabula deprojectivize` end to end:
//! round trips, byte-for-byte copies, errors naming file and line.

mod common;

use common::{fails_in, scratch_in, stderr_of, tabula_in};
use std::fs;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample.conllu");

/// One non-projective sentence: 5 -> 3 and 2 -> 4 cross.
const CROSSING: &str = "# sent_id = x\n\
1\ta\t_\tNOUN\t_\t_\t0\troot\t_\t_\n\
2\tb\t_\tVERB\t_\t_\t1\tacl\t_\t_\n\
3\tc\t_\tNOUN\t_\t_\t5\tobj\t_\t_\n\
4\td\t_\tNOUN\t_\t_\t2\tobl\t_\t_\n\
5\te\t_\tVERB\t_\t_\t1\tconj\t_\t_\n\n";

#[test]
fn encode_then_decode_restores_the_sample() {
    let dir = scratch_in("cli_pseudo_projective", "sample");
    for method in ["lift", "optimal"] {
        for scheme in ["head", "head+path"] {
            let o =
                tabula_in(&dir, &["projectivize", SAMPLE, "--method", method, "--encode", scheme, "-o", "enc.conllu"]);
            assert!(o.status.success(), "{}", stderr_of(&o));
            let enc = fs::read_to_string(dir.join("enc.conllu")).unwrap();
            assert!(enc.contains('|'), "{method} {scheme}: something is marked");
            let o = tabula_in(&dir, &["deprojectivize", "enc.conllu", "-o", "back.conllu"]);
            assert!(o.status.success(), "{}", stderr_of(&o));
            assert_eq!(fs::read(dir.join("back.conllu")).unwrap(), fs::read(SAMPLE).unwrap(), "{method} {scheme}");
        }
    }
}

#[test]
fn encoding_rewrites_head_and_deprel_of_moved_words_only() {
    let dir = scratch_in("cli_pseudo_projective", "crossing");
    fs::write(dir.join("in.conllu"), CROSSING).unwrap();
    let o = tabula_in(&dir, &["projectivize", "in.conllu", "--method", "lift", "--encode", "head+path"]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    // Both arcs are lifted to 1: 3 from 5 (marked), 4 from 2 (marked).
    let expected = CROSSING
        .replace("5\tobj\t", "1\tobj|conj\t")
        .replace("1\tconj\t", "1\tconj%\t")
        .replace("2\tobl\t", "1\tobl|acl\t")
        .replace("1\tacl\t", "1\tacl%\t");
    assert_eq!(String::from_utf8_lossy(&o.stdout), expected);
    for scheme in ["head", "path", "head+path"] {
        let o = tabula_in(&dir, &["projectivize", "in.conllu", "--encode", scheme, "-o", "enc.conllu", "--stats"]);
        assert!(o.status.success());
        // Optimal projectivization moves one of the two words.
        assert!(
            stderr_of(&o).contains("round trip: non-projective arcs restored 2 of 2 (100.00 %)"),
            "{}",
            stderr_of(&o)
        );
        let o = tabula_in(&dir, &["deprojectivize", "enc.conllu", "--stats"]);
        assert_eq!(String::from_utf8_lossy(&o.stdout), CROSSING, "{scheme}");
        assert!(stderr_of(&o).contains("moved words: 1\nreattached: 1\n"), "{}", stderr_of(&o));
    }
}

#[test]
fn decoding_reads_xz_and_keeps_unmarked_files() {
    let dir = scratch_in("cli_pseudo_projective", "xz");
    let mut w = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(6)).unwrap();
    std::io::Write::write_all(&mut w, &fs::read(SAMPLE).unwrap()).unwrap();
    fs::write(dir.join("s.conllu.xz"), w.finish().unwrap()).unwrap();
    let o = tabula_in(&dir, &["deprojectivize", "s.conllu.xz"]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    assert_eq!(o.stdout, fs::read(SAMPLE).unwrap());
}

#[test]
fn stray_marks_are_kept_with_a_warning() {
    let dir = scratch_in("cli_pseudo_projective", "stray");
    let text = CROSSING.replace("\tacl\t", "\ta|b|c\t").replace("\tobl\t", "\t%\t");
    fs::write(dir.join("in.conllu"), &text).unwrap();
    let o = tabula_in(&dir, &["deprojectivize", "in.conllu"]);
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stdout), text);
    assert_eq!(
        stderr_of(&o),
        "warning: in.conllu: 2 DEPREL(s) contain `|` or `%` but not in the encoding's forms (d|h, d|, p%): kept as they are\n"
    );
}

#[test]
fn errors_name_the_file_and_line() {
    let dir = scratch_in("cli_pseudo_projective", "errors");
    fs::write(dir.join("bar.conllu"), CROSSING.replace("\tobl\t", "\tobl|x\t")).unwrap();
    fails_in(
        &dir,
        &["projectivize", "bar.conllu", "--encode", "head"],
        "bar.conllu:5: DEPREL `obl|x` of word 4 contains `|`, which the pseudo-projective encoding uses to mark moved words",
    );
    fs::write(dir.join("head.conllu"), CROSSING.replace("\t2\tobl", "\t_\tobl")).unwrap();
    fails_in(&dir, &["deprojectivize", "head.conllu"], "head.conllu:5: HEAD `_` is not a number in 0..=5");
    fs::write(dir.join("in.conllu"), CROSSING).unwrap();
    fails_in(
        &dir,
        &["deprojectivize", "in.conllu", "-o", "./in.conllu"],
        "cannot write ./in.conllu: it is the same file as the input in.conllu, which would be replaced",
    );
    let o = tabula_in(&dir, &["projectivize", "in.conllu", "--encode", "tail"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr_of(&o).contains("`tail` is not a scheme: expected head, path or head+path"), "{}", stderr_of(&o));
}

/// The sample treebank repeated, every copy with its own sentence ids.
fn training_file(dir: &std::path::Path) -> std::path::PathBuf {
    let sample = fs::read_to_string(SAMPLE).unwrap();
    let text: String = (0..20).map(|i| sample.replace("# sent_id = demo-", &format!("# sent_id = c{i}-"))).collect();
    let path = dir.join("train.conllu");
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_pseudo_projective_model_records_its_scheme_and_parse_decodes() {
    let dir = scratch_in("cli_pseudo_projective", "train");
    training_file(&dir);
    for (method, scheme) in [("lift", "head+path"), ("optimal", "head"), ("optimal", "path")] {
        let args =
            ["train", "train.conllu", "-o", "m.model", "--epochs", "3", "--step-bits", "12", "--label-bits", "10"];
        let o = tabula_in(&dir, &[&args[..], &["--projectivize", method, "--pseudo-projective", scheme]].concat());
        assert!(o.status.success(), "{}", stderr_of(&o));
        assert!(stderr_of(&o).contains(&format!("pseudo-projective ({scheme}): ")), "{}", stderr_of(&o));
        let model = fs::read(dir.join("m.model")).unwrap();
        let header = String::from_utf8_lossy(&model[..200]);
        assert!(header.contains("\nlabel-bits 10\nweights "), "{header}");
        assert!(header.contains(&format!("\npseudo-projective {scheme}\nlabels ")), "{header}");
        let o = tabula_in(&dir, &["parse", "--model", "m.model", "train.conllu", "-o", "parsed.conllu"]);
        assert!(o.status.success(), "{}", stderr_of(&o));
        let parsed = fs::read_to_string(dir.join("parsed.conllu")).unwrap();
        for line in parsed.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
            let deprel = line.split('\t').nth(7).unwrap();
            assert!(!deprel.contains(['|', '%']), "decoded: {line}");
        }
        // The sample is learnt: its non-projective sentence comes back.
        let o = tabula_in(&dir, &["eval", "train.conllu", "parsed.conllu", "--nonprojective"]);
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("non-projective arcs: gold 100, found 100 (recall 100.00 %)"),
            "{method} {scheme}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
    // Without the option the model has no such line (greedy model files are as before).
    let o = tabula_in(
        &dir,
        &["train", "train.conllu", "-o", "plain.model", "--epochs", "1", "--step-bits", "12", "--label-bits", "10"],
    );
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&fs::read(dir.join("plain.model")).unwrap()[..200]).contains("pseudo"));
}

#[test]
fn pseudo_projective_training_refuses_what_moves_nothing() {
    let dir = scratch_in("cli_pseudo_projective", "train-errors");
    training_file(&dir);
    fails_in(
        &dir,
        &["train", "train.conllu", "-o", "m", "--pseudo-projective", "head", "--projectivize", "none"],
        "--pseudo-projective head encodes the moves of --projectivize optimal or lift; --projectivize none moves no word",
    );
    fails_in(
        &dir,
        &["train", "train.conllu", "-o", "m", "--pseudo-projective", "path", "--skip-nonprojective"],
        "--pseudo-projective path encodes the moves of --projectivize optimal or lift; --skip-nonprojective moves no word",
    );
    let o = tabula_in(
        &dir,
        &["train", "train.conllu", "-o", "plain.model", "--epochs", "1", "--step-bits", "12", "--label-bits", "10"],
    );
    assert!(o.status.success());
    fails_in(
        &dir,
        &[
            "train",
            "train.conllu",
            "-o",
            "m",
            "--init",
            "plain.model",
            "--pseudo-projective",
            "head",
            "--step-bits",
            "12",
            "--label-bits",
            "10",
        ],
        "--init plain.model: the model was trained with pseudo-projective labels none, this training asks for head",
    );
}

#[test]
fn the_model_file_line_round_trips_and_is_checked() {
    use tabula::parser::Model;
    use tabula::projectivize::pseudo::Scheme;
    let mut m = Model::zeros(tabula::oracle::System::ArcHybrid, vec!["a".into(), "a|b".into()], 4, 4);
    for scheme in Scheme::ALL {
        m.pseudo_projective = Some(scheme);
        let bytes = m.to_bytes();
        assert_eq!(Model::from_bytes(&bytes).unwrap(), m);
        let text =
            String::from_utf8_lossy(&bytes).replace(&format!("pseudo-projective {scheme}\n"), "pseudo-projective up\n");
        let e = Model::from_bytes(text.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("bad pseudo-projective scheme `up`"), "{e}");
    }
}

#[test]
fn encoding_is_the_same_for_every_thread_count() {
    let dir = scratch_in("cli_pseudo_projective", "threads");
    let sample = fs::read_to_string(SAMPLE).unwrap();
    fs::write(dir.join("big.conllu"), sample.repeat(300)).unwrap();
    let run = |threads: &str| {
        let o = tabula_in(&dir, &["projectivize", "big.conllu", "--encode", "head+path", "--threads", threads]);
        assert!(o.status.success(), "{}", stderr_of(&o));
        o.stdout
    };
    assert_eq!(run("1"), run("3"));
}
