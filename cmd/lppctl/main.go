// Command lppctl runs LLM agents described as declarative YAML state machines.
package main

import "os"

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
