//! Durable files: what checkpoints ([`crate::run::checkpoint`]) and shard results
//! ([`crate::run::shard`]) share, so that neither imports the other.
//!
//! - **Paths given for files we write** ([`file_to_write`]) are checked before any work:
//!   a directory, a path ending in `/`, or anything that is not a regular file (a device,
//!   a FIFO, a socket) is refused; a symbolic link is followed to the regular file it names
//!   (a link to anything else, or to nothing, is refused), except one reached through a
//!   file descriptor (`/dev/stdout`, `/proc/self/fd/N`) or open in this process already (a
//!   shell's `>>job.log`): writing it would replace what was written there. An output
//!   locked by another process (a live run's checkpoint; not a shard result another writer
//!   of it has just put in place) is refused. [`same_file`] tells
//!   two paths that name one file apart from two that do not.
//! - **Results written whole** ([`Output`]): a temporary file, named for the destination
//!   and the host and locked by the process while it lives, is made (or a dead writer's
//!   taken over) beside the destination at the start (so a directory that cannot take it
//!   fails before any counting); at the end it is written, synced, renamed over the
//!   destination, and the directory synced. An existing destination this process
//!   may not replace (another user's file in a sticky directory such as `/tmp`) is refused
//!   up front. The temporary file is removed on every way out the process controls: a
//!   failure, a drop, and a signal handler that calls [`remove_temporaries`] before it exits.
//! - **Files appended to** ([`open_locked`]): opened for appending, locked for this process
//!   alone; the caller syncs the directory of a new file with its first content.
//! - **Files read** are untrusted: read through a size limit ([`read_json`], [`read_line`]),
//!   their counts checked against what a board can hold ([`count_limit`], [`add_within`]),
//!   and every error names the file and what is wrong with it ([`FileError`]).

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::de::DeserializeOwned;

use crate::types::Tally;

/// File format version of checkpoints (3: each record's checksum covers the plan's
/// fingerprint and the shard; 2: records carry residues, the configuration names version and
/// method). Shard results have their own, [`SHARD_VERSION`].
pub const VERSION: u32 = 3;

/// File format version of shard results (3: a BLAKE3 digest in place of the CRC-32, the
/// host and run that made the file). Up to 2, shard results shared [`VERSION`].
pub const SHARD_VERSION: u32 = 3;

/// The `format` a checkpoint's header names.
pub const CHECKPOINT_FORMAT: &str = "nqueens-checkpoint";

/// The `format` a shard result names.
pub const SHARD_FORMAT: &str = "nqueens-shard";

/// Why a file could not be used: each message names the file and what is wrong (the command
/// line adds the flag a path was given with).
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// A path given for a file cannot serve: bad input, found before any work.
    #[error("{}: {why}", path.display())]
    Unusable {
        /// The path as given.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// Reading, writing, syncing or renaming failed.
    #[error("cannot {doing} {}: {error}", path.display())]
    Io {
        /// What was being done, as a verb and the kind of file ("write checkpoint").
        doing: String,
        /// The file.
        path: PathBuf,
        /// The system's error.
        error: io::Error,
    },
    /// Another process holds the file's lock.
    #[error(
        "{} is in use by another nqueens run; wait for it to finish, or use another file",
        path.display()
    )]
    InUse {
        /// The file.
        path: PathBuf,
    },
    /// The file is larger than any file of its kind can be.
    #[error(
        "{}: more than {limit} bytes, larger than any {kind} can be; it is not one",
        path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// What it was read as ("shard result").
        kind: &'static str,
        /// The most bytes a file of its kind can hold.
        limit: u64,
    },
    /// The file's content is wrong: not of its kind, of another version or configuration,
    /// changed, or counts that no board has.
    #[error("{}: {why}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
}

impl FileError {
    /// An [`FileError::Io`] error.
    pub fn io<'a>(doing: &'a str, path: &'a Path) -> impl FnOnce(io::Error) -> FileError + 'a {
        move |error| FileError::Io {
            doing: doing.to_string(),
            path: path.to_path_buf(),
            error,
        }
    }

    /// An [`FileError::Invalid`] error.
    pub fn invalid(path: &Path, why: impl Into<String>) -> FileError {
        FileError::Invalid {
            path: path.to_path_buf(),
            why: why.into(),
        }
    }

    /// Whether the error is the input's fault (a path that cannot serve), found before any
    /// work: the command line's exit code 2 rather than 1.
    pub fn is_usage(&self) -> bool {
        matches!(self, FileError::Unusable { .. })
    }
}

/// The path to write for a file given as `path`, checked before any work: a
/// regular file, or nothing yet in an existing directory. A symbolic link is followed to
/// the regular file it names, which is returned; a path ending in `/`, a directory, a
/// device, a FIFO or a socket, a link to one of those or to nothing, and a path in a
/// directory that does not exist are refused.
pub fn file_to_write(path: &Path) -> Result<PathBuf, FileError> {
    let unusable = |why: String| FileError::Unusable {
        path: path.to_path_buf(),
        why,
    };
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") || path.file_name().is_none() {
        return Err(unusable(
            "names a directory, not a file: give a file name".into(),
        ));
    }
    if path.file_name().is_some_and(is_temporary_name) {
        return Err(unusable(
            "a name of nqueens's own temporary files (.NAME.HOST.SLOT.tmp, .NAME.rewrite.tmp), which a live run may be writing: give another name".into(),
        ));
    }
    let found = match std::fs::symlink_metadata(path) {
        Ok(found) => found,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dir = parent(path);
            return match std::fs::metadata(dir) {
                Ok(m) if m.is_dir() => Ok(path.to_path_buf()),
                Ok(_) => Err(unusable(format!(
                    "cannot write there: {} is not a directory",
                    dir.display()
                ))),
                Err(e) => Err(unusable(format!(
                    "cannot write there: directory {}: {e}",
                    dir.display()
                ))),
            };
        }
        Err(e) => return Err(unusable(format!("cannot look at it: {e}"))),
    };
    let (real, kind) = if found.file_type().is_symlink() {
        let target = std::fs::read_link(path).unwrap_or_default();
        let real = std::fs::canonicalize(path).map_err(|e| {
            unusable(format!(
                "a symbolic link to {}, which cannot be followed ({e})",
                target.display()
            ))
        })?;
        let m = std::fs::metadata(&real).map_err(|e| {
            unusable(format!(
                "a symbolic link to {}, which cannot be read ({e})",
                real.display()
            ))
        })?;
        let what = format!("a symbolic link to {}, ", real.display());
        (real, (m.file_type(), what))
    } else {
        (path.to_path_buf(), (found.file_type(), String::new()))
    };
    let (t, link) = kind;
    if t.is_file() {
        return match open_here(path, &real) {
            Some(why) => Err(unusable(format!(
                "{link}{why}: writing it would replace what is written there; give a file of its own"
            ))),
            None => Ok(real),
        };
    }
    Err(unusable(format!(
        "{link}{}, not a regular file: give the path of a file",
        kind_of(t)
    )))
}

/// Whether `name` is of the form of nqueens's own temporary files: `.NAME.HOST.SLOT.tmp`
/// ([`Output`]'s, on any host), `.NAME.rewrite.tmp` ([`replace_locked`]'s) or
/// `.NAME.PID.tmp` ([`PrivateDir::write`]'s): a dot, then a last field of digits or
/// `rewrite` before `.tmp`. Such a file may be a live writer's, which replacing would break.
pub fn is_temporary_name(name: &std::ffi::OsStr) -> bool {
    let name = name.as_encoded_bytes();
    let Some(inner) = name
        .strip_prefix(b".")
        .and_then(|n| n.strip_suffix(b".tmp"))
    else {
        return false;
    };
    match inner.iter().rposition(|&b| b == b'.') {
        Some(dot) => {
            let last = &inner[dot + 1..];
            dot > 0
                && (last == b"rewrite" || (!last.is_empty() && last.iter().all(u8::is_ascii_digit)))
        }
        None => false,
    }
}

/// What a file of type `t` is, in words ("a FIFO").
fn kind_of(t: std::fs::FileType) -> &'static str {
    if t.is_file() {
        "a regular file"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_fifo() {
        "a FIFO (or pipe)"
    } else if t.is_socket() {
        "a socket"
    } else {
        "something other than a file"
    }
}

/// Why the regular file `real`, given as `path`, is this process's already: named through
/// a file descriptor's link (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`, any process's
/// `/proc/PID/fd/N`), or the file one of this process's descriptors has open (its standard
/// output or error sent to it by the shell, `>>job.log`). `None` where it is neither.
fn open_here(path: &Path, real: &Path) -> Option<String> {
    // The links followed, the path given first.
    let mut hops = vec![path.to_path_buf()];
    while let (true, Ok(next)) = (hops.len() < 40, std::fs::read_link(&hops[hops.len() - 1])) {
        let last = &hops[hops.len() - 1];
        hops.push(parent(last).join(next));
    }
    let descriptor = |p: &Path| {
        let parts: Vec<_> = p.components().map(|c| c.as_os_str()).collect();
        let at =
            |i: usize, names: &[&str]| parts.get(i).is_some_and(|p| names.iter().any(|n| p == n));
        at(0, &["/"])
            && ((at(1, &["proc"]) && at(3, &["fd"]))
                || (at(1, &["dev"]) && at(2, &["fd", "stdin", "stdout", "stderr"])))
    };
    if let Some(hop) = hops.iter().find(|p| descriptor(p)) {
        return Some(format!(
            "reached through a file descriptor ({})",
            hop.display()
        ));
    }
    let file = std::fs::metadata(real).ok()?;
    let fds = std::fs::read_dir("/proc/self/fd").ok()?;
    for fd in fds.flatten() {
        let open = std::fs::metadata(fd.path());
        if open.is_ok_and(|m| m.is_file() && (m.dev(), m.ino()) == (file.dev(), file.ino())) {
            let n = fd.file_name().to_string_lossy().into_owned();
            let which = match n.as_str() {
                "0" => " (its standard input)",
                "1" => " (its standard output)",
                "2" => " (its standard error)",
                _ => "",
            };
            return Some(format!(
                "is open in this process as file descriptor {n}{which}"
            ));
        }
    }
    None
}

/// Whether another process holds the lock of the file at `path` (a live run's
/// checkpoint): a lock this process cannot share.
fn locked_elsewhere(path: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(file) = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
    else {
        return false;
    };
    matches!(
        file.try_lock_shared(),
        Err(std::fs::TryLockError::WouldBlock)
    )
}

/// Whether a live run holds the file at `path`: another process holds its lock, and it is
/// not a shard result. An [`Output`]'s temporary file keeps its writer's lock through the
/// rename until the writer closes it, a moment later: a shard result found locked is another
/// writer's of the same output, just put in place, which this run replaces as it would a
/// moment later. A live checkpoint starts with its own header (or is empty while it is
/// made). The test reads the start of the file: a shard result's JSON names its format first.
fn held_by_a_run(path: &Path) -> bool {
    if !locked_elsewhere(path) {
        return false;
    }
    let shard = format!("{{\"format\":\"{SHARD_FORMAT}\"");
    let mut head = Vec::new();
    let read = open_to_read(path, "file")
        .and_then(|f| {
            f.take(shard.len() as u64)
                .read_to_end(&mut head)
                .map_err(FileError::io("read", path))
        })
        .is_ok();
    !(read && head == shard.as_bytes())
}

/// Whether `a` and `b` name the same file, existing or not: the same file by device and
/// inode where both exist, else the same canonical directory and name.
pub fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return (x.dev(), x.ino()) == (y.dev(), y.ino());
    }
    let place = |p: &Path| {
        std::fs::canonicalize(p).ok().or_else(|| {
            let dir = std::fs::canonicalize(parent(p)).ok()?;
            Some(dir.join(p.file_name()?))
        })
    };
    match (place(a), place(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// The directory that holds `path` (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Syncs the directory that holds `path`, open as `file`, so that a file just created (or
/// renamed) there survives a crash along with its contents. Where the directory cannot be
/// opened (no descriptor left under `ulimit -n`, a directory this user may not read), on
/// Linux the file system that holds `file` is synced instead (`syncfs`), which needs no
/// descriptor more and makes the directory's entry of it durable with the rest.
pub fn sync_parent_of(path: &Path, file: &File) -> io::Result<()> {
    let dir = match File::open(parent(path)) {
        Ok(dir) => dir,
        #[cfg(target_os = "linux")]
        Err(_) => {
            use std::os::fd::AsRawFd;
            // SAFETY: syncfs takes an open descriptor, which `file` holds.
            let synced = unsafe { libc::syncfs(file.as_raw_fd()) } == 0;
            return if synced {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            };
        }
        #[cfg(not(target_os = "linux"))]
        Err(e) => {
            let _ = file;
            return Err(e);
        }
    };
    dir.sync_all()
}

/// A temporary file of an [`Output`] of this process: its path, its identity (device and
/// inode: only that file is ever removed under its name, never another renamed there), and,
/// once its result is written whole and synced, where that result goes.
struct Temporary {
    tmp: PathBuf,
    id: (u64, u64),
    whole: Option<PathBuf>,
}

/// The temporary files of this process not yet renamed or removed. Its lock is held while
/// one is made or renamed, and kept by [`remove_temporaries`] until the process ends.
static TEMPORARIES: Mutex<Vec<Temporary>> = Mutex::new(Vec::new());

fn temporaries() -> std::sync::MutexGuard<'static, Vec<Temporary>> {
    TEMPORARIES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes `tmp` where it is still the file `id`: a file another process renamed to its name
/// is left alone.
fn remove_own(tmp: &Path, id: (u64, u64)) {
    if std::fs::symlink_metadata(tmp).is_ok_and(|m| (m.dev(), m.ino()) == id) {
        let _ = std::fs::remove_file(tmp);
    }
}

/// What [`remove_temporaries`] did with a result that was written whole and synced.
#[derive(Debug)]
pub enum Ended {
    /// Renamed into place: the destination holds the whole result.
    Published(PathBuf),
    /// Left whole in its temporary file, `tmp`, as the destination `dest` would not take it.
    Kept {
        /// The temporary file, which holds the whole result.
        tmp: PathBuf,
        /// Where the result was to go.
        dest: PathBuf,
        /// Why it could not.
        why: String,
    },
}

/// Ends every temporary file of an [`Output`] of this process, and keeps any other from
/// being made or renamed until the process ends: for a signal handler about to exit. A
/// rename under way finishes first (the destination is then whole), and none starts after.
/// A result written whole and synced is put in place, as [`Written::publish`] would
/// ([`Ended::Published`]), or, where its destination no longer takes it, left in its
/// temporary file ([`Ended::Kept`]); any other temporary file is removed.
pub fn remove_temporaries() -> Vec<Ended> {
    let mut list = temporaries();
    let mut ended = Vec::new();
    for t in list.drain(..) {
        let Some(dest) = t.whole else {
            remove_own(&t.tmp, t.id);
            continue;
        };
        let placed = check_target(&dest).and_then(|()| {
            std::fs::rename(&t.tmp, &dest).map_err(|e| e.to_string())?;
            if let Ok(file) = File::open(&dest) {
                let _ = sync_parent_of(&dest, &file);
            }
            Ok(())
        });
        ended.push(match placed {
            Ok(()) => Ended::Published(dest),
            Err(why) => Ended::Kept {
                tmp: t.tmp,
                dest,
                why,
            },
        });
    }
    // Held until the process exits: no output is published halfway through its end.
    std::mem::forget(list);
    ended
}

/// Whether a rename may put a result at `dest`: nothing there, a regular file or a symbolic
/// link (the rename replaces the link, never what it names), not locked by a live run.
fn check_target(dest: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(dest) {
        Ok(m) if !m.is_file() && !m.file_type().is_symlink() => Err(format!(
            "{} is {} now, not a regular file",
            dest.display(),
            kind_of(m.file_type())
        )),
        _ if held_by_a_run(dest) => Err(format!(
            "{} is locked by a live nqueens run now",
            dest.display()
        )),
        _ => Ok(()),
    }
}

/// Where a result will go, whole or not at all (see the module's notes). Dropped before
/// [`Written::publish`], it removes its temporary file.
pub struct Output {
    /// The destination as given (for messages).
    path: PathBuf,
    /// Where the result is renamed to (a symbolic link given as the path followed).
    dest: PathBuf,
    /// Whether the path given was a symbolic link (followed again at the rename).
    linked: bool,
    /// The temporary file: locked by this process until it is renamed or removed.
    tmp: PathBuf,
    file: File,
    /// The temporary file's device and inode.
    id: (u64, u64),
}

/// The temporary files one host may have of one destination at once (live writers each
/// hold one; a stale one is taken over).
const SLOTS: usize = 64;

/// The longest file name most file systems take (`NAME_MAX`).
const NAME_MAX: usize = 255;

/// This host's name as its temporary files (and shard results) carry it: letters, digits,
/// `-`, `_` and `.` (anything else as `_`), at most 64 of them.
pub fn host() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is writable for its length; gethostname writes at most that.
        let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
        let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        let name: String = buf[..if ok { len } else { 0 }]
            .iter()
            .take(64)
            .map(|&b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => b as char,
                _ => '_',
            })
            .collect();
        if name.is_empty() { "host".into() } else { name }
    })
}

/// The name of temporary file `slot` of the destination named `name`, made on `host`:
/// `.NAME.HOST.SLOT.tmp`. A name too long for that within [`NAME_MAX`] bytes is cut and
/// followed by `~` and the CRC-32 of the whole name, so that outputs of long names that
/// start alike still have temporaries of their own.
fn temporary_name(name: &std::ffi::OsStr, host: &str, slot: usize) -> std::ffi::OsString {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let tail = format!(".{host}.{slot}.tmp");
    let room = NAME_MAX - 1 - tail.len();
    let name = name.as_bytes();
    let mut tmp = vec![b'.'];
    if name.len() <= room {
        tmp.extend_from_slice(name);
    } else {
        tmp.extend_from_slice(&name[..room - 9]);
        tmp.extend_from_slice(format!("~{:08x}", crc32fast::hash(name)).as_bytes());
    }
    tmp.extend_from_slice(tail.as_bytes());
    std::ffi::OsString::from_vec(tmp)
}

/// Takes the temporary file at `tmp` for this process: made new, or an existing one whose
/// writer is provably gone (a regular file of this user that no process holds the lock of:
/// the lock goes with its holder, killed or not), emptied. Returns it locked, or `None`
/// where the file is a live writer's (its lock held) or not one this process may take
/// (another user's, or not a regular file).
fn claim(tmp: &Path) -> io::Result<Option<File>> {
    use std::os::unix::fs::OpenOptionsExt;
    loop {
        let (file, made) = match OpenOptions::new().write(true).create_new(true).open(tmp) {
            Ok(file) => (file, true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                // Never through a link, nor blocked on a FIFO.
                match OpenOptions::new()
                    .write(true)
                    .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
                    .open(tmp)
                {
                    Ok(file) => (file, false),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(_) => return Ok(None),
                }
            }
            Err(e) => return Err(e),
        };
        let mine = file.metadata()?;
        let me = euid();
        if !made && (!mine.is_file() || (mine.uid() != me && me != 0)) {
            return Ok(None);
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
        // Still the file of that name: its last holder may have removed or renamed it
        // between our open and our lock.
        match std::fs::symlink_metadata(tmp) {
            Ok(now) if (now.dev(), now.ino()) == (mine.dev(), mine.ino()) => {}
            Ok(_) => continue,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        }
        if !made {
            file.set_len(0)?;
        }
        return Ok(Some(file));
    }
}

impl Output {
    /// Checks the destination `path` as [`file_to_write`] does, and
    /// that this process may replace it, and makes the temporary file beside it.
    ///
    /// The temporary file is `.NAME.HOST.SLOT.tmp` (`temporary_name`), locked by this
    /// process while it lives: a run of the same output on the same host at once takes
    /// the next slot; a run of another host has names of its own, whatever its process
    /// ids (a requeued job and the killed one are both PID 1 in their PID namespaces); and
    /// one left by a writer that is gone (`kill -9`, a crash: its lock is free) is taken
    /// over, so it never blocks a new run and is replaced by its result.
    pub fn create(path: &Path) -> Result<Output, FileError> {
        let dest = file_to_write(path)?;
        let unusable = |why: String| FileError::Unusable {
            path: path.to_path_buf(),
            why,
        };
        if held_by_a_run(&dest) {
            return Err(unusable(format!(
                "{} is locked by a live nqueens run (its checkpoint?), which replacing it would break: wait for the run to finish, or give another path",
                dest.display()
            )));
        }
        let name = dest.file_name().unwrap_or_default();
        let tmp_of = |slot| dest.with_file_name(temporary_name(name, host(), slot));
        let mut taken = None;
        for slot in 0..SLOTS {
            let tmp = tmp_of(slot);
            let mut list = temporaries();
            match claim(&tmp) {
                Ok(Some(file)) => {
                    let id = file.metadata().map(|m| (m.dev(), m.ino())).map_err(|e| {
                        unusable(format!(
                            "cannot write there: cannot look at its temporary file {}: {e}",
                            tmp.display()
                        ))
                    })?;
                    list.push(Temporary {
                        tmp: tmp.clone(),
                        id,
                        whole: None,
                    });
                    taken = Some((tmp, file, id));
                    break;
                }
                Ok(None) => {}
                Err(e) => {
                    return Err(unusable(format!(
                        "cannot write there: cannot make its temporary file {}: {e}",
                        tmp.display()
                    )));
                }
            }
        }
        let (tmp, file, id) = taken.ok_or_else(|| {
            unusable(format!(
                "cannot write there: its temporary files {} to {} are all held by live runs or are not files this user may replace",
                tmp_of(0).display(),
                tmp_of(SLOTS - 1).display()
            ))
        })?;
        let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        let out = Output {
            path: path.to_path_buf(),
            dest,
            linked,
            tmp,
            file,
            id,
        };
        out.check_replaceable().map_err(unusable)?;
        Ok(out)
    }

    /// Refuses a destination that a rename by this process would fail to replace: in a
    /// sticky directory (such as `/tmp`), a file that neither this process's user nor the
    /// directory's owner owns, unless the user is root. (The temporary file beside it shows
    /// that the directory takes new files; its owner is this process's user.)
    fn check_replaceable(&self) -> Result<(), String> {
        let (Ok(target), Ok(me), Ok(dir)) = (
            std::fs::metadata(&self.dest),
            self.file.metadata(),
            std::fs::metadata(parent(&self.dest)),
        ) else {
            return Ok(());
        };
        const STICKY: u32 = 0o1000;
        let me = me.uid();
        if dir.mode() & STICKY != 0 && me != 0 && target.uid() != me && dir.uid() != me {
            return Err(format!(
                "owned by another user (uid {}) in a sticky directory, so this user (uid {me}) may not replace it: remove it, or give another path",
                target.uid()
            ));
        }
        Ok(())
    }

    /// The destination, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary file the result is written to.
    pub fn temporary(&self) -> &Path {
        &self.tmp
    }

    /// Writes `bytes` to the temporary file and syncs them; [`Written::publish`] then puts
    /// them in place.
    ///
    /// From then on the result is whole: a signal handler's [`remove_temporaries`] puts it
    /// in place rather than removing it.
    pub fn write(self, bytes: &[u8]) -> Result<Written, FileError> {
        (&self.file)
            .write_all(bytes)
            .and_then(|()| self.file.sync_all())
            .map_err(FileError::io("write", &self.tmp))?;
        let target = self.target()?;
        let mut list = temporaries();
        if let Some(t) = list.iter_mut().find(|t| t.tmp == self.tmp) {
            t.whole = Some(target);
        }
        drop(list);
        Ok(Written(self))
    }

    /// Where the result goes now: where the path given was a symbolic link, that link
    /// followed again and checked as at the start; else the destination itself, which must
    /// be nothing, a regular file or a symbolic link made since (which the rename replaces,
    /// never following it). Refused where a live run holds it.
    fn target(&self) -> Result<PathBuf, FileError> {
        let real = if self.linked {
            file_to_write(&self.path)?
        } else {
            match std::fs::symlink_metadata(&self.dest) {
                Ok(m) if !m.is_file() && !m.file_type().is_symlink() => {
                    return Err(FileError::Unusable {
                        path: self.path.clone(),
                        why: format!(
                            "{}, not a regular file: give the path of a file",
                            kind_of(m.file_type())
                        ),
                    });
                }
                _ => self.dest.clone(),
            }
        };
        if held_by_a_run(&real) {
            return Err(FileError::InUse { path: real });
        }
        Ok(real)
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.tmp.as_os_str().is_empty() {
            return;
        }
        // Removed while its lock is held (the file closes after this).
        let mut list = temporaries();
        remove_own(&self.tmp, self.id);
        list.retain(|t| t.tmp != self.tmp);
    }
}

/// An [`Output`] written and synced under its temporary name (still locked).
pub struct Written(Output);

impl Written {
    /// Renames the temporary file over the destination and syncs the directory. The
    /// destination is checked again first (it must still be a regular file, a symbolic
    /// link, which is replaced and never followed unless the path given was one, or
    /// nothing).
    pub fn publish(mut self) -> Result<(), FileError> {
        let out = &mut self.0;
        let real = out.target()?;
        {
            let mut list = temporaries();
            std::fs::rename(&out.tmp, &real).map_err(|error| FileError::Io {
                doing: format!("rename {} to", out.tmp.display()),
                path: real.clone(),
                error,
            })?;
            list.retain(|t| t.tmp != out.tmp);
            out.tmp = PathBuf::new();
        }
        sync_parent_of(&real, &out.file).map_err(FileError::io("sync the directory of", &real))
    }
}

/// This process's effective user id.
fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

/// The mode bits by which a group or others may write (`S_IWGRP | S_IWOTH`).
const WRITABLE_BY_OTHERS: u32 = 0o022;

/// A folder no other user can write, open: its files (rescue files) can be neither planted
/// nor replaced by anyone but this user and root. Every file in it is made, opened, renamed
/// and removed relative to the folder's descriptor, so a folder renamed or replaced after it
/// was checked changes nothing.
pub struct PrivateDir {
    dir: File,
    path: PathBuf,
}

impl PrivateDir {
    /// Opens the folder at `path`, which must be a directory owned by this process's
    /// effective user (or root) that neither its group nor others may write (by its mode).
    /// Where `make` is set, a missing folder (and any missing folder above it) is made with
    /// mode 0700 first.
    pub fn open(path: &Path, make: bool) -> io::Result<PrivateDir> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        if make {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(path)?;
        }
        let dir = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
            .open(path)?;
        let m = dir.metadata()?;
        let me = euid();
        if m.uid() != me && m.uid() != 0 {
            return Err(io::Error::other(format!(
                "{} is owned by another user (uid {}), who could put files there",
                path.display(),
                m.uid()
            )));
        }
        if m.mode() & WRITABLE_BY_OTHERS != 0 {
            return Err(io::Error::other(format!(
                "{} may be written by other users (mode {:04o}), who could put files there",
                path.display(),
                m.mode() & 0o7777
            )));
        }
        Ok(PrivateDir {
            dir,
            path: path.to_path_buf(),
        })
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `name` as a C string, refused where it holds a `/` or a NUL (a name in the folder,
    /// nothing else).
    fn c_name(name: &std::ffi::OsStr) -> io::Result<std::ffi::CString> {
        let bytes = name.as_encoded_bytes();
        if bytes.is_empty() || bytes.contains(&b'/') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a file name",
            ));
        }
        std::ffi::CString::new(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
    }

    /// Opens `name` in the folder: `flags` with `O_NOFOLLOW` and `O_CLOEXEC`, mode 0600.
    fn open_at(&self, name: &std::ffi::OsStr, flags: i32) -> io::Result<File> {
        use std::os::fd::{AsRawFd, FromRawFd};
        let c = Self::c_name(name)?;
        // SAFETY: the folder's descriptor is open and `c` is a NUL-terminated name; a
        // descriptor returned is new and owned by the File made from it.
        let fd = unsafe {
            libc::openat(
                self.dir.as_raw_fd(),
                c.as_ptr(),
                flags | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                0o600 as libc::c_uint,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and nothing else owns it.
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    /// Writes `bytes` whole as `name` in the folder: into a new file `.NAME.PID.tmp`
    /// (`O_EXCL | O_NOFOLLOW`, mode 0600), synced, then renamed over `name` (a file or a link
    /// there is replaced, never written through) and the folder synced.
    pub fn write(&self, name: &std::ffi::OsStr, bytes: &[u8]) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let mut tmp = std::ffi::OsString::from(".");
        tmp.push(name);
        tmp.push(format!(".{}.tmp", std::process::id()));
        let create = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL;
        let mut file = match self.open_at(&tmp, create) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                // Left by a process of this id that is gone (this one writes one at a time).
                self.remove(&tmp)?;
                self.open_at(&tmp, create)?
            }
            opened => opened?,
        };
        let written = (|| {
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            file.write_all(bytes)?;
            file.sync_all()?;
            let (from, to) = (Self::c_name(&tmp)?, Self::c_name(name)?);
            let fd = self.dir.as_raw_fd();
            // SAFETY: both names are NUL-terminated and relative to the open folder.
            if unsafe { libc::renameat(fd, from.as_ptr(), fd, to.as_ptr()) } != 0 {
                return Err(io::Error::last_os_error());
            }
            self.dir.sync_all()
        })();
        if written.is_err() {
            let _ = self.remove(&tmp);
        }
        written
    }

    /// Opens `name` in the folder to read, never through a link, and checks that it is this
    /// user's own: a regular file owned by the effective user with mode 0600. `None` where
    /// there is nothing of that name; an error that says why where it is not such a file.
    pub fn open_own(&self, name: &std::ffi::OsStr) -> io::Result<Option<File>> {
        let file = match self.open_at(name, libc::O_RDONLY | libc::O_NONBLOCK) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return Err(io::Error::other("a symbolic link, which is never followed"));
            }
            Err(e) => return Err(e),
        };
        let m = file.metadata()?;
        if !m.is_file() {
            return Err(io::Error::other(format!(
                "{}, not a regular file",
                kind_of(m.file_type())
            )));
        }
        if m.uid() != euid() {
            return Err(io::Error::other(format!(
                "owned by another user (uid {}), not made by this user (uid {})",
                m.uid(),
                euid()
            )));
        }
        if m.mode() & 0o7777 != 0o600 {
            return Err(io::Error::other(format!(
                "mode {:04o}, not 0600 as nqueens makes it",
                m.mode() & 0o7777
            )));
        }
        Ok(Some(file))
    }

    /// Removes `name` from the folder (what is there, never what a link names).
    pub fn remove(&self, name: &std::ffi::OsStr) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let c = Self::c_name(name)?;
        // SAFETY: the name is NUL-terminated and relative to the open folder.
        if unsafe { libc::unlinkat(self.dir.as_raw_fd(), c.as_ptr(), 0) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Opens (or creates) `path` for reading and appending, locked for this process alone, and
/// says whether it made the file: a new file's name is durable once its directory is synced
/// ([`sync_parent_of`]), which the caller does with the file's first content. `kind` names the
/// file in messages ("checkpoint").
pub fn open_locked(path: &Path, kind: &'static str) -> Result<(File, bool), FileError> {
    use std::os::unix::fs::OpenOptionsExt;
    let existed = path.exists();
    // A symbolic link there is followed only where this user (or root) made it: one another
    // user put there, since the path was checked or before, is never written through.
    let follow = std::fs::symlink_metadata(path)
        .is_ok_and(|m| m.file_type().is_symlink() && (m.uid() == euid() || m.uid() == 0));
    // Append mode: every write lands at the end, whatever another handle did.
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .custom_flags(if follow { 0 } else { libc::O_NOFOLLOW })
        .open(path)
        .map_err(FileError::io(&format!("open {kind}"), path))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(FileError::InUse {
                path: path.to_path_buf(),
            });
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(FileError::io(&format!("lock {kind}"), path)(e));
        }
    }
    Ok((file, !existed))
}

/// Replaces the file at `path`, which this process holds locked ([`open_locked`]), with what
/// `fill` writes: into a temporary file beside it (`.NAME.rewrite.tmp`), locked and synced,
/// then renamed over it (over the file a symbolic link names, the link kept), the directory
/// synced. Returns the new file, open for reading and appending and locked. The caller keeps
/// the old file open, with its lock, while it runs: a run that opened it just before the
/// rename finds it locked and is refused, rather than taking a file no path names. A crash
/// leaves the old file or the new one, whole; `kind` names the file in messages.
pub fn replace_locked(
    path: &Path,
    kind: &'static str,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<File, FileError> {
    let real =
        std::fs::canonicalize(path).map_err(FileError::io(&format!("rewrite {kind}"), path))?;
    let mut name = std::ffi::OsString::from(".");
    name.push(real.file_name().unwrap_or_default());
    name.push(".rewrite.tmp");
    let tmp = real.with_file_name(name);
    let written = (|| {
        // A temporary file left by a crash is nobody's: only the holder of the file's lock
        // writes it. It is removed and made new (`O_EXCL`), so that a symbolic link put
        // there is never written through.
        match std::fs::remove_file(&tmp) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .open(&tmp)?;
        file.try_lock()?;
        fill(&mut file)?;
        file.sync_all()?;
        std::fs::rename(&tmp, &real)?;
        Ok(file)
    })();
    let file = written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        FileError::io(&format!("rewrite {kind}"), path)(e)
    })?;
    sync_parent_of(&real, &file).map_err(FileError::io("sync the directory of", &real))?;
    Ok(file)
}

/// Reads one line into `line` (cleared first), at most `limit` bytes of it: returns the
/// bytes consumed and whether the line is whole (ends in a newline within the limit). A
/// longer line is consumed up to its newline (or the end) and reported as not whole.
pub fn read_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    limit: usize,
) -> io::Result<(u64, bool)> {
    line.clear();
    let read = reader.by_ref().take(limit as u64).read_until(b'\n', line)? as u64;
    if line.ends_with(b"\n") {
        return Ok((read, true));
    }
    if read < limit as u64 {
        // The end of the file, mid-line.
        return Ok((read, false));
    }
    Ok((read + skip_line(reader)?.0, false))
}

/// Skips to the end of the current line: the bytes consumed, and whether a newline ended it.
fn skip_line(reader: &mut impl BufRead) -> io::Result<(u64, bool)> {
    let mut skipped = 0u64;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok((skipped, false));
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok((skipped + i as u64 + 1, true));
            }
            None => {
                let k = buf.len();
                reader.consume(k);
                skipped += k as u64;
            }
        }
    }
}

/// The lines left in `reader` (a last one without a newline counted), in bounded memory.
#[cfg(test)]
pub fn count_lines(reader: &mut impl BufRead) -> io::Result<usize> {
    let mut lines = 0;
    loop {
        match skip_line(reader)? {
            (0, false) => return Ok(lines),
            (_, true) => lines += 1,
            (_, false) => return Ok(lines + 1),
        }
    }
}

/// A reader that stops after `left` bytes and notes whether more followed.
struct Limited<R> {
    inner: R,
    left: u64,
    over: bool,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            let mut one = [0u8];
            if self.inner.read(&mut one)? > 0 {
                self.over = true;
                return Err(io::Error::new(
                    io::ErrorKind::FileTooLarge,
                    "over the limit",
                ));
            }
            return Ok(0);
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let got = self.inner.read(&mut buf[..want])?;
        self.left -= got as u64;
        Ok(got)
    }
}

/// Opens the regular file at `path` to read, without waiting on it: anything else (a FIFO,
/// which no process may ever write, a device, a socket, a directory) is refused as
/// [`FileError::Invalid`], never opened in a way that could block.
pub fn open_to_read(path: &Path, kind: &'static str) -> Result<File, FileError> {
    use std::os::unix::fs::OpenOptionsExt;
    let not_a_file = |t: std::fs::FileType| {
        FileError::invalid(
            path,
            format!(
                "{}, not a regular file: give the path of a {kind}",
                kind_of(t)
            ),
        )
    };
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(FileError::io("read", path))?;
    let meta = file.metadata().map_err(FileError::io("read", path))?;
    if !meta.is_file() {
        return Err(not_a_file(meta.file_type()));
    }
    // A regular file reads the same with O_NONBLOCK: nothing to clear.
    Ok(file)
}

/// The `format` field of the JSON object a file starts with, where its first line (read up
/// to 4 KiB) is one: what a file that does not parse as the kind asked for was made as.
pub fn format_of(path: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Probe {
        format: String,
    }
    let mut head = Vec::new();
    open_to_read(path, "file")
        .ok()?
        .take(4096)
        .read_to_end(&mut head)
        .ok()?;
    let line = head.split(|&b| b == b'\n').next()?;
    serde_json::from_slice::<Probe>(line).ok().map(|p| p.format)
}

/// Reads one JSON value of type `T` (a `kind` of file, for messages) from `path`, at most
/// `limit` bytes of it, read as it is parsed: a file that is not JSON fails at its first
/// wrong byte, and one larger than the limit is refused without being read to its end.
/// The error says what is wrong: too large, cut short, or not valid (not JSON, a field
/// missing, or of the wrong type or range), with the line and column.
pub fn read_json<T: DeserializeOwned>(
    path: &Path,
    kind: &'static str,
    limit: u64,
) -> Result<T, FileError> {
    read_json_from(open_to_read(path, kind)?, path, kind, limit)
}

/// [`read_json`] of a file already open (`file`, named `path` in messages).
pub fn read_json_from<T: DeserializeOwned>(
    file: File,
    path: &Path,
    kind: &'static str,
    limit: u64,
) -> Result<T, FileError> {
    let too_large = || FileError::TooLarge {
        path: path.to_path_buf(),
        kind,
        limit,
    };
    let meta = file.metadata().map_err(FileError::io("read", path))?;
    if meta.len() > limit {
        return Err(too_large());
    }
    let mut limited = Limited {
        inner: file,
        left: limit,
        over: false,
    };
    let parsed = serde_json::from_reader(io::BufReader::new(&mut limited));
    match parsed {
        Ok(value) => Ok(value),
        Err(_) if limited.over => Err(too_large()),
        Err(e) => {
            use serde_json::error::Category;
            let why = match e.classify() {
                Category::Io => return Err(FileError::io("read", path)(e.into())),
                Category::Eof => {
                    format!(
                        "cut short, not a whole {kind} (truncated, or still being written): {e}"
                    )
                }
                Category::Syntax | Category::Data => {
                    format!("not a valid nqueens {kind} of this version: {e}")
                }
            };
            Err(FileError::invalid(path, why))
        }
    }
}

/// The most any part of an `n`-board, or any sum of its parts, can count: `8 x n!`
/// (saturating). A solution is a permutation, so a board has at most `n!`; `unique8`
/// counts each at most eight times. A file that claims more was changed; summing it
/// could wrap.
pub fn count_limit(n: u32) -> u128 {
    // Saturated by n = 34, so a forged n of billions costs no more than that.
    (1..=u128::from(n).min(64)).fold(8u128, |f, k| f.saturating_mul(k))
}

/// `sum + t`, or `None` where either count would pass `limit` (or wrap).
pub fn add_within(sum: Tally, t: Tally, limit: u128) -> Option<Tally> {
    let solutions = sum.solutions.checked_add(t.solutions)?;
    let unique8 = sum.unique8.checked_add(t.unique8)?;
    (solutions <= limit && unique8 <= limit).then_some(Tally { solutions, unique8 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_limits_hold_every_published_board_and_never_wrap() {
        for n in 0..=27u32 {
            let total = crate::published::all(n).unwrap();
            assert!(total <= count_limit(n), "n = {n}");
        }
        assert!(count_limit(32) < u128::MAX / 100);
        assert_eq!(count_limit(200), u128::MAX);
        let big = Tally {
            solutions: u128::MAX,
            unique8: 0,
        };
        assert_eq!(add_within(big, big, u128::MAX), None);
        let one = Tally {
            solutions: 1,
            unique8: 8,
        };
        assert_eq!(add_within(one, one, 16), Some(one + one));
        assert_eq!(add_within(one, one, 15), None);
    }

    #[test]
    fn the_names_of_temporary_files_are_told_from_others() {
        let name = |n: &str| is_temporary_name(std::ffi::OsStr::new(n));
        for ours in [
            ".s.json.vm.0.tmp",
            ".s.json.host.63.tmp",
            ".c.ckpt.rewrite.tmp",
        ] {
            assert!(name(ours), "{ours}");
        }
        let made = temporary_name(std::ffi::OsStr::new("s.json"), host(), 7);
        assert!(is_temporary_name(&made), "{made:?}");
        for theirs in [
            "s.json",
            ".s.json",
            ".tmp",
            "..tmp",
            ".0.tmp",
            "s.json.0.tmp",
            ".s.x.tmp",
        ] {
            assert!(!name(theirs), "{theirs}");
        }
    }

    #[test]
    fn long_lines_are_consumed_whole_and_reported() {
        let text = b"short\nthis one is far too long\nend";
        let mut r = io::BufReader::with_capacity(4, &text[..]);
        let mut line = Vec::new();
        assert_eq!(read_line(&mut r, &mut line, 10).unwrap(), (6, true));
        assert_eq!(line, b"short\n");
        assert_eq!(read_line(&mut r, &mut line, 10).unwrap(), (25, false));
        assert_eq!(read_line(&mut r, &mut line, 10).unwrap(), (3, false));
        assert_eq!(line, b"end");
        assert_eq!(read_line(&mut r, &mut line, 10).unwrap(), (0, false));
        let mut r = io::BufReader::with_capacity(3, &b"a\nbb\n\nccc"[..]);
        assert_eq!(count_lines(&mut r).unwrap(), 4);
    }
}
