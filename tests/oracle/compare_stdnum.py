#!/usr/bin/env python3
"""Compare idreg's identifier validation with python-stdnum 2.2 (the oracle).

The script generates a deterministic (seeded) mix of valid and corrupted numbers, runs them
through `crates/idreg/examples/identify.rs` and through stdnum, and compares the verdicts
(and, where both accept, the canonical form). Every disagreement must fall into one of the
known differences below; anything else is reported and the script exits with status 1.

Compared:
- personnummer       against stdnum.se.personnummer
- samordningsnummer  against stdnum.se.personnummer applied to the real birth date (day - 60,
                     check digit recomputed) plus stdnum.luhn over the number as written:
                     stdnum has no coordination numbers of its own
- orgnr              against stdnum.se.orgnr
- asmens-kodas       against stdnum.lt.asmens
(imones-kodas is not compared: stdnum has no validator for Lithuanian company codes.)

Known differences (counted by category, not failures):
- pnr-future-birth-date: a 12-digit personnummer/samordningsnummer whose birth date is after
  today. We refuse (`date`); stdnum does not look at today for 12-digit numbers.
- pnr-before-1800: birth year before 1800. We refuse (`date`; Skatteverket's century digits are
  18, 19 and 20); stdnum accepts any year.
- pnr-birth-number-000: birth number 000. We refuse (`malformed`; birth numbers are 001-999);
  stdnum accepts.
- pnr-plus-under-100: a 12-digit number written with `+` although the person does not turn 100
  until after this calendar year. We refuse (`malformed`); stdnum ignores the separator of
  12-digit numbers.
- pnr-misplaced-separator: `-`/`+` anywhere but before the last four digits, or spaces inside
  the value. We refuse (`malformed`); stdnum strips them.
- pnr-century-moved-back: a 10-digit number with `-` or no separator whose birth date, read in
  the current century as stdnum does, would be after today. stdnum keeps the future date; we
  read the previous century (the latest century not in the future). Both accept; canonical
  forms differ by one century.
- samnr-unknown-month-or-day: samordningsnummer with month 00 or day 60 (unknown month/day,
  which Skatteverket issues). We accept; stdnum cannot express them.
- orgnr-group-0-or-4: first digit (group number) 0 or 4. We refuse (`orgnr-group`); stdnum
  checks only Luhn over 10 digits.
- orgnr-third-digit-below-2: third digit 0 or 1 (the "month" of a personal number). We refuse
  (`wrong-kind`); stdnum accepts.
- orgnr-misplaced-separator: `-`, `.` or spaces anywhere but a `-` before the last four digits.
  We refuse (`malformed`); stdnum strips them.
- orgnr-16-prefix: the 12-digit `16NNNNNNNNNN` form is passed to stdnum without its `16` (stdnum
  does not know it); not a disagreement, only counted.
- asmens-future-birth-date: a birth date after today. We refuse (`date`); stdnum does not look
  at today.
- asmens-century-7-or-8: first digit 7 or 8 (stdnum reads them as the 2100s). We refuse
  (`malformed`: not in use, and any such date is in the future).

Usage:
    python3 tests/oracle/compare_stdnum.py [IDENTIFY_BIN]

IDENTIFY_BIN (argument or environment variable) is the built example binary, e.g.
`target/debug/examples/identify`. Without it the script runs
`cargo run -q -p idreg --example identify` from the workspace root. Needs
`pip install python-stdnum==2.2`. Options: --count N (cases per type, default 4000),
--seed S.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

try:
    import stdnum
    from stdnum import luhn
    from stdnum.lt import asmens
    from stdnum.se import orgnr, personnummer
except ImportError:  # pragma: no cover
    sys.exit("compare_stdnum: needs python-stdnum==2.2 (pip install python-stdnum==2.2)")

SEED = 20261121
WORKSPACE = Path(__file__).resolve().parents[2]

D = datetime.date
DAY = datetime.timedelta(days=1)


# ---- generation ---------------------------------------------------------------------------


def random_date(rng: random.Random, start: D, end: D) -> D:
    return start + DAY * rng.randrange((end - start).days + 1)


def shift_years(d: D, years: int) -> D:
    try:
        return d.replace(year=d.year + years)
    except ValueError:  # 29 February
        return d.replace(year=d.year + years, day=28)


def luhn_complete(nine: str) -> str:
    return nine + luhn.calc_check_digit(nine)


def corrupt(rng: random.Random, digits: str, start: int) -> str:
    """Changes one digit or swaps two adjacent ones at or after `start`."""
    d = list(digits)
    if rng.random() < 0.6:
        at = rng.randrange(start, len(d))
        d[at] = str((int(d[at]) + rng.randrange(1, 10)) % 10)
    else:
        at = rng.randrange(start, len(d) - 1)
        d[at], d[at + 1] = d[at + 1], d[at]
    return "".join(d)


BAD_MONTH_DAYS = ["0229", "0230", "0431", "0631", "0931", "1131", "1301", "0001", "0100", "0132"]


def personal_case(rng: random.Random, today: D, coordination: bool) -> str:
    """A personnummer or samordningsnummer in one of the accepted forms, often corrupted."""
    r = rng.random()
    if r < 0.15:
        born = random_date(rng, today - 400 * DAY, today + 400 * DAY)
    elif r < 0.35:
        boundary = shift_years(today, -100)
        born = random_date(rng, boundary - 400 * DAY, boundary + 400 * DAY)
    else:
        born = random_date(rng, D(1790, 1, 1), today + 3 * 365 * DAY)
    serial = 0 if rng.random() < 0.03 else rng.randrange(1, 1000)
    month_day = f"{born.month:02}{born.day:02}"
    if rng.random() < 0.08:
        month_day = rng.choice(BAD_MONTH_DAYS)
    month, day = month_day[:2], int(month_day[2:])
    if coordination:
        day += 60
        r = rng.random()
        if r < 0.04:
            month = "00"
        elif r < 0.08:
            day = 60
    nine = f"{born.year % 100:02}{month}{day:02}{serial:03}"
    ten = luhn_complete(nine)
    if rng.random() < 0.25:
        ten = corrupt(rng, ten, 0)
    twelve = f"{born.year // 100:02}{ten}"

    form = rng.choice(["12", "12-", "12+", "10", "10-", "10+", "10law", "10law", "10law"])
    law = "+" if born.year <= today.year - 100 else "-"
    if form == "12":
        wire = twelve
    elif form in ("12-", "12+"):
        wire = f"{twelve[:8]}{form[2]}{twelve[8:]}"
    elif form == "10":
        wire = ten
    elif form == "10law":
        wire = f"{ten[:6]}{law}{ten[6:]}"
    else:
        wire = f"{ten[:6]}{form[2]}{ten[6:]}"
    if rng.random() < 0.03:
        at = rng.randrange(1, len(wire))
        wire = wire[:at] + rng.choice("-+ ") + wire[at:]
    return wire


def orgnr_case(rng: random.Random) -> str:
    group = rng.choice("0123456789" if rng.random() < 0.25 else "12356789")
    third = rng.choice("0123456789" if rng.random() < 0.25 else "23456789")
    nine = f"{group}{rng.randrange(10)}{third}{rng.randrange(10**6):06}"
    ten = luhn_complete(nine)
    if rng.random() < 0.3:
        ten = corrupt(rng, ten, 0)
    r = rng.random()
    if r < 0.3:
        return ten
    if r < 0.6:
        return f"{ten[:6]}-{ten[6:]}"
    if r < 0.75:
        return f"16{ten}"
    if r < 0.9:
        return f"16{ten[:6]}-{ten[6:]}"
    at = rng.randrange(1, 10)
    return ten[:at] + rng.choice("- .") + ten[at:]


def asmens_check(first_ten: str) -> str:
    def rem(weights):
        return sum(int(c) * w for c, w in zip(first_ten, weights)) % 11

    r = rem([1, 2, 3, 4, 5, 6, 7, 8, 9, 1])
    if r == 10:
        r = rem([3, 4, 5, 6, 7, 8, 9, 1, 2, 3]) % 10
    return str(r)


def asmens_case(rng: random.Random, today: D) -> str:
    r = rng.random()
    if r < 0.05:
        first_ten = f"{rng.choice('0789')}{rng.randrange(10**9):09}"
    elif r < 0.1:
        first_ten = f"9{rng.randrange(10**9):09}"
    else:
        if rng.random() < 0.15:
            born = random_date(rng, today - 400 * DAY, today + 400 * DAY)
        else:
            born = random_date(rng, D(1800, 1, 1), min(today + 2 * 365 * DAY, D(2099, 12, 31)))
        g = {18: 1, 19: 3, 20: 5}[born.year // 100] + rng.randrange(2)
        month_day = f"{born.month:02}{born.day:02}"
        if rng.random() < 0.08:
            month_day = rng.choice(BAD_MONTH_DAYS)
        first_ten = f"{g}{born.year % 100:02}{month_day}{rng.randrange(1000):03}"
    code = first_ten + asmens_check(first_ten)
    if rng.random() < 0.25:
        code = corrupt(rng, code, 0)
    return code


# ---- our implementation -------------------------------------------------------------------


def run_ours(binary: str | None, today: D, lines: list[tuple[str, str]]) -> list[tuple[bool, str]]:
    if binary:
        command = [binary, "--today", today.isoformat()]
    else:
        command = ["cargo", "run", "-q", "-p", "idreg", "--example", "identify", "--"]
        command += ["--today", today.isoformat()]
    stdin = "".join(f"{ty}\t{value}\n" for ty, value in lines)
    done = subprocess.run(
        command, input=stdin, capture_output=True, text=True, cwd=WORKSPACE, check=False
    )
    if done.returncode != 0:
        sys.exit(f"compare_stdnum: {' '.join(command)} failed:\n{done.stderr}")
    out = done.stdout.splitlines()
    if len(out) != len(lines):
        sys.exit(f"compare_stdnum: sent {len(lines)} lines, got {len(out)} answers")
    answers = []
    for line in out:
        verdict, _, rest = line.partition("\t")
        answers.append((verdict == "ok", rest))
    return answers


# ---- classification -----------------------------------------------------------------------

WELL_PLACED = re.compile(r"^(\d{2})?\d{6}[-+]?\d{4}$")


def stdnum_birth_date(value: str) -> D | None:
    try:
        return personnummer.get_birth_date(value)
    except Exception:  # noqa: BLE001 - stdnum raises several kinds
        return None


def explain_personal(value: str, ours: tuple[bool, str], theirs: bool, today: D,
                     coordination: bool) -> str | None:
    """The known-difference category of a disagreement, or None if unexplained."""
    ok, detail = ours
    if not WELL_PLACED.match(value):
        return "pnr-misplaced-separator" if (not ok and detail == "malformed" and theirs) else None
    digits = value.replace("-", "").replace("+", "")
    twelve = len(digits) == 12
    born = stdnum_birth_date(shifted(value) if coordination else value)
    if ok and not theirs:
        unknown = digits[-8:-6] == "00" or digits[-6:-4] == "60"
        same_digits = len(detail) == 12 and detail[-10:] == digits[-10:]
        if twelve:
            same_digits = same_digits and detail == digits
        if coordination and unknown and same_digits and luhn.is_valid(digits[-10:]):
            return "samnr-unknown-month-or-day"
        return None
    if ok and theirs:
        # Both accept: the canonical form must match, except for the century rule.
        expected = f"{born.year // 100:02}{digits[-10:]}" if born else None
        if detail == expected:
            return "agree"
        if (not twelve and "+" not in value and born and born > today
                and detail == f"{(born.year - 100) // 100:02}{digits[-10:]}"):
            return "pnr-century-moved-back"
        return None
    # We refuse what stdnum accepts.
    if detail == "date" and born and twelve and born > today:
        return "pnr-future-birth-date"
    if detail == "date" and born and born.year < 1800:
        return "pnr-before-1800"
    if detail == "malformed" and digits[-4:-1] == "000":
        return "pnr-birth-number-000"
    if detail == "malformed" and twelve and "+" in value and born and born.year > today.year - 100:
        return "pnr-plus-under-100"
    return None


def shifted(value: str) -> str:
    """A samordningsnummer as the personnummer of its real birth date (check digit redone)."""
    digits = value.replace("-", "").replace("+", "")
    sep = value[-5] if value[-5] in "-+" else ""
    ten = digits[-10:]
    day = int(ten[4:6])
    if day < 61:
        return "invalid"  # not a coordination number: no personnummer to compare with
    ten = luhn_complete(f"{ten[:4]}{day - 60:02}{ten[6:9]}")
    out = digits[:-10] + ten
    return f"{out[:-4]}{sep}{out[-4:]}" if sep else out


def stdnum_samnr(value: str) -> bool:
    if not WELL_PLACED.match(value):
        return personnummer.is_valid(value)  # misplaced separators: compare as personnummer
    digits = value.replace("-", "").replace("+", "")
    try:
        return luhn.is_valid(digits[-10:]) and personnummer.is_valid(shifted(value))
    except Exception:  # noqa: BLE001
        return False


def explain_orgnr(value: str, ours: tuple[bool, str], theirs: bool) -> str | None:
    ok, detail = ours
    compact = orgnr.compact(value)
    if ok and theirs:
        return "agree" if detail == compact else None
    if ok or not theirs:
        return None
    if not re.fullmatch(r"\d{6}-?\d{4}", value):
        return "orgnr-misplaced-separator" if detail == "malformed" else None
    if detail == "orgnr-group" and compact[0] in "04":
        return "orgnr-group-0-or-4"
    if detail == "wrong-kind" and compact[2] in "01":
        return "orgnr-third-digit-below-2"
    return None


def explain_asmens(value: str, ours: tuple[bool, str], theirs: bool, today: D) -> str | None:
    ok, detail = ours
    if ok and theirs:
        return "agree" if detail == value else None
    if ok or not theirs:
        return None
    if detail == "malformed" and value[0] in "78":
        return "asmens-century-7-or-8"
    if detail == "date":
        try:
            from stdnum.ee.ik import get_birth_date

            if get_birth_date(value) > today:
                return "asmens-future-birth-date"
        except Exception:  # noqa: BLE001
            return None
    return None


# ---- main ---------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary", nargs="?", default=os.environ.get("IDENTIFY_BIN"))
    parser.add_argument("--count", type=int, default=4000, help="cases per type")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    if stdnum.__version__ != "2.2":
        print(f"compare_stdnum: warning: stdnum {stdnum.__version__}, written for 2.2")

    today = D.today()  # stdnum reads ten-digit numbers as of today as well
    rng = random.Random(args.seed)
    cases: list[tuple[str, str, str]] = []  # (our type, wire for us, value for stdnum)
    for _ in range(args.count):
        value = personal_case(rng, today, coordination=False)
        cases.append(("personnummer", value, value))
    for _ in range(args.count // 2):
        value = personal_case(rng, today, coordination=True)
        cases.append(("samordningsnummer", value, value))
        # A coordination number is never a personnummer, for either implementation.
        cases.append(("personnummer", value, value))
    for _ in range(args.count):
        value = orgnr_case(rng)
        # stdnum does not know the `16` prefix: it gets the ten digits.
        theirs = value[2:] if len(value) in (12, 13) and value.startswith("16") else value
        cases.append(("orgnr", value, theirs))
    for _ in range(args.count):
        value = asmens_case(rng, today)
        cases.append(("asmens-kodas", f"lt:{value}", value))

    # Half of the Swedish values carry the explicit `se:` prefix; some have outer spaces.
    wires = []
    for ty, wire, _ in cases:
        if ty != "asmens-kodas" and rng.random() < 0.5:
            wire = f"se:{wire}"
        if rng.random() < 0.05:
            wire = f"  {wire} "
        wires.append((ty, wire))

    answers = run_ours(args.binary, today, wires)

    categories: Counter[str] = Counter()
    verdicts: Counter[tuple[str, bool]] = Counter()
    unexplained = []
    for (ty, ours_value, value), ours in zip(cases, answers):
        if ty == "personnummer":
            theirs = personnummer.is_valid(value)
            category = explain_personal(value, ours, theirs, today, coordination=False)
        elif ty == "samordningsnummer":
            theirs = stdnum_samnr(value)
            category = explain_personal(value, ours, theirs, today, coordination=True)
        elif ty == "orgnr":
            theirs = orgnr.is_valid(value)
            category = explain_orgnr(value, ours, theirs)
            if ours_value != value:
                categories["orgnr-16-prefix"] += 1
        else:
            theirs = asmens.is_valid(value)
            category = explain_asmens(value, ours, theirs, today)
        if not ours[0] and not theirs:
            category = "agree"
        verdicts[(ty, ours[0])] += 1
        if category is None:
            unexplained.append((ty, value, ours, theirs))
        else:
            categories[category] += 1

    total = len(cases)
    print(f"oracle: stdnum {stdnum.__version__}, today {today}, seed {args.seed}")
    for ty in ("personnummer", "samordningsnummer", "orgnr", "asmens-kodas"):
        print(f"  {ty}: {verdicts[(ty, True)]} accepted, {verdicts[(ty, False)]} refused by us")
    print("  known differences:")
    for name, n in sorted(categories.items()):
        if name != "agree":
            print(f"    {name}: {n}")
    for ty, value, ours, theirs in unexplained[:30]:
        verdict = f"ok {ours[1]}" if ours[0] else f"err {ours[1]}"
        print(f"  DISAGREE {ty} {value!r}: ours {verdict}, stdnum {'ok' if theirs else 'err'}")
    print(f"oracle: {total} compared, {len(unexplained)} disagreements")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
