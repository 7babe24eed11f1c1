//! Registrų centras' legal-entity register (JAR), as Lithuania's open-data API (Spinta "UAPI")
//! serves it: `GET {base}/datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo?ja_kodas=<code>`
//! with a `select(...)` that brings the form's and the status's classifier fields along, so
//! one call gives the whole profile.
//!
//! The answer is `{"_data": [<row>], "_page": {...}}`: no row is "not in the register", more
//! than one is an answer we cannot read whole.

use crate::sources::JAR_ATVIRI_DUOMENYS;
use chrono::NaiveDate;
use connector_kit::{
    conclude, new_request_id, read_json, send, status_failure, AnswerMeta, Operation, Step,
    MAX_DATA_BYTES, REQUEST_ID,
};
use domain::companies::profile::{Address, CompanyStatus, RegistryFailure};
use serde::Deserialize;

/// The model read.
pub(crate) const MODEL_PATH: &str = "/datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo";

const OP_JURIDINIS_ASMUO: Operation = Operation {
    source: JAR_ATVIRI_DUOMENYS,
    name: "GET /datasets/gov/rc/jar/iregistruoti/JuridinisAsmuo",
    schema_version: "datasets/gov/rc/jar/iregistruoti",
    cost: 0,
};

/// The fields asked for: the entity's own and its classifiers' (`forma`, `statusas`).
const SELECT: &str = "select(_id,_revision,ja_kodas,ja_pavadinimas,pilnas_adresas,reg_data,\
isreg_data,stat_data,forma.kodas,forma.pavadinimas,statusas.kodas,statusas.pavadinimas)";

#[derive(Deserialize)]
struct Page {
    #[serde(rename = "_data")]
    data: Vec<Row>,
}

#[derive(Deserialize)]
struct Classifier {
    kodas: Option<u32>,
    pavadinimas: Option<String>,
}

#[derive(Deserialize)]
struct Row {
    #[serde(rename = "_revision")]
    revision: Option<String>,
    ja_kodas: u64,
    ja_pavadinimas: Option<String>,
    pilnas_adresas: Option<String>,
    reg_data: Option<String>,
    isreg_data: Option<String>,
    forma: Option<Classifier>,
    statusas: Option<Classifier>,
}

/// A legal entity as the register gives it, in the canonical types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LegalEntity {
    pub code: String,
    pub name: String,
    pub legal_form: String,
    pub status: CompanyStatus,
    pub registered_at: Option<NaiveDate>,
    pub address: Address,
}

/// The register's legal status codes (the `Statusas` classifier) in the canonical statuses:
/// the codes whose meaning the classifier's published labels give. A code not listed here is
/// not guessed at: the answer is unusable until it is added.
fn status(code: u32, deregistered: bool) -> Option<CompanyStatus> {
    if deregistered {
        return Some(CompanyStatus::Deregistered);
    }
    Some(match code {
        // No legal status registered: an ordinary, active entity.
        0 => CompanyStatus::Active,
        // Bankruptcy proceedings, bankrupt.
        5 | 6 => CompanyStatus::Bankruptcy,
        // Being liquidated.
        7 => CompanyStatus::Liquidation,
        // Deregistered.
        10 => CompanyStatus::Deregistered,
        _ => return None,
    })
}

/// `pilnas_adresas` is one line, the locality first (`Vilnius, Gedimino pr. 1`): the part
/// before the first comma is the city, the rest the street. A line without a comma is kept
/// whole as the street, since it cannot be told apart.
fn address(line: Option<&str>) -> Address {
    let line = line.map(str::trim).filter(|l| !l.is_empty());
    let (city, street) = match line.and_then(|l| l.split_once(',')) {
        Some((city, street)) => (
            Some(city.trim().to_owned()).filter(|c| !c.is_empty()),
            Some(street.trim().to_owned()).filter(|s| !s.is_empty()),
        ),
        None => (None, line.map(str::to_owned)),
    };
    Address {
        street,
        postal_code: None,
        city,
        country: "LT".to_owned(),
    }
}

fn date(field: &str, v: Option<&str>) -> Result<Option<NaiveDate>, RegistryFailure> {
    v.map(|d| {
        NaiveDate::parse_from_str(d, "%Y-%m-%d").map_err(|_| {
            RegistryFailure::Garbled(format!(
                "{}: `{field}` is not a date",
                OP_JURIDINIS_ASMUO.label()
            ))
        })
    })
    .transpose()
}

fn entity(code: &str, page: Page) -> Result<(LegalEntity, Option<String>), RegistryFailure> {
    let garbled =
        |what: &str| RegistryFailure::Garbled(format!("{}: {what}", OP_JURIDINIS_ASMUO.label()));
    let mut rows = page.data.into_iter();
    let Some(row) = rows.next() else {
        return Err(RegistryFailure::NotFound);
    };
    if rows.next().is_some() {
        return Err(garbled("more than one entity for one code"));
    }
    if format!("{:09}", row.ja_kodas) != code {
        return Err(garbled("the answer is about another entity than asked"));
    }
    let name = row
        .ja_pavadinimas
        .filter(|n| !n.trim().is_empty())
        .ok_or_else(|| garbled("the entity has no name"))?;
    let legal_form = row
        .forma
        .and_then(|f| f.pavadinimas.or(f.kodas.map(|k| k.to_string())))
        .filter(|f| !f.trim().is_empty())
        .ok_or_else(|| garbled("the entity has no legal form"))?;
    let deregistered = row.isreg_data.is_some();
    let status_code = row.statusas.as_ref().and_then(|s| s.kodas);
    let status = match status_code {
        Some(code) => status(code, deregistered),
        None if deregistered => Some(CompanyStatus::Deregistered),
        None => None,
    }
    .ok_or_else(|| match status_code {
        Some(c) => garbled(&format!("unknown legal status code {c}")),
        None => garbled("the entity has no legal status"),
    })?;
    Ok((
        LegalEntity {
            code: code.to_owned(),
            name: name.trim().to_owned(),
            legal_form: legal_form.trim().to_owned(),
            status,
            registered_at: date("reg_data", row.reg_data.as_deref())?,
            address: address(row.pilnas_adresas.as_deref()),
        },
        row.revision,
    ))
}

/// The register's client.
pub(crate) struct JarClient {
    pub(crate) http: reqwest::Client,
    pub(crate) base_url: String,
}

impl JarClient {
    /// The entity with this (validated, 9-digit) company code.
    pub(crate) async fn juridinis_asmuo(&self, code: &str) -> Step<LegalEntity> {
        let op = &OP_JURIDINIS_ASMUO;
        let request_id = new_request_id();
        let url = format!(
            "{}{MODEL_PATH}?ja_kodas={code}&{SELECT}",
            self.base_url.trim_end_matches('/')
        );
        let request = self
            .http
            .get(url)
            .header(REQUEST_ID, &request_id)
            .header(reqwest::header::ACCEPT, "application/json");
        let outcome = send(request, MAX_DATA_BYTES).await;
        let (call, result) = conclude(op, &request_id, outcome, |a| match a.status {
            200 => match read_json::<Page>(&op.label(), &a.body).and_then(|p| entity(code, p)) {
                Ok((entity, revision)) => (
                    Ok(entity),
                    AnswerMeta {
                        upstream_ref: revision,
                        ..AnswerMeta::default()
                    },
                ),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn page(rows: &str) -> Page {
        serde_json::from_str(&format!(
            r#"{{"_data": [{rows}], "_page": {{"next": null}}}}"#
        ))
        .unwrap()
    }

    const ROW: &str = r#"{"_id": "x", "_revision": "rev-1", "ja_kodas": 110443493,
        "ja_pavadinimas": "Akcinė bendrovė \"Smėlio dėžė\"", "pilnas_adresas": "Vilnius, Testų g. 1",
        "reg_data": "1991-06-14", "isreg_data": null, "stat_data": null,
        "forma": {"kodas": 320, "pavadinimas": "Akcinė bendrovė"},
        "statusas": {"kodas": 0, "pavadinimas": "Teisinis statusas neįregistruotas"}}"#;

    #[test]
    fn a_row_reads_into_the_canonical_types() {
        let (e, revision) = entity("110443493", page(ROW)).unwrap();
        assert_eq!(revision.as_deref(), Some("rev-1"));
        assert_eq!(e.name, "Akcinė bendrovė \"Smėlio dėžė\"");
        assert_eq!(e.legal_form, "Akcinė bendrovė");
        assert_eq!(e.status, CompanyStatus::Active);
        assert_eq!(e.registered_at, NaiveDate::from_ymd_opt(1991, 6, 14));
        assert_eq!(e.address.city.as_deref(), Some("Vilnius"));
        assert_eq!(e.address.street.as_deref(), Some("Testų g. 1"));
        assert_eq!(e.address.country, "LT");
    }

    #[test]
    fn no_row_is_not_found_and_two_rows_or_another_code_are_garbled() {
        assert_eq!(
            entity("110443493", page("")).unwrap_err(),
            RegistryFailure::NotFound
        );
        let two = format!("{ROW},{ROW}");
        assert!(matches!(
            entity("110443493", page(&two)),
            Err(RegistryFailure::Garbled(_))
        ));
        assert!(matches!(
            entity("304000011", page(ROW)),
            Err(RegistryFailure::Garbled(_))
        ));
    }

    #[test]
    fn statuses_map_and_an_unknown_one_is_not_guessed() {
        assert_eq!(status(6, false), Some(CompanyStatus::Bankruptcy));
        assert_eq!(status(7, false), Some(CompanyStatus::Liquidation));
        assert_eq!(status(10, false), Some(CompanyStatus::Deregistered));
        assert_eq!(status(0, true), Some(CompanyStatus::Deregistered));
        assert_eq!(status(42, false), None);
        let odd = ROW.replace(r#""kodas": 0,"#, r#""kodas": 42,"#);
        let Err(RegistryFailure::Garbled(why)) = entity("110443493", page(&odd)) else {
            panic!("an unknown status was read");
        };
        assert!(why.contains("unknown legal status code 42"), "{why}");
        // The failure names the operation, never the code asked for.
        assert!(!why.contains("110443493"), "{why}");
    }

    #[test]
    fn an_address_line_splits_at_its_first_comma_only() {
        let a = address(Some("Kaunas, Laisvės al. 70, 2 aukštas"));
        assert_eq!(a.city.as_deref(), Some("Kaunas"));
        assert_eq!(a.street.as_deref(), Some("Laisvės al. 70, 2 aukštas"));
        let b = address(Some("Vilnius"));
        assert_eq!((b.city, b.street.as_deref()), (None, Some("Vilnius")));
        let c = address(None);
        assert_eq!((c.city, c.street), (None, None));
    }
}
