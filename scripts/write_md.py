#!/usr/bin/env python3
"""Write Markdown from stdin to a .md file in the project.

Usage: write_md.py PATH.md [--require-heading]
Normalises line endings, ends the file with a newline and reports its headings.
"""

import argparse
import re
import sys

from _lpp_common import ScriptError, atomic_write, main_guard, read_stdin_text, real_rel, safe_path

HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def headings(text):
    out, fence = [], None
    for line in text.split("\n"):
        m = re.match(r"^\s{0,3}(```|~~~)", line)
        if m:
            fence = None if fence == m.group(1) else (fence or m.group(1))
            continue
        if fence is None:
            h = HEADING.match(line)
            if h:
                out.append(h.group(1) + " " + h.group(2))
    return out


def main():
    ap = argparse.ArgumentParser(prog="write_md.py", description="Write Markdown from stdin to PATH.md (relative to the project root).")
    ap.add_argument("path", help=".md file to write, relative to the project root")
    ap.add_argument("--require-heading", action="store_true", help="fail when the document has no heading")
    ns = ap.parse_args()

    def run():
        if not ns.path.lower().endswith((".md", ".markdown")):
            raise ScriptError(f"{ns.path!r} does not end in .md (use write_file.py for other files)")
        real = safe_path(ns.path, for_write=True)
        text = read_stdin_text().replace("\r\n", "\n").replace("\r", "\n")
        if not text.strip():
            raise ScriptError("stdin is empty; expected Markdown text")
        if not text.endswith("\n"):
            text += "\n"
        hs = headings(text)
        if ns.require_heading and not hs:
            raise ScriptError("the document has no heading")
        n = atomic_write(real, text)
        print(f"wrote {n} bytes ({len(hs)} headings) to {real_rel(real)}")
        for h in hs:
            print(f"  {h}")

    return main_guard(run)


if __name__ == "__main__":
    sys.exit(main())
