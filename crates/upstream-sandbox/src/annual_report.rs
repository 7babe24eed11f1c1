//! Annual report packages as `GET /dokument/{dokumentId}` serves them: a zip archive
//! holding one iXBRL (`.xhtml`) annual report with `ix:nonFraction` / `ix:nonNumeric`
//! facts in the Swedish taxonomies (`se-gen-base:Nettoomsattning`,
//! `se-gen-base:MedelantaletAnstallda`, ...).
//!
//! The archive is deterministic: the same report always gives the same bytes (fixed entry
//! time stamp, fixed compression).

use crate::data::{AnnualReport, Company};
use crate::util::xml_escape;
use std::io::{Cursor, Write};

/// The file name of the report inside the package.
pub fn entry_name(company: &Company, report: &AnnualReport) -> String {
    format!("arsredovisning-{}-{}.xhtml", company.id, report.period_tom)
}

/// The zip package of one annual report.
pub fn package(company: &Company, report: &AnnualReport) -> Result<Vec<u8>, zip::result::ZipError> {
    let previous = company
        .annual_reports
        .iter()
        .find(|r| r.year() == report.year() - 1);
    let xhtml = ixbrl(company, report, previous);
    let (y, m, d) = parse_date(&report.registreringstidpunkt).unwrap_or((2020, 1, 1));
    let stamp = zip::DateTime::from_date_and_time(y, m, d, 12, 0, 0).unwrap_or_default();
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(6))
        .last_modified_time(stamp)
        .unix_permissions(0o644);
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    w.start_file(entry_name(company, report), options)?;
    w.write_all(xhtml.as_bytes())?;
    Ok(w.finish()?.into_inner())
}

fn parse_date(s: &str) -> Option<(u16, u8, u8)> {
    Some((
        s.get(0..4)?.parse().ok()?,
        s.get(5..7)?.parse().ok()?,
        s.get(8..10)?.parse().ok()?,
    ))
}

/// Swedish number layout with a space as thousands separator (`ixt:numspacecomma`).
fn spaced(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// One monetary fact, with the sign outside the tagged text as iXBRL requires.
fn money(name: &str, context: &str, value: i64) -> String {
    let sign = if value < 0 { " sign=\"-\"" } else { "" };
    let minus = if value < 0 { "-" } else { "" };
    format!(
        "{minus}<ix:nonFraction name=\"{name}\" contextRef=\"{context}\" unitRef=\"SEK\" decimals=\"INF\" scale=\"0\" format=\"ixt:numspacecomma\"{sign}>{}</ix:nonFraction>",
        spaced(value)
    )
}

fn count(name: &str, context: &str, value: u32) -> String {
    format!(
        "<ix:nonFraction name=\"{name}\" contextRef=\"{context}\" unitRef=\"antal-anstallda\" decimals=\"INF\" scale=\"0\" format=\"ixt:numspacecomma\">{}</ix:nonFraction>",
        spaced(i64::from(value))
    )
}

fn context_duration(id: &str, orgnr: &str, from: &str, to: &str) -> String {
    format!(
        "<xbrli:context id=\"{id}\"><xbrli:entity><xbrli:identifier scheme=\"http://www.bolagsverket.se\">{orgnr}</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:startDate>{from}</xbrli:startDate><xbrli:endDate>{to}</xbrli:endDate></xbrli:period></xbrli:context>"
    )
}

fn context_instant(id: &str, orgnr: &str, at: &str) -> String {
    format!(
        "<xbrli:context id=\"{id}\"><xbrli:entity><xbrli:identifier scheme=\"http://www.bolagsverket.se\">{orgnr}</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:instant>{at}</xbrli:instant></xbrli:period></xbrli:context>"
    )
}

/// The iXBRL annual report (XHTML).
pub fn ixbrl(company: &Company, r: &AnnualReport, previous: Option<&AnnualReport>) -> String {
    let orgnr = &company.id;
    let dashed = if orgnr.len() == 10 {
        format!("{}-{}", &orgnr[..6], &orgnr[6..])
    } else {
        orgnr.clone()
    };
    let name = xml_escape(company.name().unwrap_or("Okänt företag"));
    let year = r.year();
    let prev_from = format!("{}-01-01", year - 1);
    let prev_to = format!("{}-12-31", year - 1);

    let mut contexts = vec![
        context_duration("period0", orgnr, &r.period_from, &r.period_tom),
        context_instant("balans0", orgnr, &r.period_tom),
    ];
    if previous.is_some() {
        contexts.push(context_duration("period1", orgnr, &prev_from, &prev_to));
        contexts.push(context_instant("balans1", orgnr, &prev_to));
    }

    let row_money = |label: &str, concept: &str, cur: i64, prev: Option<i64>, period: &str| {
        let p = previous.map(|_| period.replace('0', "1"));
        format!(
            "<tr><td>{label}</td><td class=\"belopp\">{}</td><td class=\"belopp\">{}</td></tr>",
            money(concept, period, cur),
            match (prev, p) {
                (Some(v), Some(ctx)) => money(concept, &ctx, v),
                _ => String::new(),
            }
        )
    };
    let prev_val = |f: fn(&AnnualReport) -> i64| previous.map(f);

    let mut body = String::new();
    body.push_str(&format!(
        "<div class=\"sida\"><h1>Årsredovisning för <ix:nonNumeric name=\"se-cd-base:ForetagetsNamn\" contextRef=\"period0\">{name}</ix:nonNumeric></h1>\n\
         <p>Organisationsnummer <ix:nonNumeric name=\"se-cd-base:Organisationsnummer\" contextRef=\"period0\">{dashed}</ix:nonNumeric></p>\n\
         <p>Räkenskapsåret <ix:nonNumeric name=\"se-cd-base:RakenskapsarForstaDag\" contextRef=\"period0\">{}</ix:nonNumeric> – <ix:nonNumeric name=\"se-cd-base:RakenskapsarSistaDag\" contextRef=\"period0\">{}</ix:nonNumeric></p>\n\
         <p>Styrelsen avger härmed årsredovisning för räkenskapsåret. Alla belopp redovisas i kronor om inget annat anges.</p></div>\n",
        r.period_from, r.period_tom
    ));
    body.push_str("<div class=\"sida\"><h2>Resultaträkning</h2><table>\n");
    body.push_str(&format!(
        "<tr><th></th><th>{}</th><th>{}</th></tr>\n",
        r.period_tom,
        if previous.is_some() {
            prev_to.as_str()
        } else {
            ""
        }
    ));
    body.push_str(&row_money(
        "Nettoomsättning",
        "se-gen-base:Nettoomsattning",
        r.nettoomsattning,
        prev_val(|p| p.nettoomsattning),
        "period0",
    ));
    body.push('\n');
    body.push_str(&row_money(
        "Rörelseresultat",
        "se-gen-base:Rorelseresultat",
        r.rorelseresultat,
        prev_val(|p| p.rorelseresultat),
        "period0",
    ));
    body.push('\n');
    body.push_str(&row_money(
        "Årets resultat",
        "se-gen-base:AretsResultat",
        r.arets_resultat,
        prev_val(|p| p.arets_resultat),
        "period0",
    ));
    body.push_str("\n</table></div>\n<div class=\"sida\"><h2>Balansräkning</h2><table>\n");
    body.push_str(&row_money(
        "Summa tillgångar",
        "se-gen-base:Tillgangar",
        r.summa_tillgangar,
        prev_val(|p| p.summa_tillgangar),
        "balans0",
    ));
    body.push('\n');
    body.push_str(&row_money(
        "Summa eget kapital",
        "se-gen-base:EgetKapital",
        r.eget_kapital,
        prev_val(|p| p.eget_kapital),
        "balans0",
    ));
    body.push_str("\n</table></div>\n<div class=\"sida\"><h2>Noter</h2>\n");
    body.push_str(&format!(
        "<p>Medelantalet anställda: {}{}</p>\n",
        count(
            "se-gen-base:MedelantaletAnstallda",
            "period0",
            r.medelantalet_anstallda
        ),
        previous
            .map(|p| format!(
                " (föregående år {})",
                count(
                    "se-gen-base:MedelantaletAnstallda",
                    "period1",
                    p.medelantalet_anstallda
                )
            ))
            .unwrap_or_default()
    ));
    body.push_str("</div>\n");

    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:ix=\"http://www.xbrl.org/2013/inlineXBRL\" xmlns:ixt=\"http://www.xbrl.org/inlineXBRL/transformation/2010-04-20\" xmlns:xbrli=\"http://www.xbrl.org/2003/instance\" xmlns:link=\"http://www.xbrl.org/2003/linkbase\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" xmlns:iso4217=\"http://www.xbrl.org/2003/iso4217\" xmlns:se-gen-base=\"http://www.taxonomier.se/se/fr/gen-base/2021-10-31\" xmlns:se-cd-base=\"http://www.taxonomier.se/se/fr/cd-base/2021-10-31\" xmlns:se-k2-type=\"http://www.taxonomier.se/se/fr/k2/datatype\">\n\
<head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\"/><title>Årsredovisning {name} {year}</title></head>\n\
<body>\n\
<div style=\"display:none\"><ix:header><ix:references><link:schemaRef xlink:type=\"simple\" xlink:href=\"http://xbrl.taxonomier.se/se/fr/gaap/k2/2021-10-31/se-k2-ab-full-2021-10-31.xsd\"/></ix:references><ix:resources>\n\
{}\n\
<xbrli:unit id=\"SEK\"><xbrli:measure>iso4217:SEK</xbrli:measure></xbrli:unit>\n\
<xbrli:unit id=\"antal-anstallda\"><xbrli:measure>se-k2-type:AntalAnstallda</xbrli:measure></xbrli:unit>\n\
</ix:resources></ix:header></div>\n\
{body}</body>\n</html>\n",
        contexts.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{testnr, Dataset};
    use std::io::Read;

    #[test]
    fn numbers_are_spaced() {
        assert_eq!(spaced(0), "0");
        assert_eq!(spaced(999), "999");
        assert_eq!(spaced(1000), "1 000");
        assert_eq!(spaced(-12_345_678), "12 345 678");
    }

    #[test]
    fn package_is_a_deterministic_zip_with_ixbrl() {
        let ds = Dataset::standard();
        let c = ds.company(testnr::AB_THREE_REPORTS).unwrap();
        let r = &c.annual_reports[2];
        let a = package(c, r).unwrap();
        assert_eq!(a, package(c, r).unwrap());
        let mut z = zip::ZipArchive::new(Cursor::new(a)).unwrap();
        assert_eq!(z.len(), 1);
        let mut f = z.by_index(0).unwrap();
        assert!(f.name().unwrap().ends_with(".xhtml"));
        // Two packages made in one second match even if stamped with the time of making:
        // the entry's stamp is the report's registration day at noon, not now.
        let stamp = f.last_modified().unwrap();
        let registered = &r.registreringstidpunkt;
        assert_eq!(
            format!(
                "{:04}-{:02}-{:02} {:02}:{:02}",
                stamp.year(),
                stamp.month(),
                stamp.day(),
                stamp.hour(),
                stamp.minute()
            ),
            format!("{} 12:00", &registered[..10]),
            "{registered}"
        );
        let mut s = String::new();
        f.read_to_string(&mut s).unwrap();
        assert!(s.contains("name=\"se-gen-base:Nettoomsattning\" contextRef=\"period0\""));
        assert!(s.contains("se-gen-base:MedelantaletAnstallda"));
        assert!(
            s.contains("contextRef=\"period1\""),
            "previous year comparatives"
        );
    }
}
