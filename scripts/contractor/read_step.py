#!/usr/bin/env python3
"""Gather what the writer of one Skill Contractor step must see.

The reading state of specs/skill_contractor.yaml, before each executing.
Input (one JSON object on stdin):
    {"work_dir": "output/contractor/word_stats.attempt", "plan": [...],
     "step_index": 0, "fresh": bool}
Output: {"current": "the current text of the step's files, or \"\"",
         "writes_code": bool (the step writes a .py file), "cleared": N}

With fresh (the first step of a run), the attempt folder is emptied first:
files of an earlier attempt or run never count for this one. Then the files
the plan's step writes that already exist in the folder (a refinement) are
read, each cut at MAX_CHARS, so the writer edits what failed instead of
writing every file again. Only a folder output/contractor/<name>.attempt is
cleared or read. A fresh step also removes promote.py's receipt of an earlier
run (<name>.attempt.promoted), so only this run's promotion can answer for a
move made before a kill.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _lpp_common import safe_path, json_main  # noqa: E402

MAX_CHARS = 6000
OUTPUT = "output/contractor"
RECEIPT = ".promoted"  # promote.py's receipt: the attempt folder's path + RECEIPT


def attempt_dir(work_dir):
    parts = str(work_dir).rstrip("/").split("/")
    if len(parts) != 3 or "/".join(parts[:2]) != OUTPUT or not parts[2].endswith(".attempt") or parts[2] == ".attempt":
        raise PermissionError(f"work_dir {work_dir!r} is not {OUTPUT}/<skill>.attempt; the contractor reads and clears only its attempt folder")
    return "/".join(parts)


def clear(real):
    """Remove everything under real (not real itself); return how many files went."""
    n = 0
    for base, dirs, files in os.walk(real, topdown=False):
        for f in files:
            os.remove(os.path.join(base, f))
            n += 1
        for d in dirs:
            p = os.path.join(base, d)
            if os.path.islink(p):
                os.remove(p)
            else:
                os.rmdir(p)
    return n


def answer(req):
    work = attempt_dir(req.get("work_dir", ""))
    real = safe_path(work, for_write=bool(req.get("fresh")))
    cleared = 0
    if req.get("fresh") and os.path.isdir(real):
        cleared = clear(real)
    if req.get("fresh"):
        receipt = safe_path(work + RECEIPT, for_write=True)
        if os.path.isfile(receipt) and not os.path.islink(receipt):
            os.remove(receipt)
    plan = req.get("plan") or []
    i = int(req.get("step_index") or 0)
    step = plan[i] if isinstance(plan, list) and 0 <= i < len(plan) and isinstance(plan[i], dict) else {}
    parts = []
    for rel in step.get("files") or []:
        if not isinstance(rel, str) or rel.startswith("/") or ".." in rel.replace("\\", "/").split("/"):
            continue
        path = os.path.realpath(os.path.join(real, rel))
        if not path.startswith(real + os.sep) or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_CHARS + 1)
        if len(text) > MAX_CHARS:
            text = text[:MAX_CHARS] + f"\n[... cut at {MAX_CHARS} characters]"
        parts.append(f"=== {rel}\n{text.rstrip()}\n")
    code = any(isinstance(f, str) and f.endswith(".py") for f in step.get("files") or [])
    return {"current": "\n".join(parts), "writes_code": code, "cleared": cleared}


if __name__ == "__main__":
    sys.exit(json_main(answer, "read_step.py"))
