//! Subjects: a company or person as one tenant knows it, and the identifiers that name it.
//!
//! - Values: [`identifier`] (the wire form, `SubjectKind`, each type's check rules and the
//!   personal-number shape rule), [`subject`] (subjects, their protected identifiers and
//!   customer references), [`merge`] (`SubjectMerge`: a merge of two subjects as the store
//!   carries it out).
//! - Ports: [`ports`] (`SubjectStore`, `IdentifierVault`).
//! - Use cases: [`service`] (`SubjectService`: resolve an identifier to a subject, read one);
//!   [`merge_service`] (`MergeService`: the operator's merge of two subjects).

pub mod identifier;
pub mod merge;
pub mod subject;

pub mod ports;

pub mod merge_service;
pub mod service;

#[cfg(test)]
mod tests;
