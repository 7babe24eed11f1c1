//! Route handlers: extract, call one use case through the gate, map the result.

pub mod companies;
pub mod events;
pub mod paid;
pub mod persons;
pub mod subjects;
pub mod token;
