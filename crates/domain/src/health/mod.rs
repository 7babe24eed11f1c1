//! Whether this process can serve, for an orchestrator's probes: liveness (the process
//! answers; nothing is read) and readiness (what a request needs is in place: the store
//! answers with its schema at this build's head, the screening index of the active lists is
//! built). Probes carry no tenant data and are not consumer requests: nothing is audited.

pub mod ports;
pub mod readiness;
