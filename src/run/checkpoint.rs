//! Resume files for long runs.
//!
//! A **checkpoint** is a JSON Lines file: a header naming the board, mode, split depth, the
//! subproblem list's size and fingerprint (and the shard, if any), then one record per
//! finished subproblem with its counts, their residues and a CRC-32 of them and of the plan's
//! fingerprint and shard, so that a record copied from another plan's checkpoint is a damaged
//! record here (the record's `Tie`). The workers only queue
//! each finished subproblem (a push under a lock); [`Checkpoint::stage`]
//! serializes the queue and appends it to the file, called by the caller's timer every
//! [`STAGE_EVERY`], and [`Checkpoint::flush`] syncs what is written with one `fsync`,
//! called by the timer every [`SYNC_EVERY`] (`nqueens count` does both, from a thread of
//! its own), at the end and on a signal. Where no timer calls it, the worker that records a
//! subproblem syncs a queue older than one and a half periods. So a run killed at any
//! moment loses at most the subproblems in flight and about a second of finished ones, and
//! a torn last line (a crash mid-write) is ignored, cut off and recounted; a header cut
//! short is written again. A damaged record inside the file (its checksum, residues or
//! format wrong) costs its own subproblem only: it is skipped and recounted, and the file
//! rewritten without it; a record found twice with the same counts is kept once. Anything
//! else that does not fit (another configuration, a subproblem recorded twice with
//! different counts) is an error naming the file and its lines, never a silently wrong
//! total; so are counts that no board has (summed with the records before them,
//! `crate::run::durable::count_limit`). The file itself is opened, locked and read, a
//! bounded line at a time, through `crate::run::durable`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::run::Observer;
use crate::run::durable::{self, CHECKPOINT_FORMAT, FileError, VERSION};
use crate::run::plan::{Config, Plan};
use crate::run::shard::Shard;
use crate::types::{Residues, Tally};

/// The longest header line read (a header is about 300 bytes).
const HEADER_BYTES: usize = 4096;

/// The longest record line read (a record is at most about 160 bytes).
const RECORD_BYTES: usize = 512;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    config: Config,
    shard: Option<Shard>,
}

/// A record as read back ([`write_record`] writes its JSON).
#[derive(Debug, Deserialize)]
struct Record {
    subproblem: usize,
    solutions: u128,
    unique8: u128,
    /// [`Residues::of`] the counts.
    residues: Residues,
    crc: u32,
    /// The loop that counted it where it was no CPU's: `"gpu"` ([`Loop::Gpu`]). A CPU's
    /// record has no such field, as before there was a GPU; the field is outside the
    /// checksum, which vouches for counts only, so that an nqueens without it (which
    /// ignores the field) resumes the file too.
    #[serde(default, rename = "loop")]
    counted_on: Option<Loop>,
}

/// A loop a record names ([`Record::counted_on`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Loop {
    /// A GPU's matching ([`crate::run::Run::on_gpu`]).
    Gpu,
}

impl Record {
    fn tally(&self) -> Tally {
        Tally {
            solutions: self.solutions,
            unique8: self.unique8,
        }
    }

    /// Whether the checksum (of this file's plan, `tie`) and the residues both agree with
    /// the counts.
    fn sound(&self, tie: &Tie) -> bool {
        let t = self.tally();
        self.residues == Residues::of(t)
            && self.crc == crc_text(&mut Vec::new(), tie, self.subproblem, t, self.residues)
    }
}

/// What ties a checkpoint's records to its plan: the CRC-32 of the text each record's
/// checksum starts with, `"{fingerprint} {shard} "` (the plan's fingerprint in 8 hex digits,
/// the shard as `I/K`, or `-` for a whole run). A record copied from a checkpoint of another
/// plan or shard fails its checksum here: a damaged record, counted again.
#[derive(Clone)]
struct Tie(crc32fast::Hasher);

impl Tie {
    fn new(fingerprint: u32, shard: Option<Shard>) -> Tie {
        let shard = shard.map_or_else(|| "-".to_string(), |s| s.to_string());
        let mut h = crc32fast::Hasher::new();
        h.update(format!("{fingerprint:08x} {shard} ").as_bytes());
        Tie(h)
    }
}

/// The CRC-32 of a record's fields as text after `tie`'s, `"{subproblem} {solutions}
/// {unique8} {a} {b} {c} {d}"` (the residues last), written into `text` (cleared first) on
/// the way.
fn crc_text(text: &mut Vec<u8>, tie: &Tie, subproblem: usize, t: Tally, r: Residues) -> u32 {
    text.clear();
    decimal(text, subproblem as u128);
    for x in [t.solutions, t.unique8]
        .into_iter()
        .chain(r.0.map(u128::from))
    {
        text.push(b' ');
        decimal(text, x);
    }
    let mut h = tie.0.clone();
    h.update(text);
    h.finalize()
}

/// Appends the JSON line of a [`Record`] of `subproblem` with counts `t` to `out`, written
/// by hand (this runs for every subproblem, and serde's writer takes about twice as long),
/// using `text` for its checksum, tied to the file's plan by `tie`; a part a GPU counted
/// (`t.1`) names it (`"loop":"gpu"`).
fn write_record(out: &mut Vec<u8>, text: &mut Vec<u8>, tie: &Tie, subproblem: usize, t: Done) {
    let (t, on_gpu) = t;
    let r = Residues::of(t);
    let crc = crc_text(text, tie, subproblem, t, r);
    let [a, b, c, d] = r.0.map(u128::from);
    for (key, value) in [
        (&b"{\"subproblem\":"[..], subproblem as u128),
        (b",\"solutions\":", t.solutions),
        (b",\"unique8\":", t.unique8),
        (b",\"residues\":[", a),
        (b",", b),
        (b",", c),
        (b",", d),
        (b"],\"crc\":", u128::from(crc)),
    ] {
        out.extend_from_slice(key);
        decimal(out, value);
    }
    if on_gpu {
        out.extend_from_slice(b",\"loop\":\"gpu\"");
    }
    out.extend_from_slice(b"}\n");
}

/// A finished part's counts, and whether a GPU counted it.
type Done = (Tally, bool);

/// Appends `x` in decimal, as `Display` writes it, without the formatting machinery (the
/// records of a checkpoint are written by the hundred thousand).
fn decimal(out: &mut Vec<u8>, x: u128) {
    let Ok(mut x) = u64::try_from(x) else {
        // Beyond 64 bits: a count of a board past n = 29; rare, done the plain way.
        out.extend_from_slice(x.to_string().as_bytes());
        return;
    };
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// The line (1-based) of the first sound record of `subproblem` in the checkpoint `file`,
/// read again from the start (`tie`: its plan's): for the message of a subproblem recorded
/// twice.
fn first_line_of(file: &File, tie: &Tie, subproblem: usize) -> Option<usize> {
    let mut reader = BufReader::new(file);
    reader.seek(SeekFrom::Start(0)).ok()?;
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        let (read, whole) = durable::read_line(&mut reader, &mut line, HEADER_BYTES).ok()?;
        if read == 0 {
            return None;
        }
        number += 1;
        let record = serde_json::from_slice::<Record>(&line).ok();
        if record.is_some_and(|r| whole && r.sound(tie) && r.subproblem == subproblem) {
            return Some(number);
        }
    }
}

/// Refuses a checkpoint of format `version`, not [`VERSION`]: an older one's records are
/// not tied to their plan (a record copied from another board's checkpoint passed its
/// checksum), so it is resumed by the nqueens that wrote it or counted again; a newer one is
/// resumed by the nqueens that wrote it.
fn other_version(path: &Path, version: u32) -> FileError {
    let what = if version < VERSION {
        "its records' checksums do not name their plan, so this nqueens cannot tell them from another plan's: resume it with the nqueens that wrote it, or count again with a new checkpoint (another file)"
    } else {
        "resume it with the nqueens that wrote it"
    };
    FileError::invalid(
        path,
        format!(
            "a checkpoint of format version {version}; this nqueens reads version {VERSION}: {what}"
        ),
    )
}

/// What is wrong where lines `first` and `second` (record `r`) both record one subproblem,
/// the first with counts `before`, and the way on.
fn conflict(first: usize, second: usize, before: Tally, r: &Record) -> String {
    format!(
        "lines {first} and {second} both record subproblem {}, with different counts ({} and {} solutions, {} and {} x8 fundamental), each with a sound checksum: one was changed. Delete both lines to count subproblem {} again, or start a new checkpoint (another file)",
        r.subproblem, before.solutions, r.solutions, before.unique8, r.unique8, r.subproblem
    )
}

/// How often a long run should call [`Checkpoint::flush`] while it counts (`nqueens count`
/// does, from a timer thread): at most about this much finished work is counted again
/// after a crash.
pub const SYNC_EVERY: Duration = Duration::from_secs(1);

/// Records the queue holds without growing. Both its buffers are made when the checkpoint
/// is opened, on the opening thread, so that the workers' pushes never allocate: what the
/// workers allocate lands among the join's tables in their malloc arenas, where a queue
/// that grows slows the join's matching by about a tenth.
const QUEUED: usize = 1 << 15;

/// How often a long run should call [`Checkpoint::stage`] while it counts.
pub const STAGE_EVERY: Duration = Duration::from_millis(50);

/// Finished subproblems not yet handed to the file, queued by the workers.
struct Queue {
    records: Vec<(usize, Done)>,
    /// When the records were last taken to be synced.
    synced: Instant,
}

/// The file and the records on their way into it.
struct Sink {
    file: File,
    /// The file this one replaced when it was rewritten without its damaged records, kept
    /// open with its lock: a run that opened it just before is refused, not given a file
    /// that no path names.
    _replaced: Option<File>,
    path: PathBuf,
    /// A header written and not yet synced: `Some(true)` where this run made the file, whose
    /// directory is then synced too.
    fresh: Option<bool>,
    /// The file's length up to its last synced record: where a failed write is cut back to.
    good: u64,
    /// Records serialized and not yet synced (a failed write keeps them for the next).
    bytes: Vec<u8>,
    /// How much of `bytes` is written to the file already (not synced).
    put: usize,
    /// How many records `bytes` holds.
    records: usize,
    /// Records this run has made durable.
    written: usize,
    /// Scratch space for a record's checksum.
    text: Vec<u8>,
    /// What ties the records to the plan.
    tie: Tie,
    /// The queue's other buffer (empty), swapped in when the queue is taken.
    spare: Vec<(usize, Done)>,
    /// Closed by [`Checkpoint::close`]: nothing more is written.
    closed: bool,
}

/// The most line numbers of damaged records a [`Skipped`] names.
const LINES_NAMED: usize = 5;

/// The damaged records [`Checkpoint::open`] skipped (a checksum, residues or format that is
/// wrong): each costs its own subproblem only, which is counted again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// How many records were skipped.
    pub damaged: usize,
    /// The lines (1-based) of the first of them, at most five.
    pub lines: Vec<usize>,
    /// Why the file could not be rewritten without them, where it could not: the records
    /// stay in the file, and the next resume skips them again.
    pub not_rewritten: Option<String>,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let one = self.damaged == 1;
        let lines: Vec<String> = self.lines.iter().map(usize::to_string).collect();
        let more = self.damaged.saturating_sub(self.lines.len());
        write!(
            f,
            "{} damaged record{} skipped ({} {}{}: checksum or format); {} counted again",
            self.damaged,
            if one { "" } else { "s" },
            if lines.len() == 1 { "line" } else { "lines" },
            lines.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            },
            if one {
                "its subproblem is"
            } else {
                "their subproblems are"
            },
        )?;
        match &self.not_rewritten {
            None => write!(
                f,
                "; the file is rewritten without {}",
                if one { "it" } else { "them" }
            ),
            Some(why) => write!(
                f,
                "; the file could not be rewritten without {} ({why}): the next resume skips {} again",
                if one { "it" } else { "them" },
                if one { "it" } else { "them" },
            ),
        }
    }
}

/// What [`Checkpoint::open`] returns: the checkpoint, the subproblems it holds with their
/// counts, and the damaged records it skipped, if any.
pub type Opened = (Checkpoint, HashMap<usize, Tally>, Option<Skipped>);

/// What reading a checkpoint's records found besides their counts.
#[derive(Default)]
struct Found {
    /// The file's length up to its last whole line: a torn last record is cut off.
    keep: u64,
    /// The lines (1-based) not to keep: damaged records and identical duplicates, in order.
    dropped: Vec<usize>,
    /// How many of them are damaged records.
    damaged: usize,
    /// The lines of the first damaged records, at most [`LINES_NAMED`].
    lines: Vec<usize>,
}

/// An open checkpoint that finished subproblems are appended to.
pub struct Checkpoint {
    path: PathBuf,
    queue: Mutex<Queue>,
    sink: Mutex<Sink>,
    /// The first write error of [`Observer::finished`], reported by [`Checkpoint::finish`].
    failed: Mutex<Option<FileError>>,
    /// The parts whose records, as opened, name a GPU as the loop that counted them.
    on_gpu: Vec<usize>,
}

impl Checkpoint {
    /// Opens (or creates) the checkpoint of `plan` (and `shard`) at `path`, locked for this
    /// process alone, returning it, the subproblems it already holds with their counts, and
    /// the damaged records it skipped, if any (each record's own checksum vouches for it: a
    /// damaged one costs its own subproblem only). The file is rewritten without them.
    ///
    /// Refuses a file locked by another run, a file of another configuration, and a record
    /// that does not fit the plan (a subproblem that does not exist, or is recorded twice
    /// with different counts, or counts that with the records before them pass what the
    /// board can have). A record found twice with the same counts is kept once.
    pub fn open(path: &Path, plan: &Plan, shard: Option<Shard>) -> Result<Opened, FileError> {
        let header = Header {
            format: CHECKPOINT_FORMAT.into(),
            version: VERSION,
            config: plan.config(),
            shard,
        };
        let tie = Tie::new(plan.fingerprint(), shard);
        let mut header_line =
            serde_json::to_vec(&header).map_err(|e| FileError::invalid(path, e.to_string()))?;
        header_line.push(b'\n');
        let (mut file, created) = durable::open_locked(path, "checkpoint")?;
        let len = file
            .metadata()
            .map_err(FileError::io("read checkpoint", path))?
            .len();
        let mut done = HashMap::new();
        let mut on_gpu = Vec::new();
        let (mut skipped, mut replaced) = (None, None);
        // A file holding only the start of this run's header: a crash while it was being
        // written. It is written again.
        let torn_header = len < header_line.len() as u64 && {
            let mut text = Vec::new();
            (&file)
                .read_to_end(&mut text)
                .map_err(FileError::io("read checkpoint", path))?;
            header_line.starts_with(&text)
        };
        // A new header is synced (with a new file's directory) by the timer's first stage,
        // not here, where the count would wait for the disk: until then a crash leaves no
        // record, and a header cut short is written again.
        let fresh = (len == 0 || torn_header).then_some(created);
        let keep = if fresh.is_some() {
            let write = FileError::io("write checkpoint", path);
            let wrote = file.set_len(0).and_then(|()| file.write_all(&header_line));
            if let Err(e) = wrote {
                // A full disk: no header, no file left behind by this run (an empty or
                // torn one that was there is written again next time).
                if created {
                    let _ = std::fs::remove_file(path);
                } else {
                    let _ = file.set_len(0);
                }
                return Err(write(e));
            }
            header_line.len() as u64
        } else {
            Self::read_header(path, &header, &file)?;
            let found = Self::read(path, (plan, &tie), &file, len, (&mut done, &mut on_gpu))?;
            let keep;
            (keep, replaced, skipped) = Self::settle_read(path, &mut file, found)?;
            keep
        };
        let sink = Sink {
            file,
            _replaced: replaced,
            path: path.to_path_buf(),
            fresh,
            good: keep,
            bytes: Vec::new(),
            put: 0,
            records: 0,
            written: 0,
            text: Vec::new(),
            tie,
            spare: Vec::with_capacity(QUEUED.min(plan.len())),
            closed: false,
        };
        let queue = Queue {
            records: Vec::with_capacity(QUEUED.min(plan.len())),
            synced: Instant::now(),
        };
        Ok((
            Checkpoint {
                path: path.to_path_buf(),
                queue: Mutex::new(queue),
                sink: Mutex::new(sink),
                failed: Mutex::new(None),
                on_gpu,
            },
            done,
            skipped,
        ))
    }

    /// Reads the header of a checkpoint and refuses it where it is not one, or not of this
    /// version and configuration (`header`: this run's).
    fn read_header(path: &Path, header: &Header, file: &File) -> Result<(), FileError> {
        let invalid = |why: String| FileError::invalid(path, why);
        let read_error = || FileError::io("read checkpoint", path);
        let mut reader = BufReader::new(file);
        reader.seek(SeekFrom::Start(0)).map_err(read_error())?;
        let mut line = Vec::new();
        let (_, whole) =
            durable::read_line(&mut reader, &mut line, HEADER_BYTES).map_err(read_error())?;
        let found: Header = serde_json::from_slice(&line)
            .ok()
            .filter(|h: &Header| h.format == CHECKPOINT_FORMAT && whole)
            .ok_or_else(|| {
                invalid(
                    "not an nqueens checkpoint (its first line is not a checkpoint header)".into(),
                )
            })?;
        if found.version != VERSION {
            return Err(other_version(path, found.version));
        }
        let same = found.format == header.format
            && found.shard == header.shard
            && found.config.same_plan(&header.config);
        if !same {
            let shard = |h: &Header| h.shard.map(|s| format!(", shard {s}")).unwrap_or_default();
            return Err(invalid(format!(
                "was written for {}{}; this run is {}{}: use another file, or the command that made it",
                found.config.describe(),
                shard(&found),
                header.config.describe(),
                shard(header),
            )));
        }
        Ok(())
    }

    /// Reads the records of a checkpoint of `len` bytes (its header read) into `done`, and
    /// says what it found besides: where a torn last record starts, the damaged records and
    /// the identical duplicates, which are skipped.
    fn read(
        path: &Path,
        (plan, tie): (&Plan, &Tie),
        file: &File,
        len: u64,
        (done, on_gpu): (&mut HashMap<usize, Tally>, &mut Vec<usize>),
    ) -> Result<Found, FileError> {
        use std::collections::hash_map::Entry;
        let invalid = |why: String| FileError::invalid(path, why);
        let read_error = || FileError::io("read checkpoint", path);
        let mut reader = BufReader::new(file);
        reader.seek(SeekFrom::Start(0)).map_err(read_error())?;
        let mut line = Vec::new();
        let (mut at, _) =
            durable::read_line(&mut reader, &mut line, HEADER_BYTES).map_err(read_error())?;
        let mut found = Found {
            keep: at,
            ..Found::default()
        };
        let limit = durable::count_limit(plan.n);
        let mut sum = Tally::default();
        let mut number = 1usize;
        loop {
            let (read, whole) =
                durable::read_line(&mut reader, &mut line, RECORD_BYTES).map_err(read_error())?;
            if read == 0 {
                break;
            }
            number += 1;
            let at_end = at + read == len;
            at += read;
            let record = serde_json::from_slice::<Record>(&line)
                .ok()
                .filter(|r| whole && r.sound(tie));
            let Some(r) = record else {
                // A torn last record: the crash came mid-write. It is cut off and recounted.
                if at_end {
                    break;
                }
                // Damage inside the file: that record alone is skipped and recounted.
                found.dropped.push(number);
                found.damaged += 1;
                if found.lines.len() < LINES_NAMED {
                    found.lines.push(number);
                }
                found.keep = at;
                continue;
            };
            if r.subproblem >= plan.len() {
                return Err(invalid(format!(
                    "line {number}: subproblem {} does not exist",
                    r.subproblem
                )));
            }
            match done.entry(r.subproblem) {
                Entry::Occupied(e) if *e.get() == r.tally() => found.dropped.push(number),
                Entry::Occupied(e) => {
                    let first = first_line_of(file, tie, r.subproblem).unwrap_or(0);
                    return Err(invalid(conflict(first, number, *e.get(), &r)));
                }
                Entry::Vacant(e) => {
                    sum = durable::add_within(sum, r.tally(), limit).ok_or_else(|| {
                        invalid(format!(
                            "line {number}: subproblem {} records {} solutions ({} x8 fundamental), which with the records before it is more than an n = {} board has (at most {limit}); the file was changed",
                            r.subproblem, r.solutions, r.unique8, plan.n
                        ))
                    })?;
                    e.insert(r.tally());
                    if r.counted_on == Some(Loop::Gpu) {
                        on_gpu.push(r.subproblem);
                    }
                }
            }
            found.keep = at;
        }
        Ok(found)
    }

    /// Makes the checkpoint at `path`, open as `file`, ready for new records after reading
    /// `found` in it: rewritten without the lines it drops (`file` then the new file, the old
    /// one returned, to be kept open), or else its torn end cut so that new records start on
    /// a line of their own. Returns the length kept, the old file, and what was skipped.
    fn settle_read(
        path: &Path,
        file: &mut File,
        found: Found,
    ) -> Result<(u64, Option<File>, Option<Skipped>), FileError> {
        let mut replaced = None;
        let (keep, not_rewritten) = match Self::rewrite(path, file, &found) {
            Ok(None) => (found.keep, None),
            Ok(Some((new, kept))) => {
                replaced = Some(std::mem::replace(file, new));
                (kept, None)
            }
            Err(e) => (found.keep, Some(e.to_string())),
        };
        file.set_len(keep)
            .and_then(|()| file.sync_all())
            .map_err(FileError::io("cut the torn end of checkpoint", path))?;
        let skipped = (found.damaged > 0).then_some(Skipped {
            damaged: found.damaged,
            lines: found.lines,
            not_rewritten,
        });
        Ok((keep, replaced, skipped))
    }

    /// Rewrites the checkpoint at `path` (open as `file`) without the lines `found` drops,
    /// where it drops any: returns the new file and its length, or `None` where nothing is
    /// dropped. A torn last record is left out with them.
    fn rewrite(path: &Path, file: &File, found: &Found) -> Result<Option<(File, u64)>, FileError> {
        if found.dropped.is_empty() {
            return Ok(None);
        }
        let mut kept = 0;
        let new = durable::replace_locked(path, "checkpoint", |to| {
            let mut reader = BufReader::new(file);
            reader.seek(SeekFrom::Start(0))?;
            let mut out = io::BufWriter::new(to);
            let mut line = Vec::new();
            let mut dropped = found.dropped.iter().peekable();
            let (mut at, mut number) = (0, 0);
            while at < found.keep {
                let (read, _) = durable::read_line(&mut reader, &mut line, HEADER_BYTES)?;
                if read == 0 {
                    break;
                }
                (at, number) = (at + read, number + 1);
                if dropped.next_if_eq(&&number).is_none() {
                    out.write_all(&line)?;
                    kept += line.len() as u64;
                }
            }
            out.flush()
        })?;
        Ok(Some((new, kept)))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The parts whose records, as the file was opened, name a GPU as the loop that counted
    /// them ([`Observer::finished_on_gpu`]), in increasing order: a run resuming them
    /// ([`crate::run::Run::resumed_on_gpu`]) names them so in its shard.
    pub fn resumed_on_gpu(&self) -> Vec<usize> {
        let mut parts = self.on_gpu.clone();
        parts.sort_unstable();
        parts
    }

    /// Records a finished subproblem: queues it for the next [`Checkpoint::flush`], and
    /// flushes at once where the queue has waited one and a half [`SYNC_EVERY`] (no timer).
    pub fn record(&self, subproblem: usize, tally: Tally) -> Result<(), FileError> {
        self.record_by(subproblem, (tally, false))
    }

    /// [`Checkpoint::record`], the record naming a GPU as its loop where `done.1`.
    fn record_by(&self, subproblem: usize, done: Done) -> Result<(), FileError> {
        let due = {
            let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            q.records.push((subproblem, done));
            q.synced.elapsed() >= SYNC_EVERY * 3 / 2
        };
        if due {
            self.flush()?;
        }
        Ok(())
    }

    /// Serializes the queued records and writes them to the file, to be synced by the next
    /// [`Checkpoint::flush`]. A timer calls it every [`STAGE_EVERY`] (off the workers'
    /// path), so that a flush, the last one above all, which the count waits for, finds
    /// little left to do but the `fsync`. A write that fails here is tried again, and
    /// reported, by the flush.
    pub fn stage(&self) {
        let mut sink = self.staged(false);
        let _ = sink.settle().and_then(|()| sink.write());
    }

    /// Writes and syncs every record so far; returns how many this run has made durable.
    pub fn flush(&self) -> Result<usize, FileError> {
        let mut sink = self.staged(true);
        sink.sync()
            .map_err(FileError::io("write checkpoint", &self.path))?;
        Ok(sink.written)
    }

    /// The file, with the queued records serialized into its pending bytes; `syncing`
    /// restarts the clock of [`Checkpoint::record`]'s own sync. The queue is swapped with
    /// its other, empty buffer, which keeps its capacity ([`QUEUED`]).
    fn staged(&self, syncing: bool) -> std::sync::MutexGuard<'_, Sink> {
        let mut sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        let mut records = std::mem::take(&mut sink.spare);
        {
            let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            if syncing {
                q.synced = Instant::now();
            }
            std::mem::swap(&mut q.records, &mut records);
        }
        for &(i, t) in &records {
            sink.add(i, t);
        }
        records.clear();
        sink.spare = records;
        sink
    }

    /// Writes and syncs every record so far, and closes the file to any more: returns how
    /// many records this run has made durable, which stays the number in the file, whatever
    /// the workers and the timer still finish while the process ends (for a signal's
    /// message: "N more saved" counted records that went in after it).
    pub fn close(&self) -> Result<usize, FileError> {
        let mut sink = self.staged(true);
        let synced = sink.sync();
        sink.closed = true;
        synced.map_err(FileError::io("write checkpoint", &self.path))?;
        Ok(sink.written)
    }

    /// Writes and syncs every record so far, and reports the first error any record met.
    pub fn finish(&self) -> Result<(), FileError> {
        self.flush()?;
        match self.failed.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Sink {
    /// Serializes the record of a finished subproblem, to be written by the next
    /// [`Sink::sync`].
    fn add(&mut self, subproblem: usize, t: Done) {
        write_record(&mut self.bytes, &mut self.text, &self.tie, subproblem, t);
        self.records += 1;
    }

    /// Syncs a header this run wrote, and the directory of a file it made.
    fn settle(&mut self) -> io::Result<()> {
        if let Some(created) = self.fresh {
            self.file.sync_data()?;
            if created {
                durable::sync_parent_of(&self.path, &self.file)?;
            }
            self.fresh = None;
        }
        Ok(())
    }

    /// Appends the pending records not yet written (without syncing them).
    fn write(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        while self.put < self.bytes.len() {
            match self.file.write(&self.bytes[self.put..]) {
                Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(k) => self.put += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Appends and syncs the pending records. On a failed write (a full disk, say) the
    /// whole records that went in are kept if they can be synced; the file is cut back to
    /// its last synced record, and the rest stay pending, to be written again by the next
    /// sync: the file never keeps half a record.
    fn sync(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        self.settle()?;
        if self.bytes.is_empty() {
            return Ok(());
        }
        let wrote = self.write();
        let put = std::mem::take(&mut self.put);
        let error = match wrote.and_then(|()| self.file.sync_data()) {
            Ok(()) => {
                self.keep(self.bytes.len());
                return Ok(());
            }
            Err(e) => e,
        };
        // A write cut short keeps the whole records before the cut, once they are synced;
        // a failed sync vouches for nothing.
        let whole = if put < self.bytes.len() {
            self.bytes[..put]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
        } else {
            0
        };
        let end = self.good + whole as u64;
        if whole > 0
            && self
                .file
                .set_len(end)
                .and_then(|()| self.file.sync_data())
                .is_ok()
        {
            self.keep(whole);
        } else {
            let _ = self.file.set_len(self.good);
        }
        Err(error)
    }

    /// The first `bytes` of the pending records are in the file, synced.
    fn keep(&mut self, bytes: usize) {
        let records = self.bytes[..bytes].iter().filter(|&&b| b == b'\n').count();
        self.bytes.drain(..bytes);
        self.good += bytes as u64;
        self.records -= records;
        self.written += records;
    }
}

impl Checkpoint {
    /// Records a part for [`Observer`], keeping the first error for [`Checkpoint::finish`].
    fn observed(&self, index: usize, done: Done) {
        if let Err(e) = self.record_by(index, done) {
            self.failed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(e);
        }
    }
}

impl Observer for Checkpoint {
    fn finished(&self, index: usize, tally: Tally) {
        self.observed(index, (tally, false));
    }

    fn finished_on_gpu(&self, index: usize, tally: Tally) {
        self.observed(index, (tally, true));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Symmetry;

    fn lines(path: &Path) -> usize {
        std::fs::read_to_string(path).unwrap().lines().count()
    }

    #[test]
    fn records_written_by_hand_read_back_sound_and_equal() {
        let (mut out, mut text) = (Vec::new(), Vec::new());
        let big = u128::from(u64::MAX);
        let counts = [0, 1, 9, 10, 65_521, 14_772_512, big, big + 1, u128::MAX];
        let shard = Shard {
            index: 3,
            count: 16,
        };
        let tie = Tie::new(0x0bad_f00d, Some(shard));
        // Another plan's, another shard's, a whole run's: each its own checksum.
        let others = [
            Tie::new(0x0bad_f00e, Some(shard)),
            Tie::new(0x0bad_f00d, Some(Shard { index: 4, ..shard })),
            Tie::new(0x0bad_f00d, None),
        ];
        for (i, &x) in counts.iter().enumerate() {
            let t = Tally {
                solutions: x,
                unique8: counts[counts.len() - 1 - i],
            };
            out.clear();
            write_record(&mut out, &mut text, &tie, i * 1_000_003, (t, i % 2 == 1));
            let r: Record = serde_json::from_slice(&out).unwrap();
            assert!(
                out.ends_with(b"}\n") && r.sound(&tie),
                "{}",
                String::from_utf8_lossy(&out)
            );
            assert_eq!((r.subproblem, r.tally()), (i * 1_000_003, t));
            assert_eq!(r.counted_on == Some(Loop::Gpu), i % 2 == 1);
            let [a, b, c, d] = r.residues.0;
            let shown = format!(
                "0badf00d 3/16 {} {x} {} {a} {b} {c} {d}",
                r.subproblem, t.unique8
            );
            assert_eq!(
                r.crc,
                crc32fast::hash(shown.as_bytes()),
                "the documented checksum"
            );
            for other in &others {
                assert!(
                    !r.sound(other),
                    "{shown}: a record of another plan or shard"
                );
            }
        }
    }

    #[test]
    fn records_are_synced_by_time_not_by_count() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.ckpt");
        let plan = Plan::new(12, Symmetry::Full, 3).unwrap();
        let many = plan.len() - 1;
        assert!(many > 100, "{many}");
        let (c, done, cut) = Checkpoint::open(&path, &plan, None).unwrap();
        assert!(done.is_empty() && cut.is_none());
        let t = Tally {
            solutions: 1,
            unique8: 8,
        };
        for i in 0..many {
            c.record(i, t).unwrap();
        }
        assert_eq!(lines(&path), 1, "nothing but the header before a flush");
        c.stage();
        assert_eq!(lines(&path), 1 + many, "staged: written, not yet synced");
        assert_eq!(c.flush().unwrap(), many);
        assert_eq!(lines(&path), 1 + many, "one flush writes them all");
        // Where no timer flushes, the record that finds the queue waiting for one and a
        // half periods syncs it.
        std::thread::sleep(SYNC_EVERY * 3 / 2);
        c.record(many, t).unwrap();
        assert_eq!(lines(&path), 2 + many);
        drop(c);
        let (_, done, cut) = Checkpoint::open(&path, &plan, None).unwrap();
        assert_eq!((done.len(), cut), (plan.len(), None));
    }

    /// A checkpoint at `path` of `plan` holding records of its first 40 subproblems, the
    /// second (line 3) damaged.
    fn damaged(path: &Path, plan: &Plan) {
        let (c, _, _) = Checkpoint::open(path, plan, None).unwrap();
        for i in 0..40 {
            c.record(i, plan.count(i, crate::Kernel::Scalar)).unwrap();
        }
        c.close().unwrap();
        drop(c);
        let text = std::fs::read_to_string(path).unwrap();
        let text = text
            .replacen("\"crc\":", "\"crc\":7", 2)
            .replacen("\"crc\":7", "\"crc\":", 1);
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_damaged_record_is_skipped_and_the_file_rewritten_without_it() {
        let dir = tempfile::tempdir().unwrap();
        let plan = Plan::new(10, Symmetry::Full, 3).unwrap();
        let path = dir.path().join("c.ckpt");
        damaged(&path, &plan);
        let (_, done, skipped) = Checkpoint::open(&path, &plan, None).unwrap();
        let skipped = skipped.unwrap();
        assert_eq!((skipped.damaged, &skipped.lines[..]), (1, &[3][..]));
        assert_eq!(skipped.not_rewritten, None);
        assert_eq!(done.len(), 39);
        assert!(!done.contains_key(&1));
        assert_eq!(lines(&path), 40);
        let (_, done, skipped) = Checkpoint::open(&path, &plan, None).unwrap();
        assert_eq!((done.len(), skipped), (39, None), "nothing left to skip");
        // A name with no room for the temporary file's (`.NAME.rewrite.tmp`, 255 bytes at
        // most): the damaged record stays, skipped again by every resume.
        let long = dir.path().join("c".repeat(250));
        damaged(&long, &plan);
        for _ in 0..2 {
            let (_, done, skipped) = Checkpoint::open(&long, &plan, None).unwrap();
            let skipped = skipped.unwrap();
            assert_eq!((skipped.damaged, done.len()), (1, 39));
            let why = skipped.not_rewritten.clone().unwrap();
            assert!(skipped.to_string().ends_with(&format!(
                "the file could not be rewritten without it ({why}): the next resume skips it again"
            )));
            assert_eq!(lines(&long), 41);
        }
    }

    #[test]
    fn a_closed_checkpoint_holds_exactly_the_records_it_says() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.ckpt");
        let plan = Plan::new(12, Symmetry::Full, 3).unwrap();
        let (c, _, _) = Checkpoint::open(&path, &plan, None).unwrap();
        let t = Tally {
            solutions: 1,
            unique8: 8,
        };
        for i in 0..50 {
            c.record(i, t).unwrap();
        }
        c.stage();
        assert_eq!(c.close().unwrap(), 50);
        // The workers and the timer go on while the process ends: nothing more goes in.
        for i in 50..100 {
            c.record(i, t).unwrap();
        }
        c.stage();
        assert_eq!(c.flush().unwrap(), 50);
        assert_eq!(lines(&path), 1 + 50, "the file holds what close said");
    }
}
