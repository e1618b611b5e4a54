//! What the library holds, counted by this binary's global allocator: the join within the
//! memory its plan is given, and a quorum's merge within a small multiple of the plan's
//! parts. A global allocator is one per binary, so these tests have a binary of their own,
//! and each takes [`counted::alone`] so that nothing else allocates beside it.

mod counted;
mod join;
mod quorum;
