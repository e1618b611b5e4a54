//! The shard results `merge` is given (files, folders and `--list` files), and the sources a
//! quorum counts votes by.
//!
//! A **source** is where a set of runs' files was found, as the command line names it:
//!
//! - a folder given (its `*.json` files), or the folder a file given alone lies in, by
//!   canonical path; folders that lie one inside another are one source, the outermost;
//! - a `--list` file (by canonical path; `-`, standard input, is one), for the paths it
//!   lists, except that a listed file lying inside a folder source counts as that folder.
//!
//! `merge --quorum K` accepts a part only where runs of K sources counted it alike: one
//! folder's runs are one vote, however many there are. A source is a place, not a party:
//! nqueens cannot tell who wrote a folder (docs/trust.md).

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::{self, BufRead, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use nqueens_engine::run::quorum::Source;
use nqueens_engine::run::shard;

use crate::commands::Failure;

/// The longest line of a `--list` file: a path of `PATH_MAX` bytes.
const LIST_LINE_BYTES: usize = 4096;

/// The most bytes a `--list` file may hold: 64 bytes a path for about 16 million files.
const LIST_BYTES: u64 = 1 << 30;

/// Where `merge` found files: a folder (canonical), or a list (its name).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Place {
    Folder(PathBuf),
    List(PathBuf),
}

/// The shard results `merge` is given: each file, every `*.json` file of each folder, and
/// each path listed in the `--list` files (`-`: standard input), in that order, as sources
/// (where `quorum`: grouped as the module's notes say, in order of first appearance; else
/// one source of every file). None is bad usage, but for a `partial` merge, whose shards may
/// all still be counting: the work is not done (exit 1).
pub fn sources(
    paths: &[PathBuf],
    lists: &[PathBuf],
    partial: bool,
    quorum: bool,
) -> Result<Vec<Source>, Failure> {
    let mut found: Vec<(Place, Vec<PathBuf>)> = Vec::new();
    for path in paths {
        given(path, "", Kind::FileOrFolder)?;
        if path.is_dir() {
            found.push((folder(path, quorum), shard::shard_files_in(path)?));
        } else {
            found.push((folder(parent(path), quorum), vec![path.clone()]));
        }
    }
    for list in lists {
        if list.as_os_str() != "-" {
            given(list, "--list ", Kind::File)?;
        }
        let name = if list.as_os_str() == "-" {
            PathBuf::from("standard input")
        } else if quorum {
            canonical(list)
        } else {
            list.clone()
        };
        let files = listed(list)?;
        for file in &files {
            given(file, "", Kind::File)?;
        }
        found.push((Place::List(name), files));
    }
    if found.iter().all(|(_, files)| files.is_empty()) {
        return Err(if partial {
            Failure::Failed(anyhow::anyhow!(
                "merge --partial: no shard results found yet (the folders and lists hold none): no shard has finished"
            ))
        } else {
            Failure::Usage(anyhow::anyhow!(
                "merge: no shard results given (the folders and lists hold none)"
            ))
        });
    }
    if !quorum {
        let files = found.into_iter().flat_map(|(_, files)| files).collect();
        return Ok(vec![Source {
            name: PathBuf::from("."),
            files,
        }]);
    }
    Ok(grouped(found))
}

/// What a path given to read must be.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    File,
    FileOrFolder,
}

/// Refuses, as bad input (exit 2) before any work, a path given to read (with `flag`) that
/// does not exist or is of the wrong kind: a folder where a file is asked, a FIFO, a
/// device or a socket. A file whose content is wrong fails later, as work (exit 1).
fn given(path: &Path, flag: &str, kind: Kind) -> Result<(), Failure> {
    let refuse = |why: &str| Failure::Usage(anyhow::anyhow!("{flag}{}: {why}", path.display()));
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(refuse("no such file or folder"));
        }
        // Unreadable (permissions): reading it says why, as work that failed.
        Err(_) => return Ok(()),
    };
    let t = meta.file_type();
    let what = match () {
        _ if t.is_file() => return Ok(()),
        _ if t.is_dir() && kind == Kind::FileOrFolder => return Ok(()),
        _ if t.is_dir() => "a folder",
        _ if t.is_fifo() => "a FIFO (or pipe)",
        _ if t.is_char_device() => "a character device",
        _ if t.is_block_device() => "a block device",
        _ => "a socket",
    };
    Err(refuse(&format!(
        "{what}, not a regular file: shard results and lists are files"
    )))
}

/// The sources of what was `found`, as the module's notes say: each folder in the outermost
/// folder that holds it, each listed file in the folder source it lies in, else its list.
fn grouped(found: Vec<(Place, Vec<PathBuf>)>) -> Vec<Source> {
    let folders: Vec<PathBuf> = found
        .iter()
        .filter_map(|(p, _)| match p {
            Place::Folder(f) => Some(f.clone()),
            Place::List(_) => None,
        })
        .collect();
    // The outermost folder source that holds `dir`, where one does.
    let outermost = |dir: &Path| {
        folders
            .iter()
            .filter(|f| dir.starts_with(f))
            .min_by_key(|f| f.components().count())
            .cloned()
    };
    let mut sources: Vec<Source> = Vec::new();
    let mut index: HashMap<Place, usize> = HashMap::new();
    let mut place_of_dir: HashMap<PathBuf, Option<PathBuf>> = HashMap::new();
    let mut add = |place: Place, file: PathBuf| {
        let at = *index.entry(place.clone()).or_insert_with(|| {
            let name = match &place {
                Place::Folder(f) | Place::List(f) => f.clone(),
            };
            sources.push(Source {
                name,
                files: Vec::new(),
            });
            sources.len() - 1
        });
        sources[at].files.push(file);
    };
    for (place, files) in found {
        match place {
            Place::Folder(f) => {
                let outer = Place::Folder(outermost(&f).unwrap_or(f));
                for file in files {
                    add(outer.clone(), file);
                }
            }
            Place::List(name) => {
                for file in files {
                    let dir = parent(&file).to_path_buf();
                    let inside = place_of_dir
                        .entry(dir)
                        .or_insert_with_key(|dir| outermost(&canonical(dir)))
                        .clone();
                    let place = inside.map_or_else(|| Place::List(name.clone()), Place::Folder);
                    add(place, file);
                }
            }
        }
    }
    sources
}

/// The place of folder `dir`: by canonical path where `quorum` asks for sources.
fn folder(dir: &Path, quorum: bool) -> Place {
    Place::Folder(if quorum {
        canonical(dir)
    } else {
        dir.to_path_buf()
    })
}

/// `path` made canonical (links followed), or absolute where it cannot be (it does not
/// exist: the file's own error comes when it is read).
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// The folder that holds `path` (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The paths listed in `list` (`-`: standard input), one a line, taken as bytes (a name
/// need not be UTF-8), trailing whitespace and empty lines left out. The file is read within
/// bounds: a line longer than a path can be, a NUL byte (no path holds one) or more than
/// [`LIST_BYTES`] refuse it, naming the limit, before much is read.
fn listed(list: &Path) -> Result<Vec<PathBuf>, Failure> {
    let bad = |why: String| Failure::Usage(anyhow::anyhow!("--list {}: {why}", list.display()));
    let reader: Box<dyn Read> = if list.as_os_str() == "-" {
        Box::new(io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(list).map_err(|e| bad(e.to_string()))?)
    };
    let mut reader = io::BufReader::new(reader.take(LIST_BYTES + 1));
    let (mut files, mut line, mut number, mut read) = (Vec::new(), Vec::new(), 0usize, 0u64);
    loop {
        line.clear();
        let got = (&mut reader)
            .take(LIST_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| bad(format!("cannot read it: {e}")))?;
        if got == 0 {
            break;
        }
        (number, read) = (number + 1, read + got as u64);
        if read > LIST_BYTES {
            return Err(bad(format!(
                "more than {LIST_BYTES} bytes, more than a list of paths holds"
            )));
        }
        let path = line.trim_ascii_end();
        if path.len() > LIST_LINE_BYTES || (got > LIST_LINE_BYTES && !line.ends_with(b"\n")) {
            return Err(bad(format!(
                "line {number} is longer than {LIST_LINE_BYTES} bytes, longer than a path: not a list of paths"
            )));
        }
        if path.contains(&0) {
            return Err(bad(format!(
                "line {number} holds a NUL byte, which no path holds: not a list of paths"
            )));
        }
        if !path.is_empty() {
            files.push(PathBuf::from(OsStr::from_bytes(path)));
        }
    }
    Ok(files)
}
