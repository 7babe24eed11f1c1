#![doc = include_str!("../README.md")]

mod audit;
mod convert;
mod database;
mod grants;
mod schema;
mod tenants;

pub use database::{Database, DatabaseError};
