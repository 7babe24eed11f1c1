//! Bolagsverket SSBTGU ("Sammansatt bastjänst, grundläggande uppgifter om företag"),
//! SOAP 1.1 document/literal, operation `GetForetagsuppgifter` (soapAction
//! `urn:GetForetagsuppgifter`), schema version 2.5.0, at [`crate::SSBTGU_PATH`].
//!
//! Answers the items (`UDnnnn`) the request names, in XSD order, each with its
//! `Dataproducent`. Items that cannot be delivered carry a per-item `Fel` (`Typ`, `Kalla`,
//! `FelKod`, `FelBeskrivning`): an unknown company gives `ForetagFinnsEj`, a sole trader
//! with several businesses and no `Namnskyddslopnummer` gives `TvetydigBegaran` on the
//! Bolagsverket items. A request that is not a well-formed `GrundlaggandeUppgifterBegaran`
//! gives a SOAP Fault with `Servicefel`. No client certificate is required (the real
//! service uses mutual TLS).

use crate::data::{BvRegistration, Company, LegalForm};
use crate::faults::{FaultSpec, FieldFel, Source, Upstream};
use crate::state::SandboxState;
use crate::util::{now_xml_datetime, random_uuid, uuid_from_seed, xml_escape};
use crate::SSBTGU_PATH;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use quick_xml::events::Event;
use quick_xml::Reader;

const NS_GU: &str = "http://schema.bolagsverket.se/ssbtgu/v2/grundlaggandeuppgifter";
const NS_MD: &str = "http://schema.bolagsverket.se/ssbt/metadata";
const NS_FORETAG: &str = "http://schema.bolagsverket.se/ssbt/foretag";
const NS_FEL: &str = "http://schema.bolagsverket.se/ssbt/fel";
const NS_SF: &str = "http://schema.bolagsverket.se/ssbtgu/v2/servicefel";
const SCHEMA_VERSION: &str = "2.5.0";

/// All item ids of the XSD, in response order.
pub const ITEMS: [&str; 34] = [
    "UD0001", "UD0002", "UD0003", "UD0004", "UD0006", "UD0009", "UD0010", "UD0011", "UD0012",
    "UD0014", "UD0020", "UD0023", "UD0024", "UD0025", "UD0026", "UD0027", "UD0028", "UD0029",
    "UD0031", "UD0033", "UD0034", "UD0039", "UD0040", "UD0042", "UD0043", "UD0044", "UD0045",
    "UD0046", "UD0047", "UD0048", "UD0049", "UD0050", "UD0051", "UD0052",
];

/// The `Fel/@Typ` values of the XSD.
pub const FEL_TYPER: [&str; 10] = [
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

pub(crate) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(SSBTGU_PATH, web::post().to(handle));
}

/// The producer of an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Producer {
    Bolagsverket,
    Scb,
    Skatteverket,
}

impl Producer {
    pub fn name(self) -> &'static str {
        match self {
            Producer::Bolagsverket => "Bolagsverket",
            Producer::Scb => "SCB",
            Producer::Skatteverket => "Skatteverket",
        }
    }

    fn orgnr(self) -> &'static str {
        match self {
            Producer::Bolagsverket => "2021005489",
            Producer::Scb => "2021000837",
            Producer::Skatteverket => "2021005448",
        }
    }
}

/// Which authority produces an item.
pub fn producer(item: &str) -> Producer {
    match item {
        "UD0020" | "UD0023" | "UD0024" | "UD0029" | "UD0031" | "UD0033" => Producer::Skatteverket,
        "UD0002" | "UD0006" | "UD0009" | "UD0010" | "UD0034" | "UD0039" | "UD0040" | "UD0042"
        | "UD0043" | "UD0044" | "UD0049" | "UD0050" | "UD0051" | "UD0052" => Producer::Scb,
        _ => Producer::Bolagsverket,
    }
}

// ---------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, Default)]
struct Part {
    id_kind: String,
    id: String,
    namn: String,
    service: Option<String>,
}

#[derive(Debug, Default)]
struct Begaran {
    root_seen: bool,
    meddelande_id: Option<String>,
    transaktion_id: Option<String>,
    tidstampel: Option<String>,
    datakonsument: Option<Part>,
    anvandare: Option<Part>,
    foretag_id: Option<(String, String)>,
    namnskyddslopnummer: Option<String>,
    items: Vec<String>,
}

pub(crate) fn resolve_entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => {
            let num = name.strip_prefix('#')?;
            let code = match num.strip_prefix('x').or_else(|| num.strip_prefix('X')) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => num.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

fn ends_with(stack: &[String], tail: &[&str]) -> bool {
    stack.len() >= tail.len()
        && stack[stack.len() - tail.len()..]
            .iter()
            .zip(tail)
            .all(|(a, b)| a == b)
}

fn assign(b: &mut Begaran, stack: &[String], text: &str) {
    let n = stack.len();
    if n == 3
        && stack[0] == "Envelope"
        && stack[1] == "Body"
        && stack[2] == "GrundlaggandeUppgifterBegaran"
    {
        b.root_seen = true;
    }
    let t = text.trim().to_owned();
    let md = "GrundlaggandeUppgifterBegaranMetadata";
    if ends_with(stack, &[md, "MeddelandeId"]) {
        b.meddelande_id = Some(t);
    } else if ends_with(stack, &[md, "TransaktionId"]) {
        b.transaktion_id = Some(t);
    } else if ends_with(stack, &[md, "Tidstampel"]) {
        b.tidstampel = Some(t);
    } else if let Some(pos) = stack
        .iter()
        .rposition(|s| s == "Datakonsument" || s == "Anvandare")
    {
        let part = if stack[pos] == "Datakonsument" {
            b.datakonsument.get_or_insert_with(Part::default)
        } else {
            b.anvandare.get_or_insert_with(Part::default)
        };
        match &stack[pos + 1..] {
            [a] if a == "PartNamn" => part.namn = t,
            [a, kind] if a == "PartId" => {
                part.id_kind = kind.clone();
                part.id = t;
            }
            [a, s] if a == "Service" && s == "ServiceNamn" => part.service = Some(t),
            _ => {}
        }
    } else if ends_with(stack, &["ForetagId", "Namnskyddslopnummer"]) {
        b.namnskyddslopnummer = Some(t);
    } else if n >= 3 && stack[n - 3] == "ForetagId" && stack[n - 2] == "PersonIdentitetsbeteckning"
    {
        b.foretag_id = Some((stack[n - 1].clone(), t));
    } else if ends_with(
        stack,
        &[
            "GrundlaggandeUppgifterBegaranDetaljer",
            "GrundlaggandeUppgiftId",
        ],
    ) {
        b.items.push(t);
    }
}

fn parse(xml: &str) -> Result<Begaran, String> {
    let mut reader = Reader::from_str(xml);
    let mut b = Begaran::default();
    let mut stack: Vec<String> = Vec::new();
    let mut text = String::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                stack.push(e.local_name().as_ref().to_owned());
                text.clear();
                if stack.len() == 3 {
                    assign(&mut b, &stack, "");
                }
            }
            Ok(Event::Empty(e)) => {
                stack.push(e.local_name().as_ref().to_owned());
                assign(&mut b, &stack, "");
                stack.pop();
            }
            Ok(Event::End(_)) => {
                let t = std::mem::take(&mut text);
                assign(&mut b, &stack, &t);
                stack.pop();
            }
            Ok(Event::Text(t)) => text.push_str(&t.xml10_content()),
            Ok(Event::CData(t)) => text.push_str(&t.xml10_content()),
            Ok(Event::GeneralRef(r)) => match resolve_entity(&r) {
                Some(c) => text.push(c),
                None => return Err(format!("unknown entity &{};", &*r)),
            },
            Ok(Event::DocType(_)) => return Err("DOCTYPE is not allowed".into()),
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => {
                return Err(format!(
                    "XML error at byte {}: {e}",
                    reader.buffer_position()
                ))
            }
        }
    }
    if !stack.is_empty() {
        return Err("unexpected end of document".into());
    }
    Ok(b)
}

fn validate(b: &Begaran) -> Result<(), String> {
    if !b.root_seen {
        return Err("Body does not hold a GrundlaggandeUppgifterBegaran".into());
    }
    let missing = |what: &str| Err(format!("{what} saknas i begäran"));
    if b.meddelande_id.as_deref().is_none_or(str::is_empty) {
        return missing("MeddelandeId");
    }
    if b.transaktion_id.as_deref().is_none_or(str::is_empty) {
        return missing("TransaktionId");
    }
    if b.tidstampel.is_none() {
        return missing("Tidstampel");
    }
    if b.datakonsument.is_none() {
        return missing("Datakonsument");
    }
    if b.anvandare.is_none() {
        return missing("Anvandare");
    }
    let Some((kind, id)) = &b.foretag_id else {
        return missing("ForetagId");
    };
    let len_ok = match kind.as_str() {
        "Organisationsnummer" => id.len() == 10,
        "Personnummer" | "Samordningsnummer" | "GDNummer" => id.len() == 12,
        _ => return Err(format!("okänd identitetsbeteckning {kind}")),
    };
    if !len_ok || !id.bytes().all(|c| c.is_ascii_digit()) {
        return Err(format!("ogiltigt värde i {kind}"));
    }
    if let Some(n) = &b.namnskyddslopnummer {
        if !n.parse::<u32>().is_ok_and(|v| (1..=999).contains(&v)) {
            return Err("ogiltigt Namnskyddslopnummer".into());
        }
    }
    if b.items.is_empty() {
        return missing("GrundlaggandeUppgiftId");
    }
    if let Some(bad) = b.items.iter().find(|i| !ITEMS.contains(&i.as_str())) {
        return Err(format!("ogiltigt GrundlaggandeUppgiftId {bad}"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------------------

fn soap_fault(
    status: StatusCode,
    faultcode: &str,
    faultstring: &str,
    typ: &str,
    kalla: &str,
    beskrivning: &str,
    transaktion_id: Option<&str>,
) -> HttpResponse {
    let tid = transaktion_id
        .map(|t| format!("<TransaktionId>{}</TransaktionId>", xml_escape(t)))
        .unwrap_or_default();
    let body = format!(
        "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><soap:Fault>\
<faultcode>{faultcode}</faultcode><faultstring>{}</faultstring><detail>\
<ns5:Servicefel SchemaVersion=\"{SCHEMA_VERSION}\" xmlns:ns5=\"{NS_SF}\" xmlns=\"{NS_MD}\" xmlns:ns4=\"{NS_FEL}\">\
<ns5:ServicefelMetadata><MeddelandeId>{}</MeddelandeId>{tid}<Tidstampel>{}</Tidstampel>\
<Formedlare><PartId><Organisationsnummer>2021005489</Organisationsnummer></PartId><PartNamn>Bolagsverket</PartNamn><Service><ServiceNamn>SSBTGU</ServiceNamn></Service></Formedlare>\
</ns5:ServicefelMetadata><ns5:ServicefelDetaljer><ns4:Fel Typ=\"{typ}\" Kalla=\"{kalla}\"><ns4:FelBeskrivning>{}</ns4:FelBeskrivning></ns4:Fel></ns5:ServicefelDetaljer>\
</ns5:Servicefel></detail></soap:Fault></soap:Body></soap:Envelope>",
        xml_escape(faultstring),
        random_uuid(),
        now_xml_datetime(),
        xml_escape(beskrivning),
    );
    HttpResponse::build(status)
        .content_type("text/xml; charset=utf-8")
        .body(body)
}

/// The SOAP Fault for an injected 5xx (or the end of a `timeout` hold).
/// SSBTGU as the fault injector sees it.
pub(crate) const UPSTREAM: Upstream = Upstream {
    source: Source::Ssbtgu,
    error: server_error,
    field_fel: Some(validate_field_fel),
};

fn server_error(status: StatusCode, _: &HttpRequest) -> HttpResponse {
    let (typ, text) = if status == StatusCode::GATEWAY_TIMEOUT {
        ("Timeout", "Tidsgränsen för anropet överskreds.")
    } else {
        (
            "OtillgangligUppgiftskalla",
            "Tjänsten är för tillfället inte tillgänglig.",
        )
    };
    soap_fault(status, "soap:Server", text, typ, "Formedlare", text, None)
}

fn ssbt_fel_typ(t: &str) -> Option<&'static str> {
    let mapped = match t {
        "OTILLGANGLIG_UPPGIFTSKALLA" => "OtillgangligUppgiftskalla",
        "TIMEOUT" => "Timeout",
        "OGILTIG_BEGARAN" => "OgiltigBegaran",
        "ORGANISATION_FINNS_EJ" => "ForetagFinnsEj",
        other => other,
    };
    FEL_TYPER.iter().copied().find(|x| *x == mapped)
}

fn validate_field_fel(spec: &FaultSpec) -> Result<(), String> {
    if let Some(t) = &spec.fel_typ {
        if ssbt_fel_typ(t).is_none() {
            return Err(format!("fel_typ must be one of {FEL_TYPER:?}"));
        }
    }
    if let Some(f) = &spec.field {
        let ok = ITEMS.contains(&f.as_str())
            || ["Bolagsverket", "SCB", "Skatteverket"].contains(&f.as_str());
        if !ok {
            return Err(
                "field must be an item id (UD0029) or Bolagsverket, SCB, Skatteverket".into(),
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Answer
// ---------------------------------------------------------------------------------------

enum Content {
    Data(String),
    Empty,
    Fel {
        typ: String,
        kalla: &'static str,
        kod: Option<String>,
        text: String,
    },
}

fn fel(typ: &str, text: &str) -> Content {
    Content::Fel {
        typ: typ.to_owned(),
        kalla: "Dataproducent",
        kod: None,
        text: text.to_owned(),
    }
}

fn finns_ej() -> Content {
    fel(
        "ForetagFinnsEj",
        "Företaget finns inte hos dataproducenten.",
    )
}

fn uppgift_finns_ej() -> Content {
    fel(
        "UppgiftFinnsEj",
        "Uppgiften finns inte hos dataproducenten.",
    )
}

fn el(name: &str, text: &str) -> String {
    format!("<ns3:{name}>{}</ns3:{name}>", xml_escape(text))
}

fn ja_nej(b: bool) -> &'static str {
    if b {
        "Ja"
    } else {
        "Nej"
    }
}

fn date_part(s: &str) -> &str {
    s.get(..10).unwrap_or(s)
}

/// CFAR numbers of a company's workplaces (synthetic, stable).
fn cfar_numbers(c: &Company, n: u32) -> Vec<String> {
    (0..n.max(1))
        .map(|i| {
            let h = uuid_from_seed(&format!("cfar:{}:{i}", c.id)).replace('-', "");
            let digits: String = h
                .bytes()
                .map(|b| char::from(b'0' + (b % 10)))
                .take(8)
                .collect();
            digits
        })
        .collect()
}

fn avveckling(typ: &str, kod: &str, text: &str, datum: &str, avford: bool) -> String {
    let tag = if avford {
        "AvvecklingAvfordAnledning"
    } else {
        "Avveckling"
    };
    format!(
        "<ns3:{tag} Typ=\"{typ}\">{}{}{}</ns3:{tag}>",
        el("AvvecklingKod", kod),
        el("AvvecklingBeskrivning", text),
        el("AvvecklingDatum", date_part(datum))
    )
}

fn bv_item(item: &str, c: &Company, r: &BvRegistration) -> Content {
    match item {
        "UD0001" => match r.name() {
            Some(n) => Content::Data(el("ForetagNamn", n)),
            None => uppgift_finns_ej(),
        },
        "UD0003" => match &r.postadress {
            Some(p) => {
                let mut s = String::from("<ns3:Postadress>");
                if let Some(v) = &p.utdelningsadress {
                    s.push_str(&el("Utdelningsadress1", v));
                }
                s.push_str(&el("COAdress", p.co_adress.as_deref().unwrap_or("")));
                if let Some(v) = &p.postnummer {
                    s.push_str(&el("Postnummer", v));
                }
                if let Some(v) = &p.postort {
                    s.push_str(&el("Postort", v));
                }
                if let Some(v) = &p.land {
                    s.push_str(&el("Land", v));
                }
                s.push_str("</ns3:Postadress>");
                Content::Data(s)
            }
            None => uppgift_finns_ej(),
        },
        "UD0011" | "UD0012" => match c.scb.as_ref().and_then(|s| s.seat.as_ref()) {
            Some(seat) if item == "UD0011" => Content::Data(format!(
                "<ns3:Kommun>{}{}</ns3:Kommun>",
                el("KommunKod", &seat.kommun_kod),
                el("KommunNamn", &format!("{} kommun", seat.kommun))
            )),
            Some(seat) => Content::Data(format!(
                "<ns3:Lan>{}{}</ns3:Lan>",
                el("LanKod", &seat.lan_kod),
                el("LanNamn", &seat.lan)
            )),
            None => uppgift_finns_ej(),
        },
        "UD0014" => Content::Data(
            "<ns3:Rakenskapsar><ns3:RakenskapsarFrom><ns3:Manad>1</ns3:Manad><ns3:Dag>1</ns3:Dag></ns3:RakenskapsarFrom><ns3:RakenskapsarTom><ns3:Manad>12</ns3:Manad><ns3:Dag>31</ns3:Dag></ns3:RakenskapsarTom></ns3:Rakenskapsar>".into(),
        ),
        "UD0025" => Content::Data(format!(
            "<ns3:Foretagsform>{}{}</ns3:Foretagsform>",
            el("ForetagsformKod", &r.organisationsform.kod),
            el(
                "ForetagsformBeskrivning",
                &r.organisationsform.klartext.to_lowercase()
            )
        )),
        "UD0026" => match &r.registreringsdatum {
            Some(d) => Content::Data(el("ForetagRegistreratDatum", date_part(d))),
            None => uppgift_finns_ej(),
        },
        "UD0027" => {
            let mut parts = Vec::new();
            if let Some(d) = &r.deregistration {
                let (typ, kod, text) = match d.orsak.kod.as_str() {
                    "KKAV" => ("Konkurs", "21", "Konkurs avslutad"),
                    "LIAV" => ("Likvidation", "33", "Likvidation avslutad"),
                    "FUAV" => ("FusionOverlatande", "41", "Fusion avslutad"),
                    _ => ("", "", ""),
                };
                if !typ.is_empty() {
                    parts.push(avveckling(typ, kod, text, &d.datum, true));
                    parts.push(avveckling(typ, kod, text, &d.datum, false));
                }
            }
            for p in &r.proceedings {
                let (typ, kod, text) = match p.kod.as_str() {
                    "KK" => ("Konkurs", "20", "Konkurs inledd"),
                    "LI" => ("Likvidation", "32", "Likvidation beslutad"),
                    _ => ("Foretagsrekonstruktion", "50", "Företagsrekonstruktion inledd"),
                };
                parts.push(avveckling(typ, kod, text, &p.from_datum, false));
            }
            if parts.is_empty() {
                Content::Empty
            } else {
                Content::Data(format!(
                    "<ns3:Avvecklingsforfarande>{}</ns3:Avvecklingsforfarande>",
                    parts.concat()
                ))
            }
        }
        "UD0028" => match &r.deregistration {
            Some(d) => Content::Data(el("ForetagAvregistreratDatum", date_part(&d.datum))),
            None => Content::Empty,
        },
        "UD0045" => match c.legal_form {
            LegalForm::E => uppgift_finns_ej(),
            LegalForm::Hb | LegalForm::Kb => Content::Data(el(
                "FirmateckningBeskrivning",
                "Firman tecknas av bolagsmännen var för sig",
            )),
            _ => Content::Data(el("FirmateckningBeskrivning", "Firman tecknas av styrelsen")),
        },
        "UD0046" => match &r.verksamhetsbeskrivning {
            Some(v) => Content::Data(el("Verksamhetsbeskrivning", v)),
            None => uppgift_finns_ej(),
        },
        _ => uppgift_finns_ej(),
    }
}

fn scb_item(item: &str, c: &Company) -> Content {
    let Some(s) = &c.scb else {
        return finns_ej();
    };
    match item {
        "UD0002" => Content::Data(format!(
            "<ns3:JuridiskForm>{}{}</ns3:JuridiskForm>",
            el("JuridiskFormKod", &s.juridisk_form.kod),
            el("JuridiskFormBeskrivning", &s.juridisk_form.klartext)
        )),
        "UD0034" => Content::Data(
            cfar_numbers(c, s.workplaces)
                .iter()
                .map(|n| el("CFARNummer", n))
                .collect(),
        ),
        "UD0040" => {
            let mut x = String::from("<ns3:Belagenhetsadress>");
            if let Some(seat) = &s.seat {
                x.push_str(&format!(
                    "<ns3:Lan>{}{}</ns3:Lan><ns3:Kommun>{}{}</ns3:Kommun>",
                    el("LanKod", &seat.lan_kod),
                    el("LanNamn", seat.lan.trim_end_matches(" län")),
                    el("KommunKod", &seat.kommun_kod),
                    el("KommunNamn", &seat.kommun)
                ));
            }
            if let Some(addr) = &s.postadress.utdelningsadress {
                let (street, no) = match addr.rsplit_once(' ') {
                    Some((a, n)) if n.bytes().all(|b| b.is_ascii_digit()) => (a, Some(n)),
                    _ => (addr.as_str(), None),
                };
                x.push_str(&el("Adressomrade", &street.to_uppercase()));
                if let Some(n) = no {
                    x.push_str(&el("Adressplats", n));
                }
            }
            if let Some(v) = &s.postadress.postnummer {
                x.push_str(&el("Postnummer", v));
            }
            if let Some(v) = &s.postadress.postort {
                x.push_str(&el("Postort", v));
            }
            x.push_str("</ns3:Belagenhetsadress>");
            Content::Data(x)
        }
        "UD0042" => Content::Data(format!(
            "<ns2:AntalArbetsstallen>{}</ns2:AntalArbetsstallen>",
            s.workplaces.max(1)
        )),
        "UD0051" => Content::Data(format!(
            "<ns3:AntalAnstalldaStorleksklass>{}{}</ns3:AntalAnstalldaStorleksklass>",
            el("AntalAnstalldaStorleksklassKod", &s.employees_class),
            el(
                "AntalAnstalldaStorleksklassBeskrivning",
                crate::data::employees_class_text(&s.employees_class)
            )
        )),
        "UD0052" => Content::Data(
            cfar_numbers(c, s.workplaces)
                .iter()
                .map(|n| {
                    format!(
                        "<ns2:AntalAnstalldaStorleksklassArbetsstalle>{}<ns3:AntalAnstalldaStorleksklass>{}{}</ns3:AntalAnstalldaStorleksklass></ns2:AntalAnstalldaStorleksklassArbetsstalle>",
                        el("CFARNummer", n),
                        el("AntalAnstalldaStorleksklassKod", &s.employees_class),
                        el(
                            "AntalAnstalldaStorleksklassBeskrivning",
                            crate::data::employees_class_text(&s.employees_class)
                        )
                    )
                })
                .collect(),
        ),
        _ => uppgift_finns_ej(),
    }
}

fn skv_item(item: &str, c: &Company) -> Content {
    let Some(t) = c.tax else {
        return finns_ej();
    };
    match item {
        "UD0020" => match &c.holder {
            Some(h) => Content::Data(format!(
                "<ns3:FysiskPersonNamn><ns3:Fornamn Tilltalsnamn=\"Ja\">{}</ns3:Fornamn>{}</ns3:FysiskPersonNamn>",
                xml_escape(&h.fornamn),
                el("Efternamn", &h.efternamn)
            )),
            None => uppgift_finns_ej(),
        },
        "UD0024" => match &c.scb {
            Some(s) => Content::Data(
                s.sni
                    .iter()
                    .map(|k| {
                        format!(
                            "<ns3:SNI>{}{}</ns3:SNI>",
                            el("SNIKod", &k.kod),
                            el("SNIBeskrivning", &k.klartext)
                        )
                    })
                    .collect(),
            ),
            None => Content::Empty,
        },
        "UD0029" => Content::Data(el("Skatteform", ja_nej(t.f_skatt))),
        "UD0031" => Content::Data(el("Momsregistrerad", ja_nej(t.moms))),
        "UD0033" => Content::Data(el("Arbetsgivarregistrerad", ja_nej(t.arbetsgivare))),
        _ => uppgift_finns_ej(),
    }
}

/// Which Bolagsverket registration the request designates.
fn registration(c: &Company, lop: Option<u32>) -> Result<&BvRegistration, Content> {
    match lop {
        Some(n) => c
            .registrations
            .iter()
            .find(|r| r.namnskyddslopnummer == Some(n) || (r.namnskyddslopnummer.is_none() && n == 1))
            .ok_or_else(finns_ej),
        None => match c.registrations.as_slice() {
            [] => Err(finns_ej()),
            [one] => Ok(one),
            _ => Err(fel(
                "TvetydigBegaran",
                "Begäran är tvetydig: företaget har flera namnskyddslöpnummer. Ange Namnskyddslopnummer.",
            )),
        },
    }
}

fn item_content(item: &str, company: Option<&Company>, lop: Option<u32>) -> Content {
    let Some(c) = company else {
        return finns_ej();
    };
    match producer(item) {
        Producer::Bolagsverket => match registration(c, lop) {
            Ok(r) => bv_item(item, c, r),
            Err(f) => f,
        },
        Producer::Scb => scb_item(item, c),
        Producer::Skatteverket => skv_item(item, c),
    }
}

fn injected_fel(ff: &FieldFel) -> Content {
    let typ = ff
        .typ
        .as_deref()
        .and_then(ssbt_fel_typ)
        .unwrap_or("OtillgangligUppgiftskalla");
    let (kalla, kod, text) = match typ {
        "OtillgangligUppgiftskalla" => (
            "Formedlare",
            None,
            "Kan inte upprätta anslutning med dataproducenten",
        ),
        "Timeout" => (
            "Dataproducent",
            Some("14".to_owned()),
            "Underliggande system överskred begärd svarstid",
        ),
        _ => ("Dataproducent", None, "Uppgiften kunde inte levereras."),
    };
    Content::Fel {
        typ: typ.to_owned(),
        kalla,
        kod,
        text: ff.beskrivning.clone().unwrap_or_else(|| text.to_owned()),
    }
}

fn part_xml(tag: &str, p: &Part) -> String {
    let kind = if p.id_kind.is_empty() {
        "Organisationsnummer"
    } else {
        &p.id_kind
    };
    let service = p
        .service
        .as_ref()
        .map(|s| {
            format!(
                "<Service><ServiceNamn>{}</ServiceNamn></Service>",
                xml_escape(s)
            )
        })
        .unwrap_or_default();
    format!(
        "<{tag}><PartId><{kind}>{}</{kind}></PartId><PartNamn>{}</PartNamn>{service}</{tag}>",
        xml_escape(&p.id),
        xml_escape(&p.namn)
    )
}

fn svar(b: &Begaran, company: Option<&Company>, ff: Option<&FieldFel>) -> String {
    let (kind, id) = b.foretag_id.clone().unwrap_or_default();
    let lop: Option<u32> = b
        .namnskyddslopnummer
        .as_deref()
        .and_then(|s| s.parse().ok());
    let mut out = String::new();
    out.push_str(&format!(
        "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>\
<ns2:GrundlaggandeUppgifterSvar SchemaVersion=\"{SCHEMA_VERSION}\" xmlns=\"{NS_MD}\" xmlns:ns2=\"{NS_GU}\" xmlns:ns3=\"{NS_FORETAG}\" xmlns:ns5=\"{NS_FEL}\">\
<ns2:GrundlaggandeUppgifterSvarMetadata><MeddelandeId>{}</MeddelandeId><TransaktionId>{}</TransaktionId><Tidstampel>{}</Tidstampel>{}{}\
<Formedlare><PartId><Organisationsnummer>2021005489</Organisationsnummer></PartId><PartNamn>Bolagsverket</PartNamn><Service><ServiceNamn>SSBTGU</ServiceNamn></Service></Formedlare>\
</ns2:GrundlaggandeUppgifterSvarMetadata><ns2:GrundlaggandeUppgifterSvarDetaljer>",
        random_uuid(),
        xml_escape(b.transaktion_id.as_deref().unwrap_or("")),
        now_xml_datetime(),
        part_xml("Datakonsument", b.datakonsument.as_ref().unwrap_or(&Part::default())),
        part_xml("Anvandare", b.anvandare.as_ref().unwrap_or(&Part::default())),
    ));
    out.push_str(&format!(
        "<ns2:ForetagId><ns3:PersonIdentitetsbeteckning><ns3:{kind}>{}</ns3:{kind}></ns3:PersonIdentitetsbeteckning>{}</ns2:ForetagId>",
        xml_escape(&id),
        lop.map(|n| el("Namnskyddslopnummer", &n.to_string()))
            .unwrap_or_default()
    ));
    for item in ITEMS.iter().filter(|i| b.items.iter().any(|x| x == *i)) {
        let p = producer(item);
        let targeted = ff.is_some_and(|f| match f.field.as_deref() {
            None => true,
            Some(x) => x == *item || x == p.name(),
        });
        let content = match ff {
            Some(f) if targeted => injected_fel(f),
            _ => item_content(item, company, lop),
        };
        let service = if p == Producer::Bolagsverket && *item == "UD0001" {
            "<Service><ServiceNamn>BATGU</ServiceNamn></Service>"
        } else {
            ""
        };
        out.push_str(&format!(
            "<ns2:{item}><ns2:GrundlaggandeUppgiftMetadata><Dataproducent><PartId><Organisationsnummer>{}</Organisationsnummer></PartId><PartNamn>{}</PartNamn>{service}</Dataproducent></ns2:GrundlaggandeUppgiftMetadata>",
            p.orgnr(),
            p.name()
        ));
        match content {
            Content::Data(x) => out.push_str(&x),
            Content::Empty => {}
            Content::Fel {
                typ,
                kalla,
                kod,
                text,
            } => {
                out.push_str(&format!("<ns5:Fel Typ=\"{typ}\" Kalla=\"{kalla}\">"));
                if let Some(k) = kod {
                    out.push_str(&format!("<ns5:FelKod>{}</ns5:FelKod>", xml_escape(&k)));
                }
                out.push_str(&format!(
                    "<ns5:FelBeskrivning>{}</ns5:FelBeskrivning></ns5:Fel>",
                    xml_escape(&text)
                ));
            }
        }
        out.push_str(&format!("</ns2:{item}>"));
    }
    out.push_str("</ns2:GrundlaggandeUppgifterSvarDetaljer></ns2:GrundlaggandeUppgifterSvar></soap:Body></soap:Envelope>");
    out
}

async fn handle(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let st = state.clone();
    let r = req.clone();
    state
        .faults
        .guarded(&UPSTREAM, &req, move |ff| async move {
            if let Some(action) = r.headers().get("soapaction").and_then(|v| v.to_str().ok()) {
                let a = action.trim().trim_matches('"');
                if !a.is_empty() && a != "urn:GetForetagsuppgifter" {
                    return soap_fault(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "soap:Client",
                        "Okänd SOAPAction",
                        "OgiltigBegaran",
                        "Formedlare",
                        &format!("Okänd SOAPAction {a}"),
                        None,
                    );
                }
            }
            let text = match std::str::from_utf8(&body) {
                Ok(t) => t,
                Err(_) => {
                    return soap_fault(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "soap:Client",
                        "Ogiltig begäran",
                        "OgiltigBegaran",
                        "Formedlare",
                        "Begäran är inte UTF-8.",
                        None,
                    )
                }
            };
            let begaran = match parse(text).and_then(|b| validate(&b).map(|_| b)) {
                Ok(b) => b,
                Err(e) => {
                    return soap_fault(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "soap:Client",
                        "Ogiltig begäran",
                        "OgiltigBegaran",
                        "Formedlare",
                        &e,
                        None,
                    )
                }
            };
            let xml = {
                let ds = st.read();
                let id = begaran
                    .foretag_id
                    .as_ref()
                    .map(|x| x.1.as_str())
                    .unwrap_or("");
                svar(&begaran, ds.company(id), ff.as_ref())
            };
            HttpResponse::Ok()
                .content_type("text/xml; charset=utf-8")
                .body(xml)
        })
        .await
}

/// A minimal valid `GetForetagsuppgifter` request (for tests and examples).
pub fn example_request(id: &str, items: &[&str], namnskyddslopnummer: Option<u32>) -> String {
    let kind = if id.len() == 12 {
        "Personnummer"
    } else {
        "Organisationsnummer"
    };
    let lop = namnskyddslopnummer
        .map(|n| format!("<fo:Namnskyddslopnummer>{n}</fo:Namnskyddslopnummer>"))
        .unwrap_or_default();
    let ids: String = items
        .iter()
        .map(|i| format!("<gu:GrundlaggandeUppgiftId>{i}</gu:GrundlaggandeUppgiftId>"))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:gu=\"{NS_GU}\" xmlns:md=\"{NS_MD}\" xmlns:fo=\"{NS_FORETAG}\">\
<soapenv:Header/><soapenv:Body><gu:GrundlaggandeUppgifterBegaran SchemaVersion=\"{SCHEMA_VERSION}\">\
<gu:GrundlaggandeUppgifterBegaranMetadata><md:MeddelandeId>{}</md:MeddelandeId><md:TransaktionId>{}</md:TransaktionId><md:Tidstampel>{}</md:Tidstampel>\
<md:Datakonsument><md:PartId><md:Organisationsnummer>5560000001</md:Organisationsnummer></md:PartId><md:PartNamn>idreg</md:PartNamn></md:Datakonsument>\
<md:Anvandare><md:PartId><md:Organisationsnummer>5560000001</md:Organisationsnummer></md:PartId><md:PartNamn>idreg</md:PartNamn></md:Anvandare>\
</gu:GrundlaggandeUppgifterBegaranMetadata><gu:GrundlaggandeUppgifterBegaranDetaljer>\
<gu:ForetagId><fo:PersonIdentitetsbeteckning><fo:{kind}>{id}</fo:{kind}></fo:PersonIdentitetsbeteckning>{lop}</gu:ForetagId>{ids}\
</gu:GrundlaggandeUppgifterBegaranDetaljer></gu:GrundlaggandeUppgifterBegaran></soapenv:Body></soapenv:Envelope>",
        random_uuid(),
        random_uuid(),
        now_xml_datetime(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_example_request() {
        let xml = example_request("5560021361", &["UD0029", "UD0031"], Some(2));
        let b = parse(&xml).unwrap();
        validate(&b).unwrap();
        assert_eq!(
            b.foretag_id,
            Some(("Organisationsnummer".into(), "5560021361".into()))
        );
        assert_eq!(b.items, vec!["UD0029", "UD0031"]);
        assert_eq!(b.namnskyddslopnummer.as_deref(), Some("2"));
        assert_eq!(b.datakonsument.unwrap().id, "5560000001");
    }

    #[test]
    fn answers_are_well_formed_for_every_item() {
        let ds = crate::data::Dataset::standard();
        let mut ids: Vec<String> = crate::data::testnr::ALL
            .iter()
            .map(|s| s.to_string())
            .collect();
        ids.push(ds.bankrupt().unwrap().id.clone());
        ids.push(ds.deregistered().unwrap().id.clone());
        ids.push(ds.unknown_orgnr());
        for id in ids {
            let b = parse(&example_request(&id, &ITEMS, None)).unwrap();
            let ff = FieldFel {
                typ: Some("TIMEOUT".into()),
                beskrivning: None,
                field: Some("SCB".into()),
            };
            for f in [None, Some(&ff)] {
                let xml = svar(&b, ds.company(&id), f);
                assert!(parse(&xml).is_ok(), "{id}: {xml}");
                for item in ITEMS {
                    assert!(xml.contains(&format!("<ns2:{item}>")), "{id} {item}");
                }
            }
        }
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse("<a><b></a>").is_err());
        let b = parse("<x/>").unwrap();
        assert!(validate(&b).is_err());
        let xml = example_request("5560021361", &["UD9999"], None);
        assert!(validate(&parse(&xml).unwrap()).is_err());
    }
}
