//! subjects
