package gateway

import (
	"os"

	"github.com/lppctl/lppctl/internal/envname"
)

// ruleEnvCredential refuses a script call when a variable that
// safe_py_runner.env.inherit passes to every script holds a credential in
// its value (DATABASE_URL=postgres://u:pw@h/db): the name looked harmless
// when the policy loaded, the value is only known when a script runs.
const ruleEnvCredential = "env-credential"

// inheritedCredential refuses when a variable of env.inherit holds a
// password (envname.CredentialValue) in lppctl's environment. It names the
// variable, never its value. env.inherit_for is for credentials and is not
// checked; env.set values are checked when the policy loads.
func (g *Gateway) inheritedCredential() *refusal {
	for _, k := range g.policy.Runner.Env.Inherit {
		v, ok := os.LookupEnv(k)
		if !ok {
			continue
		}
		if what := envname.CredentialValue(v); what != "" {
			return refuse(ruleEnvCredential, "%s, which safe_py_runner.env.inherit passes to every script, holds %s in lppctl's environment; no script runs until it is fixed: give it to the scripts that need it with env.inherit_for, or take the password out of the value", k, what)
		}
	}
	return nil
}
