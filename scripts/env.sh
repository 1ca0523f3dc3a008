# shellcheck shell=bash
# Source this file to get the project's offline Pulumi environment (used by ./dev and the tests).
# It only sets variables; it builds nothing.
MODELARTS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=versions.env
. "$MODELARTS_ROOT/scripts/versions.env"
MODELARTS_ENGINE_CACHE="${MODELARTS_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/modelarts-pulumi}"
MODELARTS_ENGINE_BIN="$MODELARTS_ENGINE_CACHE/engine-v$PULUMI_VERSION/bin"
# Local state (file backend, emulator database, pids, logs); overridable, e.g. by tests.
MODELARTS_STATE="${MODELARTS_STATE:-$MODELARTS_ROOT/.state}"
export MODELARTS_ROOT MODELARTS_ENGINE_CACHE MODELARTS_ENGINE_BIN MODELARTS_STATE

# A pulumi of the pinned version already on PATH wins; otherwise the one our installer built. Ours found on PATH (a
# shell that ran `eval "$(./dev env)"`, a command ./dev started) is not asked its version: `pulumi version` costs
# 0.2 s, more than a fifth of what `./dev status` may take (issue 56).
_modelarts_pulumi=$(command -v pulumi 2>/dev/null || true)
if [ -z "$_modelarts_pulumi" ]; then
  PATH="$MODELARTS_ENGINE_BIN:$PATH"
elif ! [ "$_modelarts_pulumi" -ef "$MODELARTS_ENGINE_BIN/pulumi" ] &&
     [ "$(pulumi version 2>/dev/null)" != "v$PULUMI_VERSION" ]; then
  PATH="$MODELARTS_ENGINE_BIN:$PATH"
fi
unset _modelarts_pulumi
# Our other engine tools (the YAML language host, modelarts-sdkgen) also beside a pinned pulumi of your own.
case ":$PATH:" in *":$MODELARTS_ENGINE_BIN:"*) ;; *) PATH="$PATH:$MODELARTS_ENGINE_BIN" ;; esac
# A Pulumi home whose plugins/ holds the random plugin we built (found like a downloaded plugin).
MODELARTS_PULUMI_HOME="$MODELARTS_ENGINE_CACHE/engine-v$PULUMI_VERSION/home"
MODELARTS_RANDOM_PLUGIN_DIR="$MODELARTS_PULUMI_HOME/plugins/resource-random-v$PULUMI_RANDOM_VERSION"
export MODELARTS_PULUMI_HOME MODELARTS_RANDOM_PLUGIN_DIR
# The engine, the language host and the dynamic-provider launcher all run `python3` from the venv.
PATH="$MODELARTS_ROOT/.venv/bin:$PATH"
export PATH
export PULUMI_RUNTIME_VIRTUALENV="$MODELARTS_ROOT/.venv"

# The Pulumi home of the user's own shell (`./dev env` prints it, never the engine cache: plugin installs of a
# user's project go there, not into the cache ./dev builds).
MODELARTS_USER_PULUMI_HOME="${PULUMI_HOME:-$HOME/.pulumi}"
if [ "$MODELARTS_USER_PULUMI_HOME" = "$MODELARTS_PULUMI_HOME" ]; then MODELARTS_USER_PULUMI_HOME="$HOME/.pulumi"; fi
export MODELARTS_USER_PULUMI_HOME
# Offline by default: a file backend inside the project, no update checks, no plugin downloads.
export PULUMI_HOME="${PULUMI_HOME:-$MODELARTS_PULUMI_HOME}"
# metadata=skip: no `.attrs` sidecar beside each checkpoint. It is written in place, so a SIGKILL during that
# write left it empty and the stack unreadable (`failed to load checkpoint: EOF`); the checkpoint itself is
# renamed into place and never torn. scripts/dev_recover.py still repairs a sidecar an older set-up left.
export PULUMI_BACKEND_URL="${PULUMI_BACKEND_URL:-file://$MODELARTS_STATE/backend?metadata=skip}"
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
export PULUMI_SKIP_CONFIRMATIONS=true
# The python language host runs pip for `pulumi install` and `pulumi about`: no self version check on each.
export PIP_DISABLE_PIP_VERSION_CHECK=1
