//! Resume files for long runs.
//!
//! A **checkpoint** is a JSON Lines file: a header naming the board, mode, split depth,
//! the subproblem list's size and fingerprint (and the shard, if any), then one record per
//! finished subproblem with its counts and a CRC-32 of them. Records are collected from the
//! workers and written with `fsync` once 16 have gathered, and at least every second by the
//! caller's timer ([`SYNC_EVERY`]); so a run killed at any moment loses at most the
//! subproblems in flight and about a second of finished ones, and a torn last line (a crash
//! mid-write) is ignored, cut off and recounted; a header cut short is written again.
//! Anything else that does not fit (another configuration, a damaged record before the
//! end, a subproblem counted twice) is an error naming the file, never a silently wrong total; so are counts that no board has
//! (summed with the records before them, [`crate::durable::count_limit`]). The file itself
//! is opened, locked and read, a bounded line at a time, through [`crate::durable`].

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::durable::{self, FileError, VERSION};
use crate::plan::{Config, Plan};
use crate::run::Observer;
use crate::shard::Shard;
use crate::types::{Residues, Tally};

const CHECKPOINT_FORMAT: &str = "nqueens-checkpoint";

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

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    subproblem: usize,
    solutions: u128,
    unique8: u128,
    /// [`Residues::of`] the counts.
    residues: Residues,
    crc: u32,
}

impl Record {
    fn new(subproblem: usize, t: Tally) -> Record {
        let residues = Residues::of(t);
        Record {
            subproblem,
            solutions: t.solutions,
            unique8: t.unique8,
            residues,
            crc: record_crc(subproblem, t, residues),
        }
    }

    fn tally(&self) -> Tally {
        Tally {
            solutions: self.solutions,
            unique8: self.unique8,
        }
    }

    /// Whether the checksum and the residues both agree with the counts.
    fn sound(&self) -> bool {
        let t = self.tally();
        self.residues == Residues::of(t)
            && self.crc == record_crc(self.subproblem, t, self.residues)
    }
}

fn record_crc(subproblem: usize, t: Tally, r: Residues) -> u32 {
    let [a, b, c, d] = r.0;
    crc32fast::hash(
        format!("{subproblem} {} {} {a} {b} {c} {d}", t.solutions, t.unique8).as_bytes(),
    )
}

/// Records written and not yet synced are flushed when this many have gathered.
const BATCH: usize = 16;

/// How often a long run should call [`Checkpoint::flush`] while it counts (`nqueens count`
/// does, from a timer thread); [`Checkpoint::record`] also syncs a batch this old.
pub const SYNC_EVERY: Duration = Duration::from_secs(1);

struct Pending {
    file: File,
    /// The file's length up to its last synced record: where a failed write is cut back to.
    good: u64,
    lines: Vec<u8>,
    records: usize,
    since: Instant,
    written: usize,
}

/// Where [`Checkpoint::open`] cut a file at its first damaged record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The line (1-based) of the first damaged record.
    pub line: usize,
    /// Lines dropped with it (that one included); their subproblems are counted again.
    pub dropped: usize,
}

impl std::fmt::Display for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} was damaged (checksum or format): cut there, {} line(s) dropped and their subproblems counted again",
            self.line, self.dropped
        )
    }
}

/// An open checkpoint that finished subproblems are appended to.
pub struct Checkpoint {
    path: PathBuf,
    pending: Mutex<Pending>,
    /// The first write error of [`Observer::finished`], reported by [`Checkpoint::finish`].
    failed: Mutex<Option<FileError>>,
}

/// What [`Checkpoint::open`] returns: the checkpoint, the subproblems it holds with their
/// counts, and where it was cut if a record was damaged.
pub type Opened = (Checkpoint, HashMap<usize, Tally>, Option<Cut>);

impl Checkpoint {
    /// Opens (or creates) the checkpoint of `plan` (and `shard`) at `path`, locked for this
    /// process alone, returning it, the subproblems it already holds with their counts, and
    /// where it was cut if a record was damaged (the records from there on are dropped:
    /// each record's own checksum vouches for those before it).
    ///
    /// Refuses a file locked by another run, a file of another configuration, and a record
    /// that does not fit the plan (a subproblem that does not exist or is recorded twice,
    /// counts that with the records before them pass what the board can have).
    pub fn open(path: &Path, plan: &Plan, shard: Option<Shard>) -> Result<Opened, FileError> {
        let header = Header {
            format: CHECKPOINT_FORMAT.into(),
            version: VERSION,
            config: plan.config(),
            shard,
        };
        let mut header_line =
            serde_json::to_vec(&header).map_err(|e| FileError::invalid(path, e.to_string()))?;
        header_line.push(b'\n');
        let mut file = durable::open_locked(path, "checkpoint")?;
        let len = file
            .metadata()
            .map_err(FileError::io("read checkpoint", path))?
            .len();
        let mut done = HashMap::new();
        let mut cut = None;
        // A file holding only the start of this run's header: a crash while it was being
        // written. It is written again.
        let torn_header = len < header_line.len() as u64 && {
            let mut text = Vec::new();
            (&file)
                .read_to_end(&mut text)
                .map_err(FileError::io("read checkpoint", path))?;
            header_line.starts_with(&text)
        };
        let keep = if len == 0 || torn_header {
            let write = FileError::io("write checkpoint", path);
            file.set_len(0)
                .and_then(|()| file.write_all(&header_line))
                .and_then(|()| file.sync_all())
                .map_err(write)?;
            header_line.len() as u64
        } else {
            let keep = Self::read(path, plan, &header, &file, len, &mut done, &mut cut)?;
            // Cut a torn tail so new records start on a line of their own.
            file.set_len(keep)
                .and_then(|()| file.sync_all())
                .map_err(FileError::io("cut the torn end of checkpoint", path))?;
            keep
        };
        let pending = Pending {
            file,
            good: keep,
            lines: Vec::new(),
            records: 0,
            since: Instant::now(),
            written: 0,
        };
        Ok((
            Checkpoint {
                path: path.to_path_buf(),
                pending: Mutex::new(pending),
                failed: Mutex::new(None),
            },
            done,
            cut,
        ))
    }

    /// Reads the header and the records of a checkpoint of `len` bytes into `done`; returns
    /// the length of what is kept (whole, sound records), and sets `cut` where a damaged
    /// record inside the file ends it.
    fn read(
        path: &Path,
        plan: &Plan,
        header: &Header,
        file: &File,
        len: u64,
        done: &mut HashMap<usize, Tally>,
        cut: &mut Option<Cut>,
    ) -> Result<u64, FileError> {
        let invalid = |why: String| FileError::invalid(path, why);
        let read_error = || FileError::io("read checkpoint", path);
        let mut reader = BufReader::new(file);
        reader.seek(SeekFrom::Start(0)).map_err(read_error())?;
        let mut line = Vec::new();
        let (read, whole) =
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
            return Err(invalid(format!(
                "a version {} checkpoint; this nqueens reads version {VERSION}",
                found.version
            )));
        }
        if found != *header {
            let shard = |h: &Header| h.shard.map(|s| format!(", shard {s}")).unwrap_or_default();
            return Err(invalid(format!(
                "was written for {}{}; this run is {}{}: use another file, or the command that made it",
                found.config.describe(),
                shard(&found),
                header.config.describe(),
                shard(header),
            )));
        }
        let mut keep = read;
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
            let at_end = keep + read == len;
            let record = serde_json::from_slice::<Record>(&line)
                .ok()
                .filter(|r| whole && r.sound());
            match record {
                Some(r) => {
                    if r.subproblem >= plan.len() {
                        return Err(invalid(format!(
                            "line {number}: subproblem {} does not exist",
                            r.subproblem
                        )));
                    }
                    sum = durable::add_within(sum, r.tally(), limit).ok_or_else(|| {
                        invalid(format!(
                            "line {number}: subproblem {} records {} solutions ({} x8 fundamental), which with the records before it is more than an n = {} board has (at most {limit}); the file was changed",
                            r.subproblem, r.solutions, r.unique8, plan.n
                        ))
                    })?;
                    if done.insert(r.subproblem, r.tally()).is_some() {
                        return Err(invalid(format!(
                            "line {number}: subproblem {} is recorded twice",
                            r.subproblem
                        )));
                    }
                    keep += read;
                }
                // A torn last record: the crash came mid-write. It is recounted.
                None if at_end => break,
                // Damage inside the file: what comes before it is vouched for by each
                // record's checksum; it and what follows are dropped and recounted.
                None => {
                    let rest = durable::count_lines(&mut reader).map_err(read_error())?;
                    *cut = Some(Cut {
                        line: number,
                        dropped: 1 + rest,
                    });
                    break;
                }
            }
        }
        Ok(keep)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records a finished subproblem; syncs the file every few records or every second.
    pub fn record(&self, subproblem: usize, tally: Tally) -> Result<(), FileError> {
        let record = Record::new(subproblem, tally);
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let write_error = FileError::io("write checkpoint", &self.path);
        serde_json::to_writer(&mut p.lines, &record).map_err(|e| write_error(e.into()))?;
        p.lines.push(b'\n');
        p.records += 1;
        if p.records >= BATCH || p.since.elapsed() >= SYNC_EVERY {
            Self::sync(&mut p).map_err(FileError::io("write checkpoint", &self.path))?;
        }
        Ok(())
    }

    /// Writes and syncs every record so far; returns how many this run has made durable.
    pub fn flush(&self) -> Result<usize, FileError> {
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        Self::sync(&mut p).map_err(FileError::io("write checkpoint", &self.path))?;
        Ok(p.written)
    }

    /// Writes and syncs every record so far, and reports the first error any record met.
    pub fn finish(&self) -> Result<(), FileError> {
        self.flush()?;
        match self.failed.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Appends and syncs the pending records. On a failed write or sync (a full disk, say)
    /// the file is cut back to its last synced record and the records stay pending, to be
    /// written again by the next sync: the file never keeps half a record.
    fn sync(p: &mut Pending) -> io::Result<()> {
        if !p.lines.is_empty() {
            let wrote = p.file.write_all(&p.lines).and_then(|()| p.file.sync_data());
            if let Err(e) = wrote {
                let _ = p.file.set_len(p.good);
                return Err(e);
            }
            p.good += p.lines.len() as u64;
            p.lines.clear();
            p.written += p.records;
        }
        p.records = 0;
        p.since = Instant::now();
        Ok(())
    }
}

impl Observer for Checkpoint {
    fn finished(&self, index: usize, tally: Tally) {
        if let Err(e) = self.record(index, tally) {
            self.failed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(e);
        }
    }
}
