//! OpenAPI schemas of wire fields whose values come from the domain's closed or open lists
//! (countries, identifier types, evidence sources, ...), for `#[schema(schema_with = ...)]`.
//!
//! The bottom layer of the crate's wire description: `dto` (the wire types) and `openapi`
//! (the document) use it; it uses neither.

use domain::country::Country;
use domain::evidence::EvidenceSource;
use domain::identifier::IdentifierType;
use domain::identifier::SubjectKind;
use utoipa::openapi::extensions::ExtensionsBuilder;
use utoipa::openapi::schema::{ArrayBuilder, Object, ObjectBuilder, Type};

fn string_enum<I: IntoIterator<Item = &'static str>>(
    values: I,
    open: bool,
    description: &str,
) -> Object {
    let builder = ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values))
        .description(Some(description));
    if open {
        builder
            .extensions(Some(
                ExtensionsBuilder::new().add("x-open-enum", true).build(),
            ))
            .build()
    } else {
        builder.build()
    }
}

/// A country code (`SE`, `LT`); open: countries are added in minor versions.
pub fn country_code() -> Object {
    string_enum(
        Country::ALL.map(Country::code),
        true,
        "Country code (ISO 3166-1 alpha-2)",
    )
}

/// The country codes a token carries.
pub fn country_codes() -> utoipa::openapi::schema::Array {
    ArrayBuilder::new()
        .items(country_code())
        .description(Some("Country codes the token's grant allows"))
        .build()
}

/// The optional field groups of a company profile that were not checked; open: a new
/// optional source brings its group.
pub fn unchecked_groups() -> utoipa::openapi::schema::Array {
    ArrayBuilder::new()
        .items(string_enum(
            domain::company::OptionalGroup::ALL.map(domain::company::OptionalGroup::as_str),
            true,
            "An optional field group whose source could not be reached",
        ))
        .build()
}

/// An identifier type; open: a new country brings its schemes.
pub fn identifier_type() -> Object {
    string_enum(
        IdentifierType::ALL.map(IdentifierType::as_str),
        true,
        "The identifier scheme",
    )
}

/// An evidence source; open: a new upstream brings its source.
pub fn evidence_source() -> Object {
    string_enum(
        EvidenceSource::ALL.map(EvidenceSource::as_str),
        true,
        "Where the value came from",
    )
}

/// `person` or `company` (closed).
pub fn subject_kind() -> Object {
    const KINDS: [SubjectKind; 2] = [SubjectKind::Person, SubjectKind::Company];
    // A new kind must be added to KINDS: this match stops compiling until it is considered.
    let _exhaustive = |k: SubjectKind| match k {
        SubjectKind::Person | SubjectKind::Company => (),
    };
    string_enum(KINDS.map(SubjectKind::as_str), false, "What the subject is")
}

/// `Bearer` (closed).
pub fn token_type() -> Object {
    string_enum(["Bearer"], false, "The token type")
}

/// `client_credentials` (the only grant type).
pub fn grant_type() -> Object {
    string_enum(["client_credentials"], false, "The OAuth 2.0 grant type")
}

/// A beneficial owner's share band (closed: the register's bands).
/// `recovery` of an `invalid_cursor` error.
pub fn recovery() -> Object {
    string_enum(
        ["restart from cursor 0"],
        false,
        "How to recover from the error: restart from cursor 0",
    )
}

/// `markers.protected` of a person profile.
pub fn protection() -> Object {
    string_enum(
        [
            domain::person::Protection::None,
            domain::person::Protection::Sekretess,
            domain::person::Protection::Skyddad,
        ]
        .map(domain::person::Protection::as_str),
        false,
        "The person's protection marker: `none`, `sekretess` (sekretessmarkering) or `skyddad` (skyddad folkbokföring)",
    )
}

pub fn share_band() -> Object {
    string_enum(
        domain::paid::ShareBand::ALL.map(domain::paid::ShareBand::as_str),
        false,
        "How much the owner controls: more than 25 up to 50, more than 50 up to 75, more than 75 up to 100 percent, or `unknown` (control by other means, or no share stated)",
    )
}
