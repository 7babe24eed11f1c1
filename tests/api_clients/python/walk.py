#!/usr/bin/env python3
"""The demo walk-through with a Python client generated from idreg's own OpenAPI document.

Downloads `<url>/openapi.json` into a temporary directory, generates a client from it with
openapi-python-client (`--meta none`, the options in `generator-config.json` beside this file),
imports the generated package unmodified and walks the demo with nothing but its API functions
(`api/<tag>/<operation_id>.py`, `sync_detailed`), its models and its `Client` /
`AuthenticatedClient`: a token (form body, HTTP Basic, a wrong secret), a company resolved and
read (subject, profile with evidence, its latest annual report), a person resolved and read by
its identifier_ref, an ad-hoc screening check and its read-back, the event log from cursor 0 and
the day's usage. Every check asserts on the typed, parsed answer.

    python walk.py --url http://127.0.0.1:8080 --client-id "$CLIENT_ID" --client-secret "$CLIENT_SECRET"

The arguments may also come from IDREG_URL, IDREG_CLIENT_ID and IDREG_CLIENT_SECRET. The grant
must carry SE and the scopes kyb:read, kyc:read (with the tenant's person-register permit),
screening:run and events:read, as the demo's does. `--keep` keeps the generated client and
prints where. Needs openapi-python-client (0.29.x) and its httpx, attrs and python-dateutil.
Prints one PASS/FAIL line per check and a summary; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import base64
import importlib
import os
import pkgutil
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
GENERATOR_CONFIG = HERE / "generator-config.json"
PACKAGE = "idreg_client"
TIMEOUT = httpx.Timeout(60.0)

ULID = re.compile(r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$")
IDENTIFIER_REF = re.compile(r"^idr_[0-7][0-9A-HJKMNP-TV-Z]{25}$")
DAY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")

# The walk-through's inputs (the README's "Using it" and the demo's printed walk-through).
COMPANY = "5561890038"  # the sandbox's AB with three annual reports
COMPANY_REF = "customer-42"
PERSON = "19570413-3106"  # SPAR's recorded ordinary kundtest person
PERSON_SURNAME = "Efternamn3542"
PERSON_BIRTH_DATE = "1957-04-13"
SCREENED_NAME = "Badege Eric"  # on the UN list as ERIC BADEGE (CDi.001)
SCREENED_BIRTH_DATE = "1971-06-15"
SCREENED_NATIONALITIES = ["CD"]


class Checks:
    def __init__(self) -> None:
        self.failures: list[str] = []
        self.passed = 0

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        if ok:
            self.passed += 1
            print(f"PASS  {name}")
        else:
            self.failures.append(name)
            print(f"FAIL  {name}" + (f": {detail}" if detail else ""))
        return ok


class Skip(Exception):
    """A step cannot run: something an earlier step should have produced is missing."""


class Recorder:
    """An httpx request event hook keeping what the generated functions actually sent."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> None:
        request.read()
        self.requests.append(request)

    @property
    def last(self) -> httpx.Request:
        return self.requests[-1]


def indent(text: str) -> str:
    return "\n".join("      " + line for line in text.rstrip().splitlines())


def excerpt(response: Any) -> str:
    content = getattr(response, "content", b"") or b""
    return content[:400].decode("utf-8", "replace")


def answered(checks: Checks, name: str, response: Any, status: int, model: type) -> bool:
    """The status, and a parsed answer of the generated model the document declares for it."""
    parsed = getattr(response, "parsed", None)
    return checks.check(
        f"{name}: {status} {model.__name__}",
        int(response.status_code) == status and isinstance(parsed, model),
        f"got {int(response.status_code)} {type(parsed).__name__}: {excerpt(response)}",
    )


# --- the document and the generated client ------------------------------------------------


def generator_command(document: Path, output: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "openapi_python_client",
        "generate",
        "--path",
        str(document),
        "--output-path",
        str(output),
        "--meta",
        "none",
        "--config",
        str(GENERATOR_CONFIG),
    ]


def generate(checks: Checks, base: str, work: Path) -> bool:
    document = work / "openapi.json"
    try:
        response = httpx.get(f"{base}/openapi.json", timeout=TIMEOUT)
        doc = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError) as e:
        checks.check("openapi.json: downloaded", False, repr(e))
        return False
    if not checks.check(
        "openapi.json: downloaded, an OpenAPI 3 document",
        isinstance(doc, dict) and str(doc.get("openapi", "")).startswith("3."),
        f"{response.status_code}: {response.text[:200]}",
    ):
        return False
    document.write_bytes(response.content)
    info = doc.get("info", {})
    print(f"      {info.get('title')} {info.get('version')}, OpenAPI {doc['openapi']}")

    output = work / PACKAGE
    command = generator_command(document, output)
    print("      $ " + shlex.join(command))
    run = subprocess.run(command, cwd=work, capture_output=True, text=True)
    said = (run.stdout + run.stderr).strip()
    if said:
        print(indent(said))
    generated = (output / "__init__.py").is_file()
    checks.check(
        "generator: exits 0 and writes the package",
        run.returncode == 0 and generated,
        f"exit {run.returncode}, package {'written' if generated else 'not written'} "
        "(the generator's words above)",
    )
    # It reports problems as "Warning(s) encountered ..." (client written, pieces may be
    # missing) or "Error(s) encountered ..." (nothing written), each item with its detail.
    troubled = re.search(r"\b(Warning|Error)\(s\) encountered", said) is not None
    checks.check(
        "generator: no warnings",
        run.returncode == 0 and not troubled,
        "see the generator's words above",
    )
    return generated


def import_generated(checks: Checks, work: Path) -> Any:
    sys.path.insert(0, str(work))
    try:
        package = importlib.import_module(PACKAGE)
        ok = hasattr(package, "Client") and hasattr(package, "AuthenticatedClient")
    except Exception as e:  # noqa: BLE001 - whatever the generated code raises is the finding
        checks.check("generated package imports", False, f"{type(e).__name__}: {e}")
        return None
    checks.check("generated package imports, with Client and AuthenticatedClient", ok)
    broken = []
    count = 0
    for module in pkgutil.walk_packages(package.__path__, f"{PACKAGE}."):
        count += 1
        try:
            importlib.import_module(module.name)
        except Exception as e:  # noqa: BLE001
            where = traceback.extract_tb(e.__traceback__)[-1]
            broken.append(
                f"{module.name}: {type(e).__name__}: {e} "
                f"({Path(where.filename).name}:{where.lineno}: {where.line})"
            )
    checks.check(
        f"generated modules: all {count} import",
        not broken,
        f"{len(broken)} do not:\n" + indent("\n".join(broken)),
    )
    return package if ok else None


# --- the walk ----------------------------------------------------------------------------


class Walk:
    def __init__(self, checks: Checks, package: Any, base: str, client_id: str, secret: str):
        self.checks = checks
        self.package = package
        self.models = importlib.import_module(f"{PACKAGE}.models")
        self.base = base
        self.client_id = client_id
        self.secret = secret
        self.expected_mode = "test" if client_id.startswith("cid_test_") else "live"
        self.token: str | None = None
        self.authed: Any = None
        self.company_subject: str | None = None
        self.company_identifier_ref: str | None = None
        self.document_ref: str | None = None
        self.person_subject: str | None = None
        self.person_ref: str | None = None
        self.check_id: str | None = None
        self.screened: Any = None

    def api(self, tag: str, operation: str) -> Any:
        name = f"{PACKAGE}.api.{tag}.{operation}"
        try:
            return importlib.import_module(name)
        except Exception as e:  # noqa: BLE001
            raise Skip(f"{name} does not import: {type(e).__name__}: {e}") from e

    def need(self, **values: Any) -> None:
        missing = [k for k, v in values.items() if v is None]
        if missing:
            raise Skip("needs " + ", ".join(missing) + " from an earlier step")

    def run(self, name: str, step) -> None:
        try:
            step()
        except Skip as e:
            self.checks.check(name, False, f"not run: {e}")
        except Exception as e:  # noqa: BLE001 - e.g. a generated from_dict refusing the answer
            tb = traceback.extract_tb(e.__traceback__)
            where = next((f for f in reversed(tb) if f"/{PACKAGE}/" in f.filename), tb[-1])
            self.checks.check(
                name,
                False,
                f"{type(e).__name__}: {e} (at {Path(where.filename).name}:{where.lineno}: {where.line})",
            )

    # token -----------------------------------------------------------------------------

    def check_token(self, name: str, response: Any) -> bool:
        m = self.models
        if not answered(self.checks, name, response, 200, m.TokenResponse):
            return False
        t = response.parsed
        c = self.checks
        c.check(
            f"{name}: token_type Bearer, a token, expires_in > 0",
            t.token_type == m.TokenResponseTokenType.BEARER
            and isinstance(t.access_token, str)
            and len(t.access_token) > 20
            and t.expires_in > 0,
            f"token_type={t.token_type!r} expires_in={t.expires_in!r}",
        )
        c.check(
            f"{name}: mode {self.expected_mode}, as the Idreg-Mode header says",
            isinstance(t.mode, m.TokenResponseMode)
            and t.mode.value == self.expected_mode
            # `Idreg-Mode: test` on a test-mode answer; no such header on a live one.
            and response.headers.get("idreg-mode") == ("test" if t.mode.value == "test" else None),
            f"mode={t.mode!r}, Idreg-Mode: {response.headers.get('idreg-mode')!r}",
        )
        scopes = set(t.scope.split())
        wanted = {"kyb:read", "kyc:read", "screening:run", "events:read"}
        c.check(
            f"{name}: the walk's scopes and SE",
            wanted <= scopes and "SE" in [str(x) for x in t.countries],
            f"scope={t.scope!r} countries={t.countries!r}",
        )
        return True

    def token_form(self) -> None:
        issue_token = self.api("token", "issue_token")
        m = self.models
        seen = Recorder()
        client = self.package.Client(
            base_url=self.base, timeout=TIMEOUT, httpx_args={"event_hooks": {"request": [seen]}}
        )
        body = m.TokenRequest(
            grant_type=m.TokenRequestGrantType.CLIENT_CREDENTIALS,
            client_id=self.client_id,
            client_secret=self.secret,
        )
        response = issue_token.sync_detailed(client=client, body=body)
        sent = seen.last
        self.checks.check(
            "token (form body): sent form-encoded",
            sent.headers.get("content-type") == "application/x-www-form-urlencoded"
            and b"grant_type=client_credentials" in sent.content,
            f"Content-Type: {sent.headers.get('content-type')!r}, body {sent.content[:80]!r}",
        )
        if self.check_token("token (form body)", response):
            self.token = response.parsed.access_token

    def token_basic(self) -> None:
        issue_token = self.api("token", "issue_token")
        m = self.models
        seen = Recorder()
        client = self.package.Client(
            base_url=self.base,
            timeout=TIMEOUT,
            httpx_args={
                "auth": httpx.BasicAuth(self.client_id, self.secret),
                "event_hooks": {"request": [seen]},
            },
        )
        body = m.TokenRequest(grant_type=m.TokenRequestGrantType.CLIENT_CREDENTIALS)
        response = issue_token.sync_detailed(client=client, body=body)
        sent = seen.last
        self.checks.check(
            "token (HTTP Basic): Basic credentials sent, none in the body",
            sent.headers.get("authorization", "").startswith("Basic ")
            and b"client_secret" not in sent.content,
            f"Authorization: {sent.headers.get('authorization', '')[:6]!r}, body {sent.content!r}",
        )
        self.check_token("token (HTTP Basic)", response)

    def token_wrong_secret(self) -> None:
        issue_token = self.api("token", "issue_token")
        m = self.models
        client = self.package.Client(base_url=self.base, timeout=TIMEOUT)
        body = m.TokenRequest(
            grant_type=m.TokenRequestGrantType.CLIENT_CREDENTIALS,
            client_id=self.client_id,
            client_secret=self.secret + "x",
        )
        response = issue_token.sync_detailed(client=client, body=body)
        if answered(self.checks, "token (wrong secret)", response, 401, m.IssueTokenResponse401):
            e = response.parsed
            self.checks.check(
                "token (wrong secret): error invalid_client, a message",
                e.error == m.IssueTokenResponse401Error.INVALID_CLIENT and bool(e.message),
                f"error={e.error!r} message={e.message!r}",
            )

    # with the bearer token -------------------------------------------------------------

    def client(self) -> Any:
        self.need(token=self.token)
        if self.authed is None:
            self.authed = self.package.AuthenticatedClient(
                base_url=self.base, token=self.token, timeout=TIMEOUT
            )
        return self.authed

    def resolve_company(self) -> None:
        resolve_subject = self.api("subjects", "resolve_subject")
        m = self.models
        body = m.ResolveRequest(type_=m.ResolveRequestType.ORGNR, value=COMPANY, ref=COMPANY_REF)
        response = resolve_subject.sync_detailed(client=self.client(), body=body)
        name = f"resolve orgnr {COMPANY}"
        if not answered(self.checks, name, response, 200, m.ResolveResponse):
            return
        r = response.parsed
        if self.checks.check(
            f"{name}: a subject_id (ULID) and an identifier_ref (idr_)",
            bool(ULID.match(r.subject_id)) and bool(IDENTIFIER_REF.match(r.identifier_ref)),
            f"subject_id={r.subject_id!r} identifier_ref={r.identifier_ref!r}",
        ):
            self.company_subject = r.subject_id
            self.company_identifier_ref = r.identifier_ref
        # Another spelling of the same number is the same subject.
        again = resolve_subject.sync_detailed(
            client=self.client(),
            body=m.ResolveRequest(type_=m.ResolveRequestType.ORGNR, value="se:" + COMPANY),
        )
        if answered(self.checks, f"resolve orgnr se:{COMPANY}", again, 200, m.ResolveResponse):
            self.checks.check(
                f"resolve orgnr se:{COMPANY}: the same subject and identifier_ref",
                again.parsed.subject_id == r.subject_id and again.parsed.identifier_ref == r.identifier_ref,
                f"{again.parsed.subject_id!r} / {again.parsed.identifier_ref!r}",
            )

    def get_subject(self) -> None:
        self.need(subject_id=self.company_subject)
        get_subject = self.api("subjects", "get_subject")
        m = self.models
        response = get_subject.sync_detailed(id=self.company_subject, client=self.client())
        name = "get subject"
        if not answered(self.checks, name, response, 200, m.Subject):
            return
        s = response.parsed
        self.checks.check(
            f"{name}: the resolved subject, kind company",
            s.subject_id == self.company_subject and s.kind == m.SubjectKind.COMPANY,
            f"subject_id={s.subject_id!r} kind={s.kind!r}",
        )
        self.checks.check(
            f"{name}: its SE orgnr identifier is the resolved identifier_ref",
            any(
                isinstance(i, m.SubjectIdentifier)
                and i.type_ == m.SubjectIdentifierType.ORGNR
                and i.country.value == "SE"
                and i.identifier_ref == self.company_identifier_ref
                for i in s.identifiers
            ),
            repr([i.to_dict() for i in s.identifiers]),
        )
        self.checks.check(
            f"{name}: carries the customer ref {COMPANY_REF!r}",
            any(isinstance(x, m.CustomerRef) and x.ref == COMPANY_REF for x in s.refs),
            repr([x.to_dict() for x in s.refs]),
        )
        self.checks.check(
            f"{name}: evidence with a source",
            isinstance(s.evidence, m.Evidence) and isinstance(s.evidence.source, m.EvidenceSource),
            repr(s.evidence),
        )

    def get_company(self) -> None:
        get_company = self.api("companies", "get_company")
        m = self.models
        response = get_company.sync_detailed(orgnr=COMPANY, client=self.client())
        name = f"company profile {COMPANY}"
        if not answered(self.checks, name, response, 200, m.CompanyProfileEnvelope):
            return
        envelope = response.parsed
        d = envelope.data
        self.checks.check(
            f"{name}: the envelope {{stale, data}}, stale a bool",
            isinstance(envelope.stale, bool) and d is not None,
            f"stale={envelope.stale!r}",
        )
        self.checks.check(
            f"{name}: the company, an AB, the resolved subject",
            d.orgnr == COMPANY
            and d.legal_form == "AB"
            and len(d.name) > 3
            and d.subject_id == self.company_subject,
            f"orgnr={d.orgnr!r} legal_form={d.legal_form!r} name={d.name!r} "
            f"subject_id={d.subject_id!r} (resolved {self.company_subject!r})",
        )
        e = d.evidence
        self.checks.check(
            f"{name}: evidence from Bolagsverket with a digest",
            isinstance(e, m.Evidence)
            and e.source == m.EvidenceSource.COMPANYREG_VARDEFULLA_DATAMANGDER
            and isinstance(e.digest, str)
            and e.digest.startswith("sha256:")
            and bool(e.call_ref),
            repr(e.to_dict() if isinstance(e, m.Evidence) else e),
        )
        report = d.latest_annual_report
        if self.checks.check(
            f"{name}: latest_annual_report with a year and a ref",
            isinstance(report, m.AnnualReport) and report.year >= 2000 and bool(report.ref),
            repr(report),
        ):
            self.document_ref = report.ref

    def get_document(self) -> None:
        self.need(latest_annual_report_ref=self.document_ref)
        get_document = self.api("companies", "get_document")
        m = self.models
        response = get_document.sync_detailed(id=self.document_ref, client=self.client())
        name = "document (latest_annual_report.ref)"
        if not answered(self.checks, name, response, 200, m.DocumentEnvelope):
            return
        d = response.parsed.data
        self.checks.check(
            f"{name}: that document, of the company's subject, with evidence",
            d.document_id == self.document_ref
            and d.subject_id == self.company_subject
            and isinstance(d.evidence, m.Evidence),
            f"document_id={d.document_id!r} subject_id={d.subject_id!r}",
        )
        try:
            content = base64.b64decode(d.content_base64, validate=True)
        except ValueError as e:
            content = repr(e).encode()
        self.checks.check(
            f"{name}: a zip archive, base64",
            d.content_type == "application/zip" and content[:4] == b"PK\x03\x04",
            f"content_type={d.content_type!r}, starts {content[:8]!r}",
        )

    def resolve_person(self) -> None:
        resolve_subject = self.api("subjects", "resolve_subject")
        m = self.models
        body = m.ResolveRequest(type_=m.ResolveRequestType.PERSONNUMMER, value=PERSON)
        response = resolve_subject.sync_detailed(client=self.client(), body=body)
        name = "resolve personnummer"
        if not answered(self.checks, name, response, 200, m.ResolveResponse):
            return
        r = response.parsed
        if self.checks.check(
            f"{name}: a subject_id and an identifier_ref, not the number",
            bool(ULID.match(r.subject_id))
            and bool(IDENTIFIER_REF.match(r.identifier_ref))
            and PERSON.replace("-", "")[2:] not in response.content.decode(),
            f"subject_id={r.subject_id!r} identifier_ref={r.identifier_ref!r}",
        ):
            self.person_subject = r.subject_id
            self.person_ref = r.identifier_ref

    def get_person(self) -> None:
        self.need(identifier_ref=self.person_ref)
        get_person_profile = self.api("persons", "get_person_profile")
        m = self.models
        response = get_person_profile.sync_detailed(ref=self.person_ref, client=self.client())
        name = "person profile (identifier_ref)"
        if not answered(self.checks, name, response, 200, m.PersonProfileEnvelope):
            return
        envelope = response.parsed
        d = envelope.data
        self.checks.check(
            f"{name}: never stale; the person of the ref and subject",
            envelope.stale is False
            and d.person_ref == self.person_ref
            and d.subject_id == self.person_subject,
            f"stale={envelope.stale!r} person_ref={d.person_ref!r} subject_id={d.subject_id!r}",
        )
        self.checks.check(
            f"{name}: the register's names and birth date",
            isinstance(d.names, m.PersonNames)
            and d.names.surname == PERSON_SURNAME
            and d.birth_date == PERSON_BIRTH_DATE,
            f"names={d.names.to_dict() if hasattr(d.names, 'to_dict') else d.names!r} "
            f"birth_date={d.birth_date!r}",
        )
        self.checks.check(
            f"{name}: evidence from SPAR",
            isinstance(d.evidence, m.Evidence)
            and d.evidence.source == m.EvidenceSource.PERSONREG_PERSONSOKNING,
            repr(d.evidence),
        )

    def screen(self) -> None:
        screen_subject = self.api("screening", "screen_subject")
        m = self.models
        body = m.ScreeningCheckRequest(
            name=SCREENED_NAME,
            birth_date=SCREENED_BIRTH_DATE,
            nationalities=list(SCREENED_NATIONALITIES),
        )
        response = screen_subject.sync_detailed(client=self.client(), body=body)
        name = "screening check (ad hoc)"
        if not answered(self.checks, name, response, 201, m.ScreeningCheck):
            return
        k = response.parsed
        self.check_id = k.id
        self.screened = k
        self.checks.check(
            f"{name}: an ad-hoc check with an id, a policy and lists",
            bool(k.id)
            and k.input_kind == m.ScreeningCheckInputKind.ADHOC
            and k.subject_id is None
            and bool(k.policy_version_id)
            and len(k.source_version_ids) > 0,
            f"id={k.id!r} input_kind={k.input_kind!r} subject_id={k.subject_id!r} "
            f"policy={k.policy_version_id!r} lists={k.source_version_ids!r}",
        )
        self.checks.check(
            f"{name}: band hit",
            isinstance(k.band, m.ScreeningCheckBand) and k.band == m.ScreeningCheckBand.HIT,
            f"band={k.band!r}",
        )
        candidates = k.candidates
        self.checks.check(
            f"{name}: candidates, candidate_count of them",
            len(candidates) > 0 and k.candidate_count == len(candidates),
            f"candidate_count={k.candidate_count!r}, {len(candidates)} candidates",
        )
        if not candidates:
            return
        top = candidates[0]
        names = [n.name for n in top.listing.names]
        self.checks.check(
            f"{name}: the first candidate is ERIC BADEGE, band hit, with reasons",
            isinstance(top, m.ScreeningCandidate)
            and any("BADEGE" in n.upper() for n in names)
            and top.band == m.ScreeningCandidateBand.HIT
            and 0 < top.score <= 1
            and len(top.reasons) > 0
            and all(isinstance(r, m.ScreeningReason) for r in top.reasons),
            f"names={names!r} band={top.band!r} score={top.score!r} reasons={len(top.reasons)}",
        )

    def read_check(self) -> None:
        self.need(check_id=self.check_id)
        get_screening_check = self.api("screening", "get_screening_check")
        m = self.models
        response = get_screening_check.sync_detailed(id=self.check_id, client=self.client())
        name = "screening check read back"
        if not answered(self.checks, name, response, 200, m.ScreeningCheck):
            return
        k, first = response.parsed, self.screened
        self.checks.check(
            f"{name}: the same check, band and candidates",
            k.id == first.id
            and k.band == first.band
            and k.candidate_count == first.candidate_count
            and [c.id for c in k.candidates] == [c.id for c in first.candidates]
            and k.policy_version_id == first.policy_version_id,
            f"id={k.id!r} band={k.band!r} candidate_count={k.candidate_count!r}",
        )

    def events(self) -> None:
        list_events = self.api("events", "list_events")
        m = self.models
        response = list_events.sync_detailed(client=self.client(), cursor="0")
        name = "events from cursor 0"
        if not answered(self.checks, name, response, 200, m.EventPage):
            return
        page = response.parsed
        seqs = [e.seq for e in page.events]
        self.checks.check(
            f"{name}: events in seq order; next_cursor past them",
            all(isinstance(e, m.Event) for e in page.events)
            and seqs == sorted(set(seqs))
            and all(s > 0 for s in seqs)
            and page.next_cursor >= (seqs[-1] if seqs else 0),
            f"{len(seqs)} events, seqs {seqs[:5]}..., next_cursor={page.next_cursor!r}",
        )
        self.checks.check(
            f"{name}: each with an id, a type and a country",
            all(bool(e.id) and bool(e.type_) and e.country.value in ("SE", "LT") for e in page.events),
            repr([(e.id, e.type_) for e in page.events[:3]]),
        )

    def usage(self) -> None:
        get_usage = self.api("usage", "get_usage")
        m = self.models
        response = get_usage.sync_detailed(client=self.client())
        name = "usage"
        if not answered(self.checks, name, response, 200, m.Usage):
            return
        u = response.parsed
        self.checks.check(
            f"{name}: today in Europe/Stockholm",
            u.time_zone == "Europe/Stockholm" and bool(DAY.match(u.day)) and u.reset_seconds >= 0,
            f"day={u.day!r} time_zone={u.time_zone!r} reset_seconds={u.reset_seconds!r}",
        )
        parts = [u.person_lookups, u.paid_calls.on_demand, u.paid_calls.scheduled]
        self.checks.check(
            f"{name}: each limit is used plus remaining",
            all(isinstance(p, m.UsagePart) for p in parts)
            and all(p.remaining == max(p.limit - p.used, 0) for p in parts),
            repr([p.to_dict() for p in parts]),
        )
        # `quotas` repeats the figures of the paid budget's on-demand part and the person ceiling.
        by_policy = {q.policy: q for q in u.quotas if isinstance(q, m.Quota)}
        self.checks.check(
            f"{name}: quotas repeat the paid and person_lookups figures",
            set(by_policy) == {"paid", "person_lookups"}
            and len(u.quotas) == 2
            and (by_policy["paid"].quota, by_policy["paid"].remaining)
            == (u.paid_calls.on_demand.limit, u.paid_calls.on_demand.remaining)
            and (by_policy["person_lookups"].quota, by_policy["person_lookups"].remaining)
            == (u.person_lookups.limit, u.person_lookups.remaining),
            repr([q.to_dict() for q in u.quotas]),
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("IDREG_URL"))
    parser.add_argument("--client-id", default=os.environ.get("IDREG_CLIENT_ID"))
    parser.add_argument("--client-secret", default=os.environ.get("IDREG_CLIENT_SECRET"))
    parser.add_argument("--keep", action="store_true", help="keep the generated client")
    args = parser.parse_args()
    if not (args.url and args.client_id and args.client_secret):
        parser.error("--url, --client-id and --client-secret are required")
    base = args.url.rstrip("/")

    checks = Checks()
    work = Path(tempfile.mkdtemp(prefix="idreg-python-client-"))
    try:
        package = import_generated(checks, work) if generate(checks, base, work) else None
        if package is not None:
            walk = Walk(checks, package, base, args.client_id, args.client_secret)
            for name, step in [
                ("token (form body)", walk.token_form),
                ("token (HTTP Basic)", walk.token_basic),
                ("token (wrong secret)", walk.token_wrong_secret),
                (f"resolve orgnr {COMPANY}", walk.resolve_company),
                ("get subject", walk.get_subject),
                (f"company profile {COMPANY}", walk.get_company),
                ("document (latest_annual_report.ref)", walk.get_document),
                ("resolve personnummer", walk.resolve_person),
                ("person profile (identifier_ref)", walk.get_person),
                ("screening check (ad hoc)", walk.screen),
                ("screening check read back", walk.read_check),
                ("events from cursor 0", walk.events),
                ("usage", walk.usage),
            ]:
                walk.run(name, step)
    finally:
        if args.keep:
            print(f"      the generated client is kept in {work / PACKAGE}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    total = checks.passed + len(checks.failures)
    if checks.failures:
        print(f"FAIL: {len(checks.failures)} of {total} checks failed: {', '.join(checks.failures)}")
        return 1
    print(f"PASS: all {total} checks passed (a generated Python client against {base})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
