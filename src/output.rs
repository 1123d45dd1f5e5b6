//! Output files that never harm their target.
//!
//! The command line's `-o`, `--tsv` and `--plot`, and the Python module's
//! writes (models, CoNLL-U files), go through [`Output`]:
//! - `-` or nothing: standard output;
//! - a regular file, or a path that does not exist yet: a temporary file in
//!   the target's directory (symbolic links followed to their final target),
//!   renamed over the target by [`Output::commit`]. It is deleted if the run
//!   fails, and (built with the `cli` feature, the command line) on SIGINT,
//!   SIGTERM and SIGHUP, so neither a truncated output nor a stray temporary
//!   file is ever left behind;
//! - anything else (a device such as `/dev/null`, a FIFO, `/dev/stdout`, any
//!   path under `/dev` or `/proc`): written straight through, never replaced.
//!
//! [`Output::create`] runs before any input is read, so an unwritable or
//! missing directory is reported at once; every message names the path the
//! user gave, never the temporary file. An existing file that cannot be
//! written (no permission, or no write bit at all, as mode 0444) is refused,
//! not replaced. [`Output::create_apart`] also refuses an output that is the
//! same file as one of the command's inputs (same device and inode: hard and
//! symbolic links, `./x` and `x` are all caught), naming both paths.
//!
//! Errors are [`io::Error`]s whose message names the output (`cannot write
//! PATH: …`) and whose kind is the system's where there is one (a broken
//! pipe stays [`io::ErrorKind::BrokenPipe`]).

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files not yet committed, deleted by the signal handler.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Installs (once) the SIGINT/SIGTERM/SIGHUP handler that deletes the
/// pending temporary files and exits with status 130: the command line's
/// (a Python process keeps its own handlers; its temporary files are
/// deleted when the write fails or is dropped).
#[cfg(feature = "cli")]
fn install_handler() {
    static HANDLER: std::sync::Once = std::sync::Once::new();
    HANDLER.call_once(|| {
        // If another handler is already installed the temporary files are
        // still deleted on every ordinary failure; nothing more to do.
        let _ = ctrlc::set_handler(|| {
            let pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
            for p in pending.iter() {
                let _ = fs::remove_file(p);
            }
            eprintln!("tabula: interrupted; no output written");
            std::process::exit(130);
        });
    });
}

/// Without the command line's handler, a signal ends the process as the
/// program using the library decides (Python: KeyboardInterrupt, and the
/// output dropped with its temporary file).
#[cfg(not(feature = "cli"))]
fn install_handler() {}

fn register(p: &Path) {
    PENDING.lock().unwrap_or_else(|e| e.into_inner()).push(p.to_path_buf());
}

fn unregister(p: &Path) {
    PENDING.lock().unwrap_or_else(|e| e.into_inner()).retain(|q| q != p);
}

/// Removes the temporary files that runs writing `name` in `dir` left
/// behind when they were killed (`kill -9`, a power cut): those named
/// `.NAME.PID.XXXXXX.tabula-tmp` whose process PID no longer runs. A run
/// still writing keeps its file. Errors are ignored (the file may be gone
/// already, or not ours to remove). Linux only (elsewhere the files stay).
fn remove_stale(dir: &Path, name: &std::ffi::OsStr) {
    #[cfg(target_os = "linux")]
    {
        let Some(name) = name.to_str() else { return };
        let Ok(entries) = fs::read_dir(dir) else { return };
        let prefix = format!(".{name}.");
        for entry in entries.flatten() {
            let file = entry.file_name();
            let Some(rest) = file.to_str().and_then(|f| f.strip_prefix(&prefix)) else { continue };
            let Some(middle) = rest.strip_suffix(".tabula-tmp") else { continue };
            let Some(pid) = middle.split_once('.').and_then(|(pid, _)| pid.parse::<u32>().ok()) else { continue };
            // A process runs while /proc has its directory (and /proc is there).
            let gone = Path::new("/proc/self").exists() && !Path::new("/proc").join(pid.to_string()).exists();
            if gone {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (dir, name);
}

/// An output refused before anything is written (the message says why).
fn refused(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// An I/O error without the temporary file's name that tempfile adds.
fn plain(e: io::Error) -> io::Error {
    if let Some(code) = e.raw_os_error() {
        return io::Error::from_raw_os_error(code);
    }
    // tempfile wraps the system's error as `ERROR at path "TEMP"`, keeping
    // only its text: keep the text without the path.
    let text = e.to_string();
    match text.find(" at path \"") {
        Some(at) => io::Error::new(e.kind(), &text[..at]),
        None => io::Error::from(e.kind()),
    }
}

/// Where an output goes.
enum Sink {
    Stdout(BufWriter<io::Stdout>),
    /// A device, FIFO or other special file, written in place.
    Direct(BufWriter<File>),
    /// A temporary file beside the resolved target.
    Temp {
        writer: Option<BufWriter<tempfile::NamedTempFile>>,
        target: PathBuf,
    },
}

/// An output stream (see the module documentation).
pub struct Output {
    sink: Sink,
    /// The path as the user gave it, for messages.
    shown: String,
}

/// Whether output to `p` must be written in place: special files live there.
fn special_dir(p: &Path) -> bool {
    p.starts_with("/dev") || p.starts_with("/proc")
}

/// `path` with its symbolic links followed (at most 40 of them) to a path
/// that is not a link: an existing file, or where a new one will be made.
fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The device and inode of an existing file (`-`: standard input's), or
/// `None` if there is none.
#[cfg(unix)]
fn identity(p: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = if p == Path::new("-") {
        use std::os::fd::AsFd;
        let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
        File::from(fd).metadata().ok()?
    } else {
        fs::metadata(p).ok()?
    };
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(p: &Path) -> Option<PathBuf> {
    fs::canonicalize(p).ok()
}

/// Refuses an `output` that is the same existing regular file as one of
/// `inputs` (`-`: standard input): writing it would replace the input.
pub fn check_apart(output: Option<&Path>, inputs: &[&Path]) -> io::Result<()> {
    let Some(out) = output.filter(|p| *p != Path::new("-")) else { return Ok(()) };
    if !fs::metadata(out).is_ok_and(|m| m.is_file()) {
        return Ok(());
    }
    let Some(id) = identity(out) else { return Ok(()) };
    for input in inputs {
        if identity(input).as_ref() == Some(&id) {
            let shown = if *input == Path::new("-") {
                "standard input".into()
            } else {
                format!("the input {}", input.display())
            };
            return Err(refused(format!(
                "cannot write {}: it is the same file as {shown}, which would be replaced",
                out.display()
            )));
        }
    }
    Ok(())
}

/// Whether two output paths name the same regular file (existing or to be
/// made); devices and FIFOs are written in place and may be shared.
pub fn same_target(a: &Path, b: &Path) -> bool {
    if [a, b].iter().any(|p| fs::metadata(p).is_ok_and(|m| !m.is_file()) || special_dir(p)) {
        return false;
    }
    if let (Some(x), Some(y)) = (identity(a), identity(b)) {
        return x == y;
    }
    let place = |p: &Path| -> Option<PathBuf> {
        let t = resolve_links(p).ok()?;
        let dir = match t.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Some(fs::canonicalize(dir).ok()?.join(t.file_name()?))
    };
    a == b || place(a).is_some_and(|x| place(b).as_ref() == Some(&x))
}

impl Output {
    /// Checks, before any work is done, that `path` could be written as
    /// [`Output::create_apart`] writes it, and writes nothing: the same
    /// refusals with the same messages (an input, a directory, a missing
    /// directory, a read-only file). Standard output and a device or FIFO,
    /// written in place, are not opened (a FIFO would wait for a reader).
    pub fn check(path: Option<&Path>, inputs: &[&Path]) -> io::Result<()> {
        check_apart(path, inputs)?;
        let Some(p) = path.filter(|p| *p != Path::new("-")) else { return Ok(()) };
        let in_place = match fs::metadata(p) {
            Ok(m) => !m.is_file() && !m.is_dir(),
            Err(_) => false,
        };
        if in_place || special_dir(p) {
            return Ok(());
        }
        // The temporary file is made and, dropped uncommitted, deleted.
        Output::create(Some(p)).map(drop)
    }

    /// [`Output::create`], after refusing an output that is the same file
    /// as one of `inputs` (`-`: standard input); see [`check_apart`].
    pub fn create_apart(path: Option<&Path>, inputs: &[&Path]) -> io::Result<Output> {
        check_apart(path, inputs)?;
        Output::create(path)
    }

    /// Opens the output `path` (`-` or `None`: standard output). Fails, naming
    /// `path`, when it cannot be written: a directory, a missing directory, no
    /// permission.
    pub fn create(path: Option<&Path>) -> io::Result<Output> {
        let p = match path {
            Some(p) if p != Path::new("-") => p,
            _ => {
                return Ok(Output {
                    sink: Sink::Stdout(BufWriter::with_capacity(1 << 16, io::stdout())),
                    shown: "standard output".into(),
                })
            }
        };
        let shown = p.display().to_string();
        let fail = |e: io::Error| io::Error::new(e.kind(), format!("cannot write {shown}: {e}"));
        let existing = match fs::metadata(p) {
            Ok(m) if m.is_dir() => return Err(refused(format!("cannot write {shown}: it is a directory"))),
            Ok(m) => Some(m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(fail(e)),
        };
        let target = resolve_links(p).map_err(fail)?;
        let in_place = match &existing {
            Some(m) => !m.is_file() || special_dir(p) || special_dir(&target),
            None => special_dir(p) || special_dir(&target),
        };
        if in_place {
            let f = OpenOptions::new().write(true).open(p).map_err(fail)?;
            return Ok(Output { sink: Sink::Direct(BufWriter::with_capacity(1 << 16, f)), shown });
        }
        if let Some(m) = &existing {
            // Replacing goes through a rename, which the file's own
            // permissions do not govern: check them as a write in place would.
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = m.permissions().mode() & 0o7777;
                if mode & 0o222 == 0 {
                    return Err(refused(format!("cannot write {shown}: the file is read-only (mode {mode:04o})")));
                }
            }
            #[cfg(not(unix))]
            if m.permissions().readonly() {
                return Err(refused(format!("cannot write {shown}: the file is read-only")));
            }
            // Opened for writing without truncation: nothing changes.
            OpenOptions::new().write(true).open(&target).map_err(fail)?;
        }
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("cannot write {shown}: directory {} does not exist", dir.display()),
            ));
        }
        let name = target.file_name().ok_or_else(|| refused(format!("cannot write {shown}: not a file name")))?;
        remove_stale(&dir, name);
        let mut prefix = std::ffi::OsString::from(".");
        prefix.push(name);
        prefix.push(format!(".{}.", std::process::id()));
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tabula-tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // As a plain create would: 0666 less the umask (applied by open).
            builder.permissions(fs::Permissions::from_mode(0o666));
        }
        install_handler();
        let temp = builder.tempfile_in(&dir).map_err(|e| fail(plain(e)))?;
        register(temp.path());
        if let Some(m) = &existing {
            // Keep the target's permissions.
            let _ = temp.as_file().set_permissions(m.permissions());
        }
        Ok(Output { sink: Sink::Temp { writer: Some(BufWriter::with_capacity(1 << 16, temp)), target }, shown })
    }

    /// The writer: write errors name the output (a broken pipe keeps its
    /// kind, so that the command can end quietly).
    pub fn writer(&mut self) -> &mut dyn Write {
        self
    }

    /// `e` naming the output as the user gave it (never the temporary file).
    fn named(&self, e: io::Error) -> io::Error {
        let e = if matches!(self.sink, Sink::Temp { .. }) { plain(e) } else { e };
        io::Error::new(e.kind(), format!("cannot write {}: {e}", self.shown))
    }

    /// Flushes and, for a temporary file, renames it over the target.
    pub fn commit(mut self) -> io::Result<()> {
        let shown = std::mem::take(&mut self.shown);
        let fail = |e: io::Error| io::Error::new(e.kind(), format!("cannot write {shown}: {e}"));
        match &mut self.sink {
            Sink::Stdout(w) => w.flush().map_err(fail)?,
            Sink::Direct(w) => w.flush().map_err(fail)?,
            Sink::Temp { writer, target } => {
                let w = writer.take().expect("committed once");
                let temp = w.into_inner().map_err(|e| fail(plain(e.into_error())))?;
                let temp_path = temp.path().to_path_buf();
                let result = temp.persist(&*target);
                unregister(&temp_path);
                // On failure the temporary file is dropped, hence deleted.
                result.map_err(|e| fail(plain(e.error)))?;
            }
        }
        Ok(())
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = match &mut self.sink {
            Sink::Stdout(w) => w.write(buf),
            Sink::Direct(w) => w.write(buf),
            Sink::Temp { writer, .. } => writer.as_mut().expect("not committed").write(buf),
        };
        r.map_err(|e| self.named(e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let r = match &mut self.sink {
            Sink::Stdout(w) => w.write_all(buf),
            Sink::Direct(w) => w.write_all(buf),
            Sink::Temp { writer, .. } => writer.as_mut().expect("not committed").write_all(buf),
        };
        r.map_err(|e| self.named(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        let r = match &mut self.sink {
            Sink::Stdout(w) => w.flush(),
            Sink::Direct(w) => w.flush(),
            Sink::Temp { writer, .. } => writer.as_mut().expect("not committed").flush(),
        };
        r.map_err(|e| self.named(e))
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Sink::Temp { writer, .. } = &mut self.sink {
            if let Some(w) = writer.take() {
                let path = w.get_ref().path().to_path_buf();
                // Dropping the buffer flushes it (errors ignored); dropping
                // the temporary file deletes it.
                drop(w);
                unregister(&path);
            }
        }
    }
}
