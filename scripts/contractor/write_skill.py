#!/usr/bin/env python3
"""Write the files of one Skill Contractor step into the skill's folder.

The correcting state of specs/skill_contractor.yaml, run through the
gateway's runner (so the project's protected paths hold as for any write).
Input (one JSON object on stdin):
    {"skill_dir": "output/contractor/word_stats", "files": {"PATH": "TEXT"},
     "corrections": [...], "artifacts": [...], "step": 1, "step_count": 2,
     "execution_log": "the log so far"}
PATHs are relative to skill_dir. Output (one JSON object on stdout):
    {"written": [...], "artifacts": [...], "scripts": [...],
     "approved": bool, "log": "...", "execution_log": "...", "last_step": bool}
("log" is this step's line, "execution_log" the log with it appended;
"last_step": step is the plan's last, so the spec moves on to validating.)

Everything goes under output/contractor/<skill>/: a skill_dir elsewhere, or
a PATH that is absolute, climbs out with "..", or resolves outside the folder
through a link, is refused with exit code 77 and a first stderr line
"[SECURITY BLOCKED] outside-output: ...", which the gateway returns as a
refusal; nothing of the step is written then. The sanitiser's corrections
are appended to corrections.md in the folder, for review: they are approved
unless one changed more than a string literal or the layout.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _lpp_common import atomic_write, real_rel, safe_path, json_main  # noqa: E402

OUTPUT = "output/contractor"


class Blocked(Exception):
    pass


def target(skill_dir, rel):
    """The real path of rel inside skill_dir, or raise Blocked."""
    norm = rel.replace("\\", "/")
    parts = norm.split("/")
    if not norm or norm.startswith("/") or norm.startswith("~") or ".." in parts or ":" in parts[0]:
        raise Blocked(f"{rel!r} is not a path inside {skill_dir}/; give paths relative to the skill folder, e.g. scripts/count.py")
    real = safe_path(f"{skill_dir}/{norm}", for_write=True)
    base = os.path.realpath(skill_dir)
    if not real.startswith(base + os.sep):
        raise Blocked(f"{rel!r} resolves outside {skill_dir}/; the contractor writes only under {OUTPUT}/<skill>/")
    return real


def answer(req):
    skill_dir = str(req.get("skill_dir", "")).rstrip("/")
    parts = skill_dir.split("/")
    if len(parts) != 3 or "/".join(parts[:2]) != OUTPUT or parts[2] in ("", ".", ".."):
        raise Blocked(f"skill_dir {skill_dir!r} is not {OUTPUT}/<skill>; the contractor writes only there")
    files = req.get("files") or {}
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise ValueError("files must map paths to text")
    plan = [(rel, target(skill_dir, rel), text) for rel, text in sorted(files.items())]  # refuse before writing anything
    written = []
    for rel, real, text in plan:
        atomic_write(real, text if text.endswith("\n") or not text else text + "\n")
        written.append(real_rel(real))
    corrections = req.get("corrections") or []
    approved = all(c.get("scope") in ("literal", "layout") for c in corrections)
    step = req.get("step", 0)
    if corrections:
        lines = [f"\n## Step {step}: {len(corrections)} correction(s), {'auto-approved' if approved else 'NEEDS REVIEW (a fix changed code)'}\n"]
        for c in corrections:
            lines.append(f"- {c.get('path')}:{c.get('line')}: {c.get('kind')} ({c.get('scope')}): {c.get('detail')}; was: `{c.get('before', '')}`\n")
        log = os.path.join(os.path.realpath(skill_dir), "corrections.md")
        safe_path(f"{skill_dir}/corrections.md", for_write=True)
        try:
            with open(log, encoding="utf-8") as f:
                old = f.read()
        except FileNotFoundError:
            old = "# Corrections made by the sanitiser\n"
        atomic_write(log, old + "".join(lines))
    artifacts = list(req.get("artifacts") or [])
    for w in written:
        if w not in artifacts:
            artifacts.append(w)
    scripts = [a for a in artifacts if a.endswith(".py")]
    log = f"step {step}: wrote {', '.join(written)}" + (f"; {len(corrections)} correction(s) {'approved' if approved else 'to review'}" if corrections else "")
    last = int(step or 0) >= int(req.get("step_count") or 0)
    execution_log = str(req.get("execution_log") or "") + log + "\n"
    return {"written": written, "artifacts": artifacts, "scripts": scripts, "approved": approved, "log": log,
            "execution_log": execution_log, "last_step": last}


if __name__ == "__main__":
    sys.exit(json_main(answer, "write_skill.py", blocked=Blocked))
