package gateway

// Defaults for the policy's list keys. A policy that omits one of these keys
// (or leaves it empty: `key:`) gets the list below; only an explicit `[]`
// empties it. config/tools_config.yaml spells out the same lists (a test
// holds them equal) and docs/gateway.md documents them.

// defaultProtectedPaths is protected_paths.
var defaultProtectedPaths = []string{
	".git",
	"config/tools_config.yaml",
	".lppctl",
	"config",
	"specs",
	"claude.md",
	".python-version",
}

// defaultHiddenPaths is hidden_paths.
var defaultHiddenPaths = []string{
	".git", ".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*",
	".lppctl", ".netrc", ".npmrc", ".pypirc", ".ssh",
}

// defaultBlockedPatterns is blocked_patterns.
var defaultBlockedPatterns = []rawBlocked{
	{"rm-recursive", `\brm\s+(-[a-z]*r[a-z]*|--recursive)\b`, "recursive delete"},
	{"mkfs", `\bmkfs(\.[a-z0-9]+)?\b`, "formatting a filesystem"},
	{"dd", `\bdd\s+(if|of)=`, "raw disk copy"},
	{"pipe-to-shell", `\b(curl|wget|fetch)\b[^\n]*\|\s*(sudo\s+)?(ba|z|k|da)?sh\b`, "downloading and piping into a shell"},
	{"python-eval", `\beval\s*\(`, "dynamic evaluation"},
	{"python-exec", `\bexec\s*\(`, "dynamic execution"},
	{"python-dunder-import", `__import__`, "dynamic import"},
	{"os-system", `\bos\s*\.\s*(system|popen|exec[lv]p?e?|spawn[lv]p?e?|fork|kill)\b`, "starting or signalling processes from Python"},
	{"subprocess", `\bsubprocess\b`, "starting processes from Python"},
	{"posix-spawn", `\bposix_spawnp?\b`, "starting processes from Python (os.posix_spawn)"},
	{"asyncio-subprocess", `\bcreate_subprocess_(exec|shell)\b`, "starting processes from Python (asyncio)"},
	{"multiprocessing", `\bmultiprocessing\b`, "starting processes from Python"},
	{"pty-spawn", `\bpty\s*\.\s*spawn\b`, "spawning a terminal"},
	{"shutil-rmtree", `\bshutil\s*\.\s*rmtree\b`, "recursive delete from Python"},
	{"socket", `\bimport\s+socket\b|\bsocket\s*\.\s*socket\s*\(`, "raw network access"},
	{"ctypes", `\bctypes\b`, "calling native code"},
	{"fork-bomb", `:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}`, "fork bomb"},
	{"chmod-setuid", `\bchmod\s+[0-7]*[4-7][0-7]{3}\b|\bchmod\s+[ugoa]*\+s\b`, "setuid bits"},
	{"sudo", `\bsudo\s`, "privilege escalation"},
}

// defaultEnvInherit is safe_py_runner.env.inherit.
var defaultEnvInherit = []string{"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// defaultEnvSet is safe_py_runner.env.set.
var defaultEnvSet = map[string]string{
	"PYTHONDONTWRITEBYTECODE": "1",
	"PYTHONIOENCODING":        "utf-8",
	"PYTHONNOUSERSITE":        "1",
	"PYTHONUNBUFFERED":        "1",
}

// defaultEnvAllowKeys is safe_py_runner.env.allow_keys: the only env_vars
// keys the model may set. Exact names; anything else is refused.
var defaultEnvAllowKeys = []string{"NAME", "VERBOSE"}

// defaultEnvDenyKeys is safe_py_runner.env.deny_keys: regexes no allow_keys
// entry may match (a policy error), so an operator cannot allow a name that
// loads code, redirects files or connections, or carries a credential.
var defaultEnvDenyKeys = []string{
	`^PYTHON`,
	`^LD_`,
	`^DYLD_`,
	`^(PATH|HOME|SHELL|IFS|ENV|BASH_ENV|CDPATH|PS4|TMPDIR|LANG|LC_.*|TZ)$`,
	`^BASH_FUNC`,
	`^(GCONV_PATH|LOCPATH|NLSPATH|GLIBC_TUNABLES|MALLOC_.*|HOSTALIASES|RES_OPTIONS|LOCALDOMAIN|TZDIR|TMP|TEMP|TERMINFO|TERMINFO_DIRS|OPENSSL_.*|SSL_.*|SSLKEYLOGFILE|CURL_CA_BUNDLE|REQUESTS_CA_BUNDLE)$`,
	`^LPPCTL_`,
	`(^|_)(URLS?|URIS?|ENDPOINTS?|HOSTS?|HOSTNAME|PROXY|SERVER|ADDR|ADDRESS)(_|$)`,
	`(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)(_|$)`,
	`^(OPENAI|ANTHROPIC|AZURE|AWS|GOOGLE|GEMINI|MISTRAL|COHERE|HF|HUGGINGFACE|GITHUB|GH)_`,
}

// defaultRunnerTimeout is safe_py_runner.timeout when omitted (the original
// tool definitions' 120 seconds).
const defaultRunnerTimeout = "120s"

// orDefault returns *v, or def when v is nil (the key was omitted or null).
func orDefault[T any](v *T, def T) T {
	if v == nil {
		return def
	}
	return *v
}
