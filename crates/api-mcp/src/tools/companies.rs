//! The company tools: the profile, officers, signatories, beneficial owners, a refresh, and
//! `lookup_company` (the profile, then the resolve).

use super::{pair, Ctx, Effect, Fut, Spec, Tool};
use api_core::bodies::{self, Answer};
use api_core::dto::{
    BeneficialOwnersDto, CompanyProfileDto, Envelope, OfficersDto, RefreshDto, ResolveResponse,
};
use domain::operation::Operation;
use domain::subjects::identifier::Identifier;
use domain::subjects::subject::ResolveRequest;
use domain::Failure;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Arguments of the company tools.
#[derive(Deserialize, JsonSchema)]
pub struct OrgnrArgs {
    /// The company's code in identifier wire form `[<cc>:]<value>` (the description the tool
    /// lists is built from the installed schemes: `api_core::schema::company_code_argument`).
    pub orgnr: String,
}

/// `lookup_company`'s answer: the resolve body and the company profile body, each embedded
/// byte for byte in `content[1]`.
#[derive(Serialize, JsonSchema)]
pub struct CompanyLookup {
    pub subject: ResolveResponse,
    pub company: Envelope<CompanyProfileDto>,
}

/// This file's tools, for the catalog.
pub(super) fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            Spec {
                name: "get_company_profile",
                title: "Company profile",
                description: "The company's registry profile (name, legal form, status, address, SNI codes, \
                    tax registrations, latest annual report), each value with evidence. The body of \
                    GET /v1/companies/{orgnr}: {stale, data}. Creates the company's subject on first sight.",
                operations: &[Operation::GetCompany],
                effect: Effect::Read,
                open_world: true,
            },
            get_company_profile,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "get_officers",
                title: "Officers and signatory rule",
                description: "The company's officers (one entry per role, each person as the tenant's \
                    personal_number_ref, never a personal number) and its signatory rule as text. Paid \
                    tier: metered against the tenant's daily budget; served stale or refused with \
                    budget_exceeded when it is spent. The body of GET /v1/companies/{orgnr}/officers.",
                operations: &[Operation::GetOfficers],
                effect: Effect::Read,
                open_world: true,
            },
            get_officers,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "get_signatories",
                title: "Signatory rule",
                description: "Who may sign for the company: the same object as get_officers (officers \
                    and the signatory rule as text). Paid tier, metered. The body of \
                    GET /v1/companies/{orgnr}/signatories.",
                operations: &[Operation::GetSignatories],
                effect: Effect::Read,
                open_world: true,
            },
            get_signatories,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "get_beneficial_owners",
                title: "Beneficial owners",
                description: "The company's beneficial owners: each person as the tenant's \
                    personal_number_ref, how control is held and the share band (25-50, 50-75, 75-100, \
                    unknown); no_ubo_reported when none is reported. Paid tier, metered. The body of \
                    GET /v1/companies/{orgnr}/beneficial-owners.",
                operations: &[Operation::GetBeneficialOwners],
                effect: Effect::Read,
                open_world: true,
            },
            get_beneficial_owners,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "refresh_company",
                title: "Refresh a company",
                description: "Forces a re-fetch of the company's profile from the register (never \
                    from the cache), metered against the tenant's daily budget; under an active \
                    subscription, what moved becomes change events (trigger on_demand). The body \
                    of POST /v1/companies/{orgnr}/refresh: {stale, data, events_emitted}.",
                operations: &[Operation::RefreshCompany],
                effect: Effect::Write,
                open_world: true,
            },
            refresh_company,
        )
        .with_output(),
        Tool::new(
            Spec {
                name: "lookup_company",
                title: "Look up a company",
                description: "Looks a company up by organisation number: its registry profile and the \
                    tenant's subject for it (created on first sight). GET /v1/companies/{orgnr} and \
                    POST /v1/subjects/resolve; content[1] is {\"subject\": <resolve body>, \
                    \"company\": <company profile body>}, each embedded byte for byte.",
                operations: &[Operation::GetCompany, Operation::ResolveSubject],
                // Reads: resolving creates the subject at most once; calling again changes nothing.
                effect: Effect::Read,
                open_world: true,
            },
            lookup_company,
        ),
    ]
}

fn get_company_profile(cx: Ctx<'_>, args: OrgnrArgs) -> Fut<'_, Envelope<CompanyProfileDto>> {
    Box::pin(cx.route(Operation::GetCompany, move |s, c| async move {
        bodies::company_profile(s, &c, &args.orgnr).await
    }))
}

fn get_officers(cx: Ctx<'_>, args: OrgnrArgs) -> Fut<'_, Envelope<OfficersDto>> {
    Box::pin(cx.route(Operation::GetOfficers, move |s, c| async move {
        bodies::officers(s, &c, Operation::GetOfficers, &args.orgnr).await
    }))
}

fn get_signatories(cx: Ctx<'_>, args: OrgnrArgs) -> Fut<'_, Envelope<OfficersDto>> {
    Box::pin(cx.route(Operation::GetSignatories, move |s, c| async move {
        bodies::officers(s, &c, Operation::GetSignatories, &args.orgnr).await
    }))
}

fn get_beneficial_owners(cx: Ctx<'_>, args: OrgnrArgs) -> Fut<'_, Envelope<BeneficialOwnersDto>> {
    Box::pin(
        cx.route(Operation::GetBeneficialOwners, move |s, c| async move {
            bodies::beneficial_owners(s, &c, &args.orgnr).await
        }),
    )
}

fn refresh_company(cx: Ctx<'_>, args: OrgnrArgs) -> Fut<'_, RefreshDto> {
    Box::pin(cx.route(Operation::RefreshCompany, move |s, c| async move {
        bodies::refresh_company(s, &c, &args.orgnr).await
    }))
}

/// The company profile, then the resolve. The profile route goes first so that whatever it
/// refuses (no `kyb:read`, a malformed or foreign number, a company the register does not
/// know, a country not served) is the tool's answer and no subject is created for it; on
/// success the profile has created the subject and the resolve finds it.
fn lookup_company(cx: Ctx<'_>, args: OrgnrArgs) -> Fut<'_, CompanyLookup> {
    Box::pin(async move {
        let orgnr = args.orgnr;
        let wire = orgnr.clone();
        let company = cx
            .route(Operation::GetCompany, move |s, c| async move {
                bodies::company_profile(s, &c, &wire).await
            })
            .await?;
        // The company route accepted the number, so it parses; its scheme is the resolve type.
        let scheme = Identifier::parse_company(&orgnr)
            .map_err(|_| Failure::internal("a number the company route served does not parse"))?
            .id_type()
            .as_str();
        let request = ResolveRequest {
            id_type: scheme.to_owned(),
            value: orgnr,
            customer_ref: None,
        };
        let subject = cx
            .route(Operation::ResolveSubject, move |s, c| async move {
                bodies::resolve_subject(s, &c, request).await
            })
            .await?;
        Ok(Answer {
            body: pair(("subject", &subject.body), ("company", &company.body)),
            value: CompanyLookup {
                subject: subject.value,
                company: company.value,
            },
        })
    })
}

#[cfg(test)]
mod tests {
    /// A tool of the catalog, the schemes installed first (as the binary does at start).
    fn find(name: &str) -> Option<&'static super::Tool> {
        crate::install_schemes();
        crate::tools::find(name)
    }

    #[test]
    fn a_company_tools_orgnr_is_described_by_every_installed_company_scheme() {
        crate::install_schemes();
        let rule = domain::subjects::identifier::scheme::company_code_description();
        assert!(rule.contains("`lt:`"), "{rule}");
        for name in ["get_company_profile", "get_officers", "refresh_company"] {
            let d = find(name).unwrap().descriptor();
            let text = d["inputSchema"]["properties"]["orgnr"]["description"]
                .as_str()
                .unwrap();
            assert!(text.contains(&rule), "{name}: {text}");
        }
        // Screening's optional ad-hoc code keeps its own words.
        let screen = find("screen_subject").unwrap().descriptor();
        let text = screen["inputSchema"]["properties"]["orgnr"]["description"]
            .as_str()
            .unwrap();
        assert!(text.starts_with("Ad hoc"), "{text}");
    }
}
