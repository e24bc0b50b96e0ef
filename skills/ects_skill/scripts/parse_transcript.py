#!/usr/bin/env python3
"""Parse an earnings call transcript into structured JSON.

Usage: parse_transcript.py TRANSCRIPT [--out PATH]

Finds the company and ticker, quarter, date, participants, the prepared
remarks and the Q&A (who asked what), and the sentences carrying figures
(revenue, margin, EPS, cash, guidance). Writes JSON to PATH (default
output/ects_skill/parsed.json, must lie under output/) and prints a compact
digest for the summary.
"""

import argparse
import json
import os
import re
import sys

# The project's shared helpers (scripts/_lpp_common.py): root-relative path
# checks that follow links and honour the gateway's protected paths.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
from _lpp_common import main_guard, real_rel, safe_path  # noqa: E402

FIGURE = re.compile(r"\$[\d.,]+ ?(million|billion)?|\d+(\.\d+)?%|\d+ basis points", re.I)
TOPICS = {
    "revenue": re.compile(r"\brevenue\b", re.I),
    "margin": re.compile(r"\bmargin\b", re.I),
    "eps": re.compile(r"per (diluted )?share|\bEPS\b", re.I),
    "cash": re.compile(r"\bcash\b", re.I),
    "guidance": re.compile(r"\b(expect|guidance|outlook)\b", re.I),
}


def parse(text):
    lines = [l.rstrip() for l in text.splitlines()]
    head = [l for l in lines[:5] if l.strip()]
    out = {"company": "", "ticker": "", "quarter": "", "date": "", "participants": [], "prepared_remarks": [], "qa": [], "figures": {}}
    if head:
        m = re.match(r"(.+?)\s*\((\w+)\)", head[0])
        out["company"], out["ticker"] = (m.group(1), m.group(2)) if m else (head[0], "")
    for l in head[1:]:
        m = re.match(r"(Q[1-4] \d{4})", l)
        if m and not out["quarter"]:
            out["quarter"] = m.group(1)
        if l.lower().startswith("date:"):
            out["date"] = l.split(":", 1)[1].strip()
    section, in_parts = None, False
    for l in lines:
        if l.strip().lower().startswith("participants"):
            in_parts = True
            continue
        if l.startswith("==="):
            in_parts = False
            section = "qa" if "question" in l.lower() else "prepared_remarks"
            continue
        if in_parts and l.strip():
            name, _, role = l.partition(" -- ")
            out["participants"].append({"name": name.strip(), "role": role.strip()})
            continue
        m = re.match(r"([A-Z][\w.' -]+?): (.+)", l)
        if not m or section is None:
            continue
        speaker, said = m.group(1), m.group(2)
        out[section].append({"speaker": speaker, "text": said})
        for sentence in re.split(r"(?<=[.!?])\s+", said):
            if not FIGURE.search(sentence):
                continue
            for topic, rx in TOPICS.items():
                if rx.search(sentence):
                    out["figures"].setdefault(topic, []).append(sentence.strip())
    return out


def main():
    ap = argparse.ArgumentParser(prog="parse_transcript.py", description="Parse an earnings call transcript.")
    ap.add_argument("transcript")
    ap.add_argument("--out", default="output/ects_skill/parsed.json")
    ns = ap.parse_args()
    src, out = safe_path(ns.transcript, for_write=False), safe_path(ns.out, for_write=True)  # a bad or protected path: main_guard reports it
    if not real_rel(out).startswith("output/"):
        print("[ERROR] paths must be relative to the project root; --out must lie under output/", file=sys.stderr)
        return 2
    try:
        with open(src, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"[ERROR] cannot read {ns.transcript}: {e.strerror or e}", file=sys.stderr)
        return 2
    data = parse(text)
    if not data["prepared_remarks"] and not data["qa"]:
        print(f"[ERROR] {ns.transcript} does not look like a transcript (no speaker turns found)", file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(out + ".tmp", out)
    print(f"parsed {ns.transcript} -> {ns.out}")
    print(f"company: {data['company']} ({data['ticker']}), quarter: {data['quarter']}, date: {data['date']}")
    print("participants: " + "; ".join(f"{p['name']} ({p['role']})" for p in data["participants"]))
    print(f"turns: {len(data['prepared_remarks'])} prepared, {len(data['qa'])} Q&A")
    for topic, sentences in data["figures"].items():
        for s in sentences:
            print(f"[{topic}] {s}")
    for t in data["qa"]:
        if t["speaker"] != "Operator":
            print(f"Q&A {t['speaker']}: {t['text']}")
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))
