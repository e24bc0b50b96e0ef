package actions

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"

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
// the variable. Provider keys are not for specs: a name ending in _KEY,
// _TOKEN or _SECRET is refused.
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
		if secretName(env) {
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
		if !reflect.DeepEqual(c.Var(name), decl.Default) {
			c.Notef("%s=%v was given; %s=%s is not used", name, c.Var(name), env, raw)
			continue
		}
		val, err := parseEnvValue(decl.Type, raw)
		if err != nil {
			return fmt.Errorf("cannot read %s=%q into %s: %w", env, raw, name, err)
		}
		if err := c.SetVar(name, val); err != nil {
			return fmt.Errorf("cannot read %s=%q into %s: %w", env, raw, name, err)
		}
		c.Notef("%s = %v (from %s)", name, val, env)
	}
	return nil
}

// parseEnvValue converts an environment variable's text to a variable's type.
func parseEnvValue(t mspec.Type, raw string) (any, error) {
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

// secretName reports whether an environment variable's name is a secret's.
func secretName(name string) bool {
	u := strings.ToUpper(name)
	for _, s := range []string{"_KEY", "_TOKEN", "_SECRET", "PASSWORD"} {
		if strings.HasSuffix(u, s) || strings.Contains(u, "PASSWORD") {
			return true
		}
	}
	return false
}
