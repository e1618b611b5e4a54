//! What the instruments share: the arguments `N KEYS [SEED]`, the join's plan, and the random
//! pick of keys.

#[path = "../../../examples/common/mod.rs"]
mod common;

pub use common::random_parts;
