package envname

import (
	"regexp"
	"strings"
)

// A variable's name can look harmless while its value carries a password:
// DATABASE_URL=postgres://u:pw@h/db, HTTPS_PROXY=http://u:pw@proxy:8080,
// REDIS_URL=redis://:pw@h, MONGO_URI=...?password=pw, or a keyword
// connection string (PGCONN="host=h password=pw", "Server=s;Pwd=pw").
// CredentialValue finds those.

// urlUserinfo matches a URL's user information: "scheme://USER[:PASS]@".
// A user name alone counts too: tokens are sent that way
// (https://TOKEN@github.com).
var urlUserinfo = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s@]*@`)

// barePassword matches "user:password@host" without a scheme (libpq's and
// many tools' short form).
var barePassword = regexp.MustCompile(`(^|[\s,;])[^\s/@:,;]+:[^\s/@,;]+@[^\s/@,;]`)

// settingKey matches the keys of "key=value" settings inside a value
// (query parameters, keyword connection strings, cookies).
var settingKey = regexp.MustCompile(`(?:^|[\s;&?,])([A-Za-z_][A-Za-z0-9_.-]*)\s*=`)

// passwordKeys are setting keys that hold a secret although Credential
// does not recognise them as a variable name.
var passwordKeys = map[string]bool{"PWD": true, "PASS": true, "AUTH": true, "SIG": true, "SIGNATURE": true}

// CredentialValue says what in the environment variable value v looks like
// a credential, or "" when nothing does: a URL with user information (a
// password, or a user name that may be a token), "user:password@host", or a
// "key=value" setting whose key looks like a credential (password=,
// token=, api_key=, Pwd= ...).
func CredentialValue(v string) string {
	if urlUserinfo.MatchString(v) {
		return "a URL with a user name or password (scheme://user:password@host)"
	}
	if barePassword.MatchString(v) {
		return "a user name and password (user:password@host)"
	}
	for _, m := range settingKey.FindAllStringSubmatch(v, -1) {
		k := strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(m[1]))
		if Credential(k) || passwordKeys[k] {
			return "a " + m[1] + "= setting"
		}
	}
	return ""
}
