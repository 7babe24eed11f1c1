//! The screening tools: a check (ad hoc or of a subject), checks read back, and the tenant's
//! overrides and whitelist.

use super::{Ctx, Effect, Fut, NoArgs, Spec, Tool};
use api_core::bodies;
use api_core::dto::screening::{
    OverrideVersionListDto, ScreeningCheckDto, ScreeningCheckListDto, WhitelistDto,
};
use domain::operation::Operation;
use domain::screening::check::CheckRequest;
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `screen_subject`: either `subject_id` or an ad-hoc identity.
#[derive(Deserialize, JsonSchema)]
pub struct ScreenArgs {
    /// A subject of the tenant (from a resolve or a lookup), instead of the ad-hoc fields. A
    /// person subject's name and birth date are read from the population register (needs
    /// kyc:read and the tenant's permit in force); a company subject's from its profile.
    #[serde(default)]
    pub subject_id: Option<String>,
    /// Ad hoc: the name to screen (a person's or an organisation's), at most 300
    /// characters. Never put a personal identity number in it (refused with
    /// name_is_identifier): screen the person by subject_id instead.
    #[serde(default)]
    pub name: Option<String>,
    /// Ad hoc: the birth date, `YYYY-MM-DD`, or `YYYY-MM` or `YYYY` when only that much is
    /// known.
    #[serde(default)]
    pub birth_date: Option<String>,
    /// Ad hoc: nationalities as ISO 3166-1 alpha-2 codes (`SE`, `RU`), at most 20.
    #[serde(default)]
    pub nationalities: Option<Vec<String>>,
    /// Ad hoc: an organisation number in identifier wire form (`5560360793`,
    /// `se:5560360793`), compared with the lists' registration numbers.
    #[serde(default)]
    pub orgnr: Option<String>,
    /// Ad hoc: the screened party's country, ISO 3166-1 alpha-2.
    #[serde(default)]
    pub country: Option<String>,
}

impl From<ScreenArgs> for CheckRequest {
    fn from(a: ScreenArgs) -> Self {
        CheckRequest {
            subject_id: a.subject_id,
            name: a.name,
            birth_date: a.birth_date,
            nationalities: a.nationalities,
            orgnr: a.orgnr,
            country: a.country,
        }
    }
}

/// Arguments of `get_screening_check`.
#[derive(Deserialize, JsonSchema)]
pub struct ScreeningCheckIdArgs {
    /// The check id (`chk_` + 26 characters).
    pub id: String,
}

/// Arguments of `list_screening_checks`.
#[derive(Deserialize, JsonSchema)]
pub struct ListScreeningChecksArgs {
    /// At most this many, 1 to 200 (default 50).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Only the checks of this subject.
    #[serde(default)]
    pub subject_id: Option<String>,
}

/// This file's tools, for the catalog.
pub(super) fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            Spec {
                name: "screen_subject",
                title: "Screen against sanctions and PEP lists",
                description: "Screens a subject (subject_id) or an ad-hoc identity (name, birth_date, \
                    nationalities, orgnr, country; at least a name or an orgnr) against the loaded \
                    sanctions lists and, when the tenant's policy screens them, the lists of \
                    politically exposed persons, their family members and close associates \
                    (PEP), and appends the check. Each candidate list entry comes with its \
                    list_kind (sanctions or pep), score, band (clear, review, hit; a pep \
                    candidate is at most review, and its reasons say the office or tie), reasons (code, detail, contributes up, \
                    down or neutral), the listing and its evidence; the check names every version \
                    it ran under, so the same input gives the same result. Never from a cache. A \
                    name holding a personal identity number is refused (name_is_identifier): \
                    screen the person by subject_id. No policy or no list loaded is \
                    screening_unavailable. The 201 body of POST /v1/screening/checks.",
                operations: &[Operation::RunScreeningCheck],
                effect: Effect::Write,
                // A subject check reads the person or company register.
                open_world: true,
            },
            screen_subject,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "get_screening_check",
                title: "Screening check",
                description: "A screening check by id, as it was appended (candidates, scores, \
                    reasons, versions), its input masked for this token. The body of \
                    GET /v1/screening/checks/{id}.",
                operations: &[Operation::GetScreeningCheck],
                effect: Effect::Read,
                open_world: false,
            },
            get_screening_check,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "list_screening_checks",
                title: "List screening checks",
                description: "The tenant's screening checks, newest first, bounded by the \
                    credential's countries (a check on a name alone is visible to every grant); \
                    optionally those of one subject. The body of GET /v1/screening/checks.",
                operations: &[Operation::ListScreeningChecks],
                effect: Effect::Read,
                open_world: false,
            },
            list_screening_checks,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "list_screening_overrides",
                title: "List screening policy overrides",
                description: "The tenant's override versions of the service's screening policy \
                    (thresholds and weights it sets, status draft, approved, active or retired, \
                    who proposed and approved it), newest first. The body of \
                    GET /v1/screening/overrides.",
                operations: &[Operation::ListScreeningOverrides],
                effect: Effect::Read,
                open_world: false,
            },
            list_screening_overrides,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "list_screening_whitelist",
                title: "List the screening whitelist",
                description: "The tenant's screening whitelist entries (a list entry cleared for \
                    a subject or a check's input_hash, with reason, makers, expiry, and whether \
                    in effect now), newest first. The body of GET /v1/screening/whitelist.",
                operations: &[Operation::ListScreeningWhitelist],
                effect: Effect::Read,
                open_world: false,
            },
            list_screening_whitelist,
        )
        .with_output(),
    ]
}

fn screen_subject(cx: Ctx<'_>, args: ScreenArgs) -> Fut<'_, ScreeningCheckDto> {
    Box::pin(
        cx.route(Operation::RunScreeningCheck, move |s, c| async move {
            bodies::run_screening_check(s, &c, args.into()).await
        }),
    )
}

fn get_screening_check(cx: Ctx<'_>, args: ScreeningCheckIdArgs) -> Fut<'_, ScreeningCheckDto> {
    Box::pin(
        cx.route(Operation::GetScreeningCheck, move |s, c| async move {
            bodies::get_screening_check(s, &c, &args.id).await
        }),
    )
}

fn list_screening_checks(
    cx: Ctx<'_>,
    args: ListScreeningChecksArgs,
) -> Fut<'_, ScreeningCheckListDto> {
    Box::pin(
        cx.route(Operation::ListScreeningChecks, move |s, c| async move {
            let request = domain::screening::check::ChecksRequest {
                limit: args.limit.map(|l| l.to_string()),
                subject_id: args.subject_id,
            };
            bodies::list_screening_checks(s, &c, &request).await
        }),
    )
}

fn list_screening_overrides(cx: Ctx<'_>, _args: NoArgs) -> Fut<'_, OverrideVersionListDto> {
    Box::pin(
        cx.route(Operation::ListScreeningOverrides, move |s, c| async move {
            bodies::list_screening_overrides(s, &c).await
        }),
    )
}

fn list_screening_whitelist(cx: Ctx<'_>, _args: NoArgs) -> Fut<'_, WhitelistDto> {
    Box::pin(
        cx.route(Operation::ListScreeningWhitelist, move |s, c| async move {
            bodies::list_screening_whitelist(s, &c).await
        }),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// A tool of the catalog, the schemes installed first (as the binary does at start).
    fn find(name: &str) -> Option<&'static super::Tool> {
        crate::install_schemes();
        crate::tools::find(name)
    }

    #[test]
    fn screen_subject_takes_optional_fields_and_a_list_of_nationalities() {
        let d = find("screen_subject").unwrap().descriptor();
        let input = &d["inputSchema"];
        assert!(
            input.get("required").is_none_or(|r| r == &json!([])),
            "{input}"
        );
        assert_eq!(
            input["properties"]["nationalities"]["items"]["type"],
            "string"
        );
        for field in ["birth_date", "country", "name", "orgnr", "subject_id"] {
            assert!(input["properties"][field].is_object(), "{field}");
        }
        assert_eq!(d["annotations"]["openWorldHint"], true);
        let get = find("get_screening_check").unwrap().descriptor();
        assert_eq!(get["inputSchema"]["required"], json!(["id"]));
        let none = find("list_screening_whitelist").unwrap().descriptor();
        assert_eq!(none["inputSchema"]["type"], "object");
    }
}
