#!/usr/bin/env python3
"""Parse one reply of the Skill Contractor's model into the files it writes.

The parsing state of specs/skill_contractor.yaml. Input (one JSON object on
stdin):
    {"phase": "blueprint" | "implementation", "reply": "...",
     "spec_file": "word_stats.yaml", "blueprint_validated": bool,
     "blueprint": "the spec's text so far"}
The reply must hold one JSON object {"files": {"PATH": "TEXT", ...}}, bare
or in a ```json fence; PATHs are relative to the skill's folder.
Output (one JSON object on stdout):
    {"files": {...}, "parse_error": "", "corrections": [...], "review": bool,
     "blueprint": "the spec's text: the reply's in the blueprint phase, else as given"}

parse_error says what is wrong, in words a model can act on (it goes back
into the re-prompt), "" when the reply parsed:
  - blueprint phase: exactly the spec file, which must parse as YAML (with
    the position of a YAML error) into a mapping with states;
  - implementation phase: every .py file goes through the sanitiser
    (sanitise.py: fences, smart quotes, literal newlines in strings, invisible
    characters, dashes, tabs), whose fixes are the corrections; a script that
    still does not compile is a parse error. The spec file passed its checks
    in the blueprint phase and is never regenerated: a reply that holds it is
    a parse error.
Nothing here touches disk; write_skill.py writes what parsed.
"""

import json
import re
import sys
import warnings

import sanitise

FENCED_JSON = re.compile(r"```(?:json)?[ \t]*\n(.*?)\n[ \t]*```", re.S)


def extract(reply):
    """The reply's JSON object, or raise ValueError saying why there is none."""
    text = reply.strip()
    if "{" not in text:
        raise ValueError("the reply holds no JSON object")
    candidates = [text] + [m.group(1) for m in FENCED_JSON.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start:end + 1])
    first = None
    for c in candidates:
        try:
            v = json.loads(c)
        except ValueError as e:
            first = first or e
            continue
        if isinstance(v, dict):
            return v
    if first is None:
        raise ValueError("the reply holds no JSON object")
    raise ValueError(f"the reply is not valid JSON ({first.msg}: line {first.lineno} column {first.colno})")


def yaml_problem(path, text):
    """Where the text fails to parse as a YAML spec, or "" (also when PyYAML is
    missing: validating then reports the YAML error with lppctl's positions)."""
    try:
        import yaml
    except ImportError:
        return ""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        what = getattr(e, "problem", None) or str(e).splitlines()[0]
        return f"{where}: the blueprint is not valid YAML: {what}; fix the YAML (indent with spaces, quote strings holding ': ')"
    if not isinstance(doc, dict) or not isinstance(doc.get("states"), dict):
        return f"{path}:1:1: the blueprint must be a YAML mapping with lpp, name, initial and states"
    return ""


def answer(req):
    phase = req.get("phase", "")
    spec_file = req.get("spec_file", "")
    out = {"files": {}, "parse_error": "", "corrections": [], "review": False, "blueprint": str(req.get("blueprint", ""))}
    try:
        obj = extract(str(req.get("reply", "")))
    except ValueError as e:
        out["parse_error"] = f'{e}; answer with one JSON object {{"files": {{"PATH": "TEXT"}}}}'
        return out
    files = obj.get("files")
    if not isinstance(files, dict) or not files or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        out["parse_error"] = 'the reply\'s "files" must map file paths (relative to the skill folder) to their text, e.g. {"files": {"scripts/count.py": "..."}}'
        return out
    if phase == "blueprint":
        if sorted(files) != [spec_file]:
            out["parse_error"] = f"in the blueprint phase write only the spec file {spec_file!r} (got {', '.join(sorted(files))}); scripts come in the implementation phase"
            return out
        out["parse_error"] = yaml_problem(spec_file, files[spec_file])
        if not out["parse_error"]:
            out["files"], out["blueprint"] = files, files[spec_file]
        return out
    if req.get("blueprint_validated") and spec_file in files:
        out["parse_error"] = f"{spec_file} passed its checks in the blueprint phase and is never regenerated; leave it out of files"
        return out
    res = sanitise.answer({"files": files})
    out["files"], out["corrections"], out["review"] = res["files"], res["corrections"], res["review"]
    if res["errors"]:
        out["parse_error"] = "a script does not compile after the sanitiser's fixes: " + "; ".join(res["errors"])
    return out


def main():
    warnings.simplefilter("ignore")
    try:
        req = json.loads(sys.stdin.read() or "null")
        if not isinstance(req, dict):
            raise ValueError("the input must be a JSON object")
        res = answer(req)
    except (ValueError, TypeError) as e:
        print(f"parse_reply.py: {e}", file=sys.stderr)
        return 2
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
