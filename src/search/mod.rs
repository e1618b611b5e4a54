//! The search method: the first rows' bitmask states cut into subproblems, each counted by
//! backtracking to its leaves in the scalar loop or the SIMD lanes.
//!
//! [`roots`] fixes the queens placed before the search (the symmetry mode's roots) and cuts
//! each root into subproblems; [`schedule`] orders a partial board's free rows; [`scalar`]
//! and [`simd`] are the two loops, called through [`kernel`]; [`symmetry`] holds the
//! square's symmetries and the border constellations.

pub mod kernel;
pub mod roots;
pub mod scalar;
pub mod schedule;
pub mod simd;
pub mod symmetry;
