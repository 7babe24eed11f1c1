//! The client of Brønnøysundregistrene's open Enhetsregisteret API
//! (`https://data.brreg.no/enhetsregisteret/api`, no credentials):
//!
//! | Call | Operation (record) | Accept |
//! |---|---|---|
//! | [`BrregClient::fetch_enhet`] | `GET /enhetsregisteret/api/enheter/{orgnr}` | `application/vnd.brreg.enhetsregisteret.enhet.v2+json` |
//! | [`BrregClient::fetch_roller`] | `GET /enhetsregisteret/api/enheter/{orgnr}/roller` | `application/vnd.brreg.enhetsregisteret.rolle.v1+json` |
//! | [`BrregClient::fetch_oppdateringer`] | `GET /enhetsregisteret/api/oppdateringer/enheter` | `application/vnd.brreg.enhetsregisteret.oppdatering.enhet.v1+json` |
//!
//! Every call goes through `connector-kit`: a bounded answer, a recorded call whatever the
//! outcome, failures classified (no answer, 5xx, 408, 429: unavailable; 400, another status
//! or an answer that does not read: unusable). What each status means here:
//!
//! - entity: 200 `Enhet` or `SlettetEnhet` (deleted, still 200); 404 (no body) "not found",
//!   a usable answer; 410 `GoneEnhet` (withdrawn from open data: drop every copy), a usable
//!   answer. The register checks only the shape of the number, so a 9-digit number with a
//!   wrong check digit would be 404 too, but [`Orgnr`] never lets one through.
//! - roles: 200 `Roller`; 404 not found; 410 gone (the specification declares neither;
//!   clients report both).
//! - feed: 200 page; anything else a failure.
//!
//! An answer about another number than asked is unusable. Reasons name the operation, never
//! the number.

pub mod model;

use crate::orgnr::Orgnr;
use crate::sources::ENHETSREGISTERET;
use chrono::{DateTime, Utc};
use connector_kit::{
    build_client, conclude, new_request_id, read_json, send, status_failure, Answer, AnswerMeta,
    ClientConfigError, Operation, Step, Timeouts, TlsConfig, MAX_DATA_BYTES, REQUEST_ID,
};
use domain::companies::profile::RegistryFailure;
use model::{EnhetAnswer, EnhetBody, GoneEnhet, OppdateringerEnheter, Roller, RollerAnswer};
use reqwest::header::{ACCEPT, CONTENT_TYPE};

/// The register's host in production; the client appends `/enhetsregisteret/api/...`.
pub const PRODUCTION_BASE_URL: &str = "https://data.brreg.no";
/// Brønnøysundregistrene's pre-production host (same API, test data).
pub const PPE_BASE_URL: &str = "https://data.ppe.brreg.no";

/// The API's path prefix under the host.
pub const API_PATH: &str = "/enhetsregisteret/api";

/// The versioned media types the client pins (the register's "Versjonering" table). A
/// breaking change gets a new version, so a pinned type keeps its shape; plain
/// `application/json` would be "the latest".
pub mod media {
    /// `GET /enheter/{orgnr}` (and the search).
    pub const ENHET_V2: &str = "application/vnd.brreg.enhetsregisteret.enhet.v2+json";
    /// `GET /enheter/{orgnr}/roller`.
    pub const ROLLE_V1: &str = "application/vnd.brreg.enhetsregisteret.rolle.v1+json";
    /// `GET /oppdateringer/enheter`.
    pub const OPPDATERING_ENHET_V1: &str =
        "application/vnd.brreg.enhetsregisteret.oppdatering.enhet.v1+json";
}

/// `GET /enheter/{orgnr}`.
pub const OP_ENHET: Operation = Operation {
    source: ENHETSREGISTERET,
    name: "GET /enhetsregisteret/api/enheter/{orgnr}",
    schema_version: media::ENHET_V2,
    cost: 0,
};

/// `GET /enheter/{orgnr}/roller`.
pub const OP_ROLLER: Operation = Operation {
    source: ENHETSREGISTERET,
    name: "GET /enhetsregisteret/api/enheter/{orgnr}/roller",
    schema_version: media::ROLLE_V1,
    cost: 0,
};

/// `GET /oppdateringer/enheter`.
pub const OP_OPPDATERINGER: Operation = Operation {
    source: ENHETSREGISTERET,
    name: "GET /enhetsregisteret/api/oppdateringer/enheter",
    schema_version: media::OPPDATERING_ENHET_V1,
    cost: 0,
};

/// The largest entity or roles answer read (a listed company's roles are about 15 KB).
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// The largest feed page asked for: the API allows 10 000 entries, but with
/// `includeChanges` such a page would pass the bounded answer ([`MAX_DATA_BYTES`]).
pub const MAX_FEED_PAGE_SIZE: u32 = 1000;

/// Where the client calls, how long it waits, and whom the register can contact.
#[derive(Clone, Debug)]
pub struct BrregConfig {
    /// The register's host (`https://data.brreg.no`, [`PRODUCTION_BASE_URL`]); the sandbox's
    /// plug-in base URL in tests.
    pub base_url: String,
    pub timeouts: Timeouts,
    /// How the operator can be reached (an e-mail address or a URL), sent in the
    /// User-Agent: clients report that the register can block anonymous agents.
    pub contact: String,
}

impl BrregConfig {
    /// The production host with the default time limits.
    pub fn production(contact: impl Into<String>) -> BrregConfig {
        BrregConfig {
            base_url: PRODUCTION_BASE_URL.to_owned(),
            timeouts: Timeouts::default(),
            contact: contact.into(),
        }
    }
}

/// Why a client could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BrregConfigError {
    /// The contact is empty, too long, or not printable ASCII.
    #[error(
        "the Enhetsregisteret contact (an e-mail address or URL for the User-Agent) must be 1 to 200 printable ASCII characters"
    )]
    Contact,
    #[error(transparent)]
    Client(#[from] ClientConfigError),
}

/// The User-Agent sent: `idreg-adapters-no/<version> (+<contact>)`.
pub fn user_agent(contact: &str) -> Result<String, BrregConfigError> {
    let contact = contact.trim();
    if contact.is_empty()
        || contact.len() > 200
        || !contact.bytes().all(|b| (0x20..0x7f).contains(&b))
    {
        return Err(BrregConfigError::Contact);
    }
    Ok(format!(
        "idreg-adapters-no/{} (+{contact})",
        env!("CARGO_PKG_VERSION")
    ))
}

/// A feed request (`GET /oppdateringer/enheter`). The register recommends starting from a
/// time (`dato`) and then paging by `oppdateringsid = last + 1`
/// ([`OppdateringerEnheter::next_oppdateringsid`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedQuery {
    /// Entries published at or after this instant.
    pub dato: Option<DateTime<Utc>>,
    /// Entries with this id or later.
    pub oppdateringsid: Option<u64>,
    /// Only these entities (empty: all).
    pub organisasjonsnummer: Vec<Orgnr>,
    /// Ask for the JSON Patch of each change (`includeChanges=true`).
    pub include_changes: bool,
    /// Entries per page, 1 to [`MAX_FEED_PAGE_SIZE`].
    pub size: u32,
    /// The page (0-based) within the result; `(page + 1) * size` may not pass 10 000.
    pub page: Option<u32>,
    /// Newest first (`sort=id,DESC`) instead of oldest first.
    pub descending: bool,
}

impl FeedQuery {
    fn new() -> FeedQuery {
        FeedQuery {
            dato: None,
            oppdateringsid: None,
            organisasjonsnummer: Vec::new(),
            include_changes: false,
            size: 100,
            page: None,
            descending: false,
        }
    }

    /// Entries published at or after `dato` (the first request of a copy).
    pub fn from_dato(dato: DateTime<Utc>) -> FeedQuery {
        FeedQuery {
            dato: Some(dato),
            ..FeedQuery::new()
        }
    }

    /// Entries from `oppdateringsid` on (every later request).
    pub fn from_oppdateringsid(oppdateringsid: u64) -> FeedQuery {
        FeedQuery {
            oppdateringsid: Some(oppdateringsid.max(1)),
            ..FeedQuery::new()
        }
    }

    /// The newest entries first (with [`FeedQuery::size`] 1: the feed's head).
    pub fn newest() -> FeedQuery {
        FeedQuery {
            descending: true,
            ..FeedQuery::new()
        }
    }

    /// Entries per page, kept within 1 to [`MAX_FEED_PAGE_SIZE`].
    pub fn size(mut self, size: u32) -> FeedQuery {
        self.size = size.clamp(1, MAX_FEED_PAGE_SIZE);
        self
    }

    /// With each change's JSON Patch.
    pub fn include_changes(mut self) -> FeedQuery {
        self.include_changes = true;
        self
    }

    /// Only these entities.
    pub fn for_entities(mut self, orgnr: &[Orgnr]) -> FeedQuery {
        self.organisasjonsnummer = orgnr.to_vec();
        self
    }

    /// One page of the result.
    pub fn page(mut self, page: u32) -> FeedQuery {
        self.page = Some(page);
        self
    }

    /// The query string's pairs, in the register's spelling.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut q = Vec::new();
        if let Some(d) = self.dato {
            q.push(("dato", d.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()));
        }
        if let Some(id) = self.oppdateringsid {
            q.push(("oppdateringsid", id.to_string()));
        }
        if !self.organisasjonsnummer.is_empty() {
            let list: Vec<&str> = self.organisasjonsnummer.iter().map(Orgnr::as_str).collect();
            q.push(("organisasjonsnummer", list.join(",")));
        }
        if self.include_changes {
            q.push(("includeChanges", "true".to_owned()));
        }
        if let Some(p) = self.page {
            q.push(("page", p.to_string()));
        }
        q.push(("size", self.size.clamp(1, MAX_FEED_PAGE_SIZE).to_string()));
        q.push((
            "sort",
            if self.descending { "id,DESC" } else { "id,ASC" }.to_owned(),
        ));
        q
    }
}

/// The register's client.
pub struct BrregClient {
    http: reqwest::Client,
    base_url: String,
}

impl std::fmt::Debug for BrregClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrregClient")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

fn garbled(op: &Operation, why: &str) -> RegistryFailure {
    RegistryFailure::Garbled(format!("{}: {why}", op.label()))
}

/// The answer's media type without parameters, lower case (`None` without one).
fn media_type(a: &Answer) -> Option<String> {
    a.header(CONTENT_TYPE.as_str()).map(|ct| {
        ct.split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
    })
}

/// Checks a 200 answer's media type against the pinned one: the pinned type or plain JSON
/// (the unversioned "latest", recorded as such) is read; another version of the register's
/// types is not (its shape is not the one this client knows).
fn check_media(op: &Operation, a: &Answer) -> Result<AnswerMeta, RegistryFailure> {
    match media_type(a) {
        None => Ok(AnswerMeta::default()),
        Some(m) if m == op.schema_version => Ok(AnswerMeta::default()),
        Some(m) if m == "application/json" || m == "application/hal+json" => Ok(AnswerMeta {
            schema_version: Some(m),
            ..AnswerMeta::default()
        }),
        Some(_) => Err(garbled(
            op,
            "the answer is in another media type than the version asked for",
        )),
    }
}

impl BrregClient {
    /// A client for `config`'s host.
    pub fn new(config: &BrregConfig) -> Result<BrregClient, BrregConfigError> {
        let http = build_client(
            "IDREG_NO_ENHETSREGISTERET_BASE_URL",
            &user_agent(&config.contact)?,
            config.timeouts,
            &TlsConfig::default(),
        )?;
        Ok(BrregClient {
            http,
            base_url: config.base_url.trim_end_matches('/').to_owned(),
        })
    }

    fn get(&self, path: &str, accept: &'static str, request_id: &str) -> reqwest::RequestBuilder {
        self.http
            .get(format!("{}{API_PATH}{path}", self.base_url))
            .header(REQUEST_ID, request_id)
            .header(ACCEPT, accept)
    }

    /// The entity with this number: its entry, its deletion, or its withdrawal (410). 404 is
    /// [`RegistryFailure::NotFound`].
    pub async fn fetch_enhet(&self, orgnr: &Orgnr) -> Step<EnhetAnswer> {
        let op = &OP_ENHET;
        let request_id = new_request_id();
        let request = self.get(
            &format!("/enheter/{}", orgnr.as_str()),
            media::ENHET_V2,
            &request_id,
        );
        let outcome = send(request, MAX_ANSWER_BYTES).await;
        let (call, result) = conclude(op, &request_id, outcome, |a| match a.status {
            200 => match check_media(op, a).and_then(|meta| {
                read_json::<EnhetBody>(&op.label(), &a.body)
                    .map(EnhetAnswer::from)
                    .and_then(|e| about(op, orgnr, e))
                    .map(|e| (e, meta))
            }) {
                Ok((e, meta)) => (Ok(e), meta),
                Err(f) => (Err(f), AnswerMeta::default()),
            },
            404 => (Err(RegistryFailure::NotFound), AnswerMeta::default()),
            410 => (gone(op, orgnr, &a.body), AnswerMeta::default()),
            s => (Err(status_failure(&op.label(), s)), AnswerMeta::default()),
        });
        Step {
            calls: vec![call],
            result,
        }
    }

    /// The entity's roles. 404 is [`RegistryFailure::NotFound`]; 410 is
    /// [`RollerAnswer::Gone`].
    pub async fn fetch_roller(&self, orgnr: &Orgnr) -> Step<RollerAnswer> {
        let op = &OP_ROLLER;
        let request_id = new_request_id();
        let request = self.get(
            &format!("/enheter/{}/roller", orgnr.as_str()),
            media::ROLLE_V1,
            &request_id,
        );
        let outcome = send(request, MAX_ANSWER_BYTES).await;
        let (call, result) = conclude(op, &request_id, outcome, |a| match a.status {
            200 => match check_media(op, a).and_then(|meta| {
                read_roller(op, orgnr, &a.body).map(|r| (RollerAnswer::Roller(r), meta))
            }) {
                Ok((r, meta)) => (Ok(r), meta),
                Err(f) => (Err(f), AnswerMeta::default()),
            },
            404 => (Err(RegistryFailure::NotFound), AnswerMeta::default()),
            410 => (Ok(RollerAnswer::Gone), AnswerMeta::default()),
            s => (Err(status_failure(&op.label(), s)), AnswerMeta::default()),
        });
        Step {
            calls: vec![call],
            result,
        }
    }

    /// A page of the update feed.
    pub async fn fetch_oppdateringer(&self, query: &FeedQuery) -> Step<OppdateringerEnheter> {
        let op = &OP_OPPDATERINGER;
        let request_id = new_request_id();
        let request = self
            .get(
                "/oppdateringer/enheter",
                media::OPPDATERING_ENHET_V1,
                &request_id,
            )
            .query(&query.pairs());
        let outcome = send(request, MAX_DATA_BYTES).await;
        let (call, result) = conclude(op, &request_id, outcome, |a| match a.status {
            200 => match check_media(op, a).and_then(|meta| {
                read_json::<OppdateringerEnheter>(&op.label(), &a.body).map(|p| (p, meta))
            }) {
                Ok((p, meta)) => (Ok(p), meta),
                Err(f) => (Err(f), AnswerMeta::default()),
            },
            s => (Err(status_failure(&op.label(), s)), AnswerMeta::default()),
        });
        Step {
            calls: vec![call],
            result,
        }
    }
}

/// The answer, when it is about the number asked.
fn about(op: &Operation, orgnr: &Orgnr, e: EnhetAnswer) -> Result<EnhetAnswer, RegistryFailure> {
    if e.organisasjonsnummer() != orgnr.as_str() {
        return Err(garbled(op, "the answer is about another entity than asked"));
    }
    Ok(e)
}

/// A 410: the `GoneEnhet` body when it reads and is about the number asked; the body's
/// shape is known from the specification only, so a missing or unreadable one still means
/// gone (with no date).
fn gone(op: &Operation, orgnr: &Orgnr, body: &[u8]) -> Result<EnhetAnswer, RegistryFailure> {
    match serde_json::from_slice::<GoneEnhet>(body) {
        Ok(g) => about(op, orgnr, EnhetAnswer::Gone(g)),
        Err(_) => Ok(EnhetAnswer::Gone(GoneEnhet {
            organisasjonsnummer: orgnr.as_str().to_owned(),
            slettedato: None,
        })),
    }
}

/// A roles answer; its `_links.enhet` (when given) must point at the number asked.
fn read_roller(op: &Operation, orgnr: &Orgnr, body: &[u8]) -> Result<Roller, RegistryFailure> {
    #[derive(serde::Deserialize)]
    struct Href {
        href: String,
    }
    #[derive(serde::Deserialize)]
    struct Links {
        enhet: Option<Href>,
    }
    #[derive(serde::Deserialize)]
    struct WithLinks {
        #[serde(rename = "_links")]
        links: Option<Links>,
    }
    let roller = read_json::<Roller>(&op.label(), body)?;
    let links = read_json::<WithLinks>(&op.label(), body)?;
    if let Some(href) = links.links.and_then(|l| l.enhet).map(|h| h.href) {
        let last = href.trim_end_matches('/').rsplit('/').next().unwrap_or("");
        if last != orgnr.as_str() {
            return Err(garbled(op, "the roles are about another entity than asked"));
        }
    }
    Ok(roller)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples;
    use chrono::NaiveDate;
    use model::*;

    fn date(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn enhet(rel: &str) -> EnhetAnswer {
        read_json::<EnhetBody>("test", &samples::read(rel))
            .map(EnhetAnswer::from)
            .unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    fn active(rel: &str) -> Enhet {
        match enhet(rel) {
            EnhetAnswer::Enhet(e) => *e,
            other => panic!("{rel}: {other:?}"),
        }
    }

    fn orgnr(s: &str) -> Orgnr {
        Orgnr::parse(s).unwrap()
    }

    #[test]
    fn equinor_reads_field_by_field() {
        let e = active("entity/enhet-923609016-equinor.json");
        assert_eq!(e.organisasjonsnummer, "923609016");
        assert_eq!(e.navn, "EQUINOR ASA");
        assert_eq!(e.organisasjonsform.kode, "ASA");
        assert_eq!(e.organisasjonsform.beskrivelse, "Allmennaksjeselskap");
        assert_eq!(e.registreringsdato_enhetsregisteret, date("1995-03-12"));
        assert_eq!(e.stiftelsesdato, Some(date("1972-09-18")));
        assert_eq!(e.historiske_navn.len(), 4);
        assert_eq!(
            e.historiske_navn[0].navn,
            "Den norske stats oljeselskap a.s"
        );
        assert_eq!(
            e.historiske_navn[0].fra_dato.unwrap().to_string(),
            "1995-03-12 16:23:00"
        );
        let fa = e.forretningsadresse.as_ref().unwrap();
        assert_eq!(fa.lines(), ["Forusbeen 50"]);
        assert_eq!(fa.postnummer.as_deref(), Some("4035"));
        assert_eq!(fa.poststed.as_deref(), Some("STAVANGER"));
        assert_eq!(fa.kommunenummer.as_deref(), Some("1103"));
        assert_eq!(fa.landkode.as_deref(), Some("NO"));
        assert!(!fa.is_foreign());
        assert_eq!(
            e.postadresse.as_ref().unwrap().street().as_deref(),
            Some("Postboks 8500")
        );
        let nace: Vec<(&str, &str)> = e
            .naeringskoder()
            .iter()
            .map(|k| {
                (
                    k.kode.as_deref().unwrap(),
                    k.beskrivelse.as_deref().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            nace,
            [
                ("06.100", "Utvinning av råolje"),
                ("06.200", "Utvinning av naturgass"),
                (
                    "19.200",
                    "Produksjon av raffinerte petroleumsprodukter og fossile brenselsprodukter"
                ),
            ]
        );
        assert_eq!(e.employees(), Employees::Count(21239));
        assert_eq!(
            e.registreringsdato_antall_ansatte_nav_aaregisteret,
            Some(date("2026-08-10"))
        );
        assert!(e.registrert_i_mvaregisteret);
        assert_eq!(e.vat_number().as_deref(), Some("NO923609016MVA"));
        assert_eq!(
            e.frivillig_mva_registrert_beskrivelser,
            ["Utleier av bygg eller anlegg"]
        );
        assert_eq!(e.hjemmeside.as_deref(), Some("www.equinor.com"));
        assert_eq!(e.telefon.as_deref(), Some("51 99 00 00"));
        assert_eq!(
            e.institusjonell_sektorkode
                .as_ref()
                .unwrap()
                .kode
                .as_deref(),
            Some("1120")
        );
        assert!(e.registrert_i_foretaksregisteret);
        assert!(e.er_i_konsern);
        assert_eq!(e.siste_innsendte_aarsregnskap.as_deref(), Some("2025"));
        assert_eq!(e.maalform.as_deref(), Some("Bokmål"));
        let k = e.kapital.as_ref().unwrap();
        assert_eq!(k.belop, 5_976_872_600.0);
        assert_eq!(k.antall_aksjer, Some(2_390_749_040.0));
        assert_eq!(k.valuta.as_deref(), Some("NOK"));
        assert!(Enhet::joined(&e.aktivitet).starts_with("Selv, eller gjennom deltakelse"));
        assert_eq!(e.status(), EnhetStatus::Active);
        assert!(e.paategninger.is_empty());
    }

    #[test]
    fn the_status_samples_read_as_their_status() {
        let konkurs = active("entity/enhet-915330193-konkurs.json");
        assert_eq!(
            konkurs.status(),
            EnhetStatus::Bankrupt {
                since: Some(date("2026-08-26"))
            }
        );
        assert_eq!(konkurs.employees(), Employees::None);
        assert_eq!(konkurs.maalform.as_deref(), Some("Nynorsk"));
        assert_eq!(konkurs.kapital.as_ref().unwrap().belop, 30000.0);

        let tvang = active("entity/enhet-931744682-tvangsopplost.json");
        assert_eq!(
            tvang.status(),
            EnhetStatus::CompulsoryDissolution {
                grounds: vec![(date("2026-06-04"), DissolutionGround::ManglendeRegnskap)]
            }
        );
        assert_eq!(tvang.status().since(), Some(date("2026-06-04")));
        // `00.000` "Uoppgitt" is no industry code.
        assert!(tvang.naeringskode1.as_ref().unwrap().is_unspecified());
        assert!(tvang.naeringskoder().is_empty());

        let rekon = active("entity/enhet-983830196-rekonstruksjon.json");
        assert_eq!(rekon.status(), EnhetStatus::Active);
        assert_eq!(rekon.restructuring_since(), Some(date("2026-09-02")));
        assert_eq!(rekon.employees(), Employees::Count(160));
        // Blank fragments are dropped when joined.
        assert!(Enhet::joined(&rekon.aktivitet).ends_with("styrearbeid."));

        let slettet = enhet("entity/enhet-989566733-slettet.json");
        let EnhetAnswer::Slettet(s) = &slettet else {
            panic!("{slettet:?}");
        };
        assert_eq!(s.navn, "ROLS AS");
        assert_eq!(s.organisasjonsform.kode, "AS");
        assert_eq!(s.historiske_navn[0].navn, "FJAS AS");
        assert_eq!(
            slettet.status(),
            Some(EnhetStatus::Deleted {
                on: date("2026-09-15")
            })
        );
    }

    #[test]
    fn the_other_entity_samples_read() {
        let p = active("entity/enhet-935864879-paategning.json");
        assert_eq!(p.paategninger.len(), 1);
        assert_eq!(p.paategninger[0].infotype, "FADR");
        assert_eq!(p.paategninger[0].innfoert_dato, Some(date("2026-09-01")));
        // An empty address array: no street.
        assert_eq!(p.forretningsadresse.as_ref().unwrap().street(), None);
        assert_eq!(p.employees(), Employees::OneToFour);

        let nuf = active("entity/enhet-997808533-nuf.json");
        assert_eq!(nuf.organisasjonsform.kode, "NUF");
        let fa = nuf.forretningsadresse.as_ref().unwrap();
        assert!(fa.is_foreign());
        assert_eq!(fa.postnummer, None);
        assert_eq!(fa.poststed.as_deref(), Some("821 09 BRATISLAVA"));
        assert_eq!(
            nuf.postadresse.as_ref().unwrap().lines(),
            ["c/o Athene Registerservice AS", "Postboks 4691", "Nydalen"]
        );

        let orgl = active("entity/enhet-974760673-orgl-registerenheten.json");
        assert_eq!(orgl.organisasjonsform.kode, "ORGL");
        assert_eq!(orgl.overordnet_enhet.as_deref(), Some("912660680"));
        assert_eq!(orgl.stiftelsesdato, None);
        assert_eq!(orgl.epostadresse.as_deref(), Some("firmapost@brreg.no"));
        assert_eq!(orgl.vat_number(), None);

        let dnb = active("entity/enhet-984851006-dnb.json");
        assert_eq!(dnb.navn, "DNB BANK ASA");
        assert_eq!(dnb.mobil.as_deref(), Some("91504800"));
        assert_eq!(dnb.employees(), Employees::Count(7353));
    }

    #[test]
    fn status_precedence_follows_the_flags() {
        let d = date("2026-01-02");
        let all = StatusFlags {
            slettedato: Some(d),
            konkurs: true,
            konkursdato: Some(d),
            under_tvangs: true,
            tvangs_grounds: vec![(d, DissolutionGround::ManglendeRevisor)],
            under_avvikling: true,
            under_avvikling_dato: Some(d),
        };
        assert_eq!(status_from_flags(&all), EnhetStatus::Deleted { on: d });
        let f = StatusFlags {
            slettedato: None,
            ..all.clone()
        };
        assert_eq!(
            status_from_flags(&f),
            EnhetStatus::Bankrupt { since: Some(d) }
        );
        let f = StatusFlags {
            konkurs: false,
            ..f
        };
        assert_eq!(status_from_flags(&f).name(), "compulsory_dissolution");
        let f = StatusFlags {
            under_tvangs: false,
            ..f
        };
        assert_eq!(
            status_from_flags(&f),
            EnhetStatus::WindingUp { since: Some(d) }
        );
        let f = StatusFlags {
            under_avvikling: false,
            ..f
        };
        assert_eq!(status_from_flags(&f), EnhetStatus::Active);
    }

    #[test]
    fn the_gone_sample_reads_and_an_unreadable_410_is_still_gone() {
        let g: GoneEnhet =
            serde_json::from_slice(&samples::read("errors/gone-410-enhet.reconstructed.json"))
                .unwrap();
        assert_eq!(g.organisasjonsnummer, "509100675");
        assert_eq!(g.slettedato, Some(date("2024-03-09")));
        let asked = orgnr("509100675");
        let body = samples::read("errors/gone-410-enhet.reconstructed.json");
        assert_eq!(
            gone(&OP_ENHET, &asked, &body).unwrap().status(),
            None,
            "a withdrawn entity has no status"
        );
        let empty = gone(&OP_ENHET, &asked, b"").unwrap();
        assert_eq!(empty.organisasjonsnummer(), "509100675");
        // A 410 about another number is not taken.
        let other = gone(&OP_ENHET, &orgnr("923609016"), &body).unwrap_err();
        assert!(matches!(other, RegistryFailure::Garbled(_)));
        assert!(!other.to_string().contains("509100675"));
    }

    #[test]
    fn an_answer_about_another_number_is_refused_without_naming_either() {
        let e = enhet("entity/enhet-923609016-equinor.json");
        let f = about(&OP_ENHET, &orgnr("984851006"), e).unwrap_err();
        let why = f.to_string();
        assert!(
            why.contains("GET /enhetsregisteret/api/enheter/{orgnr}"),
            "{why}"
        );
        assert!(
            !why.contains("923609016") && !why.contains("984851006"),
            "{why}"
        );
    }

    #[test]
    fn roles_read_with_persons_entities_and_trustees() {
        let body = samples::read("roles/roller-923609016-equinor-2026-03.synthetic-persons.json");
        let r = read_roller(&OP_ROLLER, &orgnr("923609016"), &body).unwrap();
        let groups: Vec<&str> = r
            .rollegrupper
            .iter()
            .map(|g| g.gruppetype.kode.as_str())
            .collect();
        assert_eq!(groups, ["DAGL", "STYR", "REVI"]);
        assert_eq!(r.current("DAGL").len(), 1);
        assert_eq!(r.current("LEDE").len(), 1);
        assert_eq!(r.persons().len(), 15);
        // Resigned is still sent on this (pre-June-2026) capture, always false.
        assert!(r.all().all(|(_, role)| role.fratraadt == Some(false)));
        let arep = r
            .all()
            .filter(|(_, role)| role.valgt_av.as_ref().is_some_and(|v| v.kode == "AREP"))
            .count();
        assert_eq!(arep, 6);
        let revi = r.current("REVI");
        let Innehaver::Enhet(auditor) = &revi[0].innehaver else {
            panic!("the auditor is an entity");
        };
        assert_eq!(auditor.organisasjonsnummer, "976389387");
        assert_eq!(auditor.name(), "ERNST & YOUNG AS");
        assert_eq!(
            auditor.godkjenningsstatus.as_deref(),
            Some("Godkjent revisjonsforetak")
        );
        // The one person with a middle name keeps it.
        assert!(r
            .persons()
            .iter()
            .any(|(_, p)| p.navn.mellomnavn.is_some() && p.navn.full().split(' ').count() == 3));
        // The roles are about another entity than asked: refused.
        assert!(read_roller(&OP_ROLLER, &orgnr("984851006"), &body).is_err());

        let body = samples::read("roles/roller-915330193-konkurs-bostyrer.synthetic-persons.json");
        let r = read_roller(&OP_ROLLER, &orgnr("915330193"), &body).unwrap();
        let bobe = r.current("BOBE");
        let Innehaver::Bostyrer(b) = &bobe[0].innehaver else {
            panic!("a trustee");
        };
        assert!(b.navn.starts_with("Advokat "));
        assert_eq!(
            b.postadresse.as_ref().unwrap().postnummer.as_deref(),
            Some("0001")
        );
        // Post-June-2026 shape: no `fratraadt`, `avregistrert` false.
        assert!(r
            .all()
            .all(|(_, role)| role.fratraadt.is_none() && !role.avregistrert));

        let body = samples::read("roles/roller-810005912-deltakere.docs-example.json");
        let r = read_roller(&OP_ROLLER, &orgnr("810005912"), &body).unwrap();
        let partners = r.current("DTPR");
        assert_eq!(partners.len(), 2);
        assert_eq!(partners[0].ansvarsandel.as_deref(), Some("50%"));
        assert_eq!(partners[1].rekkefolge, Some(1));

        let body = samples::read("roles/roller-810004622-valgtav.docs-example.json");
        let r = read_roller(&OP_ROLLER, &orgnr("810004622"), &body).unwrap();
        let lede = r.current("LEDE");
        assert_eq!(lede[0].valgt_av.as_ref().unwrap().kode, "A-AK");
    }

    #[test]
    fn a_role_needs_exactly_one_holder_and_a_national_number_is_never_kept() {
        let role = |holder: &str| {
            format!(
                r#"{{"rollegrupper": [{{"type": {{"kode": "DAGL", "beskrivelse": "Daglig leder"}},
                "roller": [{{"type": {{"kode": "DAGL", "beskrivelse": "Daglig leder"}}{holder}}}]}}]}}"#
            )
        };
        assert!(read_json::<Roller>("t", role("").as_bytes()).is_err());
        let two = r#", "person": {"fodselsdato": "1970-01-01", "navn": {"fornavn": "Kari", "etternavn": "Prøvestad"}, "erDoed": false},
            "bostyrer": {"navn": "Advokat Per Datadal"}"#;
        assert!(read_json::<Roller>("t", role(two).as_bytes()).is_err());
        // A synthetic number whose check digits are wrong (no one's): the authorised API's
        // field, never read into a value.
        let with_fnr = r#", "person": {"fodselsnummer": "01017000000", "fodselsdato": "1970-01-01",
            "navn": {"fornavn": "Kari", "etternavn": "Prøvestad"}, "erDoed": false}"#;
        let r = read_json::<Roller>("t", role(with_fnr).as_bytes()).unwrap();
        assert_eq!(r.persons()[0].1.fodselsdato, date("1970-01-01"));
        assert!(!format!("{r:?}").contains("01017000000"));
    }

    #[test]
    fn feed_pages_read_with_and_without_entries() {
        let p: OppdateringerEnheter = read_json(
            "t",
            &samples::read("feeds/oppdateringer-enheter-923609016-includeChanges.json"),
        )
        .unwrap();
        assert_eq!(p.oppdateringer.len(), 8);
        let first = &p.oppdateringer[0];
        assert_eq!(first.oppdateringsid, 25_205_460);
        assert_eq!(first.endringstype, Endringstype::Endring);
        assert_eq!(first.dato.to_rfc3339(), "2026-09-14T22:03:45.964+00:00");
        let patch = first.endringer.as_ref().unwrap();
        assert_eq!(patch[1].path, "/antallAnsatte");
        assert_eq!(patch[1].value, Some(serde_json::json!(21272)));
        // A float-valued patch is kept as sent.
        let capital = &p.oppdateringer[4].endringer.as_ref().unwrap()[1];
        assert_eq!(
            capital.value.as_ref().unwrap().as_f64(),
            Some(2_390_749_040.0)
        );
        assert_eq!(p.next_oppdateringsid(), Some(25_205_461));
        assert!(p.is_last());
        assert_eq!(p.page.unwrap().total_elements, 8);

        let empty: OppdateringerEnheter = read_json(
            "t",
            &samples::read("feeds/oppdateringer-enheter-empty-page.json"),
        )
        .unwrap();
        assert!(empty.oppdateringer.is_empty());
        assert_eq!(empty.next_oppdateringsid(), None);
        assert!(empty.is_last());

        let odd: OppdateringerEnheter = read_json(
            "t",
            br#"{"_embedded": {"oppdaterteEnheter": [{"oppdateringsid": 7.0,
                "dato": "2026-01-01T00:00:00.000Z", "organisasjonsnummer": "923609016",
                "endringstype": "Omorganisert"}]}, "page": {"size": 20.0, "totalElements": 1,
                "totalPages": 1, "number": 0}}"#,
        )
        .unwrap();
        assert_eq!(odd.oppdateringer[0].oppdateringsid, 7);
        assert_eq!(
            odd.oppdateringer[0].endringstype,
            Endringstype::Annen("Omorganisert".into())
        );
    }

    #[test]
    fn a_feed_query_spells_the_registers_parameters() {
        let dato = DateTime::parse_from_rfc3339("2026-09-20T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let q = FeedQuery::from_dato(dato)
            .size(5000)
            .include_changes()
            .for_entities(&[orgnr("984851006")]);
        assert_eq!(
            q.pairs(),
            [
                ("dato", "2026-09-20T00:00:00.000Z".to_owned()),
                ("organisasjonsnummer", "984851006".to_owned()),
                ("includeChanges", "true".to_owned()),
                ("size", "1000".to_owned()),
                ("sort", "id,ASC".to_owned()),
            ]
        );
        let q = FeedQuery::from_oppdateringsid(0).size(0).page(2);
        assert_eq!(
            q.pairs(),
            [
                ("oppdateringsid", "1".to_owned()),
                ("page", "2".to_owned()),
                ("size", "1".to_owned()),
                ("sort", "id,ASC".to_owned()),
            ]
        );
        assert_eq!(
            FeedQuery::newest().size(1).pairs().last().unwrap().1,
            "id,DESC"
        );
    }

    #[test]
    fn the_user_agent_carries_a_contact() {
        let ua = user_agent("ops@example.org").unwrap();
        assert!(ua.starts_with("idreg-adapters-no/"), "{ua}");
        assert!(ua.ends_with("(+ops@example.org)"), "{ua}");
        assert_eq!(user_agent(" "), Err(BrregConfigError::Contact));
        assert_eq!(user_agent("ops\n@x"), Err(BrregConfigError::Contact));
        assert_eq!(user_agent("øps@x.no"), Err(BrregConfigError::Contact));
        assert!(BrregClient::new(&BrregConfig::production("")).is_err());
        assert!(BrregClient::new(&BrregConfig::production("https://example.org/contact")).is_ok());
    }

    #[test]
    fn operation_names_are_templates() {
        for op in [&OP_ENHET, &OP_ROLLER, &OP_OPPDATERINGER] {
            assert!(!op.name.bytes().any(|b| b.is_ascii_digit()), "{}", op.name);
            assert!(op.label().starts_with("companyreg.enhetsregisteret GET "));
        }
    }
}
