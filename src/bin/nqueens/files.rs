//! The files of a long count, checked before any planning: `--output` (its temporary file
//! made beside it) and `--checkpoint` must each name a regular file or a new one in an
//! existing directory, and not the same file. A shard's result that its `--output` cannot
//! take is kept in a rescue file, which the same command writes to `--output` next time.

use std::io::Write;
use std::path::{Path, PathBuf};

use nqueens_engine::Plan;
use nqueens_engine::run::shard::{Shard, ShardResult};
use nqueens_engine::run::{self as durable, Output};

use crate::cli::LongRunArgs;
use crate::commands::Failure;

/// Checks the paths of `long` and makes the output's temporary file; refuses (exit 2) what
/// cannot serve, before any work.
pub fn prepare(long: &LongRunArgs) -> Result<Option<Output>, Failure> {
    if let Some(path) = &long.checkpoint {
        durable::file_to_write("--checkpoint", path)?;
    }
    let output = match &long.output {
        Some(path) => Some(Output::create("--output", path)?),
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

/// The files a shard's result is kept in where its `--output` cannot take it, tried in
/// order: beside it, `FILE.rescue` (not a `*.json` file, which `merge DIR` would take), and
/// in the temporary directory (`$TMPDIR`, else `/tmp`), `nqueens-CRC-FILE.rescue`, CRC the
/// CRC-32 of the output's absolute path (the name cut to 64 characters).
pub fn rescue_files(output: &Path) -> [PathBuf; 2] {
    let name = output.file_name().unwrap_or_default();
    let mut beside = name.to_os_string();
    beside.push(".rescue");
    let whole = std::path::absolute(output).unwrap_or_else(|_| output.to_path_buf());
    let crc = crc32fast::hash(whole.as_os_str().as_encoded_bytes());
    let short: String = name.to_string_lossy().chars().take(64).collect();
    [
        output.with_file_name(beside),
        std::env::temp_dir().join(format!("nqueens-{crc:08x}-{short}.rescue")),
    ]
}

/// Keeps `result`, which `output` could not take, in the first of [`rescue_files`] that
/// takes it, written whole as an output is: its path, or why each refused.
pub fn keep(result: &ShardResult, output: &Path) -> Result<PathBuf, String> {
    let mut why = Vec::new();
    for file in rescue_files(output) {
        let kept = Output::create("--output", &file)
            .and_then(|out| result.write(out))
            .and_then(|written| written.publish());
        match kept {
            Ok(()) => return Ok(file),
            Err(e) => why.push(e.to_string()),
        }
    }
    Err(why.join("; "))
}

/// The result a rescue file of `output` keeps for `shard` of `plan` (its parts `selected`),
/// read and checked, with the file's path. One that cannot be read, or holds another run's
/// counts, is left alone with a warning.
pub fn rescued(
    plan: &Plan,
    shard: Shard,
    selected: &[usize],
    output: &Path,
) -> Option<(PathBuf, ShardResult)> {
    let mut parts = selected.to_vec();
    parts.sort_unstable();
    for file in rescue_files(output) {
        if std::fs::symlink_metadata(&file).is_err() {
            continue;
        }
        let why = match ShardResult::read(&file) {
            Ok(r) if r.config.same_plan(&plan.config()) && r.shard == shard => {
                if r.each().map(|(i, _)| i).eq(parts.iter().copied()) {
                    return Some((file, r));
                }
                "its parts are not this shard's".to_string()
            }
            Ok(r) => format!("the counts of {}, shard {}", r.config.describe(), r.shard),
            Err(e) => e.to_string(),
        };
        let _ = writeln!(
            std::io::stderr(),
            "warning: rescue file {} is not this run's ({why}): left alone; the shard is counted",
            file.display()
        );
    }
    None
}
