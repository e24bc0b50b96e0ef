#!/usr/bin/env python3
"""Fix the common faults of model-written Python before it touches disk.

Input (one JSON object on stdin), either one script or several:
    {"code": "print(“hi”)"}
    {"files": {"scripts/a.py": "...", "scripts/b.py": "..."}}
Output (one JSON object on stdout):
    {"code" | "files": ..., "corrections": [...], "review": bool,
     "compiles": bool, "errors": [...], "changed": bool}

Each correction is {"path", "line", "kind", "scope", "detail", "before"}
("line" and "before", the line as it was, refer to the code as that fix found
it: after the fences were taken off, for instance); scope is
"literal" (only the inside of a string literal changed), "layout" (no token of
the program changed: fences, indentation, invisible characters) or "code"
(tokens changed, e.g. smart quotes used as string delimiters). "review" is true
when a correction has scope "code": a person (or the model) should look at it.

The faults fixed, each tried alone and kept only when it helps (the code then
compiles, or its first syntax error moves further on):
  - Markdown code fences around the code (and prose around the fences);
  - smart quotes used as string delimiters (“x” → "x", ‘x’ → 'x');
  - a literal newline inside a one-line string literal (print("a<newline>b") →
    print("a\\nb"));
  - non-breaking and zero-width spaces, a byte-order mark, and dashes (– —)
    used as a minus sign, outside string literals;
  - tabs mixed with spaces in indentation.
Code that compiles as written is returned unchanged. When the code still
does not compile, the fixes that take its first error furthest are kept, and
"errors" says where it stands.

With --jsonl, every input line is one request and every output line one
answer (used by the tests' fuzz target to avoid a process per input).
"""

import ast
import json
import re
import sys
import warnings

SMART_DOUBLE = "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"  # “ ” „ ‟ ″ « »
SMART_SINGLE = "\u2018\u2019\u201a\u201b\u2032"  # ‘ ’ ‚ ‛ ′
INVISIBLE = {"\ufeff": "a byte-order mark", "\u200b": "a zero-width space", "\u200c": "a zero-width non-joiner", "\u200d": "a zero-width joiner", "\u2060": "a word joiner"}
SPACES = {"\u00a0": "a non-breaking space", "\u202f": "a narrow non-breaking space", "\u2007": "a figure space", "\u3000": "an ideographic space"}
DASHES = {"\u2013": "an en dash", "\u2014": "an em dash", "\u2212": "a minus sign"}
PREFIX_CHARS = "rRbBuUfF"
MAX_CHARS = 200_000

FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([A-Za-z0-9_+.-]*)[^\n]*$", re.M)
PYTHON_TAGS = {"", "python", "python3", "py", "py3"}


def compile_error(src):
    """None when src compiles, else (offset, line, message)."""
    try:
        compile(src, "<model>", "exec", dont_inherit=True)
        return None
    except SyntaxError as e:  # IndentationError and TabError are SyntaxErrors
        line = e.lineno or 1
        col = e.offset or 1
        lines = src.split("\n")
        offset = sum(len(l) + 1 for l in lines[: max(line - 1, 0)]) + max(col - 1, 0)
        return (offset, line, f"line {line}: {e.msg}")
    except (ValueError, RecursionError, MemoryError, OverflowError) as e:
        # ValueError: a NUL byte; RecursionError/MemoryError: absurd nesting.
        return (0, 1, f"line 1: {type(e).__name__}: {e}")


def tree(src):
    try:
        return ast.dump(ast.parse(src))
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def line_of(src, index):
    return src.count("\n", 0, index) + 1


# --- fences -----------------------------------------------------------------


def strip_fences(src):
    """Take the code out of Markdown fences; (new source, corrections)."""
    marks = list(FENCE.finditer(src))
    if not marks:
        return src, []
    blocks = []  # (tag, start line index of content, content)
    i = 0
    while i < len(marks):
        opener = marks[i]
        tag = opener.group(2).lower()
        close = None
        for j in range(i + 1, len(marks)):
            m = marks[j]
            if m.group(1)[0] == opener.group(1)[0] and len(m.group(1)) >= len(opener.group(1)) and m.group(2) == "":
                close = j
                break
        start = opener.end() + 1
        if close is None:
            blocks.append((tag, start, src[start:]))
            break
        blocks.append((tag, start, src[start : marks[close].start()]))
        i = close + 1
    code_blocks = [b for b in blocks if b[0] in PYTHON_TAGS]
    if not code_blocks:
        return src, []
    # The largest Python block is the script; explanations come in small ones.
    tag, start, content = max(code_blocks, key=lambda b: len(b[2]))
    outside = (src[: marks[0].start()] + src[marks[-1].end() :]).strip()
    if not content.endswith("\n"):
        content += "\n"
    detail = "took the code out of a Markdown code fence"
    if tag:
        detail = f"took the code out of a Markdown ```{tag} fence"
    if len(code_blocks) > 1:
        detail += f" (the largest of {len(code_blocks)} code blocks)"
    if outside:
        detail += "; the text around it was dropped"
    return content, [("code_fence", line_of(src, start), "layout", detail)]


# --- the lexer pass ---------------------------------------------------------


def lex_fix(src, fix):
    """Walk src as Python tokens see it and apply one kind of fix.

    fix holds "quotes", "newlines" and/or "chars". Returns (new source,
    corrections).
    """
    out = []
    fixes = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == "#":
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(src[i:j])
            i = j
            continue
        smart = c in SMART_DOUBLE or c in SMART_SINGLE
        if c in "\"'" or (smart and "quotes" in fix):
            # The string's prefix (r, b, f, u) is what came just before.
            k = len(out)
            prefix = ""
            while k > 0 and len(prefix) < 2 and len(out[k - 1]) == 1 and out[k - 1] in PREFIX_CHARS:
                prefix = out[k - 1] + prefix
                k -= 1
            if k > 0 and out[k - 1] and (out[k - 1][-1].isalnum() or out[k - 1][-1] == "_"):
                prefix = ""
            raw = "r" in prefix.lower()
            if smart:
                q = '"' if c in SMART_DOUBLE else "'"
                fixes.append(("smart_quote", line_of(src, i), "code", f"{c} used as a string delimiter became {q}"))
                closers = (SMART_DOUBLE + '"') if q == '"' else (SMART_SINGLE + "'")
                triple = False
            else:
                q = c
                closers = c
                triple = src.startswith(c * 3, i)
            out.append(q * 3 if triple else q)
            i += 3 if triple else 1
            body = []
            closed = False
            while i < n:
                ch = src[i]
                if ch == "\\" and i + 1 < n:
                    body.append(src[i : i + 2])
                    i += 2
                    continue
                if triple:
                    if src.startswith(q * 3, i):
                        out.append("".join(body) + q * 3)
                        i += 3
                        closed = True
                        break
                    body.append(ch)
                    i += 1
                    continue
                if ch in closers:
                    if ch != q:
                        fixes.append(("smart_quote", line_of(src, i), "code", f"{ch} closing a string became {q}"))
                    out.append("".join(body) + q)
                    i += 1
                    closed = True
                    break
                if ch == "\n":
                    if "newlines" not in fix or raw or not string_closes_later(src, i + 1, closers):
                        break  # an unterminated string: leave it to the compiler
                    fixes.append(("newline_in_string", line_of(src, i), "literal", "a line break inside a one-line string literal became \\n"))
                    body.append("\\n")
                    i += 1
                    continue
                body.append(ch)
                i += 1
            if not closed:
                out.append("".join(body))
            continue
        if "chars" in fix and c in INVISIBLE:
            fixes.append(("invisible_char", line_of(src, i), "layout", f"removed {INVISIBLE[c]} (U+{ord(c):04X})"))
            i += 1
            continue
        if "chars" in fix and c in SPACES:
            fixes.append(("odd_space", line_of(src, i), "layout", f"{SPACES[c]} (U+{ord(c):04X}) became a space"))
            out.append(" ")
            i += 1
            continue
        if "chars" in fix and c in DASHES:
            fixes.append(("dash", line_of(src, i), "code", f"{DASHES[c]} (U+{ord(c):04X}) used as an operator became -"))
            out.append("-")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out), fixes


def string_closes_later(src, i, closers):
    """Whether a one-line string broken at a newline closes within 3 lines."""
    for _ in range(3):
        j = src.find("\n", i)
        line = src[i:] if j < 0 else src[i:j]
        k = 0
        while k < len(line):
            if line[k] == "\\":
                k += 2
                continue
            if line[k] in closers:
                return True
            k += 1
        if j < 0:
            return False
        i = j + 1
    return False


# --- indentation ------------------------------------------------------------

INDENT = re.compile(r"^[ \t]+", re.M)


def fix_tabs(src, width):
    if "\t" not in src:
        return src, []
    lines = []
    count = 0
    first = None
    for no, line in enumerate(src.split("\n"), 1):
        m = INDENT.match(line)
        if m and "\t" in m.group(0):
            count += 1
            first = first or no
            line = m.group(0).expandtabs(width) + line[m.end() :]
        lines.append(line)
    if not count:
        return src, []
    noun = "line" if count == 1 else "lines"
    return "\n".join(lines), [("indentation", first, "layout", f"tabs in the indentation of {count} {noun} became spaces (a tab = {width} columns)")]


# --- the driver -------------------------------------------------------------


STAGES = [
    [strip_fences],
    [lambda s: lex_fix(s, {"chars"})],
    # Smart quotes often come with a line break inside the same string.
    [lambda s: lex_fix(s, {"quotes"}), lambda s: lex_fix(s, {"quotes", "newlines"})],
    [lambda s: lex_fix(s, {"newlines"})],
    # A tab is most often one level of 4 spaces; else the compiler's 8.
    [lambda s: fix_tabs(s, 4), lambda s: fix_tabs(s, 8)],
]


def search(src, err, stages):
    """The best way through the stages from src: (code, corrections, error).

    Each stage is applied or skipped; a stage that finds nothing to fix costs
    nothing, so only the few stages that apply to a script branch. Code that
    compiles accepts only fixes that keep its syntax tree.
    """
    if not stages:
        return src, [], err
    options = []
    for alt in stages[0]:
        cand, fixes = alt(src)
        if not fixes or cand == src:
            continue
        cerr = compile_error(cand)
        if err is None and (cerr is not None or tree(cand) != tree(src)):
            continue
        code, more, ferr = search(cand, cerr, stages[1:])
        options.append((code, merge(src, fixes) + more, ferr))
    options.append(search(src, err, stages[1:]))

    def rank(o):
        code, fixes, ferr = o
        if ferr is None:
            # Compiling wins; then fewer changes to tokens, then fewer fixes.
            return (0, sum(f[2] == "code" for f in fixes), len(fixes), 0)
        # Else the way that gets furthest, with the fewest fixes.
        return (1, -ferr[0], len(fixes), 0)

    return min(options, key=rank)


def sanitise(src):
    """Return (code, corrections, compiled_before, final error or None)."""
    err = compile_error(src)
    code, corrections, ferr = search(src, err, STAGES)
    return code, corrections, err is None, ferr


def merge(src, fixes):
    """One correction per line and kind, with a count and the line as it was."""
    lines = src.split("\n")
    out, index = [], {}
    for kind, line, scope, detail in fixes:
        key = (kind, line, detail)
        if key in index:
            index[key][4] += 1
            continue
        before = lines[line - 1] if 0 < line <= len(lines) else ""
        if len(before) > 120:
            before = before[:117] + "..."
        index[key] = [kind, line, scope, detail, 1, before]
        out.append(index[key])
    return [(k, l, sc, d if n == 1 else f"{d} ({n} times)", b) for k, l, sc, d, n, b in out]


def one(code, path):
    fixed, fixes, compiled_before, err = sanitise(code)
    corrections = [{"path": path, "line": line, "kind": kind, "scope": scope, "detail": detail, "before": before} for kind, line, scope, detail, before in fixes]
    errors = [] if err is None else [f"{path}: {err[2]}" if path else err[2]]
    return fixed, corrections, compiled_before, errors


def answer(req):
    if not isinstance(req, dict):
        raise ValueError("the input must be a JSON object with code or files")
    if "files" in req:
        files = req["files"]
        if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
            raise ValueError('files must map paths to the scripts\' text, e.g. {"files": {"scripts/a.py": "print(1)"}}')
        out, corrections, errors, changed, compiled = {}, [], [], False, True
        for path in sorted(files):
            text = files[path]
            check_size(text, path)
            if not path.endswith(".py"):
                out[path] = text
                continue
            fixed, fixes, before, errs = one(text, path)
            out[path] = fixed
            corrections += fixes
            errors += errs
            changed = changed or fixed != text
            compiled = compiled and before
        return {"files": out, "corrections": corrections, "review": any(c["scope"] == "code" for c in corrections),
                "compiles": not errors, "errors": errors, "changed": changed, "compiled_before": compiled}
    code = req.get("code")
    if not isinstance(code, str):
        raise ValueError('the input needs "code" (the script\'s text) or "files"')
    check_size(code, "code")
    fixed, corrections, before, errors = one(code, req.get("path", ""))
    return {"code": fixed, "corrections": corrections, "review": any(c["scope"] == "code" for c in corrections),
            "compiles": not errors, "errors": errors, "changed": fixed != code, "compiled_before": before}


def check_size(text, what):
    if len(text) > MAX_CHARS:
        raise ValueError(f"{what} has {len(text)} characters; the sanitiser takes at most {MAX_CHARS}")


def main():
    # Warnings about the checked code (invalid escapes, ...) are not ours to print.
    warnings.simplefilter("ignore")
    sys.setrecursionlimit(10000)
    if "--jsonl" in sys.argv[1:]:
        for line in sys.stdin:
            try:
                req = json.loads(line)
                res = answer(req)
                if isinstance(req, dict) and isinstance(req.get("code"), str) and res["compiled_before"]:
                    res["tree_unchanged"] = tree(res["code"]) == tree(req["code"])
            except (ValueError, TypeError) as e:
                res = {"error": str(e)}
            print(json.dumps(res), flush=True)
        return 0
    try:
        res = answer(json.loads(sys.stdin.read() or "null"))
    except (ValueError, TypeError) as e:
        print(f"sanitise.py: {e}", file=sys.stderr)
        return 2
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
