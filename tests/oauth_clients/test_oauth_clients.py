"""Standard OAuth 2.0 client libraries against idreg's token endpoint.

authlib and requests-oauthlib each fetch a client-credentials token with HTTP Basic client
authentication (client_secret_basic, which both send without URL-encoding the credentials)
and with the credentials in the form body (client_secret_post); the token must then work as a
bearer token on a data route. A wrong secret must surface OAuth's `error_description`.

Usage: test_oauth_clients.py --base URL --client-id ID --client-secret SECRET
Exit status 0 when every check passes; one PASS/FAIL line per check.
"""

import argparse
import os
import sys

# The test server is plain HTTP on loopback (TLS ends at the proxy in production); oauthlib
# refuses http:// unless told this is deliberate.
os.environ.setdefault("OAUTHLIB_INSECURE_TRANSPORT", "1")

import requests
from authlib.integrations.requests_client import OAuth2Session as AuthlibSession
from authlib.integrations.base_client.errors import OAuthError
from oauthlib.oauth2 import BackendApplicationClient
from requests.auth import HTTPBasicAuth
from requests_oauthlib import OAuth2Session as OauthlibSession

# A well-formed subject id no tenant has: an admitted token gets 404, a refused one 401.
PROBE = "/v1/subjects/01ARZ3NDEKTSV4RRFFQ69G5FAV"

failures = []


def check(name, ok, detail=""):
    print(("PASS" if ok else "FAIL") + f": {name}" + (f" ({detail})" if detail and not ok else ""))
    if not ok:
        failures.append(name)


def probe(base, token):
    r = requests.get(base + PROBE, headers={"Authorization": f"Bearer {token}"}, timeout=10)
    return r.status_code


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base", required=True)
    p.add_argument("--client-id", required=True)
    p.add_argument("--client-secret", required=True)
    a = p.parse_args()
    token_url = a.base + "/oauth/token"

    for method in ("client_secret_basic", "client_secret_post"):
        s = AuthlibSession(a.client_id, a.client_secret, token_endpoint_auth_method=method)
        token = s.fetch_token(token_url, grant_type="client_credentials")
        check(f"authlib {method}: token_type Bearer", token.get("token_type") == "Bearer", token)
        check(f"authlib {method}: expires_in", isinstance(token.get("expires_in"), int), token)
        check(f"authlib {method}: token admitted", probe(a.base, token["access_token"]) == 404)

    s = AuthlibSession(a.client_id, "cs_wrong", token_endpoint_auth_method="client_secret_basic")
    try:
        s.fetch_token(token_url, grant_type="client_credentials")
        check("authlib wrong secret refused", False, "a token came back")
    except OAuthError as e:
        check("authlib wrong secret: invalid_client", e.error == "invalid_client", e.error)
        check("authlib wrong secret: error_description shown", bool(e.description), repr(e))

    client = BackendApplicationClient(client_id=a.client_id)
    oauth = OauthlibSession(client=client)
    token = oauth.fetch_token(token_url=token_url, auth=HTTPBasicAuth(a.client_id, a.client_secret))
    check("requests-oauthlib Basic: token admitted", probe(a.base, token["access_token"]) == 404)
    oauth = OauthlibSession(client=BackendApplicationClient(client_id=a.client_id))
    token = oauth.fetch_token(
        token_url=token_url, client_id=a.client_id, client_secret=a.client_secret, include_client_id=True
    )
    check("requests-oauthlib body: token admitted", probe(a.base, token["access_token"]) == 404)
    check("requests-oauthlib: countries in the token response", token.get("countries") == ["SE"], token)

    if failures:
        print(f"FAIL: {len(failures)} check(s) failed")
        return 1
    print("PASS: all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
