#!/usr/bin/env python3
"""`staghorn describe --json-schema` validates what `staghorn check` accepts and rejects what it
refuses: every example config passes it, and configs with an unknown key, a wrong type, a value out
of range or outside the choices, or another model's key fail it.

Usage: json_schema_test.py STAGHORN_BIN REPO_ROOT
"""
import copy
import glob
import json
import os
import subprocess
import sys

import jsonschema


def main():
    staghorn, root = sys.argv[1], sys.argv[2]
    schema = json.loads(subprocess.run([staghorn, "describe", "--json-schema"], check=True,
                                       capture_output=True, text=True).stdout)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    failures = []
    examples = sorted(glob.glob(os.path.join(root, "models", "*", "examples", "*.json")))
    for path in examples:
        errors = [e.message for e in validator.iter_errors(json.load(open(path)))]
        if errors:
            failures.append(f"{os.path.basename(path)} fails the schema: {errors}")
    base = {"model": "stokes", "grid": {"n": [8, 8, 1]}}
    bad = {
        "unknown key": {"grid": {"nn": 3}},
        "wrong type": {"time": {"dt": "fast"}},
        "out of range": {"time": {"steps": -1}},
        "not a choice": {"backend": "gpu"},
        "another model's key": {"diffusion": {"D0": 1.0}},
        "a three-vector of two": {"grid": {"n": [8, 8]}},
    }
    for what, change in bad.items():
        cfg = copy.deepcopy(base)
        for k, v in change.items():
            cfg[k] = {**cfg.get(k, {}), **v} if isinstance(v, dict) else v
        if validator.is_valid(cfg):
            failures.append(f"{what}: {cfg} passes the schema")
    if not validator.is_valid({"diffusion": {"D0": 2.0}}):  # no model: the default, diffusion
        failures.append("a config without model does not validate as diffusion")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(examples)} examples, {len(bad)} bad configs, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
