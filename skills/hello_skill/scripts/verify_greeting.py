#!/usr/bin/env python3
"""Check a greeting file: verify_greeting.py PATH --name NAME

Exit 0 and print "OK ..." when PATH (relative to the project root) holds
exactly the line "Hello, NAME! Welcome to lppctl."; exit 1 saying what is
wrong otherwise; exit 2 on bad input.
"""

import argparse
import os
import sys

# The project's shared helpers (scripts/_lpp_common.py): root-relative path
# checks that follow links and honour the gateway's protected paths.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
from _lpp_common import main_guard, safe_path  # noqa: E402


def main():
    ap = argparse.ArgumentParser(prog="verify_greeting.py", description="Check that PATH holds the greeting for NAME.")
    ap.add_argument("path", help="the greeting file, relative to the project root")
    ap.add_argument("--name", required=True, help="who should be greeted")
    ns = ap.parse_args()
    p = ns.path.replace("\\", "/")
    real = safe_path(ns.path, for_write=False)  # a bad or protected path: main_guard reports it
    try:
        with open(real, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        print(f"FAIL: {p} does not exist")
        return 1
    want = f"Hello, {' '.join(ns.name.split())}! Welcome to lppctl."
    lines = text.splitlines()
    if lines == [want]:
        print(f"OK: {p} holds the greeting for {ns.name} ({len(text)} bytes)")
        return 0
    print(f"FAIL: {p} should hold exactly one line {want!r}, it holds {text!r}")
    return 1


if __name__ == "__main__":
    sys.exit(main_guard(main))
