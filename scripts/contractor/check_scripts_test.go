package contractor_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

type checked struct {
	OK       bool     `json:"ok"`
	Checked  int      `json:"checked"`
	Problems []string `json:"problems"`
}

func TestCheckScriptsRefusesWhatMustNotRun(t *testing.T) {
	tests := []struct {
		name, code string
		problems   []string
	}{
		{"standard-library data code passes", "import json, sys, re\nfrom collections import Counter\nprint(json.dumps(Counter(sys.argv)))\n", nil},
		{"os.path passes", "import os.path\nprint(os.path.basename('a/b'))\n", nil},
		{"subprocess is refused", "import subprocess\nsubprocess.run(['ls'])\n", []string{"a.py:1:1: imports subprocess: subprocess runs other programs; use only __future__, argparse, base64, bisect, collections, csv, dataclasses, datetime, ..."}},
		{"from subprocess is refused", "from subprocess import run\n", []string{"a.py:1:1: imports subprocess: subprocess runs other programs; use only __future__, argparse, base64, bisect, collections, csv, dataclasses, datetime, ..."}},
		{"os.system is refused", "import os\nos.system('ls')\n", []string{"a.py:2:1: calls os.system: os.system runs a shell command; compute the result in Python instead"}},
		{"os.system under another name is refused", "import os as o\no.system('ls')\n", []string{"a.py:2:1: calls o.system: os.system runs a shell command; compute the result in Python instead"}},
		{"from os import system is refused", "from os import system\n", []string{"a.py:1:1: imports os.system: os.system runs a shell command; compute the result in Python instead"}},
		{"os.posix_spawn is refused", "import os\nos.posix_spawn('/bin/sh', ['sh'], {})\n", []string{"a.py:2:1: calls os.posix_spawn: os.posix_spawn starts another program; compute the result in Python instead"}},
		{"os.setsid is refused", "import os\nos.setsid()\n", []string{"a.py:2:1: calls os.setsid: os.setsid leaves the runner's process group, so a timeout would not stop what it starts; compute the result in Python instead"}},
		{"posix_spawn reached by name is refused", "import os\ngetattr(os, 'posix_spawnp')('sh', ['sh'], {})\n", []string{"a.py:2:1: getattr(..., 'posix_spawnp') reaches a forbidden function by name; remove it"}},
		{"os.execv is refused", "import os\nos.execvpe('x', [], {})\n", []string{"a.py:2:1: calls os.execvpe: it starts another program; compute the result in Python instead"}},
		{"eval is refused", "x = eval('1')\n", []string{"a.py:1:5: calls eval: eval runs arbitrary code; compute the result in Python instead"}},
		{"exec is refused", "exec('print(1)')\n", []string{"a.py:1:1: calls exec: exec runs arbitrary code; compute the result in Python instead"}},
		{"__import__ is refused", "m = __import__('os')\n", []string{"a.py:1:5: calls __import__: __import__ loads modules around the import check; compute the result in Python instead"}},
		{"getattr by name is refused", "import os\ngetattr(os, 'system')('ls')\n", []string{"a.py:2:1: getattr(..., 'system') reaches a forbidden function by name; remove it"}},
		{"a module outside the list is refused", "import numpy\n", []string{"a.py:1:1: imports numpy, which is not allowed; allowed modules: __future__, argparse, base64, bisect, collections, csv, dataclasses, datetime, decimal, difflib, enum, fractions, functools, hashlib, heapq, html, io, itertools, json, math, operator, os.path, pathlib, random, re, statistics, string, sys, textwrap, time, typing, unicodedata"}},
		{"a relative import is refused", "from . import helper\n", []string{"a.py:1:1: relative import (from . import ...); a skill's scripts import only the standard library"}},
		{"subclasses escape is refused", "().__class__.__subclasses__()\n", []string{"a.py:1:1: reaches __subclasses__, a way around the import check; remove it"}},
		{"a handler that turns every exception into an exit is refused", "import sys\ntry:\n    d = {}['unit']\nexcept Exception as e:\n    sys.exit(str(e))\n", []string{"a.py:4:1: `except Exception` catches every exception, so a bug (a KeyError, a TypeError) ends the script like a refusal of its input; catch only the exceptions the input can cause (ValueError, OSError, ...) and refuse with sys.exit(\"why\"), or end the handler with a bare raise"}},
		{"a bare except is refused", "try:\n    x = 1\nexcept:\n    pass\n", []string{"a.py:3:1: `except:` catches every exception, so a bug (a KeyError, a TypeError) ends the script like a refusal of its input; catch only the exceptions the input can cause (ValueError, OSError, ...) and refuse with sys.exit(\"why\"), or end the handler with a bare raise"}},
		{"BaseException in a tuple is refused", "try:\n    x = 1\nexcept (ValueError, BaseException):\n    pass\n", []string{"a.py:3:1: `except (ValueError, BaseException)` catches every exception, so a bug (a KeyError, a TypeError) ends the script like a refusal of its input; catch only the exceptions the input can cause (ValueError, OSError, ...) and refuse with sys.exit(\"why\"), or end the handler with a bare raise"}},
		{"a handler of every exception that re-raises passes", "import sys\ntry:\n    x = 1\nexcept Exception:\n    print('while converting', file=sys.stderr)\n    raise\n", nil},
		{"a handler of the exceptions the input can cause passes", "import sys\ntry:\n    x = float('a')\nexcept (ValueError, KeyError, OSError) as e:\n    sys.exit('not a number: %s' % e)\n", nil},
		{"code that does not compile says where", "print(\"a\nb\")\n", []string{"a.py:1:7: does not compile: unterminated string literal (detected at line 1); fix the syntax (run the sanitiser first)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got checked
			runScript(t, "check_scripts.py", map[string]any{"files": map[string]string{"a.py": tt.code}}, &got)
			if got.OK != (len(tt.problems) == 0) || got.Checked != 1 || !slices.Equal(got.Problems, tt.problems) {
				t.Errorf("got ok=%v checked=%d problems=%q\nwant %q", got.OK, got.Checked, got.Problems, tt.problems)
			}
		})
	}
}

func TestCheckScriptsReadsFilesInsideTheRootOnly(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok.py"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("check_scripts.py")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var got checked
	runScript(t, script, map[string]any{"paths": []string{"ok.py", "../outside.py", "missing.py", "notes.txt"}}, &got)
	want := []string{"../outside.py:1:1: is outside the project root; check scripts inside it", "missing.py:1:1: cannot read it: [Errno 2] No such file or directory: '" + filepath.Join(dir, "missing.py") + "'"}
	if got.OK || got.Checked != 1 || !slices.Equal(got.Problems, want) {
		t.Errorf("got ok=%v checked=%d problems=%q\nwant %q", got.OK, got.Checked, got.Problems, want)
	}
}
