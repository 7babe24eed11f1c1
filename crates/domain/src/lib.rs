#![doc = include_str!("../README.md")]

pub mod access;
pub mod admin;
pub mod audit;
pub mod budget;
pub mod change;
pub mod clock;
pub mod company;
pub mod company_service;
pub mod countries;
pub mod country;
pub mod error;
pub mod event;
pub mod event_service;
pub mod evidence;
pub mod grant;
pub mod identifier;
pub mod ids;
pub mod list_service;
pub mod matcher;
pub mod merge;
pub mod operation;
pub mod paid;
pub mod paid_service;
pub mod person;
pub mod person_service;
pub mod ports;
pub mod refresh_service;
pub mod sanctions;
pub mod scheduler;
pub mod scope;
pub mod screening;
pub mod screening_admin;
pub mod screening_service;
pub mod services;
pub mod subject;
pub mod subject_service;
pub mod subscription;
pub mod subscription_service;
pub mod tenant;
pub mod text;
pub mod token;
pub mod token_issuer;

pub use error::{ErrorCode, Failure};
#[cfg(test)]
mod tests;
