#!/usr/bin/env python3
"""Retrieve an earnings call transcript into the project.

Usage: fetch_transcript.py --ticker TICKER --quarter 2025Q3 [--out PATH]

When TRANSCRIPT_API_URL is set (the default policy passes it and
TRANSCRIPT_API_TOKEN from lppctl's environment to this skill's scripts only:
safe_py_runner.env.inherit_for), the transcript is fetched from
$TRANSCRIPT_API_URL?ticker=...&quarter=... with the bearer token from
TRANSCRIPT_API_TOKEN, or else from the file
~/.config/lppctl/transcript_api_token. Otherwise the bundled sample
transcript skills/ects_skill/reference/sample_transcript.txt is used, and the
output says so. The transcript is written to PATH (default
output/ects_skill/transcript.txt), which must lie under output/.
"""

import argparse
import os
import sys
import urllib.parse
import urllib.request

# The project's shared helpers (scripts/_lpp_common.py): root-relative path
# checks that follow links and honour the gateway's protected paths.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
from _lpp_common import main_guard, real_rel, safe_path  # noqa: E402

SAMPLE = "skills/ects_skill/reference/sample_transcript.txt"


def token():
    tok = os.environ.get("TRANSCRIPT_API_TOKEN", "").strip()
    if tok:
        return tok
    path = os.path.join(os.path.expanduser("~"), ".config", "lppctl", "transcript_api_token")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return ""


def fetch(url, ticker, quarter):
    q = urllib.parse.urlencode({"ticker": ticker, "quarter": quarter})
    req = urllib.request.Request(url + ("&" if "?" in url else "?") + q, headers={"Accept": "text/plain"})
    tok = token()
    if tok:
        req.add_header("Authorization", "Bearer " + tok)
    with urllib.request.urlopen(req, timeout=30) as resp:
        return resp.read().decode("utf-8", errors="replace")


def main():
    ap = argparse.ArgumentParser(prog="fetch_transcript.py", description="Retrieve an earnings call transcript.")
    ap.add_argument("--ticker", required=True)
    ap.add_argument("--quarter", required=True, help="e.g. 2025Q3")
    ap.add_argument("--out", default="output/ects_skill/transcript.txt")
    ns = ap.parse_args()
    out = real_rel(safe_path(ns.out, for_write=True))  # a bad or protected path: main_guard reports it
    if out.split("/")[0] != "output":
        print(f"[ERROR] --out {ns.out}: write under output/, relative to the project root", file=sys.stderr)
        return 2
    url = os.environ.get("TRANSCRIPT_API_URL", "").strip()
    if url:
        try:
            text = fetch(url, ns.ticker, ns.quarter)
        except Exception as e:  # report, never crash
            print(f"[ERROR] cannot fetch the transcript from the API: {e}", file=sys.stderr)
            return 1
        source = "the transcript API"
    else:
        with open(SAMPLE, encoding="utf-8") as f:
            text = f.read()
        source = f"the bundled sample {SAMPLE} (TRANSCRIPT_API_URL is not set)"
    if not text.strip():
        print("[ERROR] the transcript is empty", file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text if text.endswith("\n") else text + "\n")
    os.replace(tmp, out)
    first = text.strip().splitlines()[0]
    print(f"wrote {len(text)} bytes ({len(text.splitlines())} lines) to {out} from {source}; first line: {first}")
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))
