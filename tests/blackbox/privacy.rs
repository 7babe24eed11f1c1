//! privacy
