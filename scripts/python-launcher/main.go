// pulumi-language-python: the Python language host the engine starts, as a launcher in front of the one we can
// build (sdk v3.79, scripts/versions.env). That host takes the project's `runtime.options.virtualenv` only as
// its command-line flags -virtualenv and -root; the 3.259 CLI no longer passes them (it sends the options with
// each request, which the old host does not read). Without them `pulumi new`/`pulumi install` made the
// virtualenv in the project root and `pulumi up` ran the python3 on PATH (issue 44). So this launcher reads the
// project the way the CLI does (the Pulumi.yaml above the directory the CLI starts the host in) and starts the
// real host, in its place (exec: same process, so whoever ends the engine's children ends it), with those flags.
//
// Only `virtualenv` (pip, the old host's one toolchain) is passed on; a project asking for another toolchain
// is refused in one line rather than run with the wrong Python.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
)

// hostName is the real host's file name, beside this launcher (set at build time by scripts/install_engine.sh).
var hostName = "pulumi-python-host"

// projectFlags: the flags that give the real host the project's virtualenv, none when there is no project
// (the host is also started for plugins) or it names none. A Pulumi.yaml the CLI could not load is its to
// report; the host then starts as it always did.
func projectFlags(cwd string) ([]string, error) {
	path, err := workspace.DetectProjectPathFrom(cwd)
	if err != nil || path == "" {
		return nil, nil
	}
	proj, err := workspace.LoadProject(path)
	if err != nil {
		return nil, nil
	}
	opts := proj.Runtime.Options()
	if tc, ok := opts["toolchain"]; ok && fmt.Sprint(tc) != "pip" {
		return nil, fmt.Errorf("%s: runtime.options.toolchain: %v is not supported by the Python language host "+
			"this engine carries (pip only): use `toolchain: pip` (the default) with `virtualenv: venv`", path, tc)
	}
	venv, ok := opts["virtualenv"].(string)
	if !ok || venv == "" {
		return nil, nil
	}
	return []string{"-root=" + filepath.Dir(path), "-virtualenv=" + venv}, nil
}

func main() {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-python: cannot find its own path: %v\n", err)
		os.Exit(1)
	}
	host := filepath.Join(filepath.Dir(self), hostName)
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-python: %v\n", err)
		os.Exit(1)
	}
	flags, err := projectFlags(cwd)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-python: %v\n", err)
		os.Exit(1)
	}
	// Flags first: the host's flag parsing stops at the engine's address, its one positional argument.
	argv := append(append([]string{host}, flags...), os.Args[1:]...)
	err = syscall.Exec(host, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "pulumi-language-python: cannot start %s: %v\n", host, err)
	os.Exit(1)
}
