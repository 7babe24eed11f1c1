//! Lithuania: RC JAR legal entities and the form and status codes they use.

use crate::util::{lt_check_digit, uuid_from_seed};
use serde::{Deserialize, Serialize};

/// A Lithuanian legal entity (RC JAR `JuridinisAsmuo`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LtCompany {
    pub ja_kodas: u32,
    pub ja_pavadinimas: String,
    pub pilnas_adresas: Option<String>,
    /// `_id` of the record.
    pub record_id: String,
    /// `adresas._id` (a reference into the address register).
    pub adresas_id: Option<String>,
    /// JAR legal form code (310 = UAB).
    pub forma: u32,
    /// JAR legal status code (0 = no status, 6 = bankrupt, 7 = liquidating, 10 = deregistered).
    pub statusas: u32,
    pub reg_data: String,
    pub isreg_data: Option<String>,
    pub stat_data: Option<String>,
}

/// JAR legal forms used (code, name). 310 is confirmed; the others are inferred.
pub const LT_FORMS: &[(u32, &str)] = &[
    (310, "Uždaroji akcinė bendrovė"),
    (320, "Akcinė bendrovė"),
    (330, "Mažoji bendrija"),
    (110, "Individuali įmonė"),
    (570, "Viešoji įstaiga"),
];

/// JAR legal statuses used: (code, name, the classifier's `_id`).
pub const LT_STATUSES: &[(u32, &str, &str)] = &[
    (
        0,
        "Teisinis statusas neįregistruotas",
        "5ef6b364-a5ff-47fb-8600-ff859214ef85",
    ),
    (5, "Bankrutuojantis", "20a01d01-4e39-4d14-82f3-a9af198de63b"),
    (6, "Bankrutavęs", "57e62cce-e84c-4b3d-a1af-8d84b1b8e3f2"),
    (7, "Likviduojamas", "adb14ebc-d6c5-4534-8dd9-b3d14e92b19f"),
    (10, "Išregistruotas", "5bcfd61f-7810-4946-9bd3-6de946b56f18"),
];

/// The `_id` of a JAR legal form (synthetic but stable).
pub fn lt_form_id(kodas: u32) -> String {
    uuid_from_seed(&format!("rc/jar/Forma/{kodas}"))
}

/// The `_id` of a JAR status (the real classifier ids for the statuses used).
pub fn lt_status_id(kodas: u32) -> String {
    LT_STATUSES
        .iter()
        .find(|s| s.0 == kodas)
        .map(|s| s.2.to_owned())
        .unwrap_or_else(|| uuid_from_seed(&format!("rc/jar/Statusas/{kodas}")))
}

fn lt_code(first8: &str) -> u32 {
    format!("{first8}{}", lt_check_digit(first8))
        .parse()
        .unwrap_or(0)
}

pub(super) fn lt_companies() -> Vec<LtCompany> {
    let mk = |code: u32,
              name: &str,
              addr: Option<&str>,
              forma: u32,
              statusas: u32,
              reg: &str,
              isreg: Option<&str>,
              stat: Option<&str>| LtCompany {
        ja_kodas: code,
        ja_pavadinimas: name.to_owned(),
        pilnas_adresas: addr.map(str::to_owned),
        record_id: uuid_from_seed(&format!("rc/jar/JuridinisAsmuo/{code}")),
        adresas_id: addr.map(|a| uuid_from_seed(&format!("rc/ar/Adresas/{a}"))),
        forma,
        statusas,
        reg_data: reg.to_owned(),
        isreg_data: isreg.map(str::to_owned),
        stat_data: stat.map(str::to_owned),
    };
    vec![
        mk(
            110443493,
            "Akcinė bendrovė \"Smėlio dėžė\"",
            Some("Vilnius, Testų g. 1"),
            320,
            0,
            "1991-06-14",
            None,
            None,
        ),
        mk(
            lt_code("30400001"),
            "UAB \"Bandomoji programa\"",
            Some("Vilnius, Gedimino pr. 100"),
            310,
            0,
            "2016-03-02",
            None,
            None,
        ),
        mk(
            lt_code("30400002"),
            "UAB \"Sintetiniai duomenys\"",
            Some("Kaunas, Laisvės al. 70"),
            310,
            0,
            "2017-11-20",
            None,
            None,
        ),
        mk(
            lt_code("30400003"),
            "UAB \"Bankrutavęs testas\"",
            Some("Klaipėda, Tiltų g. 5"),
            310,
            6,
            "2012-05-08",
            None,
            Some("2025-02-17"),
        ),
        mk(
            lt_code("30400004"),
            "UAB \"Likviduojamas testas\"",
            Some("Šiauliai, Vilniaus g. 88"),
            310,
            7,
            "2014-09-30",
            None,
            Some("2026-04-01"),
        ),
        mk(
            lt_code("30400005"),
            "UAB \"Išregistruotas testas\"",
            None,
            310,
            10,
            "2010-01-12",
            Some("2021-12-31"),
            Some("2021-12-31"),
        ),
        mk(
            lt_code("30400006"),
            "MB \"Mažoji bandymų bendrija\"",
            Some("Panevėžys, Respublikos g. 12"),
            330,
            0,
            "2020-07-07",
            None,
            None,
        ),
        mk(
            lt_code("30400007"),
            "VšĮ \"Testavimo centras\"",
            Some("Vilnius, Konstitucijos pr. 3"),
            570,
            0,
            "2008-10-10",
            None,
            None,
        ),
        mk(
            lt_code("30400008"),
            "UAB \"Bankrutuojanti įmonė\"",
            Some("Alytus, Pulko g. 9"),
            310,
            5,
            "2018-02-14",
            None,
            Some("2026-06-15"),
        ),
    ]
}
