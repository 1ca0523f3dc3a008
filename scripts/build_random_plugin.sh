#!/usr/bin/env bash
# Build the Pulumi "random" resource provider plugin (pulumi-resource-random)
# from Go modules only, compatible with the pulumi_random 4.21.1 Python SDK.
#
# Usage: scripts/build_random_plugin.sh [--force | --check] [OUTPUT_DIR]
#
#   OUTPUT_DIR  where pulumi-resource-random is installed; default
#               ${MODELARTS_ENGINE_CACHE:-$HOME/.cache/modelarts-pulumi}/engine-v3.259.0/home/plugins/resource-random-v4.21.1
#               (also settable with RANDOM_PLUGIN_OUT_DIR)
#   --force     rebuild even if the pinned version is already installed
#   --check     build nothing, print nothing: exit 0 if the pinned version is installed, 1 if not
#
# All messages go to standard error (scripts/install_engine.sh runs this as one step, its output in
# .state/setup.log).
#
# Environment:
#   RANDOM_PLUGIN_WORK_DIR  scratch build dir (default: <cache>/random-plugin-build)
#   GO_BUILD_PARALLELISM    go build -p value (default 2)
#
# The plugin is a thin pulumi-terraform-bridge wrapper around the Terraform
# random provider (scripts/random-plugin/, pinned by its go.mod/go.sum).
# Steps: copy the wrapper sources to a scratch dir, build tfgen-random, run
# `tfgen-random schema` to produce schema.json + bridge-metadata.json, build
# pulumi-resource-random embedding them, smoke-test it, install atomically.
set -euo pipefail

BIN_NAME="pulumi-resource-random"
VERSION_PKG="modelarts.local/pulumi-random-bridge/provider"
TF_RANDOM_MODULE="github.com/terraform-providers/terraform-provider-random"

force=0
check=0
out_arg=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --force) force=1 ;;
    --check) check=1 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option: $1" >&2; exit 2 ;;
    *) out_arg="$1" ;;
  esac
  shift
done
exec >&2  # messages are for people; stdout stays free for the caller's own output

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
. "$script_dir/env.sh"  # pinned versions and the engine cache location
PLUGIN_VERSION="$PULUMI_RANDOM_VERSION"
src_dir="${script_dir}/random-plugin"
cache_root="$MODELARTS_ENGINE_CACHE"
out_dir="${out_arg:-${RANDOM_PLUGIN_OUT_DIR:-$MODELARTS_RANDOM_PLUGIN_DIR}}"
work_dir="${RANDOM_PLUGIN_WORK_DIR:-${cache_root}/random-plugin-build}"
target="${out_dir}/${BIN_NAME}"

installed_version() {
  [[ -x "$1" ]] || return 1
  # The bridge answers -version before starting its gRPC server.
  timeout 20 "$1" -version 2>/dev/null | tr -d '[:space:]'
}

if [[ $check -eq 1 ]]; then
  [[ "$(installed_version "$target" || true)" == "$PLUGIN_VERSION" ]]
  exit
fi
if [[ $force -eq 0 ]] && [[ "$(installed_version "$target" || true)" == "$PLUGIN_VERSION" ]]; then
  echo "${BIN_NAME} ${PLUGIN_VERSION} already installed at ${target}"
  exit 0
fi

command -v go >/dev/null || { echo "error: go toolchain not found on PATH" >&2; exit 1; }
[[ -f "${src_dir}/go.mod" ]] || { echo "error: missing ${src_dir}/go.mod" >&2; exit 1; }

echo "building random provider plugin ${PLUGIN_VERSION} from Go modules (takes minutes)..."
echo "  sources: ${src_dir}"
echo "  scratch: ${work_dir}"
echo "  output:  ${target}"

mkdir -p "$work_dir" "$out_dir"
exec 9>"${work_dir}/.lock"
if command -v flock >/dev/null; then
  flock 9
fi

# Fresh copy of the wrapper module (generated files must not land in the repo).
rm -rf "${work_dir}/src" "${work_dir}/gen" "${work_dir}/bin"
mkdir -p "${work_dir}/src" "${work_dir}/gen" "${work_dir}/bin"
cp -R "${src_dir}/." "${work_dir}/src/"

export GOWORK=off
export GOFLAGS="-mod=readonly -buildvcs=false"
export CGO_ENABLED=0
par="${GO_BUILD_PARALLELISM:-2}"
ldflags="-s -w -X ${VERSION_PKG}.Version=${PLUGIN_VERSION}"

cd "${work_dir}/src"

start=$SECONDS
echo "[1/4] go build tfgen-random"
nice -n 5 go build -p "$par" -trimpath -ldflags "$ldflags" -o "${work_dir}/bin/tfgen-random" ./cmd/tfgen-random

echo "[2/4] generating schema.json + bridge-metadata.json"
# Upstream docs (for descriptions) come from the provider module in GOMODCACHE.
upstream_dir="$(go list -m -f '{{.Dir}}' "$TF_RANDOM_MODULE" 2>/dev/null || true)"
(
  cd "${work_dir}/gen"
  RANDOM_UPSTREAM_REPO_PATH="$upstream_dir" \
  PULUMI_SKIP_UPDATE_CHECK=1 \
    "${work_dir}/bin/tfgen-random" schema --skip-examples --out "${work_dir}/gen/out" \
    >"${work_dir}/gen/tfgen.log" 2>&1
) || { echo "tfgen failed; log follows:" >&2; cat "${work_dir}/gen/tfgen.log" >&2; exit 1; }
for f in schema.json bridge-metadata.json; do
  [[ -s "${work_dir}/gen/out/$f" ]] || { echo "error: tfgen did not produce $f" >&2; exit 1; }
  cp "${work_dir}/gen/out/$f" "cmd/pulumi-resource-random/$f"
done

echo "[3/4] go build ${BIN_NAME}"
nice -n 5 go build -p "$par" -trimpath -ldflags "$ldflags" -o "${work_dir}/bin/${BIN_NAME}" ./cmd/pulumi-resource-random

echo "[4/4] smoke test + install"
got="$(installed_version "${work_dir}/bin/${BIN_NAME}" || true)"
if [[ "$got" != "$PLUGIN_VERSION" ]]; then
  echo "error: built plugin reports version '${got}', expected ${PLUGIN_VERSION}" >&2
  exit 1
fi
tmp="${out_dir}/.${BIN_NAME}.tmp.$$"
cp "${work_dir}/bin/${BIN_NAME}" "$tmp"
chmod 0755 "$tmp"
mv -f "$tmp" "$target"
# Keep the schema next to the build for reference; it is also embedded.
cp "${work_dir}/gen/out/schema.json" "${work_dir}/schema.json"
rm -rf "${work_dir}/bin"

echo "installed ${BIN_NAME} ${PLUGIN_VERSION} -> ${target} ($(du -h "$target" | cut -f1), $((SECONDS - start))s)"
