//! Storage conformance (being written).
