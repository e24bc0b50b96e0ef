"""Shared helpers for lppctl's utility scripts (standard library only).

The gateway runs every script with the project root as the working directory
and lists the paths no tool may change in LPPCTL_PROTECTED (colon-separated,
root-relative; a "%" or ":" inside a path is written %25 or %3A), and sets
LPPCTL_READ_ONLY=1 for a call that may only look (the evaluator's). These
helpers refuse any path that resolves outside the root, onto a protected
path, or any write at all in a read-only call.
"""

import errno
import json
import os
import stat
import sys
import tempfile
import time
import unicodedata


# Exit code of a security refusal. The gateway turns it, with a first stderr
# line "[SECURITY BLOCKED] <rule>: ...", into a refusal for the model.
EXIT_REFUSED = 77


class ScriptError(Exception):
    """A problem with the script's input; reported on stderr with exit code 1."""


class Refusal(ScriptError):
    """A path the script must not touch; reported as [SECURITY BLOCKED] with exit code 77."""

    def __init__(self, rule, message):
        super().__init__(message)
        self.rule = rule


def project_root():
    return os.path.realpath(os.getcwd())


def _fold(s):
    """Case-fold like a case-insensitive file system would ("ſcripts" is "scripts")."""
    return unicodedata.normalize("NFC", s).casefold()


def _unescape(prot):
    """A LPPCTL_PROTECTED entry: ":" and "%" inside a path are written %3A and %25."""
    return prot.replace("%3A", ":").replace("%3a", ":").replace("%25", "%")


def _trim_ends(path):
    """Each component without its trailing dots and blanks ("specs./x " is
    "specs/x"), as Windows reads names and as the gateway compares them."""
    def trim(c):
        i = len(c)
        while i and (c[i - 1] == "." or c[i - 1].isspace()):
            i -= 1
        return c[:i] or c
    return "/".join(trim(c) for c in path.split("/"))


def _under(rel, prot):
    """Whether the root-relative rel is prot or lies below it ("." is the whole project)."""
    p = _fold(prot.strip("/"))
    if p in ("", "."):
        return True
    p, r = _trim_ends(p), _trim_ends(_fold(rel))
    return r == p or r.startswith(p + "/")


def _write_hint(protected):
    """Where to write instead: under output/, unless that is protected too."""
    if any(_under("output/x", prot) for prot in protected):
        return "the policy protects output/ as well, so no tool may write there either"
    return "use another path, e.g. under output/"


def _inside(path, directory):
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def safe_path(arg, for_write):
    """Return the real absolute path for a root-relative argument, or raise ScriptError."""
    if not arg or "\x00" in arg:
        raise ScriptError("empty path or path with a NUL byte")
    norm = arg.replace("\\", "/")
    if os.path.isabs(norm) or norm.startswith("~"):
        raise ScriptError(f"{arg!r} is absolute; give a path relative to the project root")
    root = project_root()
    lexical = os.path.normpath(os.path.join(root, norm))
    if not _inside(lexical, root):
        # Climbs out with "..": no link is involved (the gateway's rule name).
        raise Refusal("path-traversal", f"{arg!r} climbs out of the project root with '..'; give a path inside it")
    if lexical == root:
        raise ScriptError(f"{arg!r} names the project root itself; give a path inside it")
    real = os.path.realpath(lexical)
    if not _inside(real, root) or real == root:
        raise Refusal("symlink-escape", f"{arg!r} resolves through a symbolic link outside the project root; give a path inside it")
    if for_write and os.environ.get("LPPCTL_READ_ONLY") == "1":
        raise Refusal("read-only", f"{arg!r}: this tool call may only look, not write (a checker such as the evaluator verifies the work, it does not change it)")
    if for_write:
        rel = os.path.relpath(real, root).replace(os.sep, "/")
        protected = [_unescape(p) for p in os.environ.get("LPPCTL_PROTECTED", ".git").split(":") if p]
        for prot in protected:
            if _under(rel, prot):
                raise Refusal("protected-path", f"{arg!r} is inside the protected path {prot!r}, which no tool may change; {_write_hint(protected)}")
    return real


def read_stdin_text():
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScriptError(f"stdin is not valid UTF-8 (byte {e.start})") from None


def atomic_write(real, text):
    """Write text to real atomically (temp file, fsync, rename); create parent dirs."""
    parent = os.path.dirname(real)
    if os.path.isdir(real):
        raise ScriptError(f"{real_rel(real)!r} is a directory")
    data = text.encode("utf-8")
    try:
        os.makedirs(parent, exist_ok=True)
        remove_stale_temps(parent)
        fd, tmp = tempfile.mkstemp(prefix=".lpp-", suffix=".tmp", dir=parent)
    except PermissionError as e:
        e.filename = real  # the file asked for, not a folder or temporary file on the way
        raise
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return len(data)


STALE_TEMP_SECONDS = 60


def remove_stale_temps(directory):
    """Remove temporary files that a writer killed mid-write (a timeout, a
    Ctrl-C or a crash of the run) left in directory more than a minute ago."""
    now = time.time()
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if not (name.startswith(".lpp-") and name.endswith(".tmp")):
            continue
        path = os.path.join(directory, name)
        try:
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime > STALE_TEMP_SECONDS:
                os.unlink(path)
        except OSError:
            pass


def real_rel(real):
    return os.path.relpath(real, project_root()).replace(os.sep, "/")


def sandbox_refusal(e):
    """Whether e is the OS sandbox's refusal of a read or a write."""
    return (isinstance(e, OSError) and e.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
            and bool(os.environ.get("LPPCTL_SANDBOX")))


def os_error_text(e):
    """The text of an OSError for the person: its reason, without absolute
    paths; in the OS sandbox (LPPCTL_SANDBOX, set by the gateway), a refusal
    says which project path was refused, and that the sandbox refused it."""
    if not sandbox_refusal(e):
        return e.strerror or str(e)
    mode = os.environ["LPPCTL_SANDBOX"]
    what = ""
    if isinstance(e.filename, str):
        rel = real_rel(os.path.realpath(e.filename))
        if rel != ".." and not rel.startswith("../"):
            what = f"{rel}: "
    text = (f"{what}{e.strerror or e}: the OS sandbox refused it (safe_py_runner.sandbox: {mode} in the policy): "
            "a confined script reads only its skill's folder (else its own) and writes only a fresh folder, "
            "never the project")
    if mode == "all":
        text += "; set safe_py_runner.sandbox to generated for the project's own scripts to write the project"
    return text


def main_guard(fn):
    """Run fn(); turn ScriptError, OSError and a RecursionError (input nested
    too deeply for json) into a clear stderr line and exit 1."""
    try:
        return fn() or 0
    except Refusal as e:
        print(f"[SECURITY BLOCKED] {e.rule}: {e}", file=sys.stderr)
        return EXIT_REFUSED
    except ScriptError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {os_error_text(e)}", file=sys.stderr)
        return 1
    except RecursionError:
        # json.loads of [[[[... a few thousand deep: the input, not the script.
        print("error: the input is nested too deeply", file=sys.stderr)
        return 1


def json_main(answer, name, blocked=PermissionError):
    """Run a JSON-in, JSON-out step: read one JSON object on stdin, print
    answer(obj) as JSON. An error of type blocked is a refusal to write
    outside the output folder; an error with a rule (Refusal) is that
    refusal; any other error is a clear stderr line and exit 1."""
    try:
        req = json.loads(sys.stdin.read() or "null")
        if not isinstance(req, dict):
            raise ValueError("the input must be a JSON object")
        res = answer(req)
    except Exception as e:  # ScriptError and Refusal of this module, bad input
        if sandbox_refusal(e):
            print(f"{name}: {os_error_text(e)}", file=sys.stderr)
            return 1
        if isinstance(e, blocked):
            print(f"[SECURITY BLOCKED] outside-output: {e}", file=sys.stderr)
            return EXIT_REFUSED
        rule = getattr(e, "rule", None)
        if rule:
            print(f"[SECURITY BLOCKED] {rule}: {e}", file=sys.stderr)
            return EXIT_REFUSED
        print(f"{name}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(res))
    return 0
