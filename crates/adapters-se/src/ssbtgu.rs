//! Bolagsverket SSBTGU ("Sammansatt bastjänst för grundläggande uppgifter om företag"),
//! SOAP 1.1 `GetForetagsuppgifter` (schema 2.5.0), asked for Skatteverket's three
//! registrations only: UD0029 `Skatteform` (F-skatt), UD0031 `Momsregistrerad` (VAT) and
//! UD0033 `Arbetsgivarregistrerad` (employer).
//!
//! Each item carries either its value (`Ja`/`Nej`) or a `Fel`; a service-level failure is
//! a SOAP Fault with a `Servicefel` detail.

use crate::config::{SeConfigError, SsbtParty, SsbtguConfig};
use crate::USER_AGENT;
use chrono::{DateTime, SecondsFormat, Utc};
use connector_kit::soap::{read_soap_answer, SoapAnswer};
use connector_kit::xml::{escape, Element, NS_SOAP};
use connector_kit::{
    build_client, conclude, new_request_id, send, Answer, AnswerMeta, Operation, Step,
    MAX_DATA_BYTES, REQUEST_ID,
};
use domain::companies::profile::{RegistryFailure, TaxKind, TaxRegistrations};
use reqwest::header::{ACCEPT, CONTENT_TYPE};

pub(crate) const OP_GET_FORETAGSUPPGIFTER: Operation = Operation {
    source: crate::sources::SKATTEVERKET_UPPGIFTER,
    name: "SOAP GetForetagsuppgifter",
    schema_version: "ssbtgu-2.5.0",
    cost: 0,
};

/// The request schema version sent.
pub(crate) const SCHEMA_VERSION: &str = "2.5.0";
const SOAP_ACTION: &str = "\"urn:GetForetagsuppgifter\"";

const NS_GU: &str = "http://schema.bolagsverket.se/ssbtgu/v2/grundlaggandeuppgifter";
const NS_MD: &str = "http://schema.bolagsverket.se/ssbt/metadata";
const NS_FT: &str = "http://schema.bolagsverket.se/ssbt/foretag";
const NS_FEL: &str = "http://schema.bolagsverket.se/ssbt/fel";

/// The items asked for: (item, value element).
const ITEMS: [(&str, &str); 3] = [
    ("UD0029", "Skatteform"),
    ("UD0031", "Momsregistrerad"),
    ("UD0033", "Arbetsgivarregistrerad"),
];

pub(crate) struct SsbtguClient {
    http: reqwest::Client,
    url: String,
    consumer: SsbtParty,
    user: SsbtParty,
    ttl_ms: u128,
}

impl SsbtguClient {
    pub fn new(c: &SsbtguConfig) -> Result<Self, SeConfigError> {
        Ok(SsbtguClient {
            http: build_client("ssbtgu", USER_AGENT, c.timeouts, &c.tls)?,
            url: c.url.clone().ok_or(SeConfigError::Missing("ssbtgu.url"))?,
            consumer: c.consumer.clone(),
            user: c.user.clone(),
            ttl_ms: c.timeouts.total.as_millis(),
        })
    }

    /// One `GetForetagsuppgifter` call for an organisationsnummer.
    pub async fn tax(&self, orgnr: &str) -> Step<TaxRegistrations> {
        let op = &OP_GET_FORETAGSUPPGIFTER;
        let request_id = new_request_id();
        let envelope = request_envelope(
            &request_id,
            Utc::now(),
            self.ttl_ms,
            &self.consumer,
            &self.user,
            orgnr,
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
        let (call, result) = conclude(op, &request_id, outcome, |a| read_answer(a, orgnr));
        Step {
            calls: vec![call],
            result,
        }
    }
}

fn party(tag: &str, p: &SsbtParty, with_service: bool) -> String {
    let mut s = format!(
        "<md:{tag}><md:PartId><md:Organisationsnummer>{}</md:Organisationsnummer></md:PartId>\
         <md:PartNamn>{}</md:PartNamn>",
        escape(&p.orgnr),
        escape(&p.name)
    );
    if with_service {
        if let Some(svc) = p.service.as_deref().filter(|s| !s.trim().is_empty()) {
            s.push_str(&format!(
                "<md:Service><md:ServiceNamn>{}</md:ServiceNamn></md:Service>",
                escape(svc)
            ));
        }
    }
    s.push_str(&format!("</md:{tag}>"));
    s
}

/// The SOAP 1.1 request (`GrundlaggandeUppgifterBegaran`, schema 2.5.0). The request id
/// is both `MeddelandeId` and `TransaktionId`; `TTL` is our own time limit.
pub(crate) fn request_envelope(
    request_id: &str,
    now: DateTime<Utc>,
    ttl_ms: u128,
    consumer: &SsbtParty,
    user: &SsbtParty,
    orgnr: &str,
) -> String {
    let items: String = ITEMS
        .iter()
        .map(|(id, _)| format!("<gu:GrundlaggandeUppgiftId>{id}</gu:GrundlaggandeUppgiftId>"))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
<soapenv:Envelope xmlns:soapenv=\"{NS_SOAP}\" xmlns:gu=\"{NS_GU}\" xmlns:md=\"{NS_MD}\" xmlns:ft=\"{NS_FT}\">\
<soapenv:Header/>\
<soapenv:Body>\
<gu:GrundlaggandeUppgifterBegaran SchemaVersion=\"{SCHEMA_VERSION}\">\
<gu:GrundlaggandeUppgifterBegaranMetadata>\
<md:MeddelandeId>{rid}</md:MeddelandeId>\
<md:TransaktionId>{rid}</md:TransaktionId>\
<md:Tidstampel>{ts}</md:Tidstampel>\
<md:TTL Tidsenhet=\"Millisekunder\">{ttl}</md:TTL>\
{consumer}{user}\
</gu:GrundlaggandeUppgifterBegaranMetadata>\
<gu:GrundlaggandeUppgifterBegaranDetaljer>\
<gu:ForetagId><ft:PersonIdentitetsbeteckning><ft:Organisationsnummer>{orgnr}</ft:Organisationsnummer></ft:PersonIdentitetsbeteckning></gu:ForetagId>\
{items}\
</gu:GrundlaggandeUppgifterBegaranDetaljer>\
</gu:GrundlaggandeUppgifterBegaran>\
</soapenv:Body>\
</soapenv:Envelope>",
        rid = escape(request_id),
        ts = now.to_rfc3339_opts(SecondsFormat::Millis, true),
        ttl = ttl_ms.min(i32::MAX as u128),
        consumer = party("Datakonsument", consumer, true),
        user = party("Anvandare", user, false),
        orgnr = escape(orgnr),
    )
}

fn garbled(why: &str) -> RegistryFailure {
    RegistryFailure::Garbled(format!("{}: {why}", OP_GET_FORETAGSUPPGIFTER.label()))
}

/// Reads an SSBTGU answer of any status.
pub(crate) fn read_answer(
    a: &Answer,
    orgnr: &str,
) -> (Result<TaxRegistrations, RegistryFailure>, AnswerMeta) {
    read_soap_answer(a, &OP_GET_FORETAGSUPPGIFTER.label(), |soap| match soap {
        SoapAnswer::Fault(fault) => read_fault(fault),
        SoapAnswer::Body(body) => read_body(body, orgnr),
    })
}

/// `MeddelandeId`, `Tidstampel` of a metadata element and the schema version.
fn meta_of(metadata: Option<&Element>, schema: Option<&str>) -> AnswerMeta {
    let text = |name: &str| {
        metadata
            .and_then(|m| m.child(NS_MD, name).or_else(|| m.child_local(name)))
            .and_then(Element::text_trimmed)
    };
    AnswerMeta {
        upstream_ref: text("MeddelandeId").map(str::to_owned),
        source_timestamp: text("Tidstampel")
            .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&Utc)),
        schema_version: schema
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| format!("ssbtgu-{s}")),
    }
}

fn read_body(
    body: &Element,
    orgnr: &str,
) -> (Result<TaxRegistrations, RegistryFailure>, AnswerMeta) {
    let Some(svar) = body.child(NS_GU, "GrundlaggandeUppgifterSvar") else {
        return (
            Err(garbled("the answer has no GrundlaggandeUppgifterSvar")),
            AnswerMeta::default(),
        );
    };
    let meta = meta_of(
        svar.child(NS_GU, "GrundlaggandeUppgifterSvarMetadata"),
        svar.attr("SchemaVersion"),
    );
    (read_svar(svar, orgnr), meta)
}

fn read_svar(svar: &Element, orgnr: &str) -> Result<TaxRegistrations, RegistryFailure> {
    let detaljer = svar
        .child(NS_GU, "GrundlaggandeUppgifterSvarDetaljer")
        .ok_or_else(|| garbled("the answer has no GrundlaggandeUppgifterSvarDetaljer"))?;
    let named = detaljer
        .child(NS_GU, "ForetagId")
        .and_then(|f| f.child(NS_FT, "PersonIdentitetsbeteckning"))
        .and_then(|p| p.children.first())
        .and_then(Element::text_trimmed);
    if let Some(n) = named {
        if n != orgnr {
            return Err(garbled("the answer is about another organisation"));
        }
    }
    let mut values = [false; 3];
    for (slot, (item, value_name)) in values.iter_mut().zip(ITEMS) {
        *slot = read_item(detaljer, item, value_name)?;
    }
    Ok(TaxRegistrations::of(&[
        (TaxKind::BusinessTax, values[0]),
        (TaxKind::Vat, values[1]),
        (TaxKind::Employer, values[2]),
    ]))
}

/// One `Ja`/`Nej` item, or the failure its `Fel` stands for.
fn read_item(detaljer: &Element, item: &str, value_name: &str) -> Result<bool, RegistryFailure> {
    let el = detaljer
        .child(NS_GU, item)
        .ok_or_else(|| garbled(&format!("{item} is missing")))?;
    if let Some(fel) = el.child(NS_FEL, "Fel").or_else(|| el.child_local("Fel")) {
        return Err(fel_failure(fel, item));
    }
    let value = el
        .child(NS_FT, value_name)
        .or_else(|| el.child_local(value_name))
        .and_then(Element::text_trimmed)
        .ok_or_else(|| garbled(&format!("{item} carries no value")))?;
    match value {
        "Ja" => Ok(true),
        "Nej" => Ok(false),
        _ => Err(garbled(&format!("{item} is neither Ja nor Nej"))),
    }
}

/// A `Fel` (item or service level): a refused or ambiguous request, or an invalid answer
/// from the producer, is `Garbled`; everything else (source unavailable, timeout,
/// incomplete answer, not authorised, company or item unknown at the producer,
/// undefined) is `Unavailable`.
fn fel_failure(fel: &Element, place: &str) -> RegistryFailure {
    let typ = fel.attr("Typ").map(str::trim).unwrap_or("Odefinierad");
    let kalla = fel.attr("Kalla").map(str::trim).unwrap_or("?");
    let known = [
        "EjBehorig",
        "EjKomplettSvar",
        "ForetagFinnsEj",
        "OgiltigBegaran",
        "OgiltigtSvar",
        "OtillgangligUppgiftskalla",
        "Timeout",
        "TvetydigBegaran",
        "UppgiftFinnsEj",
        "Odefinierad",
    ];
    let typ = if known.contains(&typ) {
        typ
    } else {
        "Odefinierad"
    };
    let kalla = if matches!(kalla, "Dataproducent" | "Formedlare") {
        kalla
    } else {
        "?"
    };
    let reason = format!(
        "{}: Fel {typ} ({kalla}) on {place}",
        OP_GET_FORETAGSUPPGIFTER.label()
    );
    match typ {
        "OgiltigBegaran" | "TvetydigBegaran" | "OgiltigtSvar" => RegistryFailure::Garbled(reason),
        _ => RegistryFailure::Unavailable(reason),
    }
}

fn read_fault(fault: &Element) -> (Result<TaxRegistrations, RegistryFailure>, AnswerMeta) {
    let servicefel = fault
        .child_local("detail")
        .and_then(|d| d.child_local("Servicefel"));
    let meta = meta_of(
        servicefel.and_then(|s| s.child_local("ServicefelMetadata")),
        servicefel.and_then(|s| s.attr("SchemaVersion")),
    );
    let fel = servicefel
        .and_then(|s| s.child_local("ServicefelDetaljer"))
        .and_then(|d| d.child_local("Fel"));
    let failure = match fel {
        Some(f) => fel_failure(f, "the service (Servicefel)"),
        None => {
            let code = fault
                .child_local("faultcode")
                .and_then(Element::text_trimmed)
                .unwrap_or("");
            let reason = format!(
                "{}: SOAP fault without Servicefel",
                OP_GET_FORETAGSUPPGIFTER.label()
            );
            if code.ends_with("Client") {
                RegistryFailure::Garbled(reason)
            } else {
                RegistryFailure::Unavailable(reason)
            }
        }
    };
    (Err(failure), meta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples;
    use connector_kit::xml;

    const SAMPLE: &str = "ssbt/ssbtgu-response-5560000003.xml";

    fn answer(status: u16, body: Vec<u8>) -> Answer {
        Answer {
            status,
            headers: Default::default(),
            body,
        }
    }

    fn sample_text() -> String {
        String::from_utf8(samples::read(SAMPLE)).unwrap()
    }

    fn read_text(
        status: u16,
        text: &str,
    ) -> (Result<TaxRegistrations, RegistryFailure>, AnswerMeta) {
        read_answer(&answer(status, text.as_bytes().to_vec()), "5560000003")
    }

    #[test]
    fn recorded_answer() {
        let (r, meta) = read_answer(&answer(200, samples::read(SAMPLE)), "5560000003");
        assert_eq!(
            r,
            Ok(TaxRegistrations::of(&[
                (TaxKind::BusinessTax, true),
                (TaxKind::Vat, true),
                (TaxKind::Employer, true),
            ]))
        );
        assert_eq!(
            meta.upstream_ref.as_deref(),
            Some("ca7c824f-f197-4326-81fd-6ba9da668be1")
        );
        assert_eq!(
            meta.source_timestamp.map(|t| t.to_rfc3339()),
            Some("2022-10-03T07:11:02.908+00:00".to_owned())
        );
        assert_eq!(meta.schema_version.as_deref(), Some("ssbtgu-2.5.0"));
    }

    #[test]
    fn nej_is_false() {
        let t = sample_text().replace(
            "<ns3:Momsregistrerad>Ja</ns3:Momsregistrerad>",
            "<ns3:Momsregistrerad>Nej</ns3:Momsregistrerad>",
        );
        assert_eq!(
            read_text(200, &t).0,
            Ok(TaxRegistrations::of(&[
                (TaxKind::BusinessTax, true),
                (TaxKind::Vat, false),
                (TaxKind::Employer, true),
            ]))
        );
    }

    fn with_fel(typ: &str) -> String {
        sample_text().replace(
            "<ns3:Skatteform>Ja</ns3:Skatteform>",
            &format!(
                "<ns5:Fel Typ=\"{typ}\" Kalla=\"Dataproducent\"><ns5:FelKod>14</ns5:FelKod>\
                 <ns5:FelBeskrivning>x</ns5:FelBeskrivning></ns5:Fel>"
            ),
        )
    }

    #[test]
    fn item_fel() {
        for typ in [
            "OtillgangligUppgiftskalla",
            "Timeout",
            "EjKomplettSvar",
            "ForetagFinnsEj",
            "UppgiftFinnsEj",
            "EjBehorig",
            "Odefinierad",
        ] {
            match read_text(200, &with_fel(typ)).0 {
                Err(RegistryFailure::Unavailable(m)) => {
                    assert!(m.contains(typ) && m.contains("UD0029"), "{m}")
                }
                other => panic!("{typ}: {other:?}"),
            }
        }
        for typ in ["OgiltigBegaran", "TvetydigBegaran", "OgiltigtSvar"] {
            assert!(
                matches!(
                    read_text(200, &with_fel(typ)).0,
                    Err(RegistryFailure::Garbled(_))
                ),
                "{typ}"
            );
        }
    }

    #[test]
    fn missing_or_odd_items_are_garbled() {
        let t = sample_text();
        let start = t.find("<ns2:UD0033>").unwrap();
        let end = t.find("</ns2:UD0033>").unwrap() + "</ns2:UD0033>".len();
        let without = format!("{}{}", &t[..start], &t[end..]);
        assert!(matches!(
            read_text(200, &without).0,
            Err(RegistryFailure::Garbled(_))
        ));
        let odd = t.replace(
            "<ns3:Skatteform>Ja</ns3:Skatteform>",
            "<ns3:Skatteform>Kanske</ns3:Skatteform>",
        );
        assert!(matches!(
            read_text(200, &odd).0,
            Err(RegistryFailure::Garbled(_))
        ));
        let empty = t.replace("<ns3:Skatteform>Ja</ns3:Skatteform>", "");
        assert!(matches!(
            read_text(200, &empty).0,
            Err(RegistryFailure::Garbled(_))
        ));
        assert!(matches!(
            read_text(200, &t[..t.len() / 2]).0,
            Err(RegistryFailure::Garbled(_))
        ));
        assert!(matches!(
            read_answer(&answer(200, samples::read(SAMPLE)), "5560021361").0,
            Err(RegistryFailure::Garbled(_))
        ));
        assert!(matches!(
            read_text(200, "<a/>").0,
            Err(RegistryFailure::Garbled(_))
        ));
    }

    #[test]
    fn soap_faults() {
        let fault =
            String::from_utf8(samples::read("ssbt/ssbten-soapfault-servicefel.xml")).unwrap();
        let (r, meta) = read_text(500, &fault);
        assert!(matches!(r, Err(RegistryFailure::Unavailable(_))), "{r:?}");
        assert_eq!(
            meta.upstream_ref.as_deref(),
            Some("08d9bc21-c568-4f73-abb1-207df17ca29a")
        );
        let with_fel = fault.replace(
            "</ns5:ServicefelMetadata>",
            "</ns5:ServicefelMetadata><ns5:ServicefelDetaljer><ns4:Fel xmlns:ns4=\"http://schema.bolagsverket.se/ssbt/fel\" Typ=\"OgiltigBegaran\" Kalla=\"Formedlare\"/></ns5:ServicefelDetaljer>",
        );
        assert!(matches!(
            read_text(500, &with_fel).0,
            Err(RegistryFailure::Garbled(_))
        ));
        assert!(matches!(
            read_text(500, "Internal Server Error").0,
            Err(RegistryFailure::Unavailable(_))
        ));
        assert!(matches!(
            read_text(503, "").0,
            Err(RegistryFailure::Unavailable(_))
        ));
        assert!(matches!(
            read_text(404, "").0,
            Err(RegistryFailure::Garbled(_))
        ));
    }

    #[test]
    fn the_request_is_a_begaran_for_three_items() {
        let consumer = SsbtParty {
            orgnr: "5560021361".into(),
            name: "A & B <AB>".into(),
            service: Some("idreg".into()),
        };
        let user = SsbtParty {
            orgnr: "5560021361".into(),
            name: "idreg".into(),
            service: None,
        };
        let xml_text = request_envelope(
            "0190c2a4-0000-7000-8000-000000000000",
            Utc::now(),
            10_000,
            &consumer,
            &user,
            "5560021361",
        );
        let root = xml::parse(xml_text.as_bytes()).unwrap();
        let begaran = root
            .child(NS_SOAP, "Body")
            .and_then(|b| b.child(NS_GU, "GrundlaggandeUppgifterBegaran"))
            .unwrap();
        assert_eq!(begaran.attr("SchemaVersion"), Some("2.5.0"));
        let md = begaran
            .child(NS_GU, "GrundlaggandeUppgifterBegaranMetadata")
            .unwrap();
        assert_eq!(
            md.child(NS_MD, "Datakonsument")
                .and_then(|d| d.child(NS_MD, "PartNamn"))
                .map(|p| p.text.as_str()),
            Some("A & B <AB>")
        );
        let det = begaran
            .child(NS_GU, "GrundlaggandeUppgifterBegaranDetaljer")
            .unwrap();
        let ids: Vec<&str> = det
            .children
            .iter()
            .filter(|c| c.is(NS_GU, "GrundlaggandeUppgiftId"))
            .map(|c| c.text.as_str())
            .collect();
        assert_eq!(ids, ["UD0029", "UD0031", "UD0033"]);
        assert_eq!(
            det.child(NS_GU, "ForetagId")
                .and_then(|f| f.child(NS_FT, "PersonIdentitetsbeteckning"))
                .and_then(|p| p.child(NS_FT, "Organisationsnummer"))
                .map(|o| o.text.as_str()),
            Some("5560021361")
        );
    }
}
