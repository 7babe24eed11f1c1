//! SPAR's person search ("Personsök program-program" 2021.1) under [`crate::SPAR_PATH`] on the
//! sandbox's mutual-TLS listener: SOAP 1.1 `PersonSok` by `IdNummer`, answered as SPAR
//! answers.
//!
//! Who is known:
//! - the seven persons of the recorded customer-test answers (`adapters-se/testdata/spar/`):
//!   their answers are served byte for byte;
//! - synthetic persons for every marker state ([`persons`]), each on Skatteverket's list of
//!   test numbers. Unlike the real register (which leaves addresses out of a protected
//!   person's record unless the customer holds the Sekretess permission), the protected ones
//!   carry every kind of address, so that the service's removal of them is exercised;
//! - every other number on Skatteverket's lists of test personal and coordination numbers:
//!   an ordinary person derived from the number;
//! - anyone else: an answer with no record (the register holds no such person).
//!
//! `field_fel` faults put SPAR's in-band failures into an answer: `UNDANTAG` (default),
//! `OVERSTIGER_MAX`, `SOAP_FAULT` (a `soap:Client` fault) and `ANNAN_PERSON` (a well-formed
//! answer about another person than asked).

use crate::faults::{FaultSpec, FieldFel, Source, Upstream};
use crate::state::SandboxState;
use crate::SPAR_PATH;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use std::collections::HashSet;
use std::sync::OnceLock;

pub(crate) const UPSTREAM: Upstream = Upstream {
    source: Source::Personsokning,
    error: server_fault,
    field_fel: Some(validate_field_fel),
};

/// The SOAPAction of `PersonSok`.
pub const SOAP_ACTION: &str =
    "http://skatteverket.se/spar/personsok/2021.1/PersonsokService/Personsok";

/// The in-band failures a `field_fel` fault can put into an answer.
pub const FEL_TYPER: [&str; 4] = ["UNDANTAG", "OVERSTIGER_MAX", "SOAP_FAULT", "ANNAN_PERSON"];

pub(crate) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(SPAR_PATH, web::post().to(handle));
}

/// The persons of the recorded answers and the synthetic ones.
pub mod persons {
    /// Recorded: an ordinary person with a history of registrations.
    pub const ORDINARY: &str = "195704133106";
    /// Recorded: protected (sekretess set by SPAR and skyddad folkbokföring); no name, no
    /// address.
    pub const PROTECTED_RECORDED: &str = "198106039228";
    /// Recorded: emigrated, with a foreign address.
    pub const EMIGRATED_RECORDED: &str = "195309112489";
    /// Recorded: deceased.
    pub const DECEASED_RECORDED: &str = "198604069883";
    /// Recorded: a coordination number.
    pub const COORDINATION_RECORDED: &str = "199012652385";
    /// Recorded: a special postal address abroad.
    pub const SPECIAL_POSTAL_RECORDED: &str = "194411155858";
    /// Recorded: a referral to another number.
    pub const REFERRAL_RECORDED: &str = "197110021834";
    /// The seven recorded persons.
    pub const RECORDED: [&str; 7] = [
        ORDINARY,
        PROTECTED_RECORDED,
        EMIGRATED_RECORDED,
        DECEASED_RECORDED,
        COORDINATION_RECORDED,
        SPECIAL_POSTAL_RECORDED,
        REFERRAL_RECORDED,
    ];

    /// Synthetic: sekretessmarkering, with every kind of address in the record.
    pub const SEKRETESS: &str = "196202103138";
    /// Synthetic: skyddad folkbokföring, with every kind of address in the record.
    pub const SKYDDAD: &str = "196802169265";
    /// Synthetic: deceased (`AV`), with an address.
    pub const DECEASED: &str = "197504049292";
    /// Synthetic: emigrated (`UV`) without a marker, with a foreign address.
    pub const EMIGRATED: &str = "197902069272";
    /// Synthetic: emigrated with sekretessmarkering, foreign address in the record.
    pub const EMIGRATED_PROTECTED: &str = "198302099265";
    /// Synthetic: a special postal address in Sweden beside the registered one.
    pub const SPECIAL_POSTAL: &str = "198802192388";
    /// Synthetic: a coordination number with a contact address.
    pub const COORDINATION: &str = "197811862395";
    /// The synthetic persons with a marker state.
    pub const SYNTHETIC: [&str; 7] = [
        SEKRETESS,
        SKYDDAD,
        DECEASED,
        EMIGRATED,
        EMIGRATED_PROTECTED,
        SPECIAL_POSTAL,
        COORDINATION,
    ];
    /// The protected persons (recorded and synthetic).
    pub const PROTECTED: [&str; 4] = [PROTECTED_RECORDED, SEKRETESS, SKYDDAD, EMIGRATED_PROTECTED];

    /// Every address text the protected synthetic persons' records carry: none of them may
    /// ever leave the service (a privacy scan looks for each).
    pub const PROTECTED_ADDRESS_TEXTS: [&str; 10] = [
        "Hemliga gatan 7",
        "Skyddsvägen 12",
        "Box 4711 Dold",
        "c/o Gömd Kontakt",
        "Kontaktstigen 3",
        "Okändavägen 99",
        "Sekretessallén 5",
        "1 Hidden Lane",
        "Oslo 0150 Skjult",
        "DOLDBY",
    ];
}

/// The recorded answers, byte for byte.
fn recorded(id: &str) -> Option<&'static str> {
    Some(match id {
        persons::ORDINARY => {
            include_str!("../../adapters-se/testdata/spar/response-195704133106.xml")
        }
        persons::PROTECTED_RECORDED => {
            include_str!("../../adapters-se/testdata/spar/response-198106039228.xml")
        }
        persons::EMIGRATED_RECORDED => {
            include_str!("../../adapters-se/testdata/spar/response-195309112489.xml")
        }
        persons::DECEASED_RECORDED => {
            include_str!("../../adapters-se/testdata/spar/response-198604069883.xml")
        }
        persons::COORDINATION_RECORDED => {
            include_str!("../../adapters-se/testdata/spar/response-199012652385.xml")
        }
        persons::SPECIAL_POSTAL_RECORDED => {
            include_str!("../../adapters-se/testdata/spar/response-194411155858.xml")
        }
        persons::REFERRAL_RECORDED => {
            include_str!("../../adapters-se/testdata/spar/response-197110021834.xml")
        }
        _ => return None,
    })
}

/// Skatteverket's test numbers (personal and coordination), as the register's 12 digits.
fn test_numbers() -> &'static HashSet<&'static str> {
    static NUMBERS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    NUMBERS.get_or_init(|| {
        let lists = [
            include_str!("../../adapters-se/testdata/skatteverket/testpersonnummer.csv"),
            include_str!("../../adapters-se/testdata/skatteverket/testsamordningsnummer.csv"),
        ];
        lists
            .iter()
            .flat_map(|l| l.lines())
            .map(str::trim)
            .filter(|l| l.len() == 12 && l.bytes().all(|b| b.is_ascii_digit()))
            .collect()
    })
}

/// Whether the register knows this number.
pub fn is_known(id: &str) -> bool {
    recorded(id).is_some() || test_numbers().contains(id)
}

// ---------------------------------------------------------------------------------------
// The request
// ---------------------------------------------------------------------------------------

/// What the sandbox reads of a request: the identification block and the number.
#[derive(Debug, Default)]
struct Fraga {
    kund_nr_leverans_mottagare: Option<String>,
    kund_nr_slutkund: Option<String>,
    uppdrag_id: Option<String>,
    slut_anvandar_id: Option<String>,
    id_nummer: Option<String>,
}

/// Reads the request by local names (prefixes are the client's business).
fn parse(body: &[u8]) -> Result<Fraga, String> {
    use quick_xml::events::Event;
    let text = std::str::from_utf8(body).map_err(|_| "Begäran är inte UTF-8.".to_owned())?;
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<String> = Vec::new();
    let mut value = String::new();
    let mut f = Fraga::default();
    let mut saw_fraga = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                let name = e.local_name().as_ref().to_owned();
                saw_fraga |= name == "SPARPersonsokningFraga";
                stack.push(name);
                value.clear();
            }
            Ok(Event::End(_)) => {
                let v = std::mem::take(&mut value).trim().to_owned();
                let slot = match stack.last().map(String::as_str) {
                    Some("KundNrLeveransMottagare") => Some(&mut f.kund_nr_leverans_mottagare),
                    Some("KundNrSlutkund") => Some(&mut f.kund_nr_slutkund),
                    Some("UppdragId") => Some(&mut f.uppdrag_id),
                    Some("SlutAnvandarId") => Some(&mut f.slut_anvandar_id),
                    Some("IdNummer") if stack.iter().any(|s| s == "PersonsokningFraga") => {
                        Some(&mut f.id_nummer)
                    }
                    _ => None,
                };
                if let Some(slot) = slot.filter(|_| !v.is_empty()) {
                    *slot = Some(v);
                }
                stack.pop();
            }
            Ok(Event::Text(t)) => value.push_str(&t.xml10_content()),
            Ok(Event::CData(t)) => value.push_str(&t.xml10_content()),
            Ok(Event::GeneralRef(r)) => match crate::ssbtgu::resolve_entity(&r) {
                Some(c) => value.push(c),
                None => return Err("Okänd entitet i begäran.".into()),
            },
            Ok(Event::DocType(_)) => return Err("DOCTYPE är inte tillåtet.".into()),
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => return Err(format!("Begäran är inte välformad XML: {e}")),
        }
    }
    if !stack.is_empty() {
        return Err("Begäran slutar mitt i ett element.".into());
    }
    if !saw_fraga {
        return Err("Begäran saknar SPARPersonsokningFraga.".into());
    }
    Ok(f)
}

fn validate(f: &Fraga) -> Result<&str, String> {
    for (name, v) in [
        ("KundNrLeveransMottagare", &f.kund_nr_leverans_mottagare),
        ("KundNrSlutkund", &f.kund_nr_slutkund),
        ("UppdragId", &f.uppdrag_id),
    ] {
        match v {
            Some(v) if v.bytes().all(|b| b.is_ascii_digit()) => {}
            _ => return Err(format!("{name} saknas eller är ogiltigt.")),
        }
    }
    match &f.slut_anvandar_id {
        Some(v) if (1..=256).contains(&v.chars().count()) => {}
        _ => return Err("SlutAnvandarId saknas eller är ogiltigt.".into()),
    }
    let id = f
        .id_nummer
        .as_deref()
        .ok_or("Sökbegrepp saknas: endast IdNummer stöds.")?;
    let ok = id.len() == 12 && id.bytes().all(|b| b.is_ascii_digit()) && !id.starts_with('0');
    if !ok {
        return Err("IdNummer ska bestå av tolv siffror.".into());
    }
    Ok(id)
}

// ---------------------------------------------------------------------------------------
// The answer
// ---------------------------------------------------------------------------------------

const NAMESPACES: &str = concat!(
    "xmlns=\"http://statenspersonadressregister.se/schema/komponent/metadata/identifieringsinformationWs-1.1\" ",
    "xmlns:ns2=\"http://statenspersonadressregister.se/schema/komponent/generellt/datumtid-1.1\" ",
    "xmlns:ns3=\"http://statenspersonadressregister.se/schema/komponent/person/adress/deladeadresselement-1.1\" ",
    "xmlns:ns4=\"http://statenspersonadressregister.se/schema/komponent/person/person-1.2\" ",
    "xmlns:ns5=\"http://statenspersonadressregister.se/schema/komponent/person/skyddadepersonuppgifter-1.1\" ",
    "xmlns:ns7=\"http://statenspersonadressregister.se/schema/komponent/person/namn/deladenamnelement-1.0\" ",
    "xmlns:ns8=\"http://statenspersonadressregister.se/schema/komponent/person/namn/namn-1.0\" ",
    "xmlns:ns9=\"http://statenspersonadressregister.se/schema/komponent/person/avregistrering-1.0\" ",
    "xmlns:ns10=\"http://statenspersonadressregister.se/schema/komponent/person/persondetaljer-1.2\" ",
    "xmlns:ns13=\"http://statenspersonadressregister.se/schema/komponent/person/folkbokforing-1.0\" ",
    "xmlns:ns14=\"http://statenspersonadressregister.se/schema/komponent/person/adress/folkbokforingsadress-1.1\" ",
    "xmlns:ns15=\"http://statenspersonadressregister.se/schema/komponent/person/adress/sarskildpostadress-1.1\" ",
    "xmlns:ns16=\"http://statenspersonadressregister.se/schema/komponent/person/adress/utlandsadress-1.1\" ",
    "xmlns:ns17=\"http://statenspersonadressregister.se/schema/komponent/person/adress/kontaktadress-1.0\" ",
    "xmlns:ns22=\"http://statenspersonadressregister.se/schema/komponent/sok/undantag-1.0\" ",
    "xmlns:ns23=\"http://statenspersonadressregister.se/schema/komponent/sok/personsokningsokparametrar-1.1\" ",
    "xmlns:ns25=\"http://statenspersonadressregister.se/schema/personsok/2021.1/personsokningsvar\""
);

const CURRENT: &str =
    "<ns2:DatumFrom>2024-01-15</ns2:DatumFrom><ns2:DatumTill>9999-12-31</ns2:DatumTill>";
const FORMER: &str =
    "<ns2:DatumFrom>2015-03-01</ns2:DatumFrom><ns2:DatumTill>2024-01-15</ns2:DatumTill>";

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A whole answer around `content` (records, `Undantag`, ...), echoing the question.
fn svar(id: &str, content: &str) -> String {
    let uuid = uuid_for(id);
    format!(
        "<?xml version='1.0' encoding='UTF-8'?><S:Envelope xmlns:S=\"http://schemas.xmlsoap.org/soap/envelope/\">\
<S:Body><ns25:SPARPersonsokningSvar {NAMESPACES}>\
<ns23:PersonsokningFraga><ns4:IdNummer>{id}</ns4:IdNummer></ns23:PersonsokningFraga>\
{content}<ns25:UUID>{uuid}</ns25:UUID></ns25:SPARPersonsokningSvar></S:Body></S:Envelope>",
        id = esc(id)
    )
}

/// A stable UUID-shaped answer id per number and call.
fn uuid_for(id: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(1);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let h = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        h >> 32,
        (h >> 16) & 0xffff,
        h & 0xfff,
        n & 0xfff,
        n
    )
}

/// A Swedish address element (`SvenskAdress`) with its dates.
fn svensk(
    dates: &str,
    care_of: Option<&str>,
    line1: Option<&str>,
    line2: &str,
    postnr: &str,
    ort: &str,
) -> String {
    let mut s = format!("<ns3:SvenskAdress>{dates}");
    if let Some(c) = care_of {
        s.push_str(&format!("<ns3:CareOf>{}</ns3:CareOf>", esc(c)));
    }
    if let Some(l) = line1 {
        s.push_str(&format!(
            "<ns3:Utdelningsadress1>{}</ns3:Utdelningsadress1>",
            esc(l)
        ));
    }
    s.push_str(&format!(
        "<ns3:Utdelningsadress2>{}</ns3:Utdelningsadress2><ns3:PostNr>{postnr}</ns3:PostNr><ns3:Postort>{}</ns3:Postort></ns3:SvenskAdress>",
        esc(line2),
        esc(ort)
    ));
    s
}

fn internationell(dates: &str, lines: &[&str], land: &str) -> String {
    let mut s = format!("<ns3:InternationellAdress>{dates}");
    for (i, l) in lines.iter().enumerate() {
        let n = i + 1;
        s.push_str(&format!(
            "<ns3:Utdelningsadress{n}>{}</ns3:Utdelningsadress{n}>",
            esc(l)
        ));
    }
    s.push_str(&format!(
        "<ns3:Land>{}</ns3:Land></ns3:InternationellAdress>",
        esc(land)
    ));
    s
}

/// What one synthetic record says.
#[derive(Default)]
struct Synthetic<'a> {
    id: &'a str,
    typ: &'a str,
    sekretess: Option<&'a str>,
    skyddad: Option<&'a str>,
    fornamn: &'a str,
    tilltalsnamn: Option<&'a str>,
    efternamn: &'a str,
    fodelsedatum: String,
    kon: &'a str,
    avregistrering: Option<(&'a str, &'a str, &'a str)>,
    lan_kommun: Option<(&'a str, &'a str)>,
    folkbokforingsadress: Option<String>,
    sarskild_postadress: Option<String>,
    utlandsadress: Option<String>,
    kontaktadress: Option<String>,
}

fn ja_nej(v: Option<&str>) -> &'static str {
    if v.is_some() {
        "JA"
    } else {
        "NEJ"
    }
}

impl Synthetic<'_> {
    fn xml(&self) -> String {
        let mut s = format!(
            "<ns25:PersonsokningSvarspost><ns4:PersonId><ns4:IdNummer>{}</ns4:IdNummer><ns4:Typ>{}</ns4:Typ></ns4:PersonId>",
            self.id, self.typ
        );
        s.push_str(&format!(
            "<ns5:Sekretessmarkering>{}</ns5:Sekretessmarkering>",
            ja_nej(self.sekretess)
        ));
        if let Some(d) = self.sekretess {
            s.push_str(&format!("<ns5:SekretessDatum>{d}</ns5:SekretessDatum>"));
        }
        s.push_str(&format!(
            "<ns5:SkyddadFolkbokforing>{}</ns5:SkyddadFolkbokforing>",
            ja_nej(self.skyddad)
        ));
        if let Some(d) = self.skyddad {
            s.push_str(&format!(
                "<ns5:SkyddadFolkbokforingDatum>{d}</ns5:SkyddadFolkbokforingDatum>"
            ));
        }
        s.push_str("<ns4:SenasteAndringSPAR>2024-01-15</ns4:SenasteAndringSPAR>");
        s.push_str(&format!(
            "<ns8:Namn>{CURRENT}<ns7:Fornamn>{}</ns7:Fornamn>",
            esc(self.fornamn)
        ));
        if let Some(t) = self.tilltalsnamn {
            s.push_str(&format!("<ns7:Tilltalsnamn>{t}</ns7:Tilltalsnamn>"));
        }
        s.push_str(&format!(
            "<ns7:Efternamn>{}</ns7:Efternamn></ns8:Namn>",
            esc(self.efternamn)
        ));
        // A former name, to be passed over.
        s.push_str(&format!(
            "<ns8:Namn>{FORMER}<ns7:Fornamn>{}</ns7:Fornamn><ns7:Efternamn>Tidigarenamn</ns7:Efternamn></ns8:Namn>",
            esc(self.fornamn)
        ));
        s.push_str(&format!(
            "<ns10:Persondetaljer>{CURRENT}<ns5:Sekretessmarkering>{}</ns5:Sekretessmarkering><ns5:SkyddadFolkbokforing>{}</ns5:SkyddadFolkbokforing>",
            ja_nej(self.sekretess),
            ja_nej(self.skyddad)
        ));
        if let Some((kod, datum_element, datum)) = self.avregistrering {
            s.push_str(&format!(
                "<ns9:AvregistreringsorsakKod>{kod}</ns9:AvregistreringsorsakKod><ns9:{datum_element}>{datum}</ns9:{datum_element}>"
            ));
        }
        s.push_str(&format!(
            "<ns10:Fodelsedatum>{}</ns10:Fodelsedatum><ns10:Kon>{}</ns10:Kon></ns10:Persondetaljer>",
            self.fodelsedatum, self.kon
        ));
        if let Some((lan, kommun)) = self.lan_kommun {
            s.push_str(&format!(
                "<ns13:Folkbokforing>{CURRENT}<ns13:FolkbokfordLanKod>{lan}</ns13:FolkbokfordLanKod><ns13:FolkbokfordKommunKod>{kommun}</ns13:FolkbokfordKommunKod><ns13:Hemvist>Skriven på adressen</ns13:Hemvist><ns13:Folkbokforingsdatum>2024-01-15</ns13:Folkbokforingsdatum><ns13:DistriktKod>2150{kommun}</ns13:DistriktKod></ns13:Folkbokforing>"
            ));
            s.push_str(&format!(
                "<ns13:Folkbokforing>{FORMER}<ns13:FolkbokfordLanKod>14</ns13:FolkbokfordLanKod><ns13:FolkbokfordKommunKod>80</ns13:FolkbokfordKommunKod><ns13:Hemvist>Skriven på adressen</ns13:Hemvist><ns13:Folkbokforingsdatum>2015-03-01</ns13:Folkbokforingsdatum></ns13:Folkbokforing>"
            ));
        }
        for (tag, value) in [
            ("ns14:Folkbokforingsadress", &self.folkbokforingsadress),
            ("ns15:SarskildPostadress", &self.sarskild_postadress),
            ("ns16:Utlandsadress", &self.utlandsadress),
            ("ns17:Kontaktadress", &self.kontaktadress),
        ] {
            if let Some(v) = value {
                s.push_str(&format!("<{tag}>{v}</{tag}>"));
            }
        }
        s.push_str("</ns25:PersonsokningSvarspost>");
        s
    }
}

/// The birth date a number stands for (a coordination number's day is 60 more).
fn birth_date(id: &str) -> String {
    let day: u32 = id[6..8].parse().unwrap_or(1);
    let day = if day > 60 { day - 60 } else { day };
    format!("{}-{}-{:02}", &id[0..4], &id[4..6], day)
}

fn sex(id: &str) -> &'static str {
    let digit = id.as_bytes()[10] - b'0';
    if digit.is_multiple_of(2) {
        "KVINNA"
    } else {
        "MAN"
    }
}

fn typ(id: &str) -> &'static str {
    let day: u32 = id[6..8].parse().unwrap_or(1);
    if day > 60 {
        "SAMORDNINGSNUMMER"
    } else {
        "PERSONNUMMER"
    }
}

/// The synthetic record of a number with a marker state, or an ordinary person derived from
/// any other test number.
fn synthetic(id: &str) -> String {
    use persons::*;
    let base = Synthetic {
        id,
        typ: typ(id),
        fornamn: "Testa Provine",
        tilltalsnamn: Some("10"),
        efternamn: "Provsson",
        fodelsedatum: birth_date(id),
        kon: sex(id),
        lan_kommun: Some(("01", "80")),
        ..Synthetic::default()
    };
    let hidden_home = svensk(CURRENT, None, None, "Hemliga gatan 7", "11122", "STOCKHOLM");
    let hidden_former = svensk(FORMER, None, None, "Okändavägen 99", "98765", "DOLDBY");
    let s = match id {
        SEKRETESS => Synthetic {
            sekretess: Some("2021-06-01"),
            fornamn: "Sigrid Maja",
            tilltalsnamn: Some("20"),
            efternamn: "Sekretessdotter",
            folkbokforingsadress: Some(format!("{hidden_home}{hidden_former}")),
            sarskild_postadress: Some(svensk(
                CURRENT,
                None,
                Some("Box 4711 Dold"),
                "Postfack",
                "11199",
                "STOCKHOLM",
            )),
            kontaktadress: Some(svensk(
                CURRENT,
                Some("c/o Gömd Kontakt"),
                None,
                "Kontaktstigen 3",
                "11133",
                "STOCKHOLM",
            )),
            ..base
        },
        SKYDDAD => Synthetic {
            skyddad: Some("2019-09-09"),
            fornamn: "Sven",
            efternamn: "Skyddadsson",
            folkbokforingsadress: Some(svensk(
                CURRENT,
                None,
                None,
                "Skyddsvägen 12",
                "41101",
                "GÖTEBORG",
            )),
            sarskild_postadress: Some(internationell(
                CURRENT,
                &["1 Hidden Lane"],
                "STORBRITANNIEN",
            )),
            kontaktadress: Some(svensk(
                CURRENT,
                None,
                None,
                "Sekretessallén 5",
                "21120",
                "MALMÖ",
            )),
            ..base
        },
        DECEASED => Synthetic {
            fornamn: "Dagny",
            efternamn: "Avlidensdotter",
            avregistrering: Some(("AV", "Avlidendatum", "2023-10-00")),
            folkbokforingsadress: Some(svensk(
                CURRENT,
                None,
                None,
                "Minnesgatan 1",
                "75320",
                "UPPSALA",
            )),
            lan_kommun: Some(("03", "80")),
            ..base
        },
        EMIGRATED => Synthetic {
            fornamn: "Ulf Erik",
            tilltalsnamn: Some("20"),
            efternamn: "Utvandrare",
            avregistrering: Some(("UV", "Avregistreringsdatum", "2022-05-17")),
            lan_kommun: None,
            utlandsadress: Some(internationell(
                CURRENT,
                &["Strandvejen 10", "2100 København Ø"],
                "DANMARK",
            )),
            ..base
        },
        EMIGRATED_PROTECTED => Synthetic {
            sekretess: Some("2020-02-02"),
            fornamn: "Ulla",
            efternamn: "Skyddadutvandrare",
            avregistrering: Some(("UV", "Avregistreringsdatum", "2021-08-30")),
            lan_kommun: None,
            utlandsadress: Some(internationell(
                CURRENT,
                &["Karl Johans gate 1", "Oslo 0150 Skjult"],
                "NORGE",
            )),
            ..base
        },
        SPECIAL_POSTAL => Synthetic {
            fornamn: "Per Olof",
            tilltalsnamn: Some("12"),
            efternamn: "Postfacksson",
            folkbokforingsadress: Some(svensk(
                CURRENT,
                None,
                Some("LGH 1102"),
                "Storgatan 3",
                "90325",
                "UMEÅ",
            )),
            sarskild_postadress: Some(svensk(
                CURRENT,
                Some("Företaget AB"),
                None,
                "Box 123",
                "90106",
                "UMEÅ",
            )),
            lan_kommun: Some(("24", "80")),
            ..base
        },
        COORDINATION => Synthetic {
            fornamn: "Samir",
            efternamn: "Samordnare",
            lan_kommun: None,
            kontaktadress: Some(svensk(
                CURRENT,
                None,
                None,
                "Tillfälliga vägen 2",
                "41301",
                "GÖTEBORG",
            )),
            ..base
        },
        _ => {
            // An ordinary person derived from the number.
            let n: u32 = id[8..11].parse().unwrap_or(1);
            const GIVEN: [&str; 6] = ["Anna", "Erik", "Maria", "Lars", "Karin", "Johan"];
            return Synthetic {
                fornamn: GIVEN[(n as usize) % GIVEN.len()],
                efternamn: "Testperson",
                folkbokforingsadress: Some(svensk(
                    CURRENT,
                    None,
                    None,
                    &format!("Provgatan {}", n % 97 + 1),
                    "11220",
                    "STOCKHOLM",
                )),
                ..base
            }
            .xml();
        }
    };
    s.xml()
}

/// The answer for a number: the recorded one, a synthetic record, or no record.
pub fn answer_for(id: &str) -> String {
    if let Some(r) = recorded(id) {
        return r.to_owned();
    }
    if test_numbers().contains(id) {
        return svar(id, &synthetic(id));
    }
    svar(id, "")
}

// ---------------------------------------------------------------------------------------
// Faults and the route
// ---------------------------------------------------------------------------------------

fn soap_fault(status: StatusCode, code: &str, text: &str) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/xml; charset=utf-8")
        .body(format!(
            "<?xml version='1.0' encoding='UTF-8'?><S:Envelope xmlns:S=\"http://schemas.xmlsoap.org/soap/envelope/\">\
<S:Body><S:Fault><faultcode>S:{code}</faultcode><faultstring>{}</faultstring></S:Fault></S:Body></S:Envelope>",
            esc(text)
        ))
}

fn server_fault(status: StatusCode, _: &HttpRequest) -> HttpResponse {
    soap_fault(
        status,
        "Server",
        "Tjänsten är för närvarande inte tillgänglig.",
    )
}

fn validate_field_fel(spec: &FaultSpec) -> Result<(), String> {
    if let Some(t) = &spec.fel_typ {
        if !FEL_TYPER.contains(&t.as_str()) {
            return Err(format!("fel_typ must be one of {FEL_TYPER:?}"));
        }
    }
    if spec.field.is_some() {
        return Err("personsokning has no fields to target; omit `field`".into());
    }
    Ok(())
}

/// The answer an armed `field_fel` puts in place of the real one.
fn injected(ff: &FieldFel, id: &str) -> HttpResponse {
    let xml = |body: String| {
        HttpResponse::Ok()
            .content_type("text/xml; charset=utf-8")
            .body(body)
    };
    match ff.typ.as_deref().unwrap_or("UNDANTAG") {
        "OVERSTIGER_MAX" => xml(svar(
            id,
            "<ns22:OverstigerMaxAntalSvarsposter><ns22:AntalPoster>120</ns22:AntalPoster><ns22:MaxAntalSvarsposter>100</ns22:MaxAntalSvarsposter></ns22:OverstigerMaxAntalSvarsposter>",
        )),
        "SOAP_FAULT" => soap_fault(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Client",
            ff.beskrivning.as_deref().unwrap_or("Ogiltig begäran."),
        ),
        "ANNAN_PERSON" => {
            // A well-formed record of another known person, echoing the question asked.
            let other = if id == persons::ORDINARY {
                persons::REFERRAL_RECORDED
            } else {
                persons::ORDINARY
            };
            let record = synthetic(other);
            xml(svar(id, &record))
        }
        _ => xml(svar(
            id,
            &format!(
                "<ns22:Undantag><ns22:Kod>SPAR-9</ns22:Kod><ns22:Beskrivning>{}</ns22:Beskrivning></ns22:Undantag>",
                esc(ff.beskrivning.as_deref().unwrap_or("Tekniskt fel, försök igen senare."))
            ),
        )),
    }
}

/// Only the TLS listener serves SPAR, and it admits only clients with a certificate issued by
/// the sandbox's CA.
/// Judged by the listener the request came in on, never by a header a client sends
/// (`X-Forwarded-Proto`, `Forwarded`).
fn over_mutual_tls(req: &HttpRequest) -> bool {
    req.app_config().secure()
}

async fn handle(
    state: web::Data<SandboxState>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let r = req.clone();
    state
        .faults
        .guarded(&UPSTREAM, &req, move |ff| async move {
            if !over_mutual_tls(&r) {
                return soap_fault(
                    StatusCode::FORBIDDEN,
                    "Client",
                    "Organisationscertifikat krävs.",
                );
            }
            if let Some(action) = r.headers().get("soapaction").and_then(|v| v.to_str().ok()) {
                let a = action.trim().trim_matches('"');
                if !a.is_empty() && a != SOAP_ACTION {
                    return soap_fault(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "Client",
                        "Okänd SOAPAction.",
                    );
                }
            }
            let id = match parse(&body).and_then(|f| validate(&f).map(str::to_owned)) {
                Ok(id) => id,
                Err(e) => return soap_fault(StatusCode::INTERNAL_SERVER_ERROR, "Client", &e),
            };
            if let Some(ff) = ff {
                return injected(&ff, &id);
            }
            HttpResponse::Ok()
                .content_type("text/xml; charset=utf-8")
                .body(answer_for(&id))
        })
        .await
}

/// A valid `PersonSok` request by `IdNummer` (for tests and examples).
pub fn example_request(id: &str) -> String {
    format!(
        "<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" \
xmlns:per=\"http://statenspersonadressregister.se/schema/personsok/2021.1/personsokningfraga\" \
xmlns:iden=\"http://statenspersonadressregister.se/schema/komponent/metadata/identifieringsinformationWs-1.1\" \
xmlns:per1=\"http://statenspersonadressregister.se/schema/komponent/sok/personsokningsokparametrar-1.1\" \
xmlns:per2=\"http://statenspersonadressregister.se/schema/komponent/person/person-1.2\">\
<soapenv:Header/><soapenv:Body><per:SPARPersonsokningFraga><iden:Identifieringsinformation>\
<iden:KundNrLeveransMottagare>500243</iden:KundNrLeveransMottagare><iden:KundNrSlutkund>500243</iden:KundNrSlutkund>\
<iden:UppdragId>637</iden:UppdragId><iden:SlutAnvandarId>sandbox-example</iden:SlutAnvandarId>\
</iden:Identifieringsinformation><per1:PersonsokningFraga><per2:IdNummer>{id}</per2:IdNummer>\
</per1:PersonsokningFraga></per:SPARPersonsokningFraga></soapenv:Body></soapenv:Envelope>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_person_of_the_sandbox_is_a_test_number() {
        for id in persons::RECORDED.iter().chain(&persons::SYNTHETIC) {
            assert!(test_numbers().contains(id), "{id}");
        }
        assert!(!is_known("197001010000"));
    }

    #[test]
    fn the_request_is_read_and_checked() {
        let f = parse(example_request("195704133106").as_bytes()).unwrap();
        assert_eq!(validate(&f).unwrap(), "195704133106");
        let f = parse(example_request("12345").as_bytes()).unwrap();
        assert!(validate(&f).is_err());
        let bad =
            example_request("195704133106").replace("<iden:UppdragId>637</iden:UppdragId>", "");
        assert!(validate(&parse(bad.as_bytes()).unwrap()).is_err());
        assert!(parse(b"<a><b></a>").is_err());
    }

    #[test]
    fn recorded_answers_are_served_verbatim_and_others_synthesised() {
        assert_eq!(
            answer_for(persons::ORDINARY),
            include_str!("../../adapters-se/testdata/spar/response-195704133106.xml")
        );
        let s = answer_for(persons::SEKRETESS);
        assert!(s.contains("Hemliga gatan 7") && s.contains("<ns5:Sekretessmarkering>JA"));
        let unknown = answer_for("197001010000");
        assert!(!unknown.contains("PersonsokningSvarspost"));
        // Every synthetic answer is well-formed.
        for id in persons::SYNTHETIC.iter().chain(["189001019802"].iter()) {
            let a = answer_for(id);
            let mut r = quick_xml::Reader::from_str(&a);
            r.config_mut().check_end_names = true;
            loop {
                match r.read_event() {
                    Ok(quick_xml::events::Event::Eof) => break,
                    Ok(_) => {}
                    Err(e) => panic!("{id}: {e}"),
                }
            }
        }
    }
}
