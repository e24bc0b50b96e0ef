#!/usr/bin/env python3
"""Check that a Markdown summary has a template's headings, in order.

Usage: format_check.py SUMMARY.md TEMPLATE.md
Exit 0 and "OK ..." when every heading of the template appears in the summary
in the same order; exit 1 listing missing and out-of-order headings; exit 2 on
bad input. Headings compare by level and text, ignoring case, extra blanks and
trailing "#"s; headings inside fenced code blocks are ignored.
"""

import argparse
import re
import sys

from _lpp_common import EXIT_REFUSED, Refusal, ScriptError, safe_path

HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")


def headings(text):
    out, fence = [], None
    for line in text.splitlines():
        m = FENCE.match(line)
        if m:
            fence = None if fence == m.group(1) else (fence or m.group(1))
            continue
        if fence is not None:
            continue
        h = HEADING.match(line)
        if h and h.group(2):
            out.append((len(h.group(1)), " ".join(h.group(2).split())))
    return out


def key(h):
    return (h[0], h[1].casefold())


def show(h):
    return "#" * h[0] + " " + h[1]


def read(arg):
    real = safe_path(arg, for_write=False)
    try:
        with open(real, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise ScriptError(f"{arg!r} does not exist") from None
    except IsADirectoryError:
        raise ScriptError(f"{arg!r} is a directory") from None
    except UnicodeDecodeError:
        raise ScriptError(f"{arg!r} is not UTF-8 text") from None


def main():
    ap = argparse.ArgumentParser(prog="format_check.py", description="Check that SUMMARY has TEMPLATE's headings in order.")
    ap.add_argument("summary", help="Markdown file to check, relative to the project root")
    ap.add_argument("template", help="Markdown template whose headings are required")
    ns = ap.parse_args()
    try:
        summary, template = headings(read(ns.summary)), headings(read(ns.template))
    except Refusal as e:
        print(f"[SECURITY BLOCKED] {e.rule}: {e}", file=sys.stderr)
        return EXIT_REFUSED
    except ScriptError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {e.strerror or e}", file=sys.stderr)
        return 2
    if not template:
        print(f"error: the template {ns.template!r} has no headings", file=sys.stderr)
        return 2

    keys = [key(h) for h in summary]
    missing, disordered = [], []
    pos = 0
    prev = None
    for h in template:
        k = key(h)
        try:
            at = keys.index(k, pos)
        except ValueError:
            if k in keys:
                disordered.append(f"out of order: {show(h)}" + (f" (should come after {show(prev)})" if prev else ""))
            else:
                missing.append(f"missing: {show(h)}")
            continue
        pos, prev = at + 1, h
    if missing or disordered:
        print(f"FAIL: {ns.summary} does not follow {ns.template} ({len(missing)} missing, {len(disordered)} out of order)")
        for line in missing + disordered:
            print(f"  {line}")
        return 1
    print(f"OK: all {len(template)} headings of {ns.template} appear in {ns.summary} in order")
    return 0


if __name__ == "__main__":
    sys.exit(main())
