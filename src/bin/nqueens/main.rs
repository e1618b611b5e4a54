//! `nqueens`: a thin binary over the library; see `nqueens --help`.

use std::io::ErrorKind;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

mod bench;
mod cli;
mod commands;
mod files;
mod forecast;
mod gpu;
mod hooks;
mod layout;
mod man;
mod memory;
mod merge;
mod output;
mod periodic;
mod progress;
mod signals;
mod sources;

use cli::Cli;
use commands::Failure;

/// The system's allocator; one that fails ends the command with a message and exit code 1.
#[global_allocator]
static ALLOCATOR: memory::Checked = memory::Checked;

/// Runs before Rust's runtime starts (an `.init_array` entry, run by the loader before
/// `main`): signals are held back for the command's handler ([`signals::hold`]) from the
/// earliest moment a program can, a file size limit made an error rather than a signal
/// ([`signals::ignore_file_size_limit`]), and whether stdout is closed is seen before the runtime
/// puts `/dev/null` in its place ([`output::note_stdout`]).
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static EARLY: extern "C" fn() = {
    extern "C" fn early() {
        signals::hold();
        signals::ignore_file_size_limit();
        output::note_stdout();
    }
    early
};

/// Makes every buffer of a mebibyte or more its own mapping, given back to the system when
/// it is freed. glibc starts so, but raises that bound to the size of each such buffer
/// freed: a thread letting go of a key's buffers (to fit the next key's budget) then kept
/// their memory for its heap, where `--memory` no longer counted it, and a join held more
/// than its `--memory` (results/zen3/2026-11-26-quarter-turn-weights/).
fn return_large_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: sets one of the allocator's parameters, before any other thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

fn main() -> ExitCode {
    // Where no `.init_array` ran (or again: it costs nothing), before anything else.
    signals::hold();
    signals::ignore_file_size_limit();
    return_large_buffers();
    hooks::pause_at("start");
    progress::start_clock();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let colour = cli::Colour::among(&args);
    output::set_colour(colour.on());
    let parsed = Cli::command()
        .color(colour.clap())
        .try_get_matches_from(&args)
        .and_then(|mut matches| Cli::from_arg_matches_mut(&mut matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // clap's whole message: the error, its tip (a similar subcommand or flag, the
            // allowed values) and the usage, coloured as `--color` says (clap follows NO_COLOR).
            // --help and --version exit 0; bad input and `nqueens` alone exit 2.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    match commands::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(e)) => {
            output::error(format_args!("{e:#}"));
            ExitCode::from(2)
        }
        Err(Failure::Mismatch) => ExitCode::from(1),
        Err(Failure::Failed(e)) => {
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            output::error(format_args!("{e:#}"));
            ExitCode::from(1)
        }
    }
}
