//! `POST /dokumentlista` (the latest annual report) and `GET /dokument/{dokumentId}` (its
//! archive): reading the list, checking document ids and archives.

use super::{garbled, parse_date, OP_DOKUMENT, OP_DOKUMENTLISTA};
use chrono::NaiveDate;
use connector_kit::read_json;
use domain::companies::profile::{AnnualReportRef, RegistryFailure};
use serde::Deserialize;

#[derive(Deserialize, Debug)]
struct DokumentlistaSvar {
    dokument: Option<Vec<DokumentInfo>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(rename_all = "camelCase", default)]
struct DokumentInfo {
    dokument_id: Option<String>,
    filformat: Option<String>,
    rapporteringsperiod_tom: Option<String>,
    registreringstidpunkt: Option<String>,
}

/// Reads a `/dokumentlista` answer: the report with the newest `rapporteringsperiodTom`
/// (the latest registration wins a tie), or None for an empty list.
pub(crate) fn read_dokumentlista(body: &[u8]) -> Result<Option<AnnualReportRef>, RegistryFailure> {
    let op = &OP_DOKUMENTLISTA;
    let svar: DokumentlistaSvar = read_json(&op.label(), body)?;
    let docs = svar
        .dokument
        .ok_or_else(|| garbled(op, "the answer has no `dokument`"))?;
    let mut best: Option<(NaiveDate, Option<NaiveDate>, AnnualReportRef)> = None;
    for d in &docs {
        let zip = d
            .filformat
            .as_deref()
            .is_none_or(|f| f.trim().eq_ignore_ascii_case("application/zip"));
        if !zip {
            continue;
        }
        let id = d
            .dokument_id
            .as_deref()
            .map(str::trim)
            .ok_or_else(|| garbled(op, "a document has no dokumentId"))?;
        if !valid_document_id(id) {
            return Err(garbled(op, "a dokumentId has an unexpected shape"));
        }
        let tom = d
            .rapporteringsperiod_tom
            .as_deref()
            .and_then(parse_date)
            .ok_or_else(|| garbled(op, "a document has no rapporteringsperiodTom date"))?;
        let registered = d.registreringstidpunkt.as_deref().and_then(parse_date);
        let newer = match &best {
            None => true,
            Some((bt, br, _)) => (tom, registered) > (*bt, *br),
        };
        if newer {
            best = Some((
                tom,
                registered,
                AnnualReportRef {
                    year: chrono::Datelike::year(&tom),
                    document_id: id.to_owned(),
                },
            ));
        }
    }
    Ok(best.map(|(_, _, r)| r))
}

// The archive.

/// Whether a document id may be put into a URL path: 1 to 128 of `[A-Za-z0-9_-]` (VDM's
/// ids are `<uuid>_paket`). Refuses `/`, `.`, `%` and everything else.
pub fn valid_document_id(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A complete zip archive: the local-file-header magic at the start and an
/// end-of-central-directory record that ends exactly at the end (a cut archive has none).
pub(crate) fn check_zip(bytes: &[u8]) -> Result<(), RegistryFailure> {
    let bad = |why: &str| garbled(&OP_DOKUMENT, why);
    if !bytes.starts_with(b"PK\x03\x04") {
        return Err(bad("the document is not a zip archive"));
    }
    const EOCD: &[u8; 4] = b"PK\x05\x06";
    const EOCD_LEN: usize = 22;
    if bytes.len() < 4 + EOCD_LEN {
        return Err(bad("the zip archive is truncated"));
    }
    let earliest = bytes.len().saturating_sub(EOCD_LEN + u16::MAX as usize);
    let mut at = bytes.len() - EOCD_LEN;
    loop {
        if &bytes[at..at + 4] == EOCD {
            let comment = u16::from_le_bytes([bytes[at + 20], bytes[at + 21]]) as usize;
            if at + EOCD_LEN + comment == bytes.len() {
                return Ok(());
            }
        }
        if at == earliest || at == 0 {
            return Err(bad("the zip archive is truncated"));
        }
        at -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{sample, sample_json};
    use super::*;
    #[test]
    fn dokumentlista_latest_report() {
        let r = read_dokumentlista(&sample("dokumentlista-5561890038.json")).unwrap();
        assert_eq!(
            r,
            Some(AnnualReportRef {
                year: 2022,
                document_id: "02f54e4f-b17a-4cfd-a1cc-d8ab4eaa7f49_paket".into(),
            })
        );
        // Order does not matter.
        let mut v = sample_json("dokumentlista-5561890038.json");
        v["dokument"].as_array_mut().unwrap().reverse();
        assert_eq!(
            read_dokumentlista(&serde_json::to_vec(&v).unwrap()).unwrap(),
            r
        );
    }

    #[test]
    fn dokumentlista_edge_cases() {
        assert_eq!(read_dokumentlista(br#"{"dokument":[]}"#).unwrap(), None);
        let bad_id = br#"{"dokument":[{"dokumentId":"../x","filformat":"application/zip","rapporteringsperiodTom":"2022-12-31"}]}"#;
        assert!(matches!(
            read_dokumentlista(bad_id),
            Err(RegistryFailure::Garbled(_))
        ));
        let no_date = br#"{"dokument":[{"dokumentId":"a_paket","filformat":"application/zip"}]}"#;
        assert!(matches!(
            read_dokumentlista(no_date),
            Err(RegistryFailure::Garbled(_))
        ));
        let pdf_only = br#"{"dokument":[{"dokumentId":"a_paket","filformat":"application/pdf","rapporteringsperiodTom":"2022-12-31"}]}"#;
        assert_eq!(read_dokumentlista(pdf_only).unwrap(), None);
        assert!(matches!(
            read_dokumentlista(br#"{"dokument":"#),
            Err(RegistryFailure::Garbled(_))
        ));
    }

    #[test]
    fn document_ids() {
        assert!(valid_document_id(
            "02f54e4f-b17a-4cfd-a1cc-d8ab4eaa7f49_paket"
        ));
        for bad in [
            "",
            "../etc/passwd",
            "a/b",
            "..",
            "a.zip",
            "a%2Fb",
            "a b",
            "å",
            &"a".repeat(129),
        ] {
            assert!(!valid_document_id(bad), "{bad}");
        }
    }

    fn tiny_zip() -> Vec<u8> {
        use std::io::Write;
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut z = zip::ZipWriter::new(&mut buf);
            z.start_file("report.xhtml", zip::write::SimpleFileOptions::default())
                .unwrap();
            z.write_all(b"<html/>").unwrap();
            z.finish().unwrap();
        }
        buf.into_inner()
    }

    #[test]
    fn zips() {
        let z = tiny_zip();
        assert_eq!(check_zip(&z), Ok(()));
        assert!(matches!(
            check_zip(&z[..z.len() / 2]),
            Err(RegistryFailure::Garbled(_))
        ));
        assert!(matches!(
            check_zip(&z[..z.len() - 1]),
            Err(RegistryFailure::Garbled(_))
        ));
        assert!(matches!(
            check_zip(b"<html>not a zip</html>"),
            Err(RegistryFailure::Garbled(_))
        ));
        assert!(matches!(check_zip(b""), Err(RegistryFailure::Garbled(_))));
    }
}
