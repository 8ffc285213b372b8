"""What the deferred imports, lazily compiled patterns and start-up choices of helm_core save.

Usage: .venv/bin/python bench/deferred.py [RUNS]

The code keeps the reason for each choice in a comment (``imported by the function that needs
it``, ``compiled on first use``...) and points here for the figure: each line below is measured
in fresh processes (median of RUNS, default 15), with the garbage collector off as the CLI runs:

- the import of a module helm_core loads only when a chart needs it (PyYAML, cryptography and
  bcrypt, what the certificate functions need (``cryptography.x509`` only for a CA given as text),
  decimal, random, secrets, uuid, json, jsonschema, shutil, hashlib), or that the CLI's render
  path avoids (pathlib, typing, pickle.py);
- the import of what every run's path now does without (copy, importlib, base64; the Enum
  class the lexer no longer builds) and a timer thread started with and without waiting for it;
- the import of what a render whose parse trees come from the disk memo does without (the
  parser with its lexer and literals; goregexp, for Sprig's regex functions, ``Files.Glob`` and
  schema patterns; unicodedata, for Sprig's casing functions; the patch engine, for
  post-renderers; libyaml's emitter, for the toYaml values goyaml_emit declines);
- the first call of a pattern set compiled on first use (versions constraints, the lexer's stream
  tokens, gojson's escapes, yaml.v2's timestamps; ``support/patterns.on_first_use``), against
  the string-method checks that answer the usual case first (a one-term range);
- compiling one call-site shape's caller (a warm run reads the code from the disk memo);
- ``build_parser()`` for every command against one local command (``template``);
- a ``helm_core.template`` render of the example chart with the cyclic collector on and off.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "charts" / "hello"

#: label -> (setup statements, the statement timed)
CASES: dict[str, tuple[str, str]] = {
    "import yaml (PyYAML; goyaml_read, chart/loader)": ("", "import yaml"),
    "import cryptography x509 + bcrypt (funcs/crypto)": ("", "from cryptography import x509; import bcrypt"),
    "import what genCA/genSignedCert need (golib/x509encode)": (
        "import base64, helm_core.golib.gostrconv", "from helm_core.golib import gopem, x509encode"),
    "import x509 + serialization as well (a CA given as text)": (
        "import base64, helm_core.golib.gostrconv", "from helm_core.golib import gopem, x509encode; "
        "from cryptography import x509; from cryptography.hazmat.primitives import serialization"),
    "import decimal (funcs/math)": ("", "import decimal"),
    "import random (no longer: funcs/random draws from os.urandom)": ("", "import random"),
    "import secrets (hmac, OpenSSL: os.urandom serves)": ("", "import secrets"),
    "import hashlib (OpenSSL: support/hashes uses CPython's own modules)": ("", "import hashlib"),
    "import pickle (pickle.py: support/pickling takes _pickle's functions)": ("import _pickle", "import pickle"),
    "import _blake2 (support/cachekeys)": ("", "import _blake2"),
    "import pathlib (urllib, ipaddress: os.path on the CLI path)": ("", "import pathlib"),
    "import typing (after re, collections, functools, contextlib)": (
        "import re, collections, functools, contextlib", "import typing"),
    "import uuid (funcs/uuid)": ("", "import uuid"),
    "import json (golib/gojson, chart/schema with a schema)": ("", "import json"),
    "import jsonschema (chart/schema, only on a violation)": ("", "import jsonschema"),
    "import shutil (cli help formatter)": ("import argparse", "import shutil"),
    "import the parser, lexer and literals (environment: first parse)": (
        "import helm_core.gotemplate.environment, helm_core.gotemplate.funcs.sprig",
        "import helm_core.gotemplate.parser"),
    "import goregexp (funcs/regex, engine/files, chart schemas: first pattern)": (
        "import helm_core.gotemplate.funcs.sprig", "import helm_core.golib.goregexp"),
    "import unicodedata (funcs/gohelpers: casing predicates)": ("import re, json", "import unicodedata"),
    "import the patch engine (engine/postrender: with post-renderers only)": (
        "import helm_core.engine.postrender", "import helm_core.engine.patch"),
    "import libyaml's emitter (goyaml_write: toYaml values goyaml_emit declines)": (
        "import helm_core.golib.goyaml, helm_core.golib.goyaml_emit", "import helm_core.golib.goyaml_write"),
    "versions: constraint patterns, first use (two terms)": (
        "from helm_core.golib import versions", "versions.Constraints.parse('>=1.2.3 <2')"),
    "versions: a one-term range, by string methods": (
        "from helm_core.golib import versions", "versions.Constraints.parse('>= 1.19.0-0')"),
    "lexer: stream patterns, first use": (
        "from helm_core.gotemplate import lexer", "lexer._STREAM[True](); lexer._STREAM_RUN[True]()"),
    "gojson: escape class for ASCII text, first use": (
        "from helm_core.golib import gojson", "gojson._needs_escape(True, True)"),
    "gojson: escape class for any text and the table, first use": (
        "from helm_core.golib import gojson", "gojson._needs_escape(True, False); gojson._escapes(True)"),
    "goyaml_rules: timestamp layouts, first use": (
        "from helm_core.golib import goyaml_rules", "goyaml_rules._timestamp_layouts()"),
    "callsite: one shape's caller compiled (memo keeps it)": (
        "from helm_core.gotemplate import callsite", "callsite._maker((('p', 'k2', 'c'), True), compile_new=True)"),
    "callsite: premade shapes loaded (the first shape of at most 2 words)": (
        "from helm_core.gotemplate import callsite", "callsite._maker((('p', 'k2'), True), compile_new=True)"),
    "import copy (with weakref: records.shallow_copy serves)": ("import re, collections", "import copy"),
    "import importlib and importlib.util (support/lazy, memo.package_folder)": (
        "import argparse", "import importlib.util"),
    "import base64 (with struct: gojson.base64_text takes binascii)": ("import re, binascii", "import base64"),
    "an enum.Enum of 35 members (the lexer's item kinds were one)": (
        "import enum", "E = enum.Enum('E', ' '.join(f'M{i}' for i in range(35)))"),
    "threading.Timer started and cancelled (support/oneshot does not wait)": (
        "import threading", "t = threading.Timer(60, print); t.daemon = True; t.start(); t.cancel()"),
    "support/oneshot.call_after started and cancelled": (
        "from helm_core.support import oneshot", "oneshot.call_after(60, print)()"),
    "cli: build_parser() (every command)": ("from helm_core import cli", "cli.build_parser()"),
    "cli: build_parser('template')": ("from helm_core import cli", "cli.build_parser('template')"),
}

PROGRAM = """
import gc, time
gc.disable()
{setup}
start = time.perf_counter()
{timed}
print(time.perf_counter() - start)
"""

RENDER = """
import gc, sys, time
{gc}
sys.path.insert(0, {root!r})
import helm_core
start = time.perf_counter()
helm_core.template({chart!r})
print(time.perf_counter() - start)
"""


def run(code: str) -> float:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT), "HELM_CORE_CACHE": "/nonexistent-memo"})
    return float(out.stdout.strip().splitlines()[-1])


def median_ms(code: str, runs: int) -> float:
    return statistics.median(run(code) for _ in range(runs)) * 1e3


def main(argv: list[str]) -> int:
    runs = int(argv[1]) if len(argv) > 1 else 15
    print(f"{'what':58} {'ms':>8}   (median of {runs} fresh processes)")
    for label, (setup, timed) in CASES.items():
        try:
            ms = median_ms(PROGRAM.format(setup=setup, timed=timed), runs)
        except subprocess.CalledProcessError as exc:
            print(f"{label:58} {'failed':>8}   {exc.stderr.strip().splitlines()[-1]}")
            continue
        print(f"{label:58} {ms:8.2f}")
    on = median_ms(RENDER.format(gc="gc.enable()", root=str(ROOT), chart=str(EXAMPLE)), runs)
    off = median_ms(RENDER.format(gc="gc.disable()", root=str(ROOT), chart=str(EXAMPLE)), runs)
    print(f"{'helm_core.template(hello), cold, collector on':58} {on:8.2f}")
    print(f"{'helm_core.template(hello), cold, collector off':58} {off:8.2f}   ({(on - off) / on:.0%} saved)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
