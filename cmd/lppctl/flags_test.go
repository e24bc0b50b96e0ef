package main

import "flag"

var updateScripts = flag.Bool("update", false, "rewrite testscript files and golden files with the actual output")
