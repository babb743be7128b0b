#!/usr/bin/env python3
"""Validates every committed run, baseline and tolerance file against the JSON Schemas of
docs/schema/ (docs/results.md), and shows that damaged copies of them are rejected.

  schema_files.py SOURCE_DIR

Run files: results/**/*.json and the corpus' (tests/corpus/) files that gpubench reads as runs;
baseline files: configs/baselines/*.json and the corpus' baselines; tolerance files:
configs/tolerance.json and the corpus' tolerance files. Each file is parsed once, with NaN and
Infinity refused (JSON has neither; gpubench writes null).
"""
import concurrent.futures
import copy
import glob
import json
import os
import sys
import time

try:
    import jsonschema
except ImportError:
    print("SKIP: jsonschema is not installed for this Python (Debian: python3-jsonschema)")
    sys.exit(77)

# Corpus files damaged on purpose: what each case shows gpubench refusing, not a file it writes.
CORPUS_NOT_VALID = {
    "gate_empty/run.json": "an empty file",
    "gate_truncated/run.json": "truncated JSON",
    "gate_zero_filled_tail/run.json": "a whole document followed by NUL bytes",
    "show_truncated/run.json": "truncated JSON",
    "show_not_a_run/run.json": "not a run file",
}


def refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_constant=refuse_constant)


def kind_of(document):
    if not isinstance(document, dict):
        return None
    if "gpubench_baseline" in document:
        return "baseline"
    if "benchmarks" in document and "context" in document:
        return "run"
    if set(document) & {"default_pct", "suites", "families", "patterns", "metrics", "derived_from"}:
        return "tolerance"
    return None


def inlined(node, defs, files):
    """The schema with every $ref replaced by what it names (the schemas have no cycles): no
    resolver is needed (Debian's jsonschema 4.10 lacks the newer one), and it validates faster."""
    if isinstance(node, list):
        return [inlined(x, defs, files) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: inlined(v, defs, files) for k, v in node.items() if k not in ("$ref", "$defs")}
    ref = node.get("$ref")
    if ref is not None:
        if ref.startswith("#/$defs/"):
            target = inlined(defs[ref[len("#/$defs/"):]], defs, files)
        else:
            target = {k: v for k, v in files[ref].items() if k not in ("$schema", "$id")}
        out = {**target, **out}
    return out


# A fast path for leaf schemas (a type, bounds, a string enum), which are most of what a run
# file's 94 MB is checked against: the item is checked here in a line of Python instead of
# through jsonschema's descend (about 20 times the cost). Only a pass is taken from the fast
# path; anything it does not pass goes to jsonschema, which gives the verdict and the message.
LEAF_KEYS = {"type", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "enum", "minLength",
             "description"}
PY_TYPES = {"number": (int, float), "integer": (int,), "string": (str,), "boolean": (bool,), "null": (type(None),)}
COMPILED = {}  # id(schema) -> (schema, check or None)


def compile_leaf(schema):
    if not isinstance(schema, dict) or not schema.keys() <= LEAF_KEYS or "type" not in schema:
        return None
    names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    if not all(name in PY_TYPES for name in names):
        return None
    types = frozenset(t for name in names for t in PY_TYPES[name])
    low, low_open = schema.get("minimum"), schema.get("exclusiveMinimum")
    high, high_open = schema.get("maximum"), schema.get("exclusiveMaximum")
    enum, min_length = schema.get("enum"), schema.get("minLength")

    def check(value):
        kind = type(value)  # exactly what json.load makes: bool is not taken for int
        if kind not in types:
            return False
        if kind is int or kind is float:
            if (low is not None and value < low) or (low_open is not None and value <= low_open):
                return False
            if (high is not None and value > high) or (high_open is not None and value >= high_open):
                return False
        if enum is not None and not (kind is str and value in enum):
            return False
        return min_length is None or (kind is str and len(value) >= min_length)

    return check


def leaf_passes(schema, value):
    entry = COMPILED.get(id(schema))
    if entry is None:
        entry = COMPILED[id(schema)] = (schema, compile_leaf(schema))
    return entry[1] is not None and entry[1](value)


def fast_keywords(base):
    standard = base.VALIDATORS

    def properties(validator, properties, instance, schema):
        if not isinstance(instance, dict):
            return
        for name, sub in properties.items():
            if name in instance and not leaf_passes(sub, instance[name]):
                yield from validator.descend(instance[name], sub, path=name, schema_path=name)

    def additional_properties(validator, additional, instance, schema):
        if not isinstance(instance, dict) or not isinstance(additional, dict) or "patternProperties" in schema:
            yield from standard["additionalProperties"](validator, additional, instance, schema)
            return
        declared = schema.get("properties", {})
        for name, value in instance.items():
            if name not in declared and not leaf_passes(additional, value):
                yield from validator.descend(value, additional, path=name)

    def items(validator, item_schema, instance, schema):
        if not isinstance(instance, list) or "prefixItems" in schema or not isinstance(item_schema, dict):
            yield from standard["items"](validator, item_schema, instance, schema)
            return
        for index, value in enumerate(instance):
            if not leaf_passes(item_schema, value):
                yield from validator.descend(value, item_schema, path=index)

    return jsonschema.validators.extend(
        base, {"properties": properties, "additionalProperties": additional_properties, "items": items})


def validators(source):
    files, checkers = {}, {}
    for kind in ("tolerance", "baseline", "run"):  # tolerance first: a baseline's compare_tolerance is one
        schema = load(os.path.join(source, "docs", "schema", f"{kind}.schema.json"))
        jsonschema.Draft202012Validator.check_schema(schema)
        files[schema["$id"]] = inlined(schema, schema.get("$defs", {}), files)
        checkers[kind] = fast_keywords(jsonschema.Draft202012Validator)(files[schema["$id"]])
    return checkers


def problems(validator, document, limit=3):
    found = []
    for error in validator.iter_errors(document):
        found.append(f"{error.json_path}: {error.message[:200]}")
        if len(found) == limit:
            break
    return found


def committed_files(source):
    rel = lambda pattern: sorted(glob.glob(os.path.join(source, pattern), recursive=True))
    files = [(p, "run") for p in rel("results/**/*.json")]
    files += [(p, "baseline") for p in rel("configs/baselines/*.json")]
    files.append((os.path.join(source, "configs", "tolerance.json"), "tolerance"))
    corpus = os.path.join(source, "tests", "corpus")
    for path in rel("tests/corpus/*/*.json"):
        name = os.path.relpath(path, corpus)
        if name.endswith("/case.json") or name in CORPUS_NOT_VALID:
            continue
        files.append((path, None))  # the kind from the content
    return files


def damaged_copies(run, baseline, tolerance):
    """(what, kind, document): each must be rejected."""
    def changed(document, edit):
        copy_ = copy.deepcopy(document)
        edit(copy_)
        return copy_

    def first_ok(doc):
        return next(b for b in doc["benchmarks"] if b.get("gpubench", {}).get("status") == "ok")

    def first_metric(doc):
        return next(iter(first_ok(doc)["gpubench"]["metrics"].values()))

    yield "run: unknown status", "run", changed(run, lambda d: first_ok(d)["gpubench"].update(status="passed"))
    yield "run: better sideways", "run", changed(run, lambda d: first_metric(d).update(better="sideways"))
    yield "run: run_type other", "run", changed(run, lambda d: first_ok(d).update(run_type="other"))
    yield "run: median as text", "run", changed(run, lambda d: first_metric(d).update(median="12.5"))
    yield "run: negative sample count", "run", changed(run, lambda d: first_metric(d).update(samples=-1))
    yield "run: zero peak", "run", changed(run, lambda d: first_ok(d)["gpubench"].update(peak=0))
    yield "run: no benchmarks", "run", changed(run, lambda d: d.pop("benchmarks"))
    yield "run: other schema", "run", changed(run, lambda d: d["context"]["gpubench"].update(schema="gpubench/2"))
    yield "run: ok without metrics", "run", changed(run, lambda d: first_ok(d)["gpubench"].update(metrics={}))
    yield "run: a flat counter as text", "run", changed(run, lambda d: first_ok(d).update(time_us="fast"))
    yield "baseline: floor and ceiling", "baseline", changed(baseline, lambda d: d["benchmarks"][0].update(floor=1, ceiling=2))
    yield "baseline: zero floor", "baseline", changed(baseline, lambda d: d["benchmarks"][0].update(floor=0, ceiling=None) or d["benchmarks"][0].pop("ceiling"))
    yield "baseline: misspelt field", "baseline", changed(baseline, lambda d: d["benchmarks"][0].update(flor=1))
    yield "baseline: severity", "baseline", changed(baseline, lambda d: d.setdefault("health", {}).update(ecc="error"))
    yield "baseline: no version", "baseline", changed(baseline, lambda d: d.pop("gpubench_baseline"))
    yield "tolerance: negative pct", "tolerance", changed(tolerance, lambda d: d.update(default_pct=-1))
    yield "tolerance: unknown field", "tolerance", changed(tolerance, lambda d: d.update(default=3))
    yield "tolerance: scope field", "tolerance", changed(tolerance, lambda d: d.update(suites={"launch": {"pc": 5}}))


CHECKERS = {}  # per process: the validators, built once


def check_file(source, path, kind):
    """(kind, problems) for one committed file, loaded once."""
    if not CHECKERS:
        CHECKERS.update(validators(source))
    name = os.path.relpath(path, source)
    try:
        document = load(path)
    except ValueError as error:
        return kind, [f"{name}: not JSON: {error}"]
    kind = kind or kind_of(document)
    if kind is None:
        return None, [f"{name}: neither a run, a baseline nor a tolerance file (add it to CORPUS_NOT_VALID?)"]
    return kind, [f"{name} ({kind}): {p}" for p in problems(CHECKERS[kind], document)]


def main():
    source = sys.argv[1]
    start = time.monotonic()
    failures, counts = [], {"run": 0, "baseline": 0, "tolerance": 0}
    files = committed_files(source)
    with concurrent.futures.ProcessPoolExecutor(os.cpu_count()) as pool:
        for kind, found in pool.map(check_file, [source] * len(files), *zip(*files)):
            counts[kind] = counts.get(kind, 0) + 1
            failures += found
    check = validators(source)
    samples = {"run": load(os.path.join(source, "tests", "corpus", "healthy_pair", "base.json")),
               "baseline": load(os.path.join(source, "configs", "baselines", "h200.json")),
               "tolerance": load(os.path.join(source, "configs", "tolerance.json"))}
    for what, kind, document in damaged_copies(samples["run"], samples["baseline"], samples["tolerance"]):
        if not problems(check[kind], document, 1):
            failures.append(f"a damaged file passed: {what}")
    try:
        json.loads('{"x": NaN}', parse_constant=refuse_constant)
        failures.append("a NaN passed the parser")
    except ValueError:
        pass
    for failure in failures:
        print(failure)
    print(f"{counts['run']} run, {counts['baseline']} baseline and {counts['tolerance']} tolerance files valid"
          f"{'' if not failures else ' or not'}; {len(failures)} problem(s); {time.monotonic() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
