#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod call;
mod client;
mod config;
mod json;
pub mod plug;
pub mod soap;
pub mod trace;
mod transport;
pub mod xml;

pub use call::{conclude, log_call, record, AnswerMeta, Operation, Step};
pub use client::{build_client, identity_from_pem, pkcs12_to_pem};
pub use config::{ClientAuth, ClientConfigError, Timeouts, TlsConfig};
pub use json::read_json;
pub use transport::{
    digest, exchange, new_request_id, send, status_failure, usable, Answer, Exchange, Transport,
    MAX_DATA_BYTES, REQUEST_ID,
};
