"""Reads a scrape of idreg's metrics listener with Prometheus' official Python client.

Usage: read_metrics.py URL
Prints one JSON object: {"content_type": ..., "samples": [[name, {labels}, value], ...]}.
The text is parsed by prometheus_client's own parser, so a family the client cannot read
fails here (exit status 1), not in an assertion about its value.
"""

import json
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def main() -> int:
    url = sys.argv[1]
    with urllib.request.urlopen(url, timeout=10) as response:
        content_type = response.headers.get("Content-Type", "")
        text = response.read().decode("utf-8")
    samples = []
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.append([sample.name, sample.labels, sample.value])
    json.dump({"content_type": content_type, "samples": samples}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
