#!/usr/bin/env python3
"""Validates fabsweep --json documents against docs/json/*.schema.json.

    json_validate.py SCHEMA DOC...   DOC '-' is stdin

The schemas refer to each other (common.schema.json) by their $id; every
schema of the directory is loaded so that those references resolve without
a network. Also checks what the schemas cannot say: the text is strict JSON
(no NaN), ASCII only (so U+2028 and invalid UTF-8 cannot reach a reader
raw) with no control byte but the newlines between values.
Exit 0 when every document is valid, 1 otherwise (one line per error).
"""
import json
import os
import sys

import jsonschema


def load_schemas(directory):
    store = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith(".schema.json"):
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                s = json.load(f)
            store[s["$id"]] = s
    return store


def validator_for(schema, store):
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    try:  # jsonschema >= 4.18: the referencing library
        from referencing import Registry, Resource
        registry = Registry().with_resources(
            (uri, Resource.from_contents(s)) for uri, s in store.items())
        return cls(schema, registry=registry)
    except ImportError:  # Debian 12's jsonschema 4.10
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return cls(schema, resolver=resolver)


def strict_constant(name):
    raise ValueError("not JSON: %s" % name)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path = sys.argv[1]
    store = load_schemas(os.path.dirname(os.path.abspath(path)))
    with open(path, encoding="utf-8") as f:
        v = validator_for(json.load(f), store)
    bad = 0
    for doc in sys.argv[2:]:
        raw = sys.stdin.buffer.read() if doc == "-" else open(doc, "rb").read()
        if any(b > 0x7e or (b < 0x20 and b not in (0x0a,)) for b in raw):
            print("%s: a byte outside printable ASCII" % doc)
            bad += 1
            continue
        try:
            data = json.loads(raw.decode("ascii"), parse_constant=strict_constant)
        except ValueError as e:
            print("%s: %s" % (doc, e))
            bad += 1
            continue
        errors = sorted(v.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
        for e in errors[:10]:
            print("%s: at /%s: %s" % (doc, "/".join(str(p) for p in e.absolute_path), e.message))
        if len(errors) > 10:
            print("%s: ... and %d more errors" % (doc, len(errors) - 10))
        bad += len(errors)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
