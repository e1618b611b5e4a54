//! The files of a long count, checked before any planning: `--output` (its temporary file
//! made beside it) and `--checkpoint` must each name a regular file or a new one in an
//! existing directory, and not the same file.

use nqueens_engine::run::durable::{self, Output};

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
