//! Compressed treebanks: `.xz` and `.gz` streams are decompressed on the fly,
//! recognised by their first bytes (magic numbers), never by the file name,
//! so `treebank.conllu.xz`, a renamed file and standard input all work.
//!
//! Universal Dependencies ships treebanks xz-compressed; both decoders are
//! pure Rust (`lzma-rust2`, `flate2` with `miniz_oxide`). Concatenated
//! streams (`cat a.xz b.xz`, `cat a.gz b.gz`) are read as one file, as `xz
//! -dc` and `zcat` do. Other compressions (bzip2, zstd) are named by
//! [`Compression::detect`] so that a reader can refuse them with a clear
//! message instead of reading bytes as text.
//!
//! ```
//! use std::io::Read;
//! let mut input = tabula::conllu::compressed::decompress(&b"1\tHi\n"[..]).unwrap();
//! let mut text = String::new();
//! input.read_to_string(&mut text).unwrap();
//! assert_eq!(text, "1\tHi\n");
//! ```

use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;

/// The compression of a stream, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// No known magic number: plain text (or something else).
    None,
    /// xz (`FD 37 7A 58 5A 00`).
    Xz,
    /// gzip (`1F 8B`).
    Gzip,
    /// bzip2 (`BZh`): recognised, not read.
    Bzip2,
    /// Zstandard (`28 B5 2F FD`): recognised, not read.
    Zstd,
}

impl Compression {
    /// The compression whose magic number `start` begins with. O(1).
    pub fn detect(start: &[u8]) -> Compression {
        if start.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else if start.starts_with(&[0x1F, 0x8B]) {
            Compression::Gzip
        } else if start.starts_with(b"BZh") && start.get(3).is_some_and(|d| (b'1'..=b'9').contains(d)) {
            Compression::Bzip2
        } else if start.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }

    /// The format's usual name (`xz`, `gzip`, …).
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Xz => "xz",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Zstd => "zstd",
        }
    }
}

/// Why a compressed stream could not be read: it ends early (`truncated`),
/// or its data is corrupt (`detail`: the decoder's words). Carried inside
/// the `io::Error` (kind `InvalidData`) that reading fails with, so that a
/// reader can name it without a line number: `trunc.xz: the xz stream is
/// truncated`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {format} stream is {}", if *.truncated { "truncated".to_owned() } else { format!("corrupt ({})", .detail) })]
pub struct StreamError {
    pub format: &'static str,
    pub truncated: bool,
    pub detail: String,
}

impl StreamError {
    /// The [`StreamError`] inside `e`, if it is one.
    pub fn of(e: &io::Error) -> Option<&StreamError> {
        e.get_ref().and_then(|inner| inner.downcast_ref::<StreamError>())
    }
}

/// A decoder whose errors are [`StreamError`]s.
struct Checked<R> {
    inner: R,
    format: &'static str,
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if e.kind() == io::ErrorKind::Interrupted {
                return e;
            }
            // The decoders report a stream that ends early as an early end
            // of their input (xz: "failed to fill whole buffer"; gzip:
            // "incomplete deflate stream" or a short header).
            let truncated = e.kind() == io::ErrorKind::UnexpectedEof || e.to_string().contains("incomplete");
            io::Error::new(
                io::ErrorKind::InvalidData,
                StreamError { format: self.format, truncated, detail: e.to_string() },
            )
        })
    }
}

/// The longest magic number looked at.
const MAGIC: usize = 6;

/// `input`, decompressed if it starts with the xz or gzip magic number, else
/// unchanged (its first bytes are read ahead and given back). Reading the
/// result fails with an I/O error of kind `InvalidData` on corrupt
/// compressed data: "the xz stream is truncated (the file ends inside it)"
/// or "the gzip stream is corrupt (…)". O(1) here; decompression is O(size) as the result is read.
pub fn decompress<R: BufRead + Send + 'static>(mut input: R) -> io::Result<Box<dyn BufRead + Send>> {
    let mut start = Vec::with_capacity(MAGIC);
    // A pipe may deliver fewer bytes per read than the magic number has.
    while start.len() < MAGIC {
        let n = (&mut input).take((MAGIC - start.len()) as u64).read_to_end(&mut start)?;
        if n == 0 {
            break;
        }
    }
    let compression = Compression::detect(&start);
    let whole = Cursor::new(start).chain(input);
    Ok(match compression {
        Compression::Xz => Box::new(BufReader::with_capacity(
            1 << 16,
            Checked { inner: lzma_rust2::XzReader::new(whole, true), format: "xz" },
        )),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            1 << 16,
            Checked { inner: flate2::bufread::MultiGzDecoder::new(whole), format: "gzip" },
        )),
        _ => Box::new(whole),
    })
}

/// Opens `path` and [`decompress`]es it. The error is the file's `open` error.
pub fn open(path: &Path) -> io::Result<Box<dyn BufRead + Send>> {
    let file = std::fs::File::open(path)?;
    decompress(BufReader::with_capacity(1 << 16, file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn read_all(r: &mut dyn BufRead) -> io::Result<Vec<u8>> {
        let mut v = Vec::new();
        r.read_to_end(&mut v)?;
        Ok(v)
    }

    fn xz(data: &[u8]) -> Vec<u8> {
        let mut w = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(6)).unwrap();
        w.write_all(data).unwrap();
        w.finish().unwrap()
    }

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        w.write_all(data).unwrap();
        w.finish().unwrap()
    }

    #[test]
    fn plain_text_comes_back_unchanged_even_when_shorter_than_a_magic_number() {
        for text in [&b""[..], b"1", b"# a\n", b"1\tx\t_\n2\ty\t_\n"] {
            assert_eq!(read_all(&mut *decompress(text).unwrap()).unwrap(), text);
        }
    }

    #[test]
    fn xz_and_gzip_are_decompressed_and_concatenated_streams_read_whole() {
        let text = b"# sent_id = 1\n1\tHi\t_\t_\t_\t_\t0\troot\t_\t_\n\n";
        assert_eq!(read_all(&mut *decompress(Cursor::new(xz(text))).unwrap()).unwrap(), text);
        assert_eq!(read_all(&mut *decompress(Cursor::new(gz(text))).unwrap()).unwrap(), text);
        let twice = [xz(text), xz(text)].concat();
        assert_eq!(read_all(&mut *decompress(Cursor::new(twice)).unwrap()).unwrap(), [&text[..], text].concat());
        let twice = [gz(text), gz(text)].concat();
        assert_eq!(read_all(&mut *decompress(Cursor::new(twice)).unwrap()).unwrap(), [&text[..], text].concat());
    }

    #[test]
    fn corrupt_compressed_data_is_an_error_not_a_panic() {
        let mut bad = xz(b"some text that is long enough to matter\n");
        let mid = bad.len() / 2;
        bad[mid] ^= 0xFF;
        assert!(read_all(&mut *decompress(Cursor::new(bad)).unwrap()).is_err());
        let truncated = gz(b"some text\n")[..8].to_vec();
        assert!(read_all(&mut *decompress(Cursor::new(truncated)).unwrap()).is_err());
    }

    /// Regression: a truncated file failed with the decoder's words
    /// ("failed to fill whole buffer"), which did not say what was wrong.
    #[test]
    fn truncated_and_corrupt_streams_say_so() {
        let text: Vec<u8> = (0..2000).flat_map(|i| format!("{i}\tw\t_\n").into_bytes()).collect();
        for (data, format) in [(xz(&text), "xz"), (gz(&text), "gzip")] {
            for cut in [data.len() / 3, data.len() - 1] {
                let e = read_all(&mut *decompress(Cursor::new(data[..cut].to_vec())).unwrap()).unwrap_err();
                let inner = StreamError::of(&e).unwrap_or_else(|| panic!("{format} cut at {cut}: {e}"));
                assert_eq!(e.to_string(), format!("the {format} stream is truncated"), "cut at {cut}");
                assert!(inner.truncated);
            }
            let mut bad = data.clone();
            let mid = bad.len() / 2;
            bad[mid] ^= 0xFF;
            let e = read_all(&mut *decompress(Cursor::new(bad)).unwrap()).unwrap_err();
            assert!(e.to_string().starts_with(&format!("the {format} stream is ")), "{e}");
        }
    }

    #[test]
    fn other_compressions_are_named() {
        assert_eq!(Compression::detect(b"BZh91AY&SY"), Compression::Bzip2);
        assert_eq!(Compression::detect(&[0x28, 0xB5, 0x2F, 0xFD, 0]), Compression::Zstd);
        assert_eq!(Compression::detect(b"BZh"), Compression::None);
        assert_eq!(Compression::detect(b"# text"), Compression::None);
    }
}
