#![doc = include_str!("../README.md")]

pub mod bodies;
pub mod codes;
mod context;
pub mod discovery;
pub mod dto;
mod error;
pub mod evidence;
pub mod json_body;
pub mod mode;
pub mod oauth;
pub mod problem;
pub mod quota;
pub mod schema;

pub use context::{
    accepts, bearer_token, read_body, request_context, request_context_middleware, RequestIdHeader,
};
pub use error::{
    insert_retry_after, log_cause, method_not_allowed, method_not_allowed_because, ApiError,
    ErrorBody,
};
pub use json_body::JsonBody;

use actix_web::web;
use domain::services::Services;
use std::sync::Arc;

/// The largest request body accepted (JSON or form), in bytes, on either surface.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Shared state of every handler, REST and MCP alike.
pub type AppServices = web::Data<Arc<Services>>;
