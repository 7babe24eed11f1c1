"""The official MCP Python SDK's authorization-code provider (`OAuthClientProvider`) against
idreg, as a person connects an agent: unmodified, in both protocol eras, registered once by
Dynamic Client Registration and once by a Client ID Metadata Document this script serves over
https (idreg trusts its certificate and reads loopback documents in tests only).

The SDK finds everything from the MCP URL (the 401's challenge, the resource's metadata, the
authorization server's metadata), registers or names its document, and calls its redirect
handler with the authorization URL. The handler runs the person (`tests/browser/consent.mjs`:
headless Chromium signs in through the sandbox's mailbox and allows the connection); the
browser lands on this script's loopback listener with the code, `state` and `iss`, which the
SDK checks and redeems. Then it lists and calls tools, and refreshes its token.

Usage: python test_python_oauth.py --url <.../mcp> --consent <consent.mjs> --email <portal user>
  [--doc-cert PEM --doc-key PEM]  (the metadata document's TLS identity: CIMD runs only with it)
Environment for the person: CHROMIUM, MAILBOX_URL, PORTAL_URL, SHOTS (optional).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import ssl
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata

MODES = ["2026-07-28", "legacy"]
TEST_COMPANY = "5560021361"


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


class MemoryTokens:
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Listener:
    """The app's loopback redirect listener: keeps the first query it receives."""

    def __init__(self) -> None:
        self.port = free_port()
        self.query: dict[str, list[str]] | None = None
        self.got = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                parts = urlsplit(self.path)
                if parts.path == "/callback" and outer.query is None:
                    outer.query = parse_qs(parts.query)
                    outer.got.set()
                self.send_response(200)
                self.send_header("content-type", "text/plain")
                self.end_headers()
                self.wfile.write(b"You may close this window.")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/callback"

    async def wait(self, timeout: float = 90) -> dict[str, list[str]]:
        ok = await asyncio.get_running_loop().run_in_executor(None, self.got.wait, timeout)
        if not ok:
            raise TimeoutError("no authorization response reached the listener")
        return self.query or {}

    def close(self) -> None:
        self.server.shutdown()


class Document:
    """A Client ID Metadata Document served over https on loopback."""

    def __init__(self, cert: str, key: str, redirect_uri: str, name: str) -> None:
        self.port = free_port()
        self.url = f"https://127.0.0.1:{self.port}/oauth/client.json"
        self.fetched = 0
        body = json.dumps(
            {
                "client_id": self.url,
                "client_name": name,
                "redirect_uris": [redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            }
        ).encode()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                outer.fetched += 1
                self.send_response(200 if self.path == "/oauth/client.json" else 404)
                self.send_header("content-type", "application/json")
                self.send_header("cache-control", "max-age=600")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


async def connect(checks: Checks, args, mode: str, registration: str) -> None:
    label = f"[{registration}, {mode}]"
    listener = Listener()
    document = None
    if registration == "metadata document":
        document = Document(args.doc_cert, args.doc_key, listener.redirect_uri, f"Python SDK agent ({mode})")
    person: dict[str, asyncio.subprocess.Process] = {}

    async def redirect_handler(url: str) -> None:
        checks.check(f"{label} the authorization URL asks for S256", "code_challenge_method=S256" in url, url)
        # The person hands the agent everything it asks for but person data.
        env = dict(os.environ, EMAIL=args.email, REDIRECT_PREFIX=listener.redirect_uri, WITHHOLD="kyc:read")
        person["run"] = await asyncio.create_subprocess_exec(
            "node",
            args.consent,
            url,
            cwd=os.path.dirname(os.path.abspath(args.consent)),
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )

    async def callback_handler() -> AuthorizationCodeResult:
        run = person["run"]
        finished = asyncio.ensure_future(run.communicate())
        waited = asyncio.ensure_future(listener.wait())
        await asyncio.wait({finished, waited}, return_when=asyncio.FIRST_COMPLETED)
        if not waited.done():
            out, err = finished.result()
            raise RuntimeError(f"the person stopped before the app got its answer: {(out + err).decode()[-3000:]}")
        query = waited.result()
        out, err = await finished
        checks.check(f"{label} the person signed in and allowed", run.returncode == 0, (out + err).decode()[-2000:])
        one = lambda name: (query.get(name) or [None])[0]  # noqa: E731
        checks.check(f"{label} the answer names the issuer", one("iss") is not None, repr(query))
        return AuthorizationCodeResult(code=one("code") or "", state=one("state"), iss=one("iss"))

    storage = MemoryTokens()
    provider = OAuthClientProvider(
        server_url=args.url,
        client_metadata=OAuthClientMetadata(
            client_name=f"Python SDK agent ({mode})",
            redirect_uris=[listener.redirect_uri],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        client_metadata_url=document.url if document else None,
    )
    try:
        async with httpx2.AsyncClient(auth=provider, timeout=120) as http:
            async with Client(streamable_http_client(args.url, http_client=http), mode=mode) as client:
                listed = {t.name for t in (await client.list_tools()).tools}
                checks.check(f"{label} tools/list holds the company tools", "get_company_profile" in listed, sorted(listed))
                checks.check(f"{label} tools/list holds no person tool (the person withheld kyc:read)", "get_person_profile" not in listed, sorted(listed))
                result = await client.call_tool("get_company_profile", {"orgnr": TEST_COMPANY})
                checks.check(f"{label} get_company_profile answers", result.is_error is False, repr(result.content[:1]))
        info = storage.client_info
        if document:
            checks.check(f"{label} the client id is the document's URL", info is not None and info.client_id == document.url, repr(info))
            checks.check(f"{label} idreg read the document", document.fetched >= 1)
        else:
            checks.check(f"{label} registered dynamically", info is not None and str(info.client_id).startswith("mcp_"), repr(info))
        tokens = storage.tokens
        checks.check(f"{label} a refresh token was issued", tokens is not None and bool(tokens.refresh_token))
        # The refresh grant, as the SDK's own refresh would post it.
        async with httpx2.AsyncClient(timeout=30) as plain:
            token_url = args.url.rsplit("/mcp", 1)[0] + "/oauth/token"
            r = await plain.post(
                token_url,
                data={
                    "grant_type": "refresh_token",
                    "refresh_token": tokens.refresh_token,
                    "client_id": info.client_id,
                    "resource": args.url,
                },
            )
            body = r.json()
            checks.check(f"{label} the refresh token rotates", r.status_code == 200 and body.get("refresh_token") not in (None, tokens.refresh_token), r.text)
    finally:
        listener.close()
        if document:
            document.close()


async def run_all(args) -> Checks:
    checks = Checks()
    registrations = ["dynamic registration"] + (["metadata document"] if args.doc_cert else [])
    for registration in registrations:
        for mode in MODES:
            await connect(checks, args, mode, registration)
    return checks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="the MCP endpoint, .../mcp")
    parser.add_argument("--consent", required=True, help="tests/browser/consent.mjs")
    parser.add_argument("--email", required=True, help="a portal user of the tenant")
    parser.add_argument("--doc-cert", help="PEM certificate for the metadata document's https listener")
    parser.add_argument("--doc-key", help="its PEM private key")
    args = parser.parse_args()
    try:
        checks = asyncio.run(asyncio.wait_for(run_all(args), timeout=600))
    except Exception:
        traceback.print_exc()
        print("FAIL: the run stopped with an exception")
        return 1
    total = checks.passed + len(checks.failures)
    if checks.failures:
        print(f"FAIL: {len(checks.failures)} of {total} checks failed")
        return 1
    print(f"PASS: all {total} checks passed (MCP Python SDK authorization code against {args.url})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
