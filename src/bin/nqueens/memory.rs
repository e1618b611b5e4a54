//! Out of memory: an allocation the system refuses (a limit such as `ulimit -v`, or the
//! machine's memory) ends the command with one line naming what it was allocated for and
//! exit code 1, in place of Rust's abort with a backtrace (exit 134). The allocator is the
//! system's; only its failure is handled here. The process ends at once, as a crash would:
//! a checkpoint keeps what it had synced.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What memory is allocated for, as the message says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// Nothing named (the commands other than `count` and `verify`).
    Unnamed,
    /// A board's plan: its parts, and their costs.
    Plan,
    /// A checkpoint opened: its records read back, its buffers.
    Checkpoint,
    /// The count itself.
    Counting,
    /// A checkpoint's records on their way to the file.
    Records,
    /// A shard's result, written to `--output`.
    Output,
}

impl Use {
    /// The words of the message after the bytes.
    fn words(self) -> &'static str {
        match self {
            Use::Unnamed => "",
            Use::Plan => " for the plan (the board's parts and their costs)",
            Use::Checkpoint => " for the checkpoint (its records read back, its buffers)",
            Use::Counting => " while counting",
            Use::Records => " for the checkpoint's records on their way to the file",
            Use::Output => " for the shard's result",
        }
    }

    const ALL: [Use; 6] = [
        Use::Unnamed,
        Use::Plan,
        Use::Checkpoint,
        Use::Counting,
        Use::Records,
        Use::Output,
    ];
}

/// What the command allocates for now: an index into [`Use::ALL`].
static NOW: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// What this thread allocates for where it is not [`NOW`] (the timer's checkpoint writes).
    static HERE: Cell<Option<Use>> = const { Cell::new(None) };
}

/// From now on the command allocates for `what` (every thread but one in [`within`]).
pub fn allocating_for(what: Use) {
    let i = Use::ALL.iter().position(|&u| u == what).unwrap_or(0);
    NOW.store(i, Ordering::Relaxed);
}

/// Runs `work` with the command's allocations named `what`, then as they were.
pub fn during<T>(what: Use, work: impl FnOnce() -> T) -> T {
    let before = NOW.load(Ordering::Relaxed);
    allocating_for(what);
    let out = work();
    NOW.store(before, Ordering::Relaxed);
    out
}

/// Runs `work` with this thread's allocations named `what`.
pub fn within<T>(what: Use, work: impl FnOnce() -> T) -> T {
    let before = HERE.with(|h| h.replace(Some(what)));
    let out = work();
    HERE.with(|h| h.set(before));
    out
}

/// The system's allocator, which ends the process with [`refused`] where it returns nothing.
pub struct Checked;

// SAFETY: every call is passed to `System` as it came, and its pointer returned unchanged;
// a null one ends the process instead.
unsafe impl GlobalAlloc for Checked {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            refused(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            refused(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.realloc(ptr, layout, new) };
        if p.is_null() {
            refused(new);
        }
        p
    }
}

/// A message built without allocating: what fits of it in a fixed buffer.
struct Line {
    bytes: [u8; 512],
    len: usize,
}

impl std::fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let take = s.len().min(self.bytes.len() - self.len);
        self.bytes[self.len..self.len + take].copy_from_slice(&s.as_bytes()[..take]);
        self.len += take;
        Ok(())
    }
}

/// Says that `bytes` could not be allocated, and for what, and ends the process with exit
/// code 1. Nothing here allocates: the line is built on the stack and written with one
/// `write(2)`; `_exit` ends the process without running anything more.
fn refused(bytes: usize) -> ! {
    let what = HERE
        .with(Cell::get)
        .unwrap_or(Use::ALL[NOW.load(Ordering::Relaxed).min(Use::ALL.len() - 1)]);
    let mut line = Line {
        bytes: [0; 512],
        len: 0,
    };
    // A bar's line is ended first.
    let lead = if crate::progress::drawn() { "\n" } else { "" };
    let _ = writeln!(
        line,
        "{lead}error: out of memory: cannot allocate {bytes} bytes{} (a memory limit such as ulimit -v, or the machine's memory, is reached)",
        what.words()
    );
    // SAFETY: writes bytes of a live buffer to the standard error, then ends the process.
    unsafe {
        libc::write(2, line.bytes.as_ptr().cast(), line.len);
        libc::_exit(1)
    }
}
