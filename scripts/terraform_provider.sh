#!/usr/bin/env bash
# Builds Terraform's official Huawei Cloud provider (github.com/huaweicloud/terraform-provider-huaweicloud, the
# version pinned in scripts/versions.env) from the Go module proxy into a cache outside the repository, laid out
# as a Terraform filesystem mirror, and writes a Terraform CLI config that installs it from there offline:
#
#   $MODELARTS_ENGINE_CACHE/terraform-huaweicloud-v<version>/
#     mirror/registry.terraform.io/huaweicloud/huaweicloud/<version>/linux_amd64/terraform-provider-huaweicloud_v<version>
#     terraformrc    (TF_CLI_CONFIG_FILE=<it> terraform init: the provider from the mirror, nothing downloaded)
#
# Not part of `./dev setup` (the build takes about 15 minutes on 2 cores); run it by hand before
# `./dev test -m terraform` (docs/clients.md). Idempotent and silent when cached; --print prints the config's
# path on stdout (building first if needed), --check exits 0 only when it is built.
# One build step at a time (GOMAXPROCS=1, go build -p 1): the machines it runs on share their cores.
set -euo pipefail
scripts="$(cd "$(dirname "$0")" && pwd)"
. "$scripts/env.sh"
. "$scripts/steps.sh"

version="${TERRAFORM_HUAWEICLOUD_VERSION:?scripts/versions.env pins TERRAFORM_HUAWEICLOUD_VERSION}"
module=github.com/huaweicloud/terraform-provider-huaweicloud
root="$MODELARTS_ENGINE_CACHE/terraform-huaweicloud-v$version"
platform="$(go env GOOS 2>/dev/null || echo linux)_$(go env GOARCH 2>/dev/null || echo amd64)"
binary="$root/mirror/registry.terraform.io/huaweicloud/huaweicloud/$version/$platform/terraform-provider-huaweicloud_v$version"
rc="$root/terraformrc"

cached() { [ -x "$binary" ] && [ -f "$rc" ]; }

case "${1:-}" in
  --check) cached; exit ;;
  --print) print=1 ;;
  "") print= ;;
  *) echo "usage: scripts/terraform_provider.sh [--check | --print]" >&2; exit 2 ;;
esac

write_rc() {
  # Only this provider comes from the mirror; anything else a configuration asks for is refused (no network here).
  cat >"$rc.tmp" <<EOF
provider_installation {
  filesystem_mirror {
    path    = "$root/mirror"
    include = ["registry.terraform.io/huaweicloud/huaweicloud"]
  }
}
EOF
  mv "$rc.tmp" "$rc"
}

# The module's own go.mod (with its replace directive) is the main module: its source is copied out of the
# module cache and built in place, as its release build does. `go install mod@version` refuses replace directives.
# The checksum database here answers 404 for the provider's own go.mod, so that one module is taken from the proxy
# unchecked (GONOSUMDB); every dependency is still checked against the provider's go.sum.
build() {
  local src="$root/build/src" dir
  dir="$(cd "$root" && GONOSUMDB="$module" GOFLAGS=-mod=mod go mod download -json "$module@v$version" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [ -f "$dir/main.go" ] || {
    (cd "$root" && GONOSUMDB="$module" go mod download -json "$module@v$version")
    echo "$module@v$version: not in the module cache (the proxy refused it?)"; return 1
  }
  rm -rf "$src" && mkdir -p "$src" "$(dirname "$binary")"
  cp -r "$dir/." "$src/" && chmod -R u+w "$src"
  (cd "$src" && GOMAXPROCS=1 GOFLAGS=-mod=mod go build -p 1 -trimpath -ldflags "-s -w" -o "$binary.tmp" .)
  mv "$binary.tmp" "$binary"
  rm -rf "$root/build"  # the copied source is 100+ MB; the module cache keeps the original
}

if ! cached; then
  command -v go >/dev/null 2>&1 || { echo "terraform: Go is required to build the provider (see go.dev)" >&2; exit 1; }
  mkdir -p "$root"
  exec 8>"$root/.build.lock"  # one build per cache; whoever waited finds it done
  if command -v flock >/dev/null 2>&1 && ! flock -n 8; then
    echo "terraform: another build of the provider is running in $root; waiting for it..." >&2
    flock 8
  fi
  if ! cached; then
    [ -x "$binary" ] || step "terraform: building $module v$version (about 15 min on 2 cores; log: ${STEP_LOG:-$MODELARTS_STATE/setup.log})" build
    write_rc
  fi
fi
if [ -n "$print" ]; then echo "$rc"; fi
