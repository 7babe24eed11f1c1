//! SPAR, Statens personadressregister: "Personsök program-program" 2021.1, SOAP 1.1
//! document/literal over HTTPS with mutual TLS (the organisation certificate SPAR issued, as
//! a PKCS#12 keystore). One operation, `PersonSok`, asked by `IdNummer` only.
//!
//! The request carries the `Identifieringsinformation` block: the customer numbers and the
//! assignment id from the agreement, and an end-user id naming the consumer's grant (never a
//! person). The answer holds the echoed question and then 0..n `PersonsokningSvarspost`, or an
//! `Undantag` (the register refused), or `OverstigerMaxAntalSvarsposter`; a service failure
//! is a SOAP Fault. Each record is dated history: the current entry of a repeated element is
//! the one whose `DatumTill` is 9999-12-31 (or that carries no dates).
//!
//! Nothing read here is logged: the log names the operation and the request id only.

use crate::config::{SeConfigError, SparConfig};
use crate::USER_AGENT;
use chrono::NaiveDate;
use connector_kit::soap::{read_soap_answer, SoapAnswer};
use connector_kit::xml::{escape, Element, NS_SOAP};
use connector_kit::{
    build_client, conclude, new_request_id, send, Answer, AnswerMeta, Operation, Step,
    MAX_DATA_BYTES, REQUEST_ID,
};
use domain::companies::profile::RegistryFailure;
use domain::persons::profile::{
    Deregistration, DeregistrationReason, DomesticAddress, ForeignAddress, PartialDate,
    PopulationRegistration, PostalAddress, RegisterAddresses, RegisterMarker, RegisterName,
    RegisterPerson,
};
use reqwest::header::{ACCEPT, CONTENT_TYPE};

pub(crate) const OP_PERSON_SOK: Operation = Operation {
    source: crate::sources::PERSONSOKNING,
    name: "SOAP PersonSok",
    schema_version: "personsok-2021.1",
    // Metered by the tenant's person-lookup ceiling, not the paid company budget.
    cost: 1,
};

const SOAP_ACTION: &str =
    "\"http://skatteverket.se/spar/personsok/2021.1/PersonsokService/Personsok\"";

const NS_FRAGA: &str =
    "http://statenspersonadressregister.se/schema/personsok/2021.1/personsokningfraga";
const NS_SVAR: &str =
    "http://statenspersonadressregister.se/schema/personsok/2021.1/personsokningsvar";
const NS_IDEN: &str =
    "http://statenspersonadressregister.se/schema/komponent/metadata/identifieringsinformationWs-1.1";
const NS_SOKPARAM: &str =
    "http://statenspersonadressregister.se/schema/komponent/sok/personsokningsokparametrar-1.1";
const NS_UNDANTAG: &str = "http://statenspersonadressregister.se/schema/komponent/sok/undantag-1.0";
const NS_PERSON: &str = "http://statenspersonadressregister.se/schema/komponent/person/person-1.2";
const NS_SKYDD: &str =
    "http://statenspersonadressregister.se/schema/komponent/person/skyddadepersonuppgifter-1.1";
const NS_DATUM: &str =
    "http://statenspersonadressregister.se/schema/komponent/generellt/datumtid-1.1";
const NS_NAMN: &str = "http://statenspersonadressregister.se/schema/komponent/person/namn/namn-1.0";
const NS_NAMN_EL: &str =
    "http://statenspersonadressregister.se/schema/komponent/person/namn/deladenamnelement-1.0";
const NS_DETALJER: &str =
    "http://statenspersonadressregister.se/schema/komponent/person/persondetaljer-1.2";
const NS_AVREG: &str =
    "http://statenspersonadressregister.se/schema/komponent/person/avregistrering-1.0";
const NS_FOLKBOK: &str =
    "http://statenspersonadressregister.se/schema/komponent/person/folkbokforing-1.0";
const NS_ADR: &str =
    "http://statenspersonadressregister.se/schema/komponent/person/adress/deladeadresselement-1.1";
const NS_FB_ADR: &str =
    "http://statenspersonadressregister.se/schema/komponent/person/adress/folkbokforingsadress-1.1";
const NS_SP_ADR: &str =
    "http://statenspersonadressregister.se/schema/komponent/person/adress/sarskildpostadress-1.1";
const NS_UT_ADR: &str =
    "http://statenspersonadressregister.se/schema/komponent/person/adress/utlandsadress-1.1";
const NS_K_ADR: &str =
    "http://statenspersonadressregister.se/schema/komponent/person/adress/kontaktadress-1.0";

/// `DatumTill` of the current entry of a dated history.
const CURRENT: &str = "9999-12-31";

pub(crate) struct SparClient {
    http: reqwest::Client,
    url: String,
    customer_recipient: String,
    customer_end: String,
    assignment_id: String,
}

impl SparClient {
    pub fn new(c: &SparConfig) -> Result<Self, SeConfigError> {
        c.validate()?;
        Ok(SparClient {
            http: build_client("spar.client_identity", USER_AGENT, c.timeouts, &c.tls)?,
            url: c.url.clone(),
            customer_recipient: c.customer_number_recipient.clone(),
            customer_end: c.customer_number_end.clone(),
            assignment_id: c.assignment_id.clone(),
        })
    }

    /// One `PersonSok` by `IdNummer` (the 12-digit form of a personal or coordination
    /// number).
    pub async fn person(&self, id_number: &str, end_user: &str) -> Step<RegisterPerson> {
        let op = &OP_PERSON_SOK;
        let request_id = new_request_id();
        let envelope = request_envelope(
            &Identification {
                customer_recipient: &self.customer_recipient,
                customer_end: &self.customer_end,
                assignment_id: &self.assignment_id,
                end_user,
            },
            id_number,
        );
        let rb = self
            .http
            .post(&self.url)
            .header(REQUEST_ID, &request_id)
            .header(CONTENT_TYPE, "text/xml; charset=utf-8")
            .header(ACCEPT, "text/xml")
            .header("SOAPAction", SOAP_ACTION)
            .body(envelope);
        let outcome = send(rb, MAX_DATA_BYTES).await;
        let (call, result) = conclude(op, &request_id, outcome, |a| read_answer(a, id_number));
        Step {
            calls: vec![call],
            result,
        }
    }
}

/// The `Identifieringsinformation` block.
pub(crate) struct Identification<'a> {
    pub customer_recipient: &'a str,
    pub customer_end: &'a str,
    pub assignment_id: &'a str,
    /// 1..=256 characters identifying the end user (here: the consumer's grant).
    pub end_user: &'a str,
}

/// The SOAP 1.1 request `SPARPersonsokningFraga` by `IdNummer`.
pub(crate) fn request_envelope(id: &Identification<'_>, id_number: &str) -> String {
    let end_user: String = id.end_user.chars().take(256).collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
<soapenv:Envelope xmlns:soapenv=\"{NS_SOAP}\" xmlns:per=\"{NS_FRAGA}\" xmlns:iden=\"{NS_IDEN}\" \
xmlns:per1=\"{NS_SOKPARAM}\" xmlns:per2=\"{NS_PERSON}\">\
<soapenv:Header/>\
<soapenv:Body>\
<per:SPARPersonsokningFraga>\
<iden:Identifieringsinformation>\
<iden:KundNrLeveransMottagare>{recipient}</iden:KundNrLeveransMottagare>\
<iden:KundNrSlutkund>{end}</iden:KundNrSlutkund>\
<iden:UppdragId>{assignment}</iden:UppdragId>\
<iden:SlutAnvandarId>{user}</iden:SlutAnvandarId>\
</iden:Identifieringsinformation>\
<per1:PersonsokningFraga>\
<per2:IdNummer>{idnr}</per2:IdNummer>\
</per1:PersonsokningFraga>\
</per:SPARPersonsokningFraga>\
</soapenv:Body>\
</soapenv:Envelope>",
        recipient = escape(id.customer_recipient),
        end = escape(id.customer_end),
        assignment = escape(id.assignment_id),
        user = escape(&end_user),
        idnr = escape(id_number),
    )
}

fn garbled(why: &str) -> RegistryFailure {
    RegistryFailure::Garbled(format!("{}: {why}", OP_PERSON_SOK.label()))
}

fn unavailable(why: &str) -> RegistryFailure {
    RegistryFailure::Unavailable(format!("{}: {why}", OP_PERSON_SOK.label()))
}

/// Reads a `PersonSok` answer of any status.
pub(crate) fn read_answer(
    a: &Answer,
    id_number: &str,
) -> (Result<RegisterPerson, RegistryFailure>, AnswerMeta) {
    read_soap_answer(a, &OP_PERSON_SOK.label(), |soap| {
        read_envelope(soap, id_number)
    })
}

/// A code as the register wrote it, kept to a short token (the description is never
/// repeated: it could name the person asked about).
fn code_token(s: Option<&str>) -> String {
    let t: String = s
        .unwrap_or("?")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
        .take(40)
        .collect();
    if t.is_empty() {
        "?".into()
    } else {
        t
    }
}

fn read_envelope(
    soap: SoapAnswer<'_>,
    id_number: &str,
) -> (Result<RegisterPerson, RegistryFailure>, AnswerMeta) {
    let body = match soap {
        SoapAnswer::Body(body) => body,
        SoapAnswer::Fault(fault) => {
            // `soap:Client`: the register judged our request invalid; anything else is the
            // service failing. Either way nothing is served (the route answers 503).
            let code = code_token(
                fault
                    .child_local("faultcode")
                    .and_then(Element::text_trimmed),
            );
            let failure = if code.ends_with("Client") {
                garbled(&format!("SOAP Fault {code}"))
            } else {
                unavailable(&format!("SOAP Fault {code}"))
            };
            return (Err(failure), AnswerMeta::default());
        }
    };
    let Some(svar) = body.child(NS_SVAR, "SPARPersonsokningSvar") else {
        return (
            Err(garbled("the answer has no SPARPersonsokningSvar")),
            AnswerMeta::default(),
        );
    };
    let meta = AnswerMeta {
        upstream_ref: svar
            .child(NS_SVAR, "UUID")
            .and_then(Element::text_trimmed)
            .map(|u| code_token(Some(u))),
        ..AnswerMeta::default()
    };
    (read_svar(svar, id_number), meta)
}

fn read_svar(svar: &Element, id_number: &str) -> Result<RegisterPerson, RegistryFailure> {
    if let Some(u) = svar.child(NS_UNDANTAG, "Undantag") {
        let kod = code_token(u.child(NS_UNDANTAG, "Kod").and_then(Element::text_trimmed));
        return Err(unavailable(&format!(
            "the register answered Undantag {kod}"
        )));
    }
    if svar
        .child(NS_UNDANTAG, "OverstigerMaxAntalSvarsposter")
        .is_some()
    {
        return Err(garbled(
            "the register answered OverstigerMaxAntalSvarsposter to a search by number",
        ));
    }
    // The echoed question must be ours.
    let asked = svar
        .child(NS_SOKPARAM, "PersonsokningFraga")
        .and_then(|f| f.child(NS_PERSON, "IdNummer"))
        .and_then(Element::text_trimmed);
    if asked.is_some_and(|n| n != id_number) {
        return Err(garbled("the answer echoes another question"));
    }
    let posts: Vec<&Element> = svar
        .children
        .iter()
        .filter(|c| c.is(NS_SVAR, "PersonsokningSvarspost"))
        .collect();
    match posts.as_slice() {
        [] => Err(RegistryFailure::NotFound),
        [post] => read_post(post, id_number),
        _ => Err(garbled("several persons answer one number")),
    }
}

/// The child elements `{ns}name` of `parent`.
fn all<'a>(parent: &'a Element, ns: &'a str, name: &'a str) -> impl Iterator<Item = &'a Element> {
    parent.children.iter().filter(move |c| c.is(ns, name))
}

fn text<'a>(parent: &'a Element, ns: &str, name: &str) -> Option<&'a str> {
    parent.child(ns, name).and_then(Element::text_trimmed)
}

fn owned(parent: &Element, ns: &str, name: &str) -> Option<String> {
    text(parent, ns, name).map(str::to_owned)
}

fn date(parent: &Element, ns: &str, name: &str) -> Result<Option<NaiveDate>, RegistryFailure> {
    text(parent, ns, name)
        .map(|t| {
            NaiveDate::parse_from_str(t, "%Y-%m-%d")
                .map_err(|_| garbled(&format!("{name} is not a date")))
        })
        .transpose()
}

fn partial_date(parent: &Element, ns: &str, name: &str) -> Option<PartialDate> {
    text(parent, ns, name).and_then(PartialDate::parse)
}

/// `JA`/`NEJ`.
fn ja_nej(parent: &Element, ns: &str, name: &str) -> Result<bool, RegistryFailure> {
    match text(parent, ns, name) {
        None | Some("NEJ") => Ok(false),
        Some("JA") => Ok(true),
        Some(_) => Err(garbled(&format!("{name} is neither JA nor NEJ"))),
    }
}

/// The current entry of a dated history: `DatumTill` 9999-12-31 or no dates at all; among
/// several, the one from the latest `DatumFrom`. `dates` picks the element carrying the
/// dates (the entry itself, or its address).
fn current<'a>(
    entries: impl Iterator<Item = &'a Element>,
    dates: impl Fn(&'a Element) -> Option<&'a Element>,
) -> Option<&'a Element> {
    entries
        .filter(|e| {
            dates(e).is_some_and(|d| matches!(text(d, NS_DATUM, "DatumTill"), None | Some(CURRENT)))
        })
        .max_by_key(|e| {
            dates(e)
                .and_then(|d| text(d, NS_DATUM, "DatumFrom"))
                .unwrap_or("")
        })
}

fn itself(e: &Element) -> Option<&Element> {
    Some(e)
}

/// The address element (`SvenskAdress` or `InternationellAdress`) inside an address entry.
fn address_of(e: &Element) -> Option<&Element> {
    e.child(NS_ADR, "SvenskAdress")
        .or_else(|| e.child(NS_ADR, "InternationellAdress"))
}

fn swedish(a: &Element) -> DomesticAddress {
    DomesticAddress {
        care_of: owned(a, NS_ADR, "CareOf"),
        line_1: owned(a, NS_ADR, "Utdelningsadress1"),
        line_2: owned(a, NS_ADR, "Utdelningsadress2"),
        postal_code: owned(a, NS_ADR, "PostNr"),
        city: owned(a, NS_ADR, "Postort"),
    }
}

fn foreign(a: &Element) -> ForeignAddress {
    ForeignAddress {
        care_of: owned(a, NS_ADR, "CareOf"),
        line_1: owned(a, NS_ADR, "Utdelningsadress1"),
        line_2: owned(a, NS_ADR, "Utdelningsadress2"),
        line_3: owned(a, NS_ADR, "Utdelningsadress3"),
        country_name: owned(a, NS_ADR, "Land"),
    }
}

fn postal(a: &Element) -> PostalAddress {
    if a.name == "InternationellAdress" {
        PostalAddress::Foreign(foreign(a))
    } else {
        PostalAddress::Domestic(swedish(a))
    }
}

/// The current address of an address element's history (`Folkbokforingsadress`, ...).
fn current_address<'a>(post: &'a Element, ns: &'a str, name: &'a str) -> Option<&'a Element> {
    current(all(post, ns, name), address_of).and_then(address_of)
}

fn read_post(post: &Element, id_number: &str) -> Result<RegisterPerson, RegistryFailure> {
    let person_id = post
        .child(NS_PERSON, "PersonId")
        .ok_or_else(|| garbled("the record has no PersonId"))?;
    let echoed = text(person_id, NS_PERSON, "IdNummer")
        .ok_or_else(|| garbled("the record's PersonId has no IdNummer"))?;
    if echoed != id_number {
        return Err(garbled("the record is about another person than asked"));
    }

    let name = current(all(post, NS_NAMN, "Namn"), itself).map(|n| RegisterName {
        given_names: owned(n, NS_NAMN_EL, "Fornamn"),
        calling_name_index: owned(n, NS_NAMN_EL, "Tilltalsnamn"),
        middle_name: owned(n, NS_NAMN_EL, "Mellannamn"),
        surname: owned(n, NS_NAMN_EL, "Efternamn"),
        notification_name: owned(n, NS_NAMN_EL, "Aviseringsnamn"),
    });

    let details = current(all(post, NS_DETALJER, "Persondetaljer"), itself);
    // SPAR's `AvregistreringsorsakKod`: `AV` deceased, `UV` emigrated, others (`GN`, `GS`:
    // an old number replaced, ...) kept as the code.
    let deregistration_reason = |code: String| match code.as_str() {
        "AV" => DeregistrationReason::Deceased,
        "UV" => DeregistrationReason::Emigrated,
        _ => DeregistrationReason::Other(code),
    };
    let (birth_date, deregistration, deceased_date) = match details {
        None => (None, None, None),
        Some(d) => (
            date(d, NS_DETALJER, "Fodelsedatum")?,
            owned(d, NS_AVREG, "AvregistreringsorsakKod").map(|code| Deregistration {
                reason: deregistration_reason(code),
                date: partial_date(d, NS_AVREG, "Avregistreringsdatum"),
            }),
            partial_date(d, NS_AVREG, "Avlidendatum")
                .or_else(|| partial_date(d, NS_AVREG, "AntraffadDodDatum")),
        ),
    };

    let folkbokforing = current(all(post, NS_FOLKBOK, "Folkbokforing"), itself)
        .map(|f| -> Result<PopulationRegistration, RegistryFailure> {
            let county = owned(f, NS_FOLKBOK, "FolkbokfordLanKod");
            let municipality = text(f, NS_FOLKBOK, "FolkbokfordKommunKod");
            Ok(PopulationRegistration {
                registered_at: date(f, NS_FOLKBOK, "Folkbokforingsdatum")?,
                residence: owned(f, NS_FOLKBOK, "Hemvist"),
                // The four-digit municipality code is the county's two digits and the
                // municipality's two.
                municipality_code: match (&county, municipality) {
                    (Some(c), Some(m)) => Some(format!("{c}{m}")),
                    _ => None,
                },
                county_code: county,
            })
        })
        .transpose()?;

    Ok(RegisterPerson {
        id_number: domain::subjects::identifier::EchoedNumber::new(echoed),
        confidential: RegisterMarker {
            set: ja_nej(post, NS_SKYDD, "Sekretessmarkering")?,
            since: date(post, NS_SKYDD, "SekretessDatum")?,
        },
        protected_residence: RegisterMarker {
            set: ja_nej(post, NS_SKYDD, "SkyddadFolkbokforing")?,
            since: date(post, NS_SKYDD, "SkyddadFolkbokforingDatum")?,
        },
        latest_change: date(post, NS_PERSON, "SenasteAndringSPAR")?,
        name,
        birth_date,
        deregistration,
        deceased_date,
        registration: folkbokforing,
        addresses: RegisterAddresses {
            registered: current_address(post, NS_FB_ADR, "Folkbokforingsadress")
                .filter(|a| a.name == "SvenskAdress")
                .map(swedish),
            special_postal: current_address(post, NS_SP_ADR, "SarskildPostadress").map(postal),
            foreign: current_address(post, NS_UT_ADR, "Utlandsadress").map(foreign),
            contact: current_address(post, NS_K_ADR, "Kontaktadress").map(postal),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples;
    use connector_kit::xml::{self, soap_body};
    use domain::persons::profile::{PersonProfile, Protection};
    use reqwest::header::HeaderMap;

    fn answer(status: u16, body: Vec<u8>) -> Answer {
        Answer {
            status,
            headers: HeaderMap::new(),
            body,
        }
    }

    fn recorded(id: &str) -> Result<RegisterPerson, RegistryFailure> {
        let body = samples::read(&format!("spar/response-{id}.xml"));
        read_answer(&answer(200, body), id).0
    }

    fn d(s: &str) -> Option<NaiveDate> {
        Some(s.parse().unwrap())
    }

    fn pd(s: &str) -> Option<PartialDate> {
        PartialDate::parse(s)
    }

    #[test]
    fn the_request_matches_the_recorded_one() {
        let env = request_envelope(
            &Identification {
                customer_recipient: "500243",
                customer_end: "500243",
                assignment_id: "637",
                end_user: "idreg-grant:grt_x & <y>",
            },
            "197503259280",
        );
        let root = xml::parse(env.as_bytes()).unwrap();
        let fraga = soap_body(&root)
            .unwrap()
            .child(NS_FRAGA, "SPARPersonsokningFraga")
            .unwrap();
        let iden = fraga.child(NS_IDEN, "Identifieringsinformation").unwrap();
        assert_eq!(
            text(iden, NS_IDEN, "KundNrLeveransMottagare"),
            Some("500243")
        );
        assert_eq!(text(iden, NS_IDEN, "KundNrSlutkund"), Some("500243"));
        assert_eq!(text(iden, NS_IDEN, "UppdragId"), Some("637"));
        assert_eq!(
            text(iden, NS_IDEN, "SlutAnvandarId"),
            Some("idreg-grant:grt_x & <y>")
        );
        let idnr = fraga
            .child(NS_SOKPARAM, "PersonsokningFraga")
            .and_then(|f| f.child(NS_PERSON, "IdNummer"))
            .and_then(Element::text_trimmed);
        assert_eq!(idnr, Some("197503259280"));
        // The recorded request names the same elements in the same namespaces.
        let rec = xml::parse(&samples::read("spar/request-personid.xml")).unwrap();
        let rec_fraga = soap_body(&rec)
            .unwrap()
            .child(NS_FRAGA, "SPARPersonsokningFraga")
            .unwrap();
        let names = |e: &Element| -> Vec<(Option<String>, String)> {
            e.children
                .iter()
                .flat_map(|c| {
                    std::iter::once((c.ns.clone(), c.name.clone()))
                        .chain(c.children.iter().map(|g| (g.ns.clone(), g.name.clone())))
                })
                .collect()
        };
        assert_eq!(names(fraga), names(rec_fraga));
    }

    #[test]
    fn an_ordinary_person_field_by_field() {
        let p = recorded("195704133106").unwrap();
        assert_eq!(
            p.id_number,
            domain::subjects::identifier::EchoedNumber::new("195704133106")
        );
        assert!(!p.confidential.set && !p.protected_residence.set);
        assert_eq!(p.latest_change, d("2019-12-02"));
        let n = p.name.clone().unwrap();
        assert_eq!(n.given_names.as_deref(), Some("Christina Birgitta Ulrika"));
        assert_eq!(n.calling_name_index.as_deref(), Some("20"));
        assert_eq!(n.middle_name.as_deref(), Some("Thomeaus"));
        assert_eq!(n.surname.as_deref(), Some("Efternamn3542"));
        assert_eq!(
            n.notification_name.as_deref(),
            Some("Efternamn3542, Christina Birgitta")
        );
        assert_eq!(p.birth_date, d("1957-04-13"));
        assert_eq!(p.deregistration, None);
        // Of the two registrations, the current one (DatumTill 9999-12-31).
        let f = p.registration.clone().unwrap();
        assert_eq!(f.registered_at, d("2003-01-01"));
        assert_eq!(f.residence.as_deref(), Some("Skriven på adressen"));
        assert_eq!(f.county_code.as_deref(), Some("01"));
        assert_eq!(f.municipality_code.as_deref(), Some("0180"));
        let a = p.addresses.registered.clone().unwrap();
        assert_eq!(a.line_2.as_deref(), Some("Gatan142 8"));
        assert_eq!(a.postal_code.as_deref(), Some("11146"));
        assert_eq!(a.city.as_deref(), Some("STOCKHOLM"));
        assert_eq!(a.care_of, None);
        assert!(p.addresses.special_postal.is_none() && p.addresses.foreign.is_none());
        let profile = PersonProfile::from_register(p);
        assert_eq!(profile.names().calling_name.as_deref(), Some("Birgitta"));
        assert_eq!(profile.markers().protected, Protection::None);
    }

    #[test]
    fn a_protected_person_has_only_the_markers() {
        let p = recorded("198106039228").unwrap();
        assert!(p.confidential.set);
        assert!(p.protected_residence.set);
        assert_eq!(p.protected_residence.since, d("2010-02-02"));
        assert_eq!(p.name, None);
        assert_eq!(p.birth_date, None);
        assert_eq!(p.addresses, RegisterAddresses::default());
        let profile = PersonProfile::from_register(p);
        assert_eq!(profile.markers().protected, Protection::ProtectedResidence);
        assert_eq!(profile.markers().protected_since, d("2010-02-02"));
        assert!(profile.address().is_none());
    }

    #[test]
    fn an_emigrated_person_has_a_foreign_address() {
        let p = recorded("195309112489").unwrap();
        let dereg = p.deregistration.clone().unwrap();
        assert_eq!(dereg.reason, DeregistrationReason::Emigrated);
        assert_eq!(dereg.date, pd("2019-11-25"));
        let f = p.addresses.foreign.clone().unwrap();
        assert_eq!(f.line_1.as_deref(), Some("UTLANDSGATAN 111"));
        assert_eq!(f.line_2.as_deref(), Some("UTLANDOMRÅDE"));
        assert_eq!(f.line_3.as_deref(), Some("STADEN"));
        assert_eq!(f.country_name.as_deref(), Some("STORBRITTANIEN"));
        assert!(p.registration.is_none() && p.addresses.registered.is_none());
        let profile = PersonProfile::from_register(p);
        assert_eq!(profile.markers().emigrated_date, pd("2019-11-25"));
        assert!(profile.foreign_address().is_some());
    }

    #[test]
    fn a_deceased_person_keeps_the_current_details_and_co_address() {
        let p = recorded("198604069883").unwrap();
        assert_eq!(
            p.deregistration.as_ref().unwrap().reason,
            DeregistrationReason::Deceased
        );
        assert_eq!(p.deceased_date, pd("2019-11-25"));
        assert_eq!(p.birth_date, d("1986-04-06"));
        let a = p.addresses.registered.clone().unwrap();
        assert_eq!(a.care_of.as_deref(), Some("CO-NAMN"));
        assert_eq!(a.city.as_deref(), Some("EKERÖ"));
        let profile = PersonProfile::from_register(p);
        assert_eq!(profile.markers().deceased_date, pd("2019-11-25"));
        assert_eq!(profile.markers().emigrated_date, None);
    }

    #[test]
    fn a_coordination_number_and_a_referral() {
        let p = recorded("199012652385").unwrap();
        assert_eq!(
            p.id_number,
            domain::subjects::identifier::EchoedNumber::new("199012652385")
        );
        assert_eq!(p.birth_date, d("1990-12-05"));
        assert_eq!(
            p.deregistration.as_ref().unwrap().reason,
            DeregistrationReason::Other("GS".into())
        );
        let n = p.name.unwrap();
        assert_eq!(n.given_names.as_deref(), Some("Samantha"));
        let p = recorded("197110021834").unwrap();
        assert_eq!(p.name.unwrap().given_names.as_deref(), Some("Mattias"));
        assert_eq!(p.deregistration, None);
    }

    #[test]
    fn a_special_postal_address_abroad() {
        let p = recorded("194411155858").unwrap();
        match p.addresses.special_postal.clone().unwrap() {
            PostalAddress::Foreign(f) => {
                assert_eq!(f.line_2.as_deref(), Some("UTLANDOMRÅDE"));
                assert_eq!(f.country_name.as_deref(), Some("MONACO"));
            }
            PostalAddress::Domestic(_) => panic!("expected an address abroad"),
        }
        assert!(p.addresses.registered.is_some());
        let profile = PersonProfile::from_register(p);
        // Not emigrated: no foreign address, the special postal address stays.
        assert!(profile.foreign_address().is_none());
        assert!(profile.special_postal_address().is_some());
    }

    #[test]
    fn an_answer_about_someone_else_is_garbled() {
        let body = samples::read("spar/response-195704133106.xml");
        let (r, _) = read_answer(&answer(200, body), "198106039228");
        assert!(matches!(r, Err(RegistryFailure::Garbled(_))), "{r:?}");
    }

    fn envelope(inner: &str) -> Vec<u8> {
        format!(
            "<S:Envelope xmlns:S=\"{NS_SOAP}\"><S:Body><s:SPARPersonsokningSvar xmlns:s=\"{NS_SVAR}\" \
             xmlns:u=\"{NS_UNDANTAG}\" xmlns:q=\"{NS_SOKPARAM}\" xmlns:p=\"{NS_PERSON}\">\
             <q:PersonsokningFraga><p:IdNummer>195704133106</p:IdNummer></q:PersonsokningFraga>\
             {inner}<s:UUID>abc</s:UUID></s:SPARPersonsokningSvar></S:Body></S:Envelope>"
        )
        .into_bytes()
    }

    #[test]
    fn undantag_overflow_faults_and_nothing_found() {
        let id = "195704133106";
        let (r, meta) = read_answer(&answer(200, envelope("")), id);
        assert_eq!(r, Err(RegistryFailure::NotFound));
        assert_eq!(meta.upstream_ref.as_deref(), Some("abc"));
        let (r, _) = read_answer(
            &answer(
                200,
                envelope("<u:Undantag><u:Kod>SPAR-17</u:Kod><u:Beskrivning>Behörighet saknas för 195704133106</u:Beskrivning></u:Undantag>"),
            ),
            id,
        );
        let Err(RegistryFailure::Unavailable(why)) = r else {
            panic!("{r:?}")
        };
        assert!(why.contains("SPAR-17") && !why.contains(id), "{why}");
        let (r, _) = read_answer(
            &answer(
                200,
                envelope("<u:OverstigerMaxAntalSvarsposter><u:AntalPoster>120</u:AntalPoster><u:MaxAntalSvarsposter>100</u:MaxAntalSvarsposter></u:OverstigerMaxAntalSvarsposter>"),
            ),
            id,
        );
        assert!(matches!(r, Err(RegistryFailure::Garbled(_))));
        let fault = format!(
            "<S:Envelope xmlns:S=\"{NS_SOAP}\"><S:Body><S:Fault><faultcode>S:Server</faultcode>\
             <faultstring>Internt fel</faultstring></S:Fault></S:Body></S:Envelope>"
        );
        let (r, _) = read_answer(&answer(500, fault.into_bytes()), id);
        assert!(matches!(r, Err(RegistryFailure::Unavailable(_))), "{r:?}");
        let (r, _) = read_answer(&answer(200, b"<half".to_vec()), id);
        assert!(matches!(r, Err(RegistryFailure::Garbled(_))));
        let (r, _) = read_answer(&answer(503, Vec::new()), id);
        assert!(matches!(r, Err(RegistryFailure::Unavailable(_))));
        // Two records for one number.
        let post = "<s:PersonsokningSvarspost><p:PersonId><p:IdNummer>195704133106</p:IdNummer></p:PersonId></s:PersonsokningSvarspost>";
        let (r, _) = read_answer(&answer(200, envelope(&format!("{post}{post}"))), id);
        assert!(matches!(r, Err(RegistryFailure::Garbled(_))));
        let (r, _) = read_answer(&answer(200, envelope(post)), id);
        assert!(r.is_ok(), "{r:?}");
    }
}
