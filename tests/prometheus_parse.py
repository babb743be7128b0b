"""Parses Prometheus text files with the reference client's parser; exit 1 on the first error.

The C++ rule check (tests/test_prometheus.cpp) and this parser both read gpubench's output:
the parser is the exposition format's own reading of it.
"""
import sys

from prometheus_client.parser import text_string_to_metric_families

for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        families = list(text_string_to_metric_families(f.read()))
    if not families or any(not family.samples for family in families):
        sys.exit(f"{path}: a metric family without samples")
    print(f"{path}: {len(families)} families, {sum(len(f.samples) for f in families)} samples")
