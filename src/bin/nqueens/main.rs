//! `nqueens`: a thin binary over the library; see `nqueens --help`.

use std::io::{ErrorKind, Write};
use std::process::ExitCode;

use clap::Parser;

mod cli;
mod commands;
mod files;
mod hooks;
mod output;
mod periodic;
mod progress;
mod signals;

use cli::Cli;
use commands::Failure;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // `nqueens` alone: the whole usage, on stderr, and the usage error's code.
            let _ = e.print();
            return ExitCode::from(2);
        }
        Err(e) if !e.use_stderr() => {
            // --help and --version: print and succeed.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // One line that names the argument (and the allowed values); clap's usage hint would
            // only repeat it.
            let text = e.to_string();
            let message = text.split("\n\n").next().unwrap_or(&text);
            let line: Vec<&str> = message
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            let _ = writeln!(std::io::stderr(), "{}", line.join(" "));
            return ExitCode::from(2);
        }
    };
    match commands::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(e)) => {
            let _ = writeln!(std::io::stderr(), "error: {e:#}");
            ExitCode::from(2)
        }
        Err(Failure::Mismatch) => ExitCode::from(1),
        Err(Failure::Failed(e)) => {
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            let _ = writeln!(std::io::stderr(), "error: {e:#}");
            ExitCode::from(1)
        }
    }
}
