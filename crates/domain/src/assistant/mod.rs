//! The portal assistant: a person signed in to the portal asks in plain words; a language
//! model answers with idreg's own tools, run for that person under a grant of their tenant,
//! and cites the evidence. No personal identity number ever reaches the model.
//!
//! - `conversation`: a conversation, its turns and the blocks a turn holds;
//! - `model`: what is asked of a language model and what it streams back (the port's words);
//! - `scan`: a person's message made safe to send (personal numbers resolved to refs, or the
//!   message refused) and the tool-argument rule (`identifier_in_argument`);
//! - `bounds`: what the assistant may do for a person (scopes by role and grant, the tools,
//!   the round cap, the daily allowance, the retention);
//! - `ports`, `service`: the model, the tools, the store, the vault; the use cases.

pub mod bounds;
pub mod conversation;
pub mod model;
pub mod ports;
pub mod scan;
pub mod service;

#[cfg(test)]
mod tests;
