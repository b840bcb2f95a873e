#!/usr/bin/env python3
"""Validates matrix spec files against resources/matrix-spec.schema.json (JSON Schema
draft 2020-12). Prints one line per error; exits 1 if any file is invalid.

    tests/tools/validate_spec.py SPEC.json [SPEC.json …]
"""

import json
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

SCHEMA = Path(__file__).resolve().parents[2] / "resources" / "matrix-spec.schema.json"


def main(paths):
    schema = json.loads(SCHEMA.read_text())
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    bad = 0
    for path in paths:
        try:
            instance = json.loads(Path(path).read_text())
        except (OSError, ValueError) as e:
            print(f"{path}: {e}")
            bad += 1
            continue
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
        for e in errors:
            pointer = "".join(f"/{p}" for p in e.absolute_path)
            print(f"{path}: {pointer or '/'}: {e.message}")
        bad += bool(errors)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
