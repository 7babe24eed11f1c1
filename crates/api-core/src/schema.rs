//! OpenAPI schemas of wire fields whose values come from the domain's closed or open lists
//! (countries, identifier types, evidence sources, ...), for `#[schema(schema_with = ...)]`.
//!
//! The bottom layer of the wire description: `dto` (the wire types, here) and api-rest's
//! `openapi` (the document) use it; it uses neither.

use domain::countries::country::Country;
use domain::evidence::EvidenceSource;
use domain::subjects::identifier::SubjectKind;
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
        Country::known().iter().map(|c| c.code()),
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
            domain::companies::profile::OptionalGroup::ALL
                .map(domain::companies::profile::OptionalGroup::as_str),
            true,
            "An optional field group whose source could not be reached",
        ))
        .build()
}

/// What a company-code argument is (a route's `orgnr`, a tool's): the wire form, then every
/// installed company scheme's rule, so a country plugged in is described with no edit here.
pub fn company_code_argument() -> String {
    format!(
        "The company's code in identifier wire form `[<cc>:]<value>`; an unprefixed value is \
         Swedish (`5560021361`, `556002-1361` or `se:5560021361`). Surrounding whitespace is \
         ignored. {} A code of the right shape whose check digit is wrong is 400 \
         `invalid_identifier`.",
        domain::subjects::identifier::scheme::company_code_description()
    )
}

/// A kind of tax registration; open: a country may bring a kind its sources report.
pub fn tax_kind() -> Object {
    string_enum(
        domain::companies::profile::TaxKind::ALL.map(domain::companies::profile::TaxKind::as_str),
        true,
        "The kind of tax registration",
    )
}

/// An identifier type; open: a new country brings its schemes.
pub fn identifier_type() -> Object {
    string_enum(
        domain::subjects::identifier::scheme::known()
            .iter()
            .map(|ty| ty.as_str()),
        true,
        "The identifier scheme",
    )
}

/// An evidence source; open: a new upstream brings its source. The values written here are
/// the service's own; api-rest's `openapi::document` puts every declared source in their place.
pub fn evidence_source() -> Object {
    string_enum(
        EvidenceSource::SERVICE.map(EvidenceSource::as_str),
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

/// `live` or `test`: whom a token's requests are answered for.
pub fn mode() -> Object {
    string_enum(
        ["live", "test"],
        false,
        "`live`, or `test` for a test-mode grant",
    )
}

/// `client_credentials` (the only grant type).
pub fn grant_type() -> Object {
    string_enum(
        ["client_credentials", "authorization_code", "refresh_token"],
        false,
        "The OAuth 2.0 grant type",
    )
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
            domain::persons::profile::Protection::None,
            domain::persons::profile::Protection::Confidential,
            domain::persons::profile::Protection::ProtectedResidence,
        ]
        .map(domain::persons::profile::Protection::as_str),
        false,
        "The person's protection marker: `none`, `sekretess` (sekretessmarkering) or `skyddad` (skyddad folkbokföring)",
    )
}

pub fn share_band() -> Object {
    string_enum(
        domain::companies::paid::ShareBand::ALL.map(domain::companies::paid::ShareBand::as_str),
        false,
        "How much the owner controls: more than 25 up to 50, more than 50 up to 75, more than 75 up to 100 percent, or `unknown` (control by other means, or no share stated)",
    )
}

/// A nullable country code: the country of a screening check (`null` for a check on a name
/// alone, visible to every grant of the tenant).
pub fn nullable_country_code() -> Object {
    use utoipa::openapi::schema::SchemaType;
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(
            Country::known()
                .iter()
                .map(|c| serde_json::Value::from(c.code()))
                .chain([serde_json::Value::Null]),
        ))
        .description(Some(
            "Country code (ISO 3166-1 alpha-2); `null` when the check names no country",
        ))
        .extensions(Some(
            ExtensionsBuilder::new().add("x-open-enum", true).build(),
        ))
        .build()
}

/// A screening band (closed: the spec's result values).
pub fn screening_band() -> Object {
    use domain::screening::policy::Band;
    string_enum(
        [Band::Clear, Band::Review, Band::Hit].map(Band::as_str),
        false,
        "`clear`, `review` (to be put before a person) or `hit`, by the policy's thresholds",
    )
}

/// Who a company's party is to it (open: a later version may add roles).
pub fn party_role() -> Object {
    use domain::companies::paid::PartyRole;
    string_enum(
        [PartyRole::Officer, PartyRole::BeneficialOwner].map(PartyRole::as_str),
        true,
        "`officer` or `beneficial_owner`",
    )
}

/// How a reason moves a candidate's score (closed).
pub fn contribution() -> Object {
    use domain::screening::matcher::score::Contribution;
    string_enum(
        [Contribution::Up, Contribution::Down, Contribution::Neutral].map(Contribution::as_str),
        false,
        "Whether the reason raises the score, lowers it, or leaves it",
    )
}

/// What a screening check screened (closed).
pub fn input_kind() -> Object {
    use domain::screening::check::InputKind;
    string_enum(
        [InputKind::Subject, InputKind::Adhoc].map(InputKind::as_str),
        false,
        "`subject`: a subject of the tenant, read from its register; `adhoc`: the identity sent",
    )
}

/// A list's source id; open: new lists are added in minor versions.
pub fn list_source() -> Object {
    string_enum(
        domain::screening::sanctions::ListSource::ALL
            .map(domain::screening::sanctions::ListSource::as_str),
        true,
        "The list (source id): a sanctions list or a PEP list",
    )
}

/// What a list names; open.
pub fn list_kind() -> Object {
    use domain::screening::sanctions::ListKind;
    string_enum(
        [ListKind::Sanctions, ListKind::Pep].map(ListKind::as_str),
        true,
        "`sanctions`: designated parties; `pep`: politically exposed persons, their family \
         members and close associates",
    )
}

/// What a PEP list calls a person, each at most once; open.
pub fn exposure_roles() -> utoipa::openapi::schema::Array {
    use domain::screening::sanctions::ExposureRole;
    utoipa::openapi::schema::Array::new(string_enum(
        [ExposureRole::Pep, ExposureRole::Rca].map(ExposureRole::as_str),
        true,
        "`pep`: holds or held a prominent public function; `rca`: a relative or close \
         associate of a PEP",
    ))
}

/// Whether a term is running, as the list says; closed.
pub fn term_status() -> Object {
    use domain::screening::sanctions::TermStatus;
    string_enum(
        [TermStatus::Current, TermStatus::Ended, TermStatus::Unknown].map(TermStatus::as_str),
        false,
        "`current`, `ended`, or `unknown` when the list does not say",
    )
}

/// How a person is tied to a PEP; open.
pub fn relation_kind() -> Object {
    use domain::screening::sanctions::RelationKind;
    string_enum(
        [RelationKind::Family, RelationKind::Associate].map(RelationKind::as_str),
        true,
        "`family`: a family member; `associate`: a close associate",
    )
}

/// What a list entry designates; open.
pub fn entry_kind() -> Object {
    use domain::screening::sanctions::EntryKind;
    string_enum(
        [
            EntryKind::Person,
            EntryKind::Organisation,
            EntryKind::Vessel,
            EntryKind::Aircraft,
            EntryKind::Other,
        ]
        .map(EntryKind::as_str),
        true,
        "What the list entry designates",
    )
}

/// How much a list trusts a name (closed).
pub fn name_quality() -> Object {
    use domain::screening::sanctions::NameQuality;
    string_enum(
        [NameQuality::Strong, NameQuality::Weak].map(NameQuality::as_str),
        false,
        "`strong`: a primary name or a good alias; `weak`: a low-quality alias the list marks as too broad to identify alone",
    )
}

/// A tenant override version's status (closed).
pub fn override_status() -> Object {
    use domain::screening::policy::OverrideStatus;
    string_enum(
        [
            OverrideStatus::Draft,
            OverrideStatus::Approved,
            OverrideStatus::Active,
            OverrideStatus::Retired,
        ]
        .map(OverrideStatus::as_str),
        false,
        "`draft`, `approved` (by an operator other than the proposer), `active` (at most one per tenant) or `retired`",
    )
}

/// A webhook endpoint's status (open: a later version may add states).
pub fn endpoint_status() -> Object {
    use domain::webhooks::endpoint::EndpointStatus;
    string_enum(
        [EndpointStatus::Active, EndpointStatus::Disabled].map(EndpointStatus::as_str),
        true,
        "`active` or `disabled`",
    )
}

/// What came of one webhook delivery attempt (open).
pub fn delivery_outcome() -> Object {
    string_enum(
        domain::webhooks::endpoint::AttemptResult::OUTCOMES,
        true,
        "`delivered` (2xx), `refused` (another status) or `failed` (no answer)",
    )
}
