//! HTTP tests against a real running sandbox (one test binary, several modules).

mod common;
mod control;
mod faults;
mod lt;
mod model;
mod plugin;
mod samples;
mod scb;
mod ssbtgu;
mod vdm;
