#!/usr/bin/env bash
# Installs the Pulumi engine offline, from Go modules, into a versioned cache outside the repository:
#   pulumi (CLI), pulumi-language-python (+ its exec script), pulumi-resource-pulumi-python (dynamic
#   provider launcher) in bin/, and pulumi-resource-random in the plugins/ of a Pulumi home beside it. Idempotent: every piece already built is reused.
# Pulumi's own download host is unreachable here, so nothing is downloaded but Go modules.
set -euo pipefail
. "$(cd "$(dirname "$0")" && pwd)/env.sh"

command -v go >/dev/null 2>&1 || { echo "engine: Go is required to build the Pulumi engine offline (apt-get install golang or see go.dev)" >&2; exit 1; }
mkdir -p "$MODELARTS_ENGINE_BIN"
work="$MODELARTS_ENGINE_CACHE/build"
mkdir -p "$work"
modcache="$(go env GOMODCACHE)"

# A throwaway wrapper module per binary: `go install mod@version` refuses modules with replace directives.
build_in_wrapper() { # name, main package, output, go.mod body, ldflags
  local name="$1" pkg="$2" out="$3" gomod="$4" ldflags="$5" dir="$work/$1"
  mkdir -p "$dir"
  printf '%s\n' "$gomod" >"$dir/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$pkg" >"$dir/tools.go"
  (cd "$dir" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || (cd "$dir" && GOFLAGS=-mod=mod go mod tidy))
  (cd "$dir" && go build -trimpath -ldflags "-s -w $ldflags" -o "$out.tmp" "$pkg")
  mv "$out.tmp" "$out"
}

cli="$MODELARTS_ENGINE_BIN/pulumi"
if [ "$(command -v pulumi)" != "$cli" ] && [ "$(pulumi version 2>/dev/null)" = "v$PULUMI_VERSION" ]; then
  # The user's own pinned engine (with its language host) wins; only the random plugin is ours.
  echo "engine: using pulumi v$PULUMI_VERSION already on PATH ($(command -v pulumi))"
  "$(dirname "$0")/build_random_plugin.sh"
  exit 0
fi

if [ -x "$cli" ] && [ "$("$cli" version 2>/dev/null)" = "v$PULUMI_VERSION" ]; then
  echo "engine: pulumi v$PULUMI_VERSION cached at $cli"
else
  echo "engine: building pulumi CLI v$PULUMI_VERSION from Go modules (first run takes several minutes)..."
  start=$SECONDS
  build_in_wrapper cli github.com/pulumi/pulumi/pkg/v3/cmd/pulumi "$cli" "module modelarts.local/build/cli

go 1.25

require (
	github.com/pulumi/pulumi/pkg/v3 v$PULUMI_VERSION
	github.com/pulumi/pulumi/sdk/v3 v$PULUMI_VERSION
)

// pkg/v3's own go.mod carries this replace; wrapper modules must repeat it.
replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e" \
    "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VERSION"
  echo "engine: pulumi CLI built in $((SECONDS - start))s"
fi

host="$MODELARTS_ENGINE_BIN/pulumi-language-python"
if [ -x "$host" ] && [ -f "$MODELARTS_ENGINE_BIN/.python-host-$PULUMI_PYTHON_HOST_SDK_VERSION" ]; then
  echo "engine: python language host cached at $host"
else
  echo "engine: building pulumi-language-python from github.com/pulumi/pulumi/sdk/v3@v$PULUMI_PYTHON_HOST_SDK_VERSION..."
  start=$SECONDS
  build_in_wrapper python-host github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python "$host" \
    "module modelarts.local/build/pythonhost

go 1.25

require github.com/pulumi/pulumi/sdk/v3 v$PULUMI_PYTHON_HOST_SDK_VERSION" \
    "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_PYTHON_HOST_SDK_VERSION"
  touch "$MODELARTS_ENGINE_BIN/.python-host-$PULUMI_PYTHON_HOST_SDK_VERSION"
  echo "engine: python language host built in $((SECONDS - start))s"
fi

# The exec script and the dynamic-provider launcher are plain scripts in the sdk module of the pinned version.
sdk="$modcache/github.com/pulumi/pulumi/sdk/v3@v$PULUMI_VERSION"
[ -d "$sdk" ] || (cd "$work/cli" && go mod download github.com/pulumi/pulumi/sdk/v3@v$PULUMI_VERSION)
install -m 0755 "$sdk/python/cmd/pulumi-language-python-exec" "$MODELARTS_ENGINE_BIN/pulumi-language-python-exec"
install -m 0755 "$sdk/python/dist/pulumi-resource-pulumi-python" "$MODELARTS_ENGINE_BIN/pulumi-resource-pulumi-python"

"$(dirname "$0")/build_random_plugin.sh"

echo "engine: ready in $MODELARTS_ENGINE_BIN (pulumi $("$cli" version))"
