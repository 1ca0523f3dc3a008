#!/usr/bin/env bash
# ./dev package [--offline] [--out DIR]: what a team installs, built into DIR (default dist/):
#   modelarts_pulumi-<version>-py3-none-any.whl                     pip install it (extras: [local], [charts])
#   pulumi-resource-modelarts-v<version>-<os>-<arch>.tar.gz         pulumi plugin install resource modelarts
#                                                                    <version> --file it
# The archive holds the plugin's launcher (plugin/package/pulumi-resource-modelarts) and wheels/ with the wheel;
# --offline adds every dependency's wheel (pip download), so the plugin's first start needs no package index.
# Prints the two paths on stdout, one a line; chatter goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
out=dist offline=
while [ $# -gt 0 ]; do
  case "$1" in
    --offline) offline=1 ;;
    --out) out="$2"; shift ;;
    *) echo "usage: ./dev package [--offline] [--out DIR]" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out"; out="$(cd "$out" && pwd)"
# One build at a time in this tree: two at once (parallel test workers) would remove each other's build/.
exec 9>.venv/.package.lock
flock 9
version="$(.venv/bin/python -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
stage="$(mktemp -d)"; trap 'rm -rf "$stage"' EXIT
# The wheel: uv builds it in an isolated environment (setuptools from uv's cache).
rm -f "$out"/modelarts_pulumi-"$version"-*.whl
rm -rf build  # setuptools reuses a stale build/lib: a file removed from the tree would stay in the wheel
.venv/bin/uv build --quiet --wheel --out-dir "$stage/wheels" . >&2
rm -rf build  # setuptools' leftover in the source tree
wheel="$(ls "$stage"/wheels/modelarts_pulumi-"$version"-*.whl)"
cp "$wheel" "$out/"
if [ -n "$offline" ]; then
  .venv/bin/python -m pip download --disable-pip-version-check --quiet --only-binary=:all: \
    --dest "$stage/wheels" "$wheel" >&2
fi
cp plugin/package/pulumi-resource-modelarts "$stage/"
chmod +x "$stage/pulumi-resource-modelarts"
os="$(uname -s | tr '[:upper:]' '[:lower:]')"
case "$(uname -m)" in x86_64|amd64) arch=amd64 ;; aarch64|arm64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
archive="$out/pulumi-resource-modelarts-v$version-$os-$arch.tar.gz"
(cd "$stage" && tar -czf "$archive" pulumi-resource-modelarts wheels/*.whl)
echo "$out/$(basename "$wheel")"
echo "$archive"
