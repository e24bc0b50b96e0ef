package actions

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/internal/envname"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// envRead is env.read: it reads settings from the environment into context
// variables at the start of a run, e.g. {threshold: EVAL_THRESHOLD}. A
// variable is written only while it holds its spec default, so a value given
// with --var wins; give such a variable a default no one would pass (-1,
// "") and resolve it after (set: {threshold: 'threshold < 0 ? 80 :
// threshold'}). An unset or empty environment variable writes nothing; a
// value that does not parse as the variable's type fails the action, naming
// the variable but not quoting the value. Credentials are not for specs: a
// name that looks like one (envname.Credential: PGPASSWORD, GITHUB_PAT,
// OPENAI_API_KEY_2 ...) is refused, and so is a value that holds one
// (envname.CredentialValue: DATABASE_URL=postgres://u:pw@h/db).
func (d *Deps) envRead(_ context.Context, c *machine.Call) error {
	vars, err := stringMap(c, "vars")
	if err != nil {
		return err
	}
	decls := map[string]*mspec.Var{}
	for _, v := range c.Spec().Context {
		decls[v.Name] = v
	}
	for _, name := range sortedKeys(vars) {
		env := vars[name]
		if envname.Credential(env) {
			return fmt.Errorf("env.read of state %q: %s looks like a secret (a key, token or password); specs do not read those", c.State, env)
		}
		decl := decls[name]
		if decl == nil {
			return fmt.Errorf("env.read of state %q: %s is not a context variable", c.State, name)
		}
		raw := strings.TrimSpace(d.Env(env))
		if raw == "" {
			continue
		}
		if what := envname.CredentialValue(raw); what != "" {
			return fmt.Errorf("env.read of state %q: %s holds %s; specs do not read credentials (take the password out of the value, or give the value with --var)", c.State, env, what)
		}
		if !reflect.DeepEqual(c.Var(name), decl.Default) {
			c.Notef("%s=%v was given; %s is not used", name, c.Var(name), env)
			continue
		}
		val, err := parseEnvValue(decl, raw)
		if err != nil {
			return fmt.Errorf("cannot read %s into %s: %w", env, name, err)
		}
		if err := c.SetVar(name, val); err != nil {
			return fmt.Errorf("cannot read %s into %s: %w", env, name, err)
		}
		c.Notef("%s = %v (from %s)", name, val, env)
	}
	return nil
}

// parseEnvValue converts an environment variable's text to a variable's
// type and checks it against the variable's enum. Its errors never quote the
// value: an environment variable may hold what a spec must not show.
func parseEnvValue(decl *mspec.Var, raw string) (any, error) {
	val, err := parseEnvType(decl.Type, raw)
	if err != nil {
		return nil, err
	}
	if _, bad := mspec.NotFinite(val); bad {
		return nil, fmt.Errorf("not a finite number")
	}
	if s, ok := val.(string); ok && len(decl.Enum) > 0 && !mspec.Contains(decl.Enum, s) {
		return nil, fmt.Errorf("not one of %s", mspec.QuoteList(decl.Enum))
	}
	return val, nil
}

// parseEnvType converts an environment variable's text to a variable's type.
func parseEnvType(t mspec.Type, raw string) (any, error) {
	switch t {
	case mspec.TypeInt:
		n, err := strconv.Atoi(raw)
		if err != nil {
			return nil, fmt.Errorf("not an integer")
		}
		return n, nil
	case mspec.TypeFloat:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return nil, fmt.Errorf("not a number")
		}
		return f, nil
	case mspec.TypeBool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return nil, fmt.Errorf("not true or false")
		}
		return b, nil
	case mspec.TypeString:
		return raw, nil
	}
	return nil, fmt.Errorf("env.read sets only int, float, bool and string variables, not %s", t)
}
