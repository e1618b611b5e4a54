//! The files of a long count, checked before any planning: `--output` (its temporary file
//! made beside it) and `--checkpoint` must each name a regular file or a new one in an
//! existing directory, and not the same file. A shard's result that its `--output` cannot
//! take is kept in a rescue file, in a folder no other user can write, which the same
//! command writes to `--output` next time.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use nqueens_engine::Plan;
use nqueens_engine::run::shard::{Shard, ShardResult};
use nqueens_engine::run::{self as durable, Output, PrivateDir};

use crate::cli::LongRunArgs;
use crate::commands::Failure;

/// Checks the paths of `long` and makes the output's temporary file; refuses (exit 2) what
/// cannot serve, before any work.
pub fn prepare(long: &LongRunArgs) -> Result<Option<Output>, Failure> {
    if let Some(path) = &long.checkpoint {
        durable::file_to_write(path).map_err(|e| Failure::file(e, "--checkpoint"))?;
    }
    let output = match &long.output {
        Some(path) => Some(Output::create(path).map_err(|e| Failure::file(e, "--output"))?),
        None => None,
    };
    if let (Some(checkpoint), Some(out)) = (&long.checkpoint, &long.output)
        && durable::same_file(checkpoint, out)
    {
        return Err(Failure::Usage(anyhow::anyhow!(
            "--output {} and --checkpoint {} are the same file: the result would overwrite the checkpoint; give each its own path",
            out.display(),
            checkpoint.display()
        )));
    }
    Ok(output)
}

/// A place a shard's rescue file may be kept: a folder no other user can write, and the
/// file's name there.
pub struct Rescue {
    dir: PrivateDir,
    name: OsString,
}

impl Rescue {
    /// The rescue file's path.
    pub fn path(&self) -> PathBuf {
        self.dir.path().join(&self.name)
    }

    /// Removes the rescue file.
    pub fn remove(&self) {
        let _ = self.dir.remove(&self.name);
    }
}

/// This user's own folder of rescue files: `$XDG_CACHE_HOME/nqueens/rescue`, else
/// `$HOME/.cache/nqueens/rescue` (`None` where neither is set to an absolute path).
fn user_folder() -> Option<PathBuf> {
    let absolute = |v: OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .and_then(absolute)
        .or_else(|| Some(absolute(std::env::var_os("HOME")?)?.join(".cache")))?;
    Some(cache.join("nqueens").join("rescue"))
}

/// The places a shard's result is kept in where its `--output` cannot take it, in order,
/// each as its folder's path and the place, or why that folder cannot serve. Only folders
/// that no other user can write serve ([`PrivateDir`]): beside the output, `FILE.rescue`
/// (not a `*.json` file, which `merge DIR` would take), where the output's folder is one;
/// and this user's own folder ([`user_folder`], made 0700 where `make` is set),
/// `CRC-FILE.rescue`, CRC the CRC-32 of the output's absolute path (the name cut to 64
/// characters).
fn rescue_places(output: &Path, make: bool) -> Vec<(PathBuf, Result<Rescue, String>)> {
    let name = output.file_name().unwrap_or_default();
    let mut beside = name.to_os_string();
    beside.push(".rescue");
    let folder = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let whole = std::path::absolute(output).unwrap_or_else(|_| output.to_path_buf());
    let crc = crc32fast::hash(whole.as_os_str().as_encoded_bytes());
    let short: String = name.to_string_lossy().chars().take(64).collect();
    let mut places = vec![(folder, beside, false)];
    if let Some(own) = user_folder() {
        places.push((
            own,
            OsString::from(format!("{crc:08x}-{short}.rescue")),
            make,
        ));
    }
    places
        .into_iter()
        .map(|(folder, name, make)| {
            let place = PrivateDir::open(&folder, make)
                .map(|dir| Rescue {
                    dir,
                    name: name.clone(),
                })
                .map_err(|e| e.to_string());
            (folder.join(name), place)
        })
        .collect()
}

/// Keeps `result`, which `output` could not take, in the first of the rescue places that
/// takes it, written whole: its path, or why each refused.
pub fn keep(result: &ShardResult, output: &Path) -> Result<PathBuf, String> {
    let bytes = result.text().map_err(|e| e.to_string())?;
    keep_bytes(&bytes, output)
}

/// [`keep`] of a result's bytes (a whole shard result's file).
pub fn keep_bytes(bytes: &[u8], output: &Path) -> Result<PathBuf, String> {
    let mut why = Vec::new();
    for (file, place) in rescue_places(output, true) {
        match place.and_then(|r| r.dir.write(&r.name, bytes).map_err(|e| e.to_string())) {
            Ok(()) => return Ok(file),
            Err(e) => why.push(format!("{}: {e}", file.display())),
        }
    }
    if why.is_empty() {
        why.push("no folder of this user's to keep it in ($HOME unset)".into());
    }
    Err(why.join("; "))
}

/// The result a rescue file of `output` keeps for `shard` of `plan` (its parts `selected`),
/// read and checked, with its place. Only a file this user made is taken: a regular file
/// of this user's, mode 0600, in a folder no other user can write, opened never through a
/// link. One that cannot be read, is not such a file, or holds another run's counts is left
/// alone with a warning.
pub fn rescued(
    plan: &Plan,
    shard: Shard,
    selected: &[usize],
    output: &Path,
) -> Option<(Rescue, ShardResult)> {
    let mut parts = selected.to_vec();
    parts.sort_unstable();
    let warn = |file: &Path, why: &str| {
        let _ = writeln!(
            std::io::stderr(),
            "warning: rescue file {} is not this run's ({why}): left alone; the shard is counted",
            file.display()
        );
    };
    for (file, place) in rescue_places(output, false) {
        let rescue = match place {
            Ok(rescue) => rescue,
            Err(why) => {
                if std::fs::symlink_metadata(&file).is_ok() {
                    warn(&file, &format!("not taken from there: {why}"));
                }
                continue;
            }
        };
        let why = match rescue.dir.open_own(&rescue.name) {
            Ok(None) => continue,
            Err(e) => e.to_string(),
            Ok(Some(opened)) => match ShardResult::read_open(opened, &file) {
                Ok(r) if r.config.same_plan(&plan.config()) && r.shard == shard => {
                    if r.each().map(|(i, _)| i).eq(parts.iter().copied()) {
                        return Some((rescue, r));
                    }
                    "its parts are not this shard's".to_string()
                }
                Ok(r) => format!("the counts of {}, shard {}", r.config.describe(), r.shard),
                Err(e) => e.to_string(),
            },
        };
        warn(&file, &why);
    }
    None
}
