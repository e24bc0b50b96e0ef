#!/usr/bin/env python3
"""Check a greeting file: verify_greeting.py PATH --name NAME

Exit 0 and print "OK ..." when PATH (relative to the project root) holds
exactly the line "Hello, NAME! Welcome to lppctl."; exit 1 saying what is
wrong otherwise; exit 2 on bad input.
"""

import argparse
import os
import sys


def main():
    ap = argparse.ArgumentParser(prog="verify_greeting.py", description="Check that PATH holds the greeting for NAME.")
    ap.add_argument("path", help="the greeting file, relative to the project root")
    ap.add_argument("--name", required=True, help="who should be greeted")
    ns = ap.parse_args()
    p = ns.path.replace("\\", "/")
    if os.path.isabs(p) or ".." in p.split("/"):
        print(f"[ERROR] {ns.path}: give a path inside the project, relative to its root", file=sys.stderr)
        return 2
    try:
        with open(p, encoding="utf-8") as f:
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
    sys.exit(main())
