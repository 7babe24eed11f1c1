#!/usr/bin/env python3
"""Cuts the seed corpora of the list-reader fuzz targets from the official samples under
crates/adapters-screening/testdata: a few records each, inside the file's own header and
root element, so the fuzzer starts from valid shapes at a size it can mutate quickly.

Run from the repository root: python3 fuzz/cut_seeds.py (rewrites fuzz/seeds/list_*)."""

import pathlib
import re
import shutil

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "crates/adapters-screening/testdata"
SEEDS = ROOT / "fuzz/seeds"


def write(target, name, data):
    folder = SEEDS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def fresh(target):
    shutil.rmtree(SEEDS / target, ignore_errors=True)


def blocks(text, tag):
    """The `<tag ...>...</tag>` elements of text, whole."""
    return re.findall(rb"<%s[ >].*?</%s>" % (tag, tag), text, re.S)


def un():
    fresh("list_un_xml")
    xml = (DATA / "un/un_sc_consolidated_2026-02-27.xml").read_bytes()
    head = xml[: xml.index(b"<INDIVIDUALS>")]
    people, entities = blocks(xml, b"INDIVIDUAL"), blocks(xml, b"ENTITY")
    for i in range(4):
        body = (b"<INDIVIDUALS>\n" + people[i] + b"\n</INDIVIDUALS>\n<ENTITIES>\n"
                + entities[i] + b"\n</ENTITIES>\n</CONSOLIDATED_LIST>\n")
        write("list_un_xml", f"un_{i}.xml", head + body)


def eu():
    fresh("list_eu_xml")
    xml = next((DATA / "eu").glob("*.xml")).read_bytes()
    head = xml[: xml.index(b"<sanctionEntity")]
    for i, entity in enumerate(blocks(xml, b"sanctionEntity")[:4]):
        write("list_eu_xml", f"eu_{i}.xml", head + entity + b"\n</export>\n")


def uk():
    fresh("list_uk_xml")
    xml = next((DATA / "uk").glob("*.xml")).read_bytes()
    head = xml[: xml.index(b"<Designation>")]
    for i, designation in enumerate(blocks(xml, b"Designation")[:4]):
        write("list_uk_xml", f"uk_{i}.xml", head + designation + b"\n</Designations>\n")


def ofac_advanced():
    fresh("list_ofac_advanced_xml")
    xml = (DATA / "ofac_advanced/sdn_advanced_assembled.xml").read_bytes()
    write("list_ofac_advanced_xml", "assembled.xml", xml)
    # The reference values and the first party with what refers to it.
    start, end = xml.index(b"<DistinctParties>"), xml.index(b"</DistinctParties>")
    parties = blocks(xml[start:end], b"DistinctParty")
    tail = xml[end:]
    for i, party in enumerate(parties[:3]):
        write("list_ofac_advanced_xml", f"party_{i}.xml",
              xml[:start] + b"<DistinctParties>\n" + party + b"\n" + tail)


def opensanctions():
    fresh("list_opensanctions_json")
    lines = (DATA / "opensanctions/t1_entities.ftm.json").read_bytes().splitlines(True)
    for i, line in enumerate(lines):
        write("list_opensanctions_json", f"t1_{i}.json", line)


def peps():
    fresh("list_ftm_pep")
    text = (DATA / "pep/synthetic-peps.ftm.json").read_bytes()
    lines = text.splitlines(True)
    # A minister with her offices, a spouse and an associate; the Lithuanian cluster.
    write("list_ftm_pep", "se_cluster.json", b"".join(lines[:14]))
    write("list_ftm_pep", "lt_cluster.json", b"".join(lines[14:]))
    fresh("list_riksdagen_json")
    write("list_riksdagen_json", "members.json",
          (DATA / "pep/riksdagen-personlista.synthetic.json").read_bytes())


def ofac_csv():
    fresh("list_ofac_csv")
    sets = [
        ("sdn", "ofac_sdn_2021-07", ["sdn.csv", "alt.csv", "add.csv", "sdn_comments.csv"], 0),
        ("cons", "ofac_cons_2025-12",
         ["cons_prim.csv", "cons_alt.csv", "cons_add.csv", "cons_comments.csv"], 1),
    ]
    for name, folder, files, parity in sets:
        parts = [(DATA / folder / f).read_bytes().splitlines(True) for f in files]

        def ent(line):
            m = re.match(rb"\s*(\d+),", line)
            return m.group(1) if m else None

        with_comments = [ent(line) for line in parts[3] if ent(line)]
        choices = [[ent(line) for line in parts[0][:6]], with_comments[:3]]
        for i, wanted in enumerate(choices):
            wanted = set(wanted)
            cut = [b"".join(line for line in lines if ent(line) in wanted) for lines in parts]
            data = b"\0".join(cut)
            if len(data) % 2 != parity:
                data += b"\n"
            write("list_ofac_csv", f"{name}_{i}.csv", data)


for cut in (un, eu, uk, ofac_advanced, opensanctions, peps, ofac_csv):
    cut()
