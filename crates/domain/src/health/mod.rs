//! Whether this process can serve, for an orchestrator's probes: liveness (the process
//! answers; nothing is read) and readiness (what a request needs is in place: the store
//! answers with its schema at this build's head, the screening index of the active lists is
//! built); and the levels an operator's scrape reads (the store's connections, the scheduler's
//! backlog, the active lists' ages); and the rule that a process serves a store only with the
//! keys the store was first used with ([`keys`]). Probes carry no tenant data and are not consumer requests: nothing is audited.

pub mod gauges;
pub mod keys;
pub mod ports;
pub mod readiness;
