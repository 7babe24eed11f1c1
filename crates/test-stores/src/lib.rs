#![doc = include_str!("../README.md")]

pub mod postgres;
pub mod sqlite;
