#!/usr/bin/env python3
"""Print a greeting for a user: greet.py --name NAME"""

import argparse
import sys


def main():
    ap = argparse.ArgumentParser(prog="greet.py", description="Print a greeting for NAME.")
    ap.add_argument("--name", required=True, help="who to greet")
    ns = ap.parse_args()
    name = " ".join(ns.name.split())
    if not name:
        print("[ERROR] the name is empty", file=sys.stderr)
        return 2
    print(f"Hello, {name}! Welcome to lppctl.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
