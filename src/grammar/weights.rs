//! Arc weight matrices for `tabula grammar parse --weights`: an (n+1)×(n+1)
//! matrix of 32-bit integers or `-inf`, one row per line (blank lines
//! skipped), entries separated by whitespace; row = head, column =
//! dependent. Errors name the file and the line. O(bytes).

use crate::semiring::MaxPlus;
use std::path::Path;

/// Errors of reading a weight matrix.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    /// The file could not be read.
    #[error("cannot read weight matrix {path}: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Wrong number of rows.
    #[error("{path}: expected {expected} rows (one per input terminal), found {found}")]
    Rows {
        /// The path as given.
        path: String,
        /// n + 1.
        expected: usize,
        /// Rows in the file.
        found: usize,
    },
    /// A row with the wrong number of entries.
    #[error("{path}:{line}: expected {expected} entries, found {found}")]
    Entries {
        /// The path as given.
        path: String,
        /// 1-based line.
        line: usize,
        /// n + 1.
        expected: usize,
        /// Entries on the line.
        found: usize,
    },
    /// An entry that is neither an integer nor `-inf`.
    #[error("{path}:{line}: not an integer or -inf: {token:?}")]
    NotANumber {
        /// The path as given.
        path: String,
        /// 1-based line.
        line: usize,
        /// The entry.
        token: String,
    },
    /// An entry that is neither a real number nor `-inf` (real scores).
    #[error("{path}:{line}: not a real number or -inf: {token:?}")]
    NotAReal {
        /// The path as given.
        path: String,
        /// 1-based line.
        line: usize,
        /// The entry.
        token: String,
    },
    /// An integer that does not fit in 32 bits.
    #[error("{path}:{line}: weight out of range (it must fit in 32 bits): {token:?}")]
    OutOfRange {
        /// The path as given.
        path: String,
        /// 1-based line.
        line: usize,
        /// The entry.
        token: String,
    },
}

/// Reads an `size`×`size` matrix of real arc scores or `-inf` (the scores
/// of [`TreeDistribution`](crate::distribution::TreeDistribution)), row-major
/// (row = head). O(size of the file).
pub fn read_scores(path: &Path, size: usize) -> Result<Vec<f64>, WeightsError> {
    let shown = path.display().to_string();
    let src = std::fs::read_to_string(path).map_err(|source| WeightsError::Io { path: shown.clone(), source })?;
    let mut rows = 0;
    let mut out = Vec::with_capacity(size * size);
    for (idx, line) in src.lines().enumerate() {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.is_empty() {
            continue;
        }
        if tokens.len() != size {
            return Err(WeightsError::Entries { path: shown, line: idx + 1, expected: size, found: tokens.len() });
        }
        for t in tokens {
            let v = match t {
                "-inf" => f64::NEG_INFINITY,
                t => t.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| WeightsError::NotAReal {
                    path: shown.clone(),
                    line: idx + 1,
                    token: crate::conllu::elide(t),
                })?,
            };
            out.push(v);
        }
        rows += 1;
    }
    if rows != size {
        return Err(WeightsError::Rows { path: shown, expected: size, found: rows });
    }
    Ok(out)
}

/// Reads an `size`×`size` matrix of integers or `-inf` (see `--weights`).
pub fn read_weights(path: &Path, size: usize) -> Result<Vec<Vec<MaxPlus>>, WeightsError> {
    let shown = path.display().to_string();
    let src = std::fs::read_to_string(path).map_err(|source| WeightsError::Io { path: shown.clone(), source })?;
    parse_weights(&shown, &src, size)
}

/// Parses a weight matrix; `path` is used in messages only.
pub fn parse_weights(path: &str, src: &str, size: usize) -> Result<Vec<Vec<MaxPlus>>, WeightsError> {
    let mut rows = Vec::with_capacity(size);
    for (idx, line) in src.lines().enumerate() {
        let line_no = idx + 1;
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.is_empty() {
            continue;
        }
        let row = tokens
            .iter()
            .map(|&t| {
                if t == "-inf" {
                    return Ok(MaxPlus::neg_inf());
                }
                match t.parse::<i64>() {
                    Ok(v) if i32::try_from(v).is_ok() => Ok(MaxPlus::new(v)),
                    Ok(_) => Err(WeightsError::OutOfRange {
                        path: path.to_owned(),
                        line: line_no,
                        token: crate::conllu::elide(t),
                    }),
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow
                        ) =>
                    {
                        Err(WeightsError::OutOfRange {
                            path: path.to_owned(),
                            line: line_no,
                            token: crate::conllu::elide(t),
                        })
                    }
                    Err(_) => Err(WeightsError::NotANumber {
                        path: path.to_owned(),
                        line: line_no,
                        token: crate::conllu::elide(t),
                    }),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        if row.len() != size {
            return Err(WeightsError::Entries {
                path: path.to_owned(),
                line: line_no,
                expected: size,
                found: row.len(),
            });
        }
        rows.push(row);
    }
    if rows.len() != size {
        return Err(WeightsError::Rows { path: path.to_owned(), expected: size, found: rows.len() });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_matrices() {
        let m = parse_weights("w", "0 -inf\n\n 3 0 \n", 2).unwrap();
        assert_eq!(m, [[MaxPlus::new(0), MaxPlus::neg_inf()], [MaxPlus::new(3), MaxPlus::new(0)]]);
        let e = |src: &str| parse_weights("w", src, 2).unwrap_err().to_string();
        assert_eq!(e("0 0\n0\n"), "w:2: expected 2 entries, found 1");
        assert_eq!(e("0 x\n0 0\n"), "w:1: not an integer or -inf: \"x\"");
        assert_eq!(e("0 0\n0 0\n0 0\n"), "w: expected 2 rows (one per input terminal), found 3");
        assert_eq!(e("0 0\n0 4294967296\n"), "w:2: weight out of range (it must fit in 32 bits): \"4294967296\"");
        assert_eq!(e("0 0\n0 99999999999999999999999\n"), e("0 0\n0 99999999999999999999999\n"));
        assert!(e("0 0\n0 99999999999999999999999\n").contains("out of range"));
        assert_eq!(e("0 0\n0 inf\n"), "w:2: not an integer or -inf: \"inf\"");
    }
}
