#!/usr/bin/env python3
"""Validate JSON from stdin and write it pretty-printed to a file in the project.

Usage: write_json.py PATH [--indent N] [--sort-keys]
Exit 1 with the position of the error when stdin is not valid JSON.
"""

import argparse
import json
import sys

from _lpp_common import ScriptError, atomic_write, main_guard, read_stdin_text, real_rel, safe_path


def main():
    ap = argparse.ArgumentParser(prog="write_json.py", description="Validate JSON from stdin and pretty-write it to PATH (relative to the project root).")
    ap.add_argument("path", help="file to write, relative to the project root")
    ap.add_argument("--indent", type=int, default=2, help="indentation (default 2)")
    ap.add_argument("--sort-keys", action="store_true", help="sort object keys")
    ns = ap.parse_args()
    if not 0 <= ns.indent <= 8:
        ap.error("--indent must be between 0 and 8")

    def run():
        real = safe_path(ns.path, for_write=True)
        text = read_stdin_text()
        if not text.strip():
            raise ScriptError("stdin is empty; expected a JSON document")
        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            raise ScriptError(f"invalid JSON on stdin: line {e.lineno} column {e.colno}: {e.msg}") from None
        out = json.dumps(value, indent=ns.indent, sort_keys=ns.sort_keys, ensure_ascii=False) + "\n"
        n = atomic_write(real, out)
        kind = type(value).__name__.replace("dict", "object").replace("list", "array")
        print(f"wrote {n} bytes of valid JSON ({kind}) to {real_rel(real)}")

    return main_guard(run)


if __name__ == "__main__":
    sys.exit(main())
