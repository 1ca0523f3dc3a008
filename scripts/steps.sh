# shellcheck shell=bash
# Source this file for `step`: one line per set-up step on standard error, the tools' chatter in a log.
#
#   step "engine: building pulumi CLI (step 1 of 3)" cmd args...
#
# prints `engine: building pulumi CLI (step 1 of 3)... ` to stderr, runs `cmd args...` (a command or a
# shell function, run in a subshell with `set -e`, stdin from /dev/null) with its stdout and stderr
# appended to $STEP_LOG, then finishes the line with `done in N s`. If the command fails, the line ends
# with `failed after N s (exit code C)`, the last $STEP_LOG_TAIL (60) lines of that step's output and the
# log's path follow on stderr, and step returns the command's exit code. Nothing is written to stdout.
# STEP_LOG defaults to $MODELARTS_STATE/setup.log (the project's .state/setup.log).
# A shell function given as the command runs with `set -e`, so call `step FUNCTION` as a plain
# statement: under if/while/&&/||/! bash ignores set -e inside functions, even in subshells, and a
# failing command would not stop it; step refuses that (exit code 2). Executables may be called anywhere.

step() {
  local label="$1"; shift
  local log="${STEP_LOG:-${MODELARTS_STATE:?MODELARTS_STATE or STEP_LOG must be set}/setup.log}"
  local start=$SECONDS rc first errexit= context
  case $- in *e*) errexit=1; set +e ;; esac
  context=$(set -e; false; echo ignored)  # "ignored" when called under if/while/&&/||/!
  if [ -n "$errexit" ]; then set -e; fi
  if [ "$context" = ignored ] && [ "$(type -t "$1")" = function ]; then
    printf 'step: "%s": call it as a plain statement, not under if/while/&&/||/! (set -e would not stop a failing %s)\n' "$label" "$1" >&2
    return 2
  fi
  mkdir -p "$(dirname "$log")"
  # The failing step's own output starts after the lines already in the log.
  first=$(( $( (wc -l <"$log") 2>/dev/null || echo 0) + 1 ))
  printf '==== %s %s\n' "$(date '+%F %T')" "$label" >>"$log"
  printf '%s... ' "$label" >&2
  case $- in *e*) set +e ;; esac
  ( set -e; "$@" ) </dev/null >>"$log" 2>&1
  rc=$?
  if [ -n "$errexit" ]; then set -e; fi
  if [ "$rc" -eq 0 ]; then
    printf 'done in %d s\n' $((SECONDS - start)) >&2
    return 0
  fi
  printf 'failed after %d s (exit code %d)\n' $((SECONDS - start)) "$rc" >&2
  printf -- '---- last %d lines of %s:\n' "${STEP_LOG_TAIL:-60}" "$log" >&2
  tail -n +"$first" "$log" | tail -n "${STEP_LOG_TAIL:-60}" >&2
  printf -- '---- end of log tail; full log: %s\n' "$log" >&2
  return "$rc"
}
