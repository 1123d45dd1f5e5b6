//! The batch pipeline of the commands that process CoNLL-U blocks on
//! several threads (`parse`, `tag`): while the pool works on batch i, batch
//! i + 1 is read and the results of batch i − 1 are written, so reading and
//! writing overlap the work; the output keeps the input's order whatever the
//! number of threads.

use super::CliError;
use std::io::BufRead;
use tabula::conllu::{RawSentence, Reader};

/// Reads `reader` in batches of `size` blocks, runs `process` on each batch
/// in `pool`, and hands each batch with its results to `consume`, in input
/// order. An error of `consume` stops the run; a block that cannot be read
/// stops it after every block before it is consumed.
pub(crate) fn in_batches<R: BufRead + Send, O: Send>(
    pool: &rayon::ThreadPool,
    reader: &mut Reader<R>,
    size: usize,
    process: impl Fn(&[RawSentence]) -> Vec<O> + Sync,
    mut consume: impl FnMut(Vec<RawSentence>, Vec<O>) -> Result<(), CliError> + Send,
) -> Result<(), CliError> {
    // The next blocks, and the error that ended them early.
    let read = |reader: &mut Reader<R>| -> (Vec<RawSentence>, Option<CliError>) {
        let mut batch = Vec::with_capacity(size);
        while batch.len() < size {
            match reader.next_raw() {
                Some(Ok(raw)) => batch.push(raw),
                Some(Err(e)) => return (batch, Some(e.into())),
                None => break,
            }
        }
        (batch, None)
    };
    let (mut batch, mut error) = read(reader);
    let mut pending: Option<(Vec<RawSentence>, Vec<O>)> = None;
    while !batch.is_empty() || pending.is_some() {
        let more = error.is_none() && !batch.is_empty();
        let (outputs, ((next, failed), written)) = pool.install(|| {
            rayon::join(
                || process(&batch),
                || {
                    rayon::join(
                        || if more { read(reader) } else { (Vec::new(), None) },
                        || pending.take().map_or(Ok(()), |(b, o)| consume(b, o)),
                    )
                },
            )
        });
        written?;
        error = error.or(failed);
        let done = std::mem::replace(&mut batch, next);
        pending = (!done.is_empty()).then_some((done, outputs));
    }
    error.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    /// `blocks` one-word blocks, then (with `fail`) an I/O error where the next block would start.
    struct Input {
        bytes: Vec<u8>,
        at: usize,
        fail: bool,
    }

    impl Read for Input {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.at == self.bytes.len() && self.fail {
                return Err(std::io::Error::other("the disk is gone"));
            }
            let n = buf.len().min(self.bytes.len() - self.at).min(7);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    /// Every block is consumed once, in order, for every batch size and
    /// thread count; when reading fails, every block before is consumed.
    #[test]
    fn blocks_come_out_in_order_and_before_a_read_error() {
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            for size in 1..6 {
                for blocks in 0..12 {
                    for fail in [false, true] {
                        let bytes: String =
                            (0..blocks).map(|i| format!("1\tw{i}\tw\tX\t_\t_\t0\troot\t_\t_\n\n")).collect();
                        let open = || {
                            let input = Input { bytes: bytes.clone().into_bytes(), at: 0, fail };
                            Reader::new(BufReader::with_capacity(16, input), "t")
                        };
                        // The blocks the reader gives before its error, read one by one.
                        let mut alone = open();
                        let mut expected = Vec::new();
                        while let Some(Ok(raw)) = alone.next_raw() {
                            expected.push(raw.first_line);
                        }
                        let mut reader = open();
                        let mut seen = Vec::new();
                        let result = in_batches(
                            &pool,
                            &mut reader,
                            size,
                            |batch| batch.iter().map(|r| r.first_line).collect::<Vec<_>>(),
                            |batch, lines| {
                                assert_eq!(batch.len(), lines.len());
                                seen.extend(lines);
                                Ok(())
                            },
                        );
                        assert_eq!(result.is_err(), fail, "{threads} threads, size {size}, {blocks} blocks");
                        assert_eq!(seen, expected);
                        if !fail {
                            assert_eq!(seen, (0..blocks).map(|i| 1 + 2 * i).collect::<Vec<_>>());
                        }
                    }
                }
            }
        }
    }
}
