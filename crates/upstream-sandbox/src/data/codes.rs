//! Code tables: public classifications, with their klartext as the registers write them.

use super::model::*;

/// SNI 2007 codes used by the data set.
pub const SNI_CODES: &[(&str, &str)] = &[
    (
        "01110",
        "Odling av spannmål (utom ris), baljväxter och oljeväxter",
    ),
    ("02200", "Drivning"),
    ("10710", "Tillverkning av mjukt matbröd och färska bakverk"),
    ("41200", "Byggande av bostadshus och andra byggnader"),
    ("43210", "Elinstallationer"),
    ("43320", "Byggnadssnickeriarbeten"),
    ("43341", "Måleriarbeten"),
    (
        "45201",
        "Allmän service och reparationer av motorfordon utom motorcyklar",
    ),
    ("46900", "Icke specialiserad partihandel"),
    ("47710", "Specialiserad butikshandel med kläder"),
    ("49410", "Vägtransport, godstrafik"),
    ("55101", "Hotellverksamhet med restaurangrörelse"),
    ("56100", "Restaurangverksamhet"),
    ("58290", "Utgivning av annan programvara"),
    ("62010", "Dataprogrammering"),
    ("62020", "Datakonsultverksamhet"),
    ("63110", "Databehandling, hosting o.d."),
    ("64202", "Holdingverksamhet i icke-finansiella koncerner"),
    (
        "68201",
        "Uthyrning och förvaltning av egna eller arrenderade bostäder",
    ),
    (
        "68203",
        "Uthyrning och förvaltning av egna eller arrenderade, andra lokaler",
    ),
    ("68204", "Förvaltning i bostadsrättsföreningar"),
    ("69101", "Advokatbyråverksamhet"),
    ("69201", "Redovisning och bokföring"),
    ("70220", "Konsultverksamhet avseende företags organisation"),
    ("71110", "Arkitektverksamhet"),
    ("73111", "Reklambyråverksamhet"),
    ("81210", "Lokalvård"),
    (
        "84110",
        "Stats- och kommunledning, lagstiftning och övergripande planering",
    ),
    ("85600", "Stödverksamhet för utbildning"),
    ("86230", "Tandläkarverksamhet"),
    ("93120", "Sportklubbars och idrottsföreningars verksamhet"),
    ("94990", "Verksamhet i andra intresseorganisationer"),
    ("96021", "Hårvård"),
];

/// The klartext of an SNI code known to the data set.
pub fn sni_klartext(kod: &str) -> Option<&'static str> {
    SNI_CODES.iter().find(|(k, _)| *k == kod).map(|(_, t)| *t)
}

/// Employee size class texts (`Stkl, kod` → `Storleksklass`).
pub fn employees_class_text(kod: &str) -> &'static str {
    match kod {
        "1" => "0 anställda",
        "2" => "1-4 anställda",
        "3" => "5-9 anställda",
        "4" => "10-19 anställda",
        "5" => "20-49 anställda",
        "6" => "50-99 anställda",
        "7" => "100-199 anställda",
        "8" => "200-499 anställda",
        "9" => "500-999 anställda",
        "10" => "1000-1499 anställda",
        "11" => "1500-1999 anställda",
        "12" => "2000-2999 anställda",
        "13" => "3000-3999 anställda",
        "14" => "4000-4999 anställda",
        "15" => "5000-9999 anställda",
        "16" => "10000- anställda",
        _ => "Uppgift saknas",
    }
}

/// Inclusive employee range of a size class (for generated annual-report figures).
pub fn employees_class_range(kod: &str) -> (u32, u32) {
    match kod {
        "1" => (0, 0),
        "2" => (1, 4),
        "3" => (5, 9),
        "4" => (10, 19),
        "5" => (20, 49),
        "6" => (50, 99),
        "7" => (100, 199),
        "8" => (200, 499),
        "9" => (500, 999),
        _ => (0, 0),
    }
}

/// `avregistreringsorsak` codes used (klartext partly inferred).
pub fn avregistreringsorsak(kod: &str) -> KodKlartext {
    let t = match kod {
        "LIAV" => "Likvidation",
        "KKAV" => "Konkurs",
        "FUAV" => "Fusion",
        "AVREG" => "Avregistrerad",
        "VERKUPP" => "Verksamheten har upphört",
        "OVERK" => "Overksamhet",
        "DELAV" => "Delning",
        "OMAV" => "Ombildning",
        _ => "Avregistrerad",
    };
    KodKlartext::new(kod, t)
}

/// `pagaende…` procedure codes used.
pub fn proceeding(kod: &str, from_date: &str) -> Proceeding {
    let t = match kod {
        "KK" => "Konkurs",
        "LI" => "Likvidation",
        "FR" => "Företagsrekonstruktion",
        _ => "Pågående förfarande",
    };
    Proceeding {
        kod: kod.to_owned(),
        klartext: t.to_owned(),
        from_datum: format!("{from_date}T00:00:00.000+00:00"),
    }
}

pub(crate) fn orgnr_typ() -> KodKlartext {
    KodKlartext::new("ORGNR", "Organisationsnummer")
}

pub(crate) fn person_typ() -> KodKlartext {
    KodKlartext::new("PERSON", "Identitetsbeteckning person")
}

pub(crate) fn sverige() -> KodKlartext {
    KodKlartext::new("SE-LAND", "Sverige")
}
