//! VDM's answers as the wire carries them (field order, `dataproducent` and `fel` wrappers),
//! built from the data set, and the per-group `fel` that a `field_fel` fault puts in.

use crate::data::{Company, Dataset, KodKlartext, Postadress, ScbRecord};
use crate::faults::{FaultSpec, FieldFel};
use serde::Serialize;

const BV: &str = "Bolagsverket";
const SCB: &str = "SCB";

/// Bolagsverket's text for ORGANISATION_FINNS_EJ (recorded).
pub const FINNS_EJ_BOLAGSVERKET: &str = "Begärd organisation finns inte registrerad i sökbar form hos aktuell dataproducent. Observera att en organisation ändå kan existera och eventuellt också finnas registrerad i sökbar form hos en annan dataproducent trots detta fel.";
/// SCB's text for ORGANISATION_FINNS_EJ (recorded).
pub const FINNS_EJ_SCB: &str = "Den efterfrågade informationen gick inte att hitta.";

/// The `fel.typ` values of the VDM spec.
pub const FEL_TYPER: [&str; 4] = [
    "ORGANISATION_FINNS_EJ",
    "OGILTIG_BEGARAN",
    "OTILLGANGLIG_UPPGIFTSKALLA",
    "TIMEOUT",
];

/// Field groups whose producer is Bolagsverket (when Bolagsverket knows the organisation).
pub const BOLAGSVERKET_GROUPS: [&str; 8] = [
    "avregistreradOrganisation",
    "avregistreringsorsak",
    "organisationsdatum",
    "organisationsform",
    "organisationsnamn",
    "pagaendeAvvecklingsEllerOmstruktureringsforfarande",
    "postadressOrganisation",
    "verksamhetsbeskrivning",
];

/// Field groups whose producer is SCB.
pub const SCB_GROUPS: [&str; 4] = [
    "juridiskForm",
    "naringsgrenOrganisation",
    "verksamOrganisation",
    "reklamsparr",
];

// Response model (field order as on the wire).

/// `fel`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fel {
    pub typ: String,
    #[serde(rename = "felBeskrivning")]
    pub fel_beskrivning: String,
}

fn fel(typ: &str, text: &str) -> Option<Fel> {
    Some(Fel {
        typ: typ.to_owned(),
        fel_beskrivning: text.to_owned(),
    })
}

/// The fel description the service uses for `typ` from `producer`.
pub fn fel_beskrivning(typ: &str, producer: &str) -> String {
    match typ {
        "ORGANISATION_FINNS_EJ" if producer == SCB => FINNS_EJ_SCB.to_owned(),
        "ORGANISATION_FINNS_EJ" => FINNS_EJ_BOLAGSVERKET.to_owned(),
        "OTILLGANGLIG_UPPGIFTSKALLA" => format!(
            "Uppkoppling mot {producer} misslyckades. Efterfrågade uppgifter kunde inte hämtas."
        ),
        "TIMEOUT" => {
            format!("Tidsgränsen överskreds vid hämtning av uppgifter från {producer}.")
        }
        _ => format!("Ogiltig begäran till {producer}."),
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct OrganisationerSvar {
    pub organisationer: Vec<Organisation>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Organisation {
    pub avregistrerad_organisation: Option<AvregistreradOrganisation>,
    pub avregistreringsorsak: Option<KodGrupp>,
    pub juridisk_form: Option<KodGrupp>,
    pub namnskyddslopnummer: Option<u32>,
    pub naringsgren_organisation: Option<NaringsgrenOrganisation>,
    pub organisationsdatum: Option<Organisationsdatum>,
    pub organisationsform: Option<KodGrupp>,
    pub organisationsidentitet: Option<Organisationsidentitet>,
    pub organisationsnamn: Option<Organisationsnamn>,
    pub pagaende_avvecklings_eller_omstruktureringsforfarande: Option<Pagaende>,
    pub postadress_organisation: Option<PostadressOrganisation>,
    pub registreringsland: Option<KodKlartext>,
    pub reklamsparr: Option<JaNejGrupp>,
    pub verksam_organisation: Option<JaNejGrupp>,
    pub verksamhetsbeskrivning: Option<Verksamhetsbeskrivning>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AvregistreradOrganisation {
    pub avregistreringsdatum: Option<String>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
}

/// `{kod, klartext, dataproducent, fel}` (avregistreringsorsak, juridiskForm, organisationsform).
#[derive(Clone, Debug, Serialize)]
pub struct KodGrupp {
    pub kod: Option<String>,
    pub klartext: Option<String>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
}

/// `{kod: JA|NEJ, dataproducent, fel}` (reklamsparr, verksamOrganisation).
#[derive(Clone, Debug, Serialize)]
pub struct JaNejGrupp {
    pub kod: Option<String>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NaringsgrenOrganisation {
    pub sni: Vec<KodKlartext>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Organisationsdatum {
    pub registreringsdatum: Option<String>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
    pub infort_hos_scb: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Organisationsidentitet {
    pub identitetsbeteckning: String,
    pub typ: Option<KodKlartext>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Organisationsnamn {
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
    pub organisationsnamn_lista: Option<Vec<NamnObjekt>>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamnObjekt {
    pub namn: String,
    pub organisationsnamntyp: Option<KodKlartext>,
    pub registreringsdatum: Option<String>,
    pub verksamhetsbeskrivning_sarskilt_foretagsnamn: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pagaende {
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
    pub pagaende_avvecklings_eller_omstruktureringsforfarande_lista: Option<Vec<PagaendeObjekt>>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PagaendeObjekt {
    pub kod: String,
    pub klartext: String,
    pub from_datum: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct PostadressOrganisation {
    pub postadress: Option<PostadressUt>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PostadressUt {
    pub postnummer: Option<String>,
    pub co_adress: Option<String>,
    pub land: Option<String>,
    pub postort: Option<String>,
    pub utdelningsadress: Option<String>,
}

impl From<&Postadress> for PostadressUt {
    fn from(p: &Postadress) -> Self {
        PostadressUt {
            postnummer: p.postnummer.clone(),
            co_adress: p.co_adress.clone(),
            land: p.land.clone(),
            postort: p.postort.clone(),
            utdelningsadress: p.utdelningsadress.clone(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Verksamhetsbeskrivning {
    pub beskrivning: Option<String>,
    pub dataproducent: &'static str,
    pub fel: Option<Fel>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DokumentlistaSvar {
    pub dokument: Vec<DokumentInfo>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DokumentInfo {
    pub dokument_id: String,
    pub filformat: &'static str,
    pub rapporteringsperiod_tom: String,
    pub registreringstidpunkt: String,
}

// Building answers from the data set.

fn kod_fel(producer: &'static str, f: Option<Fel>) -> KodGrupp {
    KodGrupp {
        kod: None,
        klartext: None,
        dataproducent: producer,
        fel: f,
    }
}

fn scb_juridisk_form(scb: Option<&ScbRecord>) -> Option<KodGrupp> {
    Some(match scb {
        Some(s) => KodGrupp {
            kod: Some(s.juridisk_form.kod.clone()),
            klartext: Some(s.juridisk_form.klartext.clone()),
            dataproducent: SCB,
            fel: None,
        },
        None => kod_fel(SCB, fel("ORGANISATION_FINNS_EJ", FINNS_EJ_SCB)),
    })
}

fn scb_naringsgren(scb: Option<&ScbRecord>) -> Option<NaringsgrenOrganisation> {
    Some(match scb {
        Some(s) => {
            let mut sni: Vec<KodKlartext> = s.sni.iter().take(5).cloned().collect();
            while sni.len() < 5 {
                sni.push(KodKlartext::new("     ", ""));
            }
            NaringsgrenOrganisation {
                sni,
                dataproducent: SCB,
                fel: None,
            }
        }
        None => NaringsgrenOrganisation {
            sni: Vec::new(),
            dataproducent: SCB,
            fel: fel("ORGANISATION_FINNS_EJ", FINNS_EJ_SCB),
        },
    })
}

fn ja_nej(b: bool) -> Option<String> {
    Some(if b { "JA" } else { "NEJ" }.to_owned())
}

fn scb_verksam(scb: Option<&ScbRecord>) -> Option<JaNejGrupp> {
    Some(match scb {
        Some(s) => JaNejGrupp {
            kod: ja_nej(s.verksam),
            dataproducent: SCB,
            fel: None,
        },
        None => JaNejGrupp {
            kod: None,
            dataproducent: SCB,
            fel: fel("ORGANISATION_FINNS_EJ", FINNS_EJ_SCB),
        },
    })
}

/// The `/organisationer` answer for an identitetsbeteckning (already validated).
pub fn organisationer_svar(ds: &Dataset, id: &str) -> OrganisationerSvar {
    let company = ds.company(id);
    OrganisationerSvar {
        organisationer: build_organisationer(company, id),
    }
}

fn build_organisationer(company: Option<&Company>, id: &str) -> Vec<Organisation> {
    let scb = company.and_then(|c| c.scb.as_ref());
    let regs = company.map(|c| c.registrations.as_slice()).unwrap_or(&[]);
    if regs.is_empty() {
        return vec![not_at_bolagsverket(id, scb)];
    }
    regs.iter()
        .map(|r| Organisation {
            avregistrerad_organisation: r.deregistration.as_ref().map(|d| {
                AvregistreradOrganisation {
                    avregistreringsdatum: Some(d.datum.clone()),
                    dataproducent: BV,
                    fel: None,
                }
            }),
            avregistreringsorsak: r.deregistration.as_ref().map(|d| KodGrupp {
                kod: Some(d.orsak.kod.clone()),
                klartext: Some(d.orsak.klartext.clone()),
                dataproducent: BV,
                fel: None,
            }),
            juridisk_form: scb_juridisk_form(scb),
            namnskyddslopnummer: r.namnskyddslopnummer,
            naringsgren_organisation: scb_naringsgren(scb),
            organisationsdatum: Some(Organisationsdatum {
                registreringsdatum: r.registreringsdatum.clone(),
                dataproducent: BV,
                fel: None,
                infort_hos_scb: scb.and_then(|s| s.infort_hos_scb.clone()),
            }),
            organisationsform: Some(KodGrupp {
                kod: Some(r.organisationsform.kod.clone()),
                klartext: Some(r.organisationsform.klartext.clone()),
                dataproducent: BV,
                fel: None,
            }),
            organisationsidentitet: Some(Organisationsidentitet {
                identitetsbeteckning: id.to_owned(),
                typ: r.identitetstyp.clone(),
            }),
            organisationsnamn: Some(Organisationsnamn {
                dataproducent: BV,
                fel: None,
                organisationsnamn_lista: Some(
                    r.names
                        .iter()
                        .map(|n| NamnObjekt {
                            namn: n.namn.clone(),
                            organisationsnamntyp: n.typ.clone(),
                            registreringsdatum: n.registreringsdatum.clone(),
                            verksamhetsbeskrivning_sarskilt_foretagsnamn: n
                                .verksamhetsbeskrivning
                                .clone(),
                        })
                        .collect(),
                ),
            }),
            pagaende_avvecklings_eller_omstruktureringsforfarande: (!r.proceedings.is_empty())
                .then(|| Pagaende {
                    dataproducent: BV,
                    fel: None,
                    pagaende_avvecklings_eller_omstruktureringsforfarande_lista: Some(
                        r.proceedings
                            .iter()
                            .map(|p| PagaendeObjekt {
                                kod: p.kod.clone(),
                                klartext: p.klartext.clone(),
                                from_datum: p.from_datum.clone(),
                            })
                            .collect(),
                    ),
                }),
            postadress_organisation: r.postadress.as_ref().map(|p| PostadressOrganisation {
                postadress: Some(p.into()),
                dataproducent: BV,
                fel: None,
            }),
            registreringsland: r.registreringsland.clone(),
            reklamsparr: None,
            verksam_organisation: scb_verksam(scb),
            verksamhetsbeskrivning: Some(Verksamhetsbeskrivning {
                beskrivning: r.verksamhetsbeskrivning.clone(),
                dataproducent: BV,
                fel: None,
            }),
        })
        .collect()
}

/// The answer when Bolagsverket does not know the identitetsbeteckning (SCB may).
fn not_at_bolagsverket(id: &str, scb: Option<&ScbRecord>) -> Organisation {
    let bv_fel = || fel("ORGANISATION_FINNS_EJ", FINNS_EJ_BOLAGSVERKET);
    Organisation {
        avregistrerad_organisation: Some(AvregistreradOrganisation {
            avregistreringsdatum: None,
            dataproducent: BV,
            fel: bv_fel(),
        }),
        avregistreringsorsak: Some(kod_fel(BV, bv_fel())),
        juridisk_form: scb_juridisk_form(scb),
        namnskyddslopnummer: None,
        naringsgren_organisation: scb_naringsgren(scb),
        organisationsdatum: Some(match scb {
            Some(s) => Organisationsdatum {
                registreringsdatum: None,
                dataproducent: SCB,
                fel: None,
                infort_hos_scb: s.infort_hos_scb.clone(),
            },
            None => Organisationsdatum {
                registreringsdatum: None,
                dataproducent: BV,
                fel: bv_fel(),
                infort_hos_scb: None,
            },
        }),
        organisationsform: Some(kod_fel(BV, bv_fel())),
        organisationsidentitet: Some(Organisationsidentitet {
            identitetsbeteckning: id.to_owned(),
            typ: None,
        }),
        organisationsnamn: Some(match scb {
            Some(s) => Organisationsnamn {
                dataproducent: SCB,
                fel: None,
                organisationsnamn_lista: Some(vec![NamnObjekt {
                    namn: s.namn.clone(),
                    organisationsnamntyp: None,
                    registreringsdatum: None,
                    verksamhetsbeskrivning_sarskilt_foretagsnamn: None,
                }]),
            },
            None => Organisationsnamn {
                dataproducent: BV,
                fel: bv_fel(),
                organisationsnamn_lista: Some(Vec::new()),
            },
        }),
        pagaende_avvecklings_eller_omstruktureringsforfarande: Some(Pagaende {
            dataproducent: BV,
            fel: bv_fel(),
            pagaende_avvecklings_eller_omstruktureringsforfarande_lista: Some(Vec::new()),
        }),
        postadress_organisation: Some(match scb {
            Some(s) => PostadressOrganisation {
                postadress: Some((&s.postadress).into()),
                dataproducent: SCB,
                fel: None,
            },
            None => PostadressOrganisation {
                postadress: None,
                dataproducent: BV,
                fel: bv_fel(),
            },
        }),
        registreringsland: None,
        reklamsparr: scb.map(|s| JaNejGrupp {
            kod: ja_nej(s.reklamsparr),
            dataproducent: SCB,
            fel: None,
        }),
        verksam_organisation: scb_verksam(scb),
        verksamhetsbeskrivning: Some(Verksamhetsbeskrivning {
            beskrivning: None,
            dataproducent: BV,
            fel: bv_fel(),
        }),
    }
}

/// The `/dokumentlista` answer (newest first; empty when the company is unknown).
pub fn dokumentlista_svar(company: Option<&Company>) -> DokumentlistaSvar {
    let mut dokument: Vec<DokumentInfo> = company
        .map(|c| {
            c.annual_reports
                .iter()
                .map(|r| DokumentInfo {
                    dokument_id: r.dokument_id.clone(),
                    filformat: "application/zip",
                    rapporteringsperiod_tom: r.period_tom.clone(),
                    registreringstidpunkt: r.registreringstidpunkt.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    dokument.sort_by(|a, b| b.rapporteringsperiod_tom.cmp(&a.rapporteringsperiod_tom));
    DokumentlistaSvar { dokument }
}

// field_fel.

pub(super) fn validate_field_fel(spec: &FaultSpec) -> Result<(), String> {
    if let Some(t) = &spec.fel_typ {
        if !FEL_TYPER.contains(&t.as_str()) {
            return Err(format!("fel_typ must be one of {FEL_TYPER:?}"));
        }
    }
    if let Some(f) = &spec.field {
        let ok = f == BV
            || f == SCB
            || BOLAGSVERKET_GROUPS.contains(&f.as_str())
            || SCB_GROUPS.contains(&f.as_str());
        if !ok {
            return Err(format!(
                "field must be Bolagsverket, SCB or one of {BOLAGSVERKET_GROUPS:?} {SCB_GROUPS:?}"
            ));
        }
    }
    Ok(())
}

impl Organisation {
    /// The producer a field group has in this answer.
    fn producer_of(&self, group: &str) -> &'static str {
        match group {
            "juridiskForm" | "naringsgrenOrganisation" | "verksamOrganisation" | "reklamsparr" => {
                SCB
            }
            "organisationsnamn" => self
                .organisationsnamn
                .as_ref()
                .map_or(BV, |g| g.dataproducent),
            "postadressOrganisation" => self
                .postadress_organisation
                .as_ref()
                .map_or(BV, |g| g.dataproducent),
            "organisationsdatum" => self
                .organisationsdatum
                .as_ref()
                .map_or(BV, |g| g.dataproducent),
            _ => BV,
        }
    }

    /// Replaces a field group by its failed form.
    fn set_fel(&mut self, group: &str, typ: &str, text: Option<&str>) {
        let p = self.producer_of(group);
        let f = fel(
            typ,
            &text.map_or_else(|| fel_beskrivning(typ, p), str::to_owned),
        );
        match group {
            "avregistreradOrganisation" => {
                self.avregistrerad_organisation = Some(AvregistreradOrganisation {
                    avregistreringsdatum: None,
                    dataproducent: p,
                    fel: f,
                })
            }
            "avregistreringsorsak" => self.avregistreringsorsak = Some(kod_fel(p, f)),
            "juridiskForm" => self.juridisk_form = Some(kod_fel(p, f)),
            "organisationsform" => self.organisationsform = Some(kod_fel(p, f)),
            "naringsgrenOrganisation" => {
                self.naringsgren_organisation = Some(NaringsgrenOrganisation {
                    sni: Vec::new(),
                    dataproducent: p,
                    fel: f,
                })
            }
            "organisationsdatum" => {
                self.organisationsdatum = Some(Organisationsdatum {
                    registreringsdatum: None,
                    dataproducent: p,
                    fel: f,
                    infort_hos_scb: None,
                })
            }
            "organisationsnamn" => {
                self.organisationsnamn = Some(Organisationsnamn {
                    dataproducent: p,
                    fel: f,
                    organisationsnamn_lista: None,
                })
            }
            "pagaendeAvvecklingsEllerOmstruktureringsforfarande" => {
                self.pagaende_avvecklings_eller_omstruktureringsforfarande = Some(Pagaende {
                    dataproducent: p,
                    fel: f,
                    pagaende_avvecklings_eller_omstruktureringsforfarande_lista: None,
                })
            }
            "postadressOrganisation" => {
                self.postadress_organisation = Some(PostadressOrganisation {
                    postadress: None,
                    dataproducent: p,
                    fel: f,
                })
            }
            "reklamsparr" => {
                self.reklamsparr = Some(JaNejGrupp {
                    kod: None,
                    dataproducent: p,
                    fel: f,
                })
            }
            "verksamOrganisation" => {
                self.verksam_organisation = Some(JaNejGrupp {
                    kod: None,
                    dataproducent: p,
                    fel: f,
                })
            }
            "verksamhetsbeskrivning" => {
                self.verksamhetsbeskrivning = Some(Verksamhetsbeskrivning {
                    beskrivning: None,
                    dataproducent: p,
                    fel: f,
                })
            }
            _ => {}
        }
    }
}

/// Applies a `field_fel` fault to an answer.
pub(super) fn apply_field_fel(svar: &mut OrganisationerSvar, ff: &FieldFel) {
    let typ = ff.typ.as_deref().unwrap_or("OTILLGANGLIG_UPPGIFTSKALLA");
    let text = ff.beskrivning.as_deref();
    let target = ff.field.as_deref().unwrap_or(BV);
    match target {
        // Bolagsverket as a whole failed: one element, identity unknown (spec example
        // "organisationer-fel-fran-en-uppgiftskalla-svar").
        BV => {
            svar.organisationer.truncate(1);
            for org in &mut svar.organisationer {
                let groups: Vec<&str> = BOLAGSVERKET_GROUPS
                    .iter()
                    .copied()
                    .filter(|g| org.producer_of(g) == BV)
                    .collect();
                for g in groups {
                    org.set_fel(g, typ, text);
                }
                org.organisationsidentitet = None;
                org.namnskyddslopnummer = None;
                org.registreringsland = None;
            }
        }
        SCB => {
            for org in &mut svar.organisationer {
                for g in [
                    "juridiskForm",
                    "naringsgrenOrganisation",
                    "verksamOrganisation",
                ] {
                    org.set_fel(g, typ, text);
                }
                if org.reklamsparr.is_some() {
                    org.set_fel("reklamsparr", typ, text);
                }
                for g in [
                    "organisationsnamn",
                    "postadressOrganisation",
                    "organisationsdatum",
                ] {
                    if org.producer_of(g) == SCB {
                        org.set_fel(g, typ, text);
                    }
                }
                if let Some(d) = org.organisationsdatum.as_mut() {
                    d.infort_hos_scb = None;
                }
            }
        }
        group => {
            for org in &mut svar.organisationer {
                org.set_fel(group, typ, text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sni_is_padded_to_five() {
        let ds = Dataset::standard();
        let svar = organisationer_svar(&ds, crate::data::testnr::HB);
        let v = serde_json::to_value(&svar).unwrap();
        let sni = v["organisationer"][0]["naringsgrenOrganisation"]["sni"]
            .as_array()
            .unwrap();
        assert_eq!(sni.len(), 5);
        assert_eq!(sni[4]["kod"], "     ");
    }

    #[test]
    fn field_fel_on_one_group() {
        let ds = Dataset::standard();
        let mut svar = organisationer_svar(&ds, crate::data::testnr::EK);
        apply_field_fel(
            &mut svar,
            &FieldFel {
                typ: Some("OTILLGANGLIG_UPPGIFTSKALLA".into()),
                beskrivning: None,
                field: Some("organisationsnamn".into()),
            },
        );
        let v = serde_json::to_value(&svar).unwrap();
        let g = &v["organisationer"][0]["organisationsnamn"];
        assert_eq!(g["fel"]["typ"], "OTILLGANGLIG_UPPGIFTSKALLA");
        assert!(g["organisationsnamnLista"].is_null());
        assert_eq!(g["dataproducent"], "Bolagsverket");
        assert!(v["organisationer"][0]["organisationsform"]["fel"].is_null());
    }
}
