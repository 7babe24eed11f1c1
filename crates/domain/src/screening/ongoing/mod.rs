//! Ongoing screening: when a sanctions list's active version changes, every subject under an
//! active monitoring subscription is screened again against what changed, and a changed
//! outcome is logged as `screening.changed`.
//!
//! - [`delta`]: what changed between two versions of a list (entries added, changed,
//!   removed), and the two small indexes the re-screening reads instead of the whole list.
//! - [`outcome`]: which candidates count toward an outcome, and how two outcomes differ
//!   (appeared, disappeared, moved band).
//! - [`service`]: `OngoingScreening`, the runner that works one list change at a time
//!   through every active subscription, resumable from its cursor after a crash.

pub mod delta;
pub mod outcome;
pub mod service;
