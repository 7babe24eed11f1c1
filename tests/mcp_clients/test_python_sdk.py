#!/usr/bin/env python3
"""idreg's MCP endpoint against the official MCP Python SDK (package `mcp`, 2.x).

Connects with the SDK's streamable-HTTP client in each of its modes: pinned to the per-request
revision `2026-07-28` (no handshake), `auto` (probes `server/discover`, which this dual-era
server answers, so it stays on 2026-07-28) and `legacy` (the `initialize` handshake). In each,
it lists tools under two tokens with different scopes, calls tools and compares `content[1]`
with the REST body of the same request, byte for byte.

Then, from nothing but the MCP URL, a client id and a secret, the SDK's
`ClientCredentialsOAuthProvider` finds the token endpoint by itself (the 401's challenge, the
protected resource metadata, the authorization server metadata) with both client-secret
methods, in each mode.

    python test_python_sdk.py --url http://127.0.0.1:8080/mcp \
        --token-all "$TOKEN_WITH_EVERY_CONSUMER_SCOPE" --token-narrow "$TOKEN_WITHOUT_KYB_READ" \
        --client-id "$CLIENT_ID" --client-secret "$CLIENT_SECRET"

The arguments may also come from IDREG_MCP_URL, IDREG_TOKEN_ALL, IDREG_TOKEN_NARROW,
IDREG_CLIENT_ID and IDREG_CLIENT_SECRET. The narrow token must lack `kyb:read` (e.g. `kyc:read`
only); both must be of grants carrying SE; the client id and secret must be of the wide
token's grant. Prints one PASS/FAIL line per check and a summary; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import traceback
import warnings
from urllib.parse import urlsplit, urlunsplit

import httpx2
import jsonschema
from mcp import Client, MCPDeprecationWarning, MCPError
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client

# A Bolagsverket test-environment organisation number the sandbox serves.
TEST_COMPANY = "5560021361"
HANDSHAKE_VERSIONS = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
MODERN = "2026-07-28"
# Each mode, and the revision a client in it must end up speaking with this dual-era server.
MODES = {MODERN: {MODERN}, "auto": {MODERN}, "legacy": HANDSHAKE_VERSIONS}
KYB_TOOLS = {
    "get_beneficial_owners",
    "get_company_profile",
    "get_officers",
    "get_person_engagements",
    "get_signatories",
    "get_subject",
    "lookup_company",
}

# `ping` is deprecated for the 2026 revision (it is checked in legacy mode only), and the OAuth
# provider warns that `issuer` will be required in 3.0: this test passes it in one run and
# leaves it out in another (the "nothing but the URL, an id and a secret").
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)


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


class Rest:
    """The REST surface on the same origin, with one token."""

    def __init__(self, mcp_url: str, token: str) -> None:
        parts = urlsplit(mcp_url)
        self.base = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
        self.headers = {"Authorization": f"Bearer {token}"}

    async def get(self, path: str) -> tuple[int, str]:
        async with httpx2.AsyncClient(timeout=30) as http:
            response = await http.get(self.base + path, headers=self.headers)
            return response.status_code, response.content.decode("utf-8")

    async def post_json(self, path: str, body: dict) -> tuple[int, str]:
        async with httpx2.AsyncClient(timeout=30) as http:
            response = await http.post(self.base + path, headers=self.headers, json=body)
            return response.status_code, response.content.decode("utf-8")


class Session:
    """An SDK client over streamable HTTP with a bearer token, or with an OAuth provider that
    gets one by itself."""

    def __init__(self, url: str, token: str | None, mode: str = "auto", auth=None) -> None:
        self.url, self.token, self.mode, self.auth = url, token, mode, auth
        # Every HTTP answer the SDK got: (method, path, status, WWW-Authenticate).
        self.answers: list[tuple[str, str, int, str]] = []

    async def _note(self, response) -> None:
        self.answers.append(
            (
                response.request.method,
                response.request.url.path,
                response.status_code,
                response.headers.get("www-authenticate", ""),
            )
        )

    async def __aenter__(self) -> Client:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        self.http = httpx2.AsyncClient(
            headers=headers,
            auth=self.auth,
            timeout=30,
            event_hooks={"response": [self._note]},
        )
        await self.http.__aenter__()
        self.client = Client(streamable_http_client(self.url, http_client=self.http), mode=self.mode)
        return await self.client.__aenter__()

    async def __aexit__(self, *exc) -> None:
        try:
            await self.client.__aexit__(*exc)
        finally:
            await self.http.__aexit__(*exc)


def texts(result) -> list[str]:
    return [getattr(item, "text", None) for item in result.content]


def check_success(checks: Checks, label: str, result, rest_text: str, output_schema) -> None:
    """content[0] summary, content[1] the REST body byte for byte, structuredContent the body
    plus summary and valid against the declared output schema."""
    items = texts(result)
    checks.check(f"{label}: isError false", result.is_error is False, repr(items[:1]))
    checks.check(f"{label}: two text items", len(items) == 2 and all(isinstance(t, str) for t in items))
    if len(items) != 2:
        return
    checks.check(
        f"{label}: content[1] is the REST body byte for byte",
        items[1] == rest_text,
        f"\n  mcp:  {items[1][:300]}\n  rest: {rest_text[:300]}",
    )
    checks.check(f"{label}: content[0] is one line", "\n" not in items[0] and len(items[0]) > 0, items[0])
    expected = json.loads(rest_text)
    expected["summary"] = items[0]
    checks.check(
        f"{label}: structuredContent is the body plus summary",
        result.structured_content == expected,
        json.dumps(result.structured_content)[:300],
    )
    if output_schema is not None:
        try:
            jsonschema.validate(result.structured_content, output_schema)
            ok, detail = True, ""
        except jsonschema.ValidationError as e:
            ok, detail = False, e.message
        checks.check(f"{label}: structuredContent valid against outputSchema", ok, detail)


def check_error(checks: Checks, label: str, result, rest_text: str, code: str | None = None) -> None:
    """An isError result: `<code>: <message>`, then the REST error body byte for byte."""
    items = texts(result)
    checks.check(f"{label}: isError true", result.is_error is True, repr(items[:1]))
    if len(items) != 2:
        checks.check(f"{label}: two text items", False, repr(items))
        return
    try:
        body = json.loads(items[1])
    except json.JSONDecodeError:
        body = {}
    checks.check(
        f"{label}: content[0] is `<code>: <message>`",
        items[0] == f"{body.get('error')}: {body.get('message')}",
        items[0],
    )
    if code is not None:
        checks.check(f"{label}: code {code}", body.get("error") == code, items[1])
    checks.check(
        f"{label}: content[1] is the REST error body byte for byte",
        items[1] == rest_text,
        f"\n  mcp:  {items[1]}\n  rest: {rest_text}",
    )


class MemoryTokens:
    """The provider's token storage, in memory."""

    def __init__(self) -> None:
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens) -> None:
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info) -> None:
        self.client_info = client_info


async def run_mode(checks: Checks, url: str, mode: str, token_all: str, token_narrow: str, subject_id: str) -> None:
    """Everything a client does, in one mode of the SDK."""
    rest_all, rest_narrow = Rest(url, token_all), Rest(url, token_narrow)
    async with Session(url, token_all, mode) as client:
        checks.check(
            f"[{mode}] connect: speaks {sorted(MODES[mode])}",
            client.protocol_version in MODES[mode],
            str(client.protocol_version),
        )
        if mode == MODERN:
            # Pinned, the SDK sends no discover: the server names itself in every result's _meta.
            listed = await client.list_tools()
            info = (listed.meta or {}).get("io.modelcontextprotocol/serverInfo") or {}
            checks.check(f"[{mode}] results name idreg in _meta", info.get("name") == "idreg", repr(listed.meta))
        else:
            info = client.server_info
            checks.check(f"[{mode}] connect: serverInfo names idreg", info is not None and info.name == "idreg", repr(info))
        if mode == "legacy":
            await client.send_ping()
            checks.check(f"[{mode}] ping", True)

    async with Session(url, token_all, mode) as wide, Session(url, token_narrow, mode) as narrow:
        listed_all = {t.name: t for t in (await wide.list_tools()).tools}
        listed_narrow = {t.name: t for t in (await narrow.list_tools()).tools}
        checks.check(f"[{mode}] tools/list (every scope) holds the kyb tools", KYB_TOOLS <= set(listed_all), sorted(listed_all))
        checks.check(
            f"[{mode}] tools/list (narrow) is a subset without the kyb tools",
            set(listed_narrow) <= set(listed_all) and not (KYB_TOOLS & set(listed_narrow)),
            sorted(listed_narrow),
        )
        for name, tool in sorted(listed_all.items()):
            ok, detail = True, ""
            try:
                jsonschema.validators.validator_for(tool.input_schema).check_schema(tool.input_schema)
                if tool.output_schema is not None:
                    jsonschema.validators.validator_for(tool.output_schema).check_schema(tool.output_schema)
            except jsonschema.SchemaError as e:
                ok, detail = False, e.message
            checks.check(f"[{mode}] {name}: schemas are valid JSON Schema", ok, detail)
            annotations = tool.annotations
            checks.check(
                f"[{mode}] {name}: title and annotations (destructiveHint false)",
                tool.title is not None
                and annotations is not None
                and annotations.destructive_hint is False
                and annotations.read_only_hint is not None
                and annotations.idempotent_hint is not None
                and annotations.open_world_hint is not None,
                repr((tool.title, annotations)),
            )

        # get_subject: the SDK itself validates structuredContent against the outputSchema.
        result = await wide.call_tool("get_subject", {"id": subject_id})
        status, body = await rest_all.get(f"/v1/subjects/{subject_id}")
        checks.check(f"[{mode}] REST GET /v1/subjects/{{id}}", status == 200, body)
        check_success(checks, f"[{mode}] get_subject", result, body, listed_all["get_subject"].output_schema)

        # get_company_profile: REST is asked second and answers from the tenant's cache.
        result = await wide.call_tool("get_company_profile", {"orgnr": TEST_COMPANY})
        status, body = await rest_all.get(f"/v1/companies/{TEST_COMPANY}")
        if status == 200:
            check_success(
                checks, f"[{mode}] get_company_profile", result, body, listed_all["get_company_profile"].output_schema
            )
        else:
            check_error(checks, f"[{mode}] get_company_profile (no register reachable)", result, body)

        # lookup_company: the composition of the resolve and company bodies.
        result = await wide.call_tool("lookup_company", {"orgnr": TEST_COMPANY})
        status_c, company = await rest_all.get(f"/v1/companies/{TEST_COMPANY}")
        status_r, resolve = await rest_all.post_json(
            "/v1/subjects/resolve", {"type": "orgnr", "value": TEST_COMPANY}
        )
        if status_c == 200 and status_r == 200:
            composed = '{"subject":' + resolve + ',"company":' + company + "}"
            check_success(checks, f"[{mode}] lookup_company", result, composed, None)
        else:
            check_error(checks, f"[{mode}] lookup_company (no register reachable)", result, company)

        # A tool the narrow token's scopes do not list: the REST route's 403, as isError.
        result = await narrow.call_tool("get_subject", {"id": subject_id})
        status, body = await rest_narrow.get(f"/v1/subjects/{subject_id}")
        checks.check(f"[{mode}] REST GET /v1/subjects/{{id}} (narrow) is 403", status == 403, body)
        check_error(checks, f"[{mode}] get_subject (narrow)", result, body, "forbidden")

        # Invalid arguments: the API's bad_request naming the field.
        result = await wide.call_tool("get_subject", {})
        check_error(
            checks,
            f"[{mode}] get_subject without id",
            result,
            json.dumps({"error": "bad_request", "message": "`id`: is required"}, separators=(",", ":")),
            "bad_request",
        )

        # An unknown tool: JSON-RPC -32602.
        try:
            await wide.call_tool("no_such_tool", {})
            checks.check(f"[{mode}] unknown tool is JSON-RPC -32602", False, "no error raised")
        except MCPError as e:
            checks.check(f"[{mode}] unknown tool is JSON-RPC -32602", e.code == -32602, f"{e.code} {e.message}")

    # A bad token never gets through: the SDK fails (with an error of its own choosing), and
    # what made it fail is the server's 401 with a Bearer challenge naming the metadata.
    refused = Session(url, "not-a-token", mode)
    try:
        async with refused as client:
            await client.list_tools()
        checks.check(f"[{mode}] a bad token is refused", False, "connected")
    except Exception as e:
        answers = refused.answers
        checks.check(
            f"[{mode}] a bad token is refused with 401 and a Bearer challenge naming the metadata",
            len(answers) > 0
            and all(
                status == 401 and challenge.startswith("Bearer") and "resource_metadata=" in challenge
                for _, _, status, challenge in answers
            ),
            f"{type(e).__name__}: {e}; answers {answers}",
        )


async def run_oauth(checks: Checks, url: str, mode: str, method: str, issuer: bool, token_all: str, client_id: str, client_secret: str) -> None:
    """The SDK's client-credentials provider from the MCP URL, an id and a secret alone."""
    label = f"[{mode}] OAuth {method}" + (" with issuer" if issuer else "")
    origin = Rest(url, token_all).base
    provider = ClientCredentialsOAuthProvider(
        server_url=url,
        storage=MemoryTokens(),
        client_id=client_id,
        client_secret=client_secret,
        token_endpoint_auth_method=method,
        **({"issuer": origin} if issuer else {}),
    )
    session = Session(url, None, mode, auth=provider)
    async with session as client:
        checks.check(f"{label}: connect", client.protocol_version in MODES[mode], str(client.protocol_version))
        listed = {t.name for t in (await client.list_tools()).tools}
        checks.check(f"{label}: tools/list holds the kyb tools", KYB_TOOLS <= listed, sorted(listed))
        result = await client.call_tool("get_company_profile", {"orgnr": TEST_COMPANY})
    status, body = await Rest(url, token_all).get(f"/v1/companies/{TEST_COMPANY}")
    items = texts(result)
    checks.check(
        f"{label}: get_company_profile is the REST body byte for byte",
        status == 200 and result.is_error is False and len(items) == 2 and items[1] == body,
        repr(items[:1]),
    )
    # How it got there: a 401 whose challenge named the metadata, the two metadata
    # documents, one token request.
    paths = [(m, p, s) for m, p, s, _ in session.answers]
    expected = [
        ("GET", "/.well-known/oauth-protected-resource/mcp", 200),
        ("GET", "/.well-known/oauth-authorization-server", 200),
        ("POST", "/oauth/token", 200),
    ]
    checks.check(
        f"{label}: discovered the token endpoint from a 401",
        len(paths) > 0 and paths[0][2] == 401 and all(step in paths for step in expected),
        repr(paths),
    )


async def run(url: str, token_all: str, token_narrow: str, client_id: str, client_secret: str) -> Checks:
    checks = Checks()
    status, resolved = await Rest(url, token_all).post_json("/v1/subjects/resolve", {"type": "orgnr", "value": TEST_COMPANY})
    if not checks.check("REST resolve with the wide token", status == 200, resolved):
        return checks
    subject_id = json.loads(resolved)["subject_id"]
    for mode in MODES:
        await run_mode(checks, url, mode, token_all, token_narrow, subject_id)
    for mode in MODES:
        for method in ("client_secret_basic", "client_secret_post"):
            await run_oauth(checks, url, mode, method, False, token_all, client_id, client_secret)
    await run_oauth(checks, url, MODERN, "client_secret_basic", True, token_all, client_id, client_secret)
    return checks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=os.environ.get("IDREG_MCP_URL"), help="the MCP endpoint, .../mcp")
    parser.add_argument("--token-all", default=os.environ.get("IDREG_TOKEN_ALL"), help="a token with every consumer scope")
    parser.add_argument("--token-narrow", default=os.environ.get("IDREG_TOKEN_NARROW"), help="a token without kyb:read")
    parser.add_argument("--client-id", default=os.environ.get("IDREG_CLIENT_ID"), help="the wide token's client id")
    parser.add_argument("--client-secret", default=os.environ.get("IDREG_CLIENT_SECRET"), help="its secret")
    args = parser.parse_args()
    if not (args.url and args.token_all and args.token_narrow and args.client_id and args.client_secret):
        parser.error(
            "--url, --token-all, --token-narrow, --client-id and --client-secret are required "
            "(or IDREG_MCP_URL, IDREG_TOKEN_ALL, IDREG_TOKEN_NARROW, IDREG_CLIENT_ID, IDREG_CLIENT_SECRET)"
        )
    try:
        run_all = run(args.url, args.token_all, args.token_narrow, args.client_id, args.client_secret)
        checks = asyncio.run(asyncio.wait_for(run_all, timeout=300))
    except Exception:
        traceback.print_exc()
        print("FAIL: the run stopped with an exception")
        return 1
    total = checks.passed + len(checks.failures)
    if checks.failures:
        print(f"FAIL: {len(checks.failures)} of {total} checks failed: {', '.join(checks.failures)}")
        return 1
    print(f"PASS: all {total} checks passed (MCP Python SDK against {args.url})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
