#!/usr/bin/env bash
# Installs the Pulumi engine offline, from Go modules, into a versioned cache outside the repository:
#   pulumi (CLI), pulumi-language-python (a launcher, scripts/python-launcher, in front of the real host
#   pulumi-python-host-v<version>, + its exec script), pulumi-resource-pulumi-python (dynamic
#   provider launcher), pulumi-language-yaml (Pulumi YAML programs: the modelarts plugin's other-language
#   door, issue 25), pulumi-language-nodejs and pulumi-language-go (TypeScript and Go programs, issue 44), modelarts-sdkgen (its TypeScript, Python and Go SDK generator) in bin/, and pulumi-resource-random in the plugins/ of a Pulumi home beside it.
# Idempotent and silent when everything is cached. Otherwise one line per step on standard error,
#   engine: building pulumi CLI (step 1 of 3)... done in 354 s
# with the build tools' own output in $MODELARTS_STATE/setup.log (.state/setup.log), whose tail is
# printed only when a step fails. Nothing is ever written to standard output.
# Pulumi's own download host is unreachable here, so nothing is downloaded but Go modules.
set -euo pipefail
scripts="$(cd "$(dirname "$0")" && pwd)"
. "$scripts/env.sh"
. "$scripts/steps.sh"
exec >&2  # every message here is for people; stdout stays free for the caller's own output

cli="$MODELARTS_ENGINE_BIN/pulumi"
host="$MODELARTS_ENGINE_BIN/pulumi-language-python"  # scripts/python-launcher, in front of the real host:
real_host="$MODELARTS_ENGINE_BIN/pulumi-python-host-v$PULUMI_PYTHON_HOST_SDK_VERSION"
yaml_host="$MODELARTS_ENGINE_BIN/pulumi-language-yaml"
nodejs_host="$MODELARTS_ENGINE_BIN/pulumi-language-nodejs"
go_host="$MODELARTS_ENGINE_BIN/pulumi-language-go"
sdkgen="$MODELARTS_ENGINE_BIN/modelarts-sdkgen"
work="$MODELARTS_ENGINE_CACHE/build"

cli_cached() { [ -x "$cli" ] && [ "$("$cli" version 2>/dev/null)" = "v$PULUMI_VERSION" ]; }
# Rebuilt when what build_host adds to the upstream host (scripts/python-host) changes.
host_id() { cat "$scripts"/python-host/* | sha256sum | cut -c1-12; }
host_cached() {
  [ -x "$real_host" ] && [ -f "$MODELARTS_ENGINE_BIN/.python-host-$PULUMI_PYTHON_HOST_SDK_VERSION-$(host_id)" ] &&
    [ -x "$MODELARTS_ENGINE_BIN/pulumi-language-python-exec" ] &&
    [ -x "$MODELARTS_ENGINE_BIN/pulumi-resource-pulumi-python" ]
}
# Rebuilt when its source or the real host's name (built into it) changes.
launcher_id() { { cat "$scripts/python-launcher/main.go"; basename "$real_host"; } | sha256sum | cut -c1-12; }
launcher_cached() { [ -x "$host" ] && [ -f "$MODELARTS_ENGINE_BIN/.python-launcher-$(launcher_id)" ]; }
sdkgen_id() { sha256sum "$scripts/sdkgen/main.go" | cut -c1-12; }  # rebuilt when its source changes
sdkgen_cached() { [ -x "$sdkgen" ] && [ -f "$MODELARTS_ENGINE_BIN/.sdkgen-$(sdkgen_id)" ]; }
yaml_cached() {
  [ -x "$yaml_host" ] && [ -f "$MODELARTS_ENGINE_BIN/.yaml-host-$PULUMI_YAML_VERSION" ]
}
nodejs_cached() { [ -x "$nodejs_host" ] && [ -f "$MODELARTS_ENGINE_BIN/.nodejs-host-$PULUMI_NODEJS_HOST_SDK_VERSION" ]; }
go_cached() { [ -x "$go_host" ] && [ -f "$MODELARTS_ENGINE_BIN/.go-host-$PULUMI_GO_HOST_SDK_VERSION" ]; }
random_cached() { "$scripts/build_random_plugin.sh" --check; }
# The user's own pulumi of the pinned version (with its language host) wins; only the random plugin is ours.
own_cli() { [ "$(command -v pulumi)" != "$cli" ] && [ "$(pulumi version 2>/dev/null)" = "v$PULUMI_VERSION" ]; }

todo() { # the steps still to do, in order
  if ! own_cli; then
    cli_cached || echo cli
    host_cached || echo host
    launcher_cached || echo launcher
  fi
  yaml_cached || echo yaml
  nodejs_cached || echo nodejs
  go_cached || echo go
  sdkgen_cached || echo sdkgen
  random_cached || echo random
}

steps="$(todo)"
[ -n "$steps" ] || exit 0  # everything cached: say nothing

# One build at a time per engine cache; whoever waited finds the work done.
mkdir -p "$MODELARTS_ENGINE_CACHE"
exec 8>"$MODELARTS_ENGINE_CACHE/.install.lock"
if command -v flock >/dev/null 2>&1 && ! flock -n 8; then
  echo "engine: another set-up is building the engine in $MODELARTS_ENGINE_CACHE; waiting for it..."
  flock 8
  steps="$(todo)"
  [ -n "$steps" ] || exit 0
fi

command -v go >/dev/null 2>&1 || { echo "engine: Go is required to build the Pulumi engine offline (apt-get install golang or see go.dev)"; exit 1; }
mkdir -p "$MODELARTS_ENGINE_BIN" "$work"

# A throwaway wrapper module per binary: `go install mod@version` refuses modules with replace directives.
build_in_wrapper() { # name, main package, output, go.mod body, ldflags
  local name="$1" pkg="$2" out="$3" gomod="$4" ldflags="$5" dir="$work/$1"
  mkdir -p "$dir"
  printf '%s\n' "$gomod" >"$dir/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$pkg" >"$dir/tools.go"
  (cd "$dir" && GOFLAGS=-mod=mod go mod tidy)
  (cd "$dir" && go build -trimpath -ldflags "-s -w $ldflags" -o "$out.tmp" "$pkg")
  mv "$out.tmp" "$out"
}

# The main package whose sources are in $work/<name> built as a module of its own against pinned Pulumi modules.
build_main_in() { # name (its folder in $work), output, go.mod body, ldflags
  local dir="$work/$1" out="$2" gomod="$3" ldflags="$4"
  printf '%s\n' "$gomod" >"$dir/go.mod"
  (cd "$dir" && GOFLAGS=-mod=mod go mod tidy)
  (cd "$dir" && go build -trimpath -ldflags "-s -w $ldflags" -o "$out.tmp" .)
  mv "$out.tmp" "$out"
}

# A main package of ours (scripts/<name>/main.go).
build_own_main() { # name (its folder in scripts/), output, go.mod body, ldflags
  mkdir -p "$work/$1"
  cp "$scripts/$1/main.go" "$work/$1/main.go"
  build_main_in "$@"
}

# The directory of a module in the module cache (downloaded first if it is not there yet).
module_dir() { # module@version
  (cd "$work" && GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
}

build_cli() {
  build_in_wrapper cli github.com/pulumi/pulumi/pkg/v3/cmd/pulumi "$cli" "module modelarts.local/build/cli

go 1.25

require (
	github.com/pulumi/pulumi/pkg/v3 v$PULUMI_VERSION
	github.com/pulumi/pulumi/sdk/v3 v$PULUMI_VERSION
)

// pkg/v3's own go.mod carries this replace; wrapper modules must repeat it.
replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e" \
    "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VERSION"
}

# The host, with one change: it lists the program's installed packages with the standard library instead of
# `python -m pip list -v` (scripts/python-host/installed_packages.go says why). Its main.go is copied out of the
# module cache with that one command swapped, and built beside that file; the build stops if the line to swap
# is not there exactly once.
build_host() {
  local dir="$work/python-host" upstream sdk
  local pip='args := []string{"-m", "pip", "list", "-v", "--format", "json"}'
  local ours='args := []string{"-c", installedPackagesScript}'
  upstream="$(module_dir "github.com/pulumi/pulumi/sdk/v3@v$PULUMI_PYTHON_HOST_SDK_VERSION")/python/cmd/pulumi-language-python"
  [ "$(grep -cF "$pip" "$upstream/main.go")" = 1 ] || { echo "host: the pip list line to swap is not once in $upstream/main.go"; return 1; }
  rm -rf "$dir" && mkdir -p "$dir"
  awk -v pip="$pip" -v ours="$ours" '{ i = index($0, pip); if (i) $0 = substr($0, 1, i - 1) ours substr($0, i + length(pip)) } 1' \
    "$upstream/main.go" >"$dir/main.go"
  cp "$scripts/python-host/installed_packages.go" "$dir/"
  build_main_in python-host "$real_host" "module modelarts.local/build/pythonhost

go 1.25

require github.com/pulumi/pulumi/sdk/v3 v$PULUMI_PYTHON_HOST_SDK_VERSION" \
    "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_PYTHON_HOST_SDK_VERSION"
  # The exec script and the dynamic-provider launcher are plain scripts in the sdk module of the pinned version.
  sdk="$(module_dir "github.com/pulumi/pulumi/sdk/v3@v$PULUMI_VERSION")"
  [ -d "$sdk" ] || { echo "github.com/pulumi/pulumi/sdk/v3@v$PULUMI_VERSION not found in the module cache"; return 1; }
  install -m 0755 "$sdk/python/cmd/pulumi-language-python-exec" "$MODELARTS_ENGINE_BIN/pulumi-language-python-exec"
  install -m 0755 "$sdk/python/dist/pulumi-resource-pulumi-python" "$MODELARTS_ENGINE_BIN/pulumi-resource-pulumi-python"
  rm -f "$MODELARTS_ENGINE_BIN"/.python-host-*
  touch "$MODELARTS_ENGINE_BIN/.python-host-$PULUMI_PYTHON_HOST_SDK_VERSION-$(host_id)"
}

# The launcher the engine starts as pulumi-language-python: it gives the real host (above) the project's
# `runtime.options.virtualenv` as the flags that host reads, which the CLI no longer passes (scripts/python-launcher).
build_launcher() {
  build_own_main python-launcher "$host" "module modelarts.local/build/pythonlauncher

go 1.25

require github.com/pulumi/pulumi/sdk/v3 v$PULUMI_VERSION" "-X main.hostName=$(basename "$real_host")"
  rm -f "$MODELARTS_ENGINE_BIN"/.python-launcher-*
  touch "$MODELARTS_ENGINE_BIN/.python-launcher-$(launcher_id)"
}

# The Node.js and Go language hosts: the sdk/v3 module of the version pinned for each (versions.env) contains
# its main package. A TypeScript program's @pulumi/pulumi comes from npm, a Go program's SDK from the Go proxy.
build_sdk_host() { # name, version, package path inside sdk/v3, output
  local name="$1" version="$2" pkg="$3" out="$4"
  build_in_wrapper "$name-host" "github.com/pulumi/pulumi/sdk/v3/$pkg" "$out" \
    "module modelarts.local/build/${name}host

go 1.25

require github.com/pulumi/pulumi/sdk/v3 v$version" \
    "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version"
  touch "$MODELARTS_ENGINE_BIN/.$name-host-$version"
}

# The YAML language host (pulumi-yaml's own module); its pulumi requirement is raised to the CLI's version,
# whose modules the CLI's build already put in the module cache.
build_yaml_host() {
  build_in_wrapper yaml-host github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml "$yaml_host" \
    "module modelarts.local/build/yamlhost

go 1.25.11

require (
	github.com/pulumi/pulumi-yaml v$PULUMI_YAML_VERSION
	github.com/pulumi/pulumi/pkg/v3 v$PULUMI_VERSION
	github.com/pulumi/pulumi/sdk/v3 v$PULUMI_VERSION
)

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e" \
    "-X github.com/pulumi/pulumi-yaml/pkg/version.Version=v$PULUMI_YAML_VERSION"
  touch "$MODELARTS_ENGINE_BIN/.yaml-host-$PULUMI_YAML_VERSION"
}

# The SDK generator of the modelarts plugin (scripts/sdkgen: the CLI's own nodejs, python and go codegen, whose
# language hosts the Go proxy does not serve or cannot generate with); the pkg module is the CLI's, in the module cache.
build_sdkgen() {
  build_own_main sdkgen "$sdkgen" "module modelarts.local/build/sdkgen

go 1.25

require (
	github.com/pulumi/pulumi/pkg/v3 v$PULUMI_VERSION
	github.com/pulumi/pulumi/sdk/v3 v$PULUMI_VERSION
)

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e" ""
  touch "$MODELARTS_ENGINE_BIN/.sdkgen-$(sdkgen_id)"
}

log="${STEP_LOG:-$MODELARTS_STATE/setup.log}"
total=$(printf '%s\n' "$steps" | wc -l) n=0 start=$SECONDS
if own_cli; then
  echo "engine: using pulumi v$PULUMI_VERSION on PATH ($(command -v pulumi)); building the random plugin (log: $log)"
else
  echo "engine: building Pulumi v$PULUMI_VERSION from Go modules into $MODELARTS_ENGINE_CACHE (first time: 8-20 min on 2 cores; log: $log)"
fi
for s in $steps; do
  n=$((n + 1))
  case "$s" in
    cli) step "engine: building pulumi CLI (step $n of $total)" build_cli ;;
    host) step "engine: building python language host (step $n of $total)" build_host ;;
    launcher) step "engine: building python language host launcher (step $n of $total)" build_launcher ;;
    yaml) step "engine: building YAML language host (step $n of $total)" build_yaml_host ;;
    nodejs) step "engine: building Node.js language host (step $n of $total)" \
      build_sdk_host nodejs "$PULUMI_NODEJS_HOST_SDK_VERSION" nodejs/cmd/pulumi-language-nodejs "$nodejs_host" ;;
    go) step "engine: building Go language host (step $n of $total)" \
      build_sdk_host go "$PULUMI_GO_HOST_SDK_VERSION" go/pulumi-language-go "$go_host" ;;
    sdkgen) step "engine: building the SDK generator, TypeScript, Python and Go (step $n of $total)" build_sdkgen ;;
    random) step "engine: building random provider plugin (step $n of $total)" "$scripts/build_random_plugin.sh" ;;
  esac
done
echo "engine: ready in $((SECONDS - start)) s (pulumi v$PULUMI_VERSION, $(dirname "$(command -v pulumi)"))"
