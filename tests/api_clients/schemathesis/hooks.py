"""What schemathesis needs to know of idreg's OpenAPI document beyond JSON Schema.

The document names the rules no regular expression states by formats of its own, described
in its `x-formats` (a check digit, a calendar date, a name with a letter). Here each format
gets a generation strategy that draws values honouring it, so that a request the document
allows is one the service must accept. Drawn identifiers are synthetic: random digits with a
computed check digit, never a listed person.

And two facts of stored data no schema states, settled before a request goes out:
- an `Idempotency-Key` is unique per request by its definition (the same key with another
  body is 422 `idempotency_key_reused`); each request with a valid key gets a fresh one;
- a subscription's `kind` is its subject's kind (a company subject watched as a person is
  400); when the body names an existing subject, `kind` is set to that subject's kind, read
  with `GET /v1/subjects/{id}` (`IDREG_TEST_URL` and `IDREG_TEST_TOKEN` give the origin and
  the bearer token).
"""

import datetime
import json
import os
import re
import urllib.request
import uuid

import schemathesis
from hypothesis import strategies as st

TODAY = datetime.date.today()


def luhn_check_digit(digits):
    total = 0
    for i, d in enumerate(digits):
        v = d * (2 if i % 2 == 0 else 1)
        total += v - 9 if v > 9 else v
    return (10 - total % 10) % 10


def with_luhn(digits):
    return "".join(map(str, digits + [luhn_check_digit(digits)]))


@st.composite
def orgnr(draw):
    first = draw(st.sampled_from([1, 2, 3, 5, 6, 7, 8, 9]))
    second = draw(st.integers(0, 9))
    third = draw(st.integers(2, 9))
    rest = draw(st.lists(st.integers(0, 9), min_size=6, max_size=6))
    number = with_luhn([first, second, third] + rest)
    if draw(st.booleans()):
        number = number[:6] + "-" + number[6:]
    if draw(st.booleans()):
        number = "16" + number
    return draw(st.sampled_from(["", "se:"])) + number


@st.composite
def organisasjonsnummer(draw):
    """Norway's: nine digits, the last a mod-11 check digit (weights 3 2 7 6 5 4 3 2); a body
    whose check would be 10 has no valid number, and is drawn again."""
    weights = [3, 2, 7, 6, 5, 4, 3, 2]
    body = draw(
        st.lists(st.integers(0, 9), min_size=8, max_size=8).filter(
            lambda b: (11 - sum(w * d for w, d in zip(weights, b)) % 11) % 11 != 10
        )
    )
    check = (11 - sum(w * d for w, d in zip(weights, body)) % 11) % 11
    return "no:" + "".join(map(str, body + [check]))


@st.composite
def imones_kodas(draw):
    return "lt:" + "".join(map(str, draw(st.lists(st.integers(0, 9), min_size=9, max_size=9))))


@st.composite
def birth(draw, latest_year):
    year = draw(st.integers(1940, latest_year))
    month = draw(st.integers(1, 12))
    day = draw(st.integers(1, 28))
    return datetime.date(year, month, day)


@st.composite
def swedish_personal_number(draw, coordination):
    born = draw(birth(min(TODAY.year - 1, 2005)))
    day = born.day + (60 if coordination else 0)
    # The birth number is 001 to 999.
    serial = [int(c) for c in f"{draw(st.integers(1, 999)):03}"]
    short = [born.year // 10 % 10, born.year % 10, born.month // 10, born.month % 10,
             day // 10, day % 10] + serial
    ten = with_luhn(short)
    century = str(born.year // 100)
    spelling = draw(st.sampled_from(["ten", "ten-", "twelve", "twelve-"]))
    number = {
        "ten": ten,
        "ten-": ten[:6] + "-" + ten[6:],
        "twelve": century + ten,
        "twelve-": century + ten[:6] + "-" + ten[6:],
    }[spelling]
    return draw(st.sampled_from(["", "se:"])) + number


FIRST_WEIGHTS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 1]
SECOND_WEIGHTS = [3, 4, 5, 6, 7, 8, 9, 1, 2, 3]


def asmens_check_digit(first_ten):
    first = sum(d * w for d, w in zip(first_ten, FIRST_WEIGHTS)) % 11
    if first != 10:
        return first
    second = sum(d * w for d, w in zip(first_ten, SECOND_WEIGHTS)) % 11
    return 0 if second == 10 else second


@st.composite
def asmens_kodas(draw):
    born = draw(birth(min(TODAY.year - 1, 2005)))
    century = (3 if born.year < 2000 else 5) + draw(st.integers(0, 1))
    yy = born.year % 100
    digits = [century, yy // 10, yy % 10, born.month // 10, born.month % 10,
              born.day // 10, born.day % 10]
    digits += draw(st.lists(st.integers(0, 9), min_size=3, max_size=3))
    return "lt:" + "".join(map(str, digits + [asmens_check_digit(digits)]))


@st.composite
def partial_date(draw):
    born = draw(birth(TODAY.year - 1))
    return draw(st.sampled_from([
        born.isoformat(),
        born.isoformat()[:7],
        born.isoformat()[:4],
    ]))


# Letters of several scripts, no digits: a name always has a letter and never a number.
LETTERS = st.characters(categories=["Lu", "Ll", "Lo"], exclude_characters="\u0000")
NAME_WORD = st.text(LETTERS, min_size=1, max_size=12)

# Free text without digits of any script (a reference must not hold a personal number).
NO_DIGITS = st.characters(
    exclude_categories=["Nd", "No", "Nl", "Cs", "Cc"], exclude_characters="\u0000"
)

schemathesis.openapi.format(
    "company-code", st.one_of(orgnr(), imones_kodas(), organisasjonsnummer())
)
schemathesis.openapi.format("organisasjonsnummer", organisasjonsnummer())
schemathesis.openapi.format("orgnr", orgnr())
schemathesis.openapi.format("personnummer", swedish_personal_number(False))
schemathesis.openapi.format("samordningsnummer", swedish_personal_number(True))
schemathesis.openapi.format("imones-kodas", imones_kodas())
schemathesis.openapi.format("asmens-kodas", asmens_kodas())
schemathesis.openapi.format("partial-date", partial_date())
schemathesis.openapi.format(
    "screening-name", st.lists(NAME_WORD, min_size=1, max_size=3).map(" ".join)
)
schemathesis.openapi.format("reference", st.text(NO_DIGITS, min_size=1, max_size=60))
# A webhook endpoint on a public name (registering sends nothing: no dispatcher runs here).
schemathesis.openapi.format(
    "webhook-url",
    st.from_regex(r"https://hooks-[a-z0-9]{1,8}\.example\.com(/[a-z0-9]{1,12}){0,3}", fullmatch=True),
)


def declared_key_pattern(case):
    raw = case.operation.schema.raw_schema
    return re.compile(raw["components"]["parameters"]["IdempotencyKey"]["schema"]["pattern"])


@schemathesis.hook
def before_call(context, case, kwargs):
    """A valid key is made unique; an invalid one (a negative case) is sent as drawn."""
    headers = case.headers or {}
    key = headers.get("Idempotency-Key")
    if isinstance(key, str) and declared_key_pattern(case).search(key):
        headers["Idempotency-Key"] = '"' + uuid.uuid4().hex + '"'

    body = case.body
    if (
        case.operation.method.upper() == "POST"
        and case.operation.path == "/v1/subscriptions"
        and isinstance(body, dict)
        and isinstance(body.get("subject_id"), str)
        and body.get("kind") in ("person", "company")
    ):
        kind = subject_kind(body["subject_id"])
        if kind is not None:
            body["kind"] = kind


def subject_kind(subject_id):
    """The kind of an existing subject of the test tenant, or None."""
    url = os.environ.get("IDREG_TEST_URL")
    token = os.environ.get("IDREG_TEST_TOKEN")
    if not url or not token or not re.fullmatch(r"[0-7][0-9A-HJKMNP-TV-Z]{25}", subject_id):
        return None
    request = urllib.request.Request(
        f"{url}/v1/subjects/{subject_id}", headers={"Authorization": f"Bearer {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response).get("kind")
    except Exception:
        return None
