# shellcheck shell=bash
# Shared by the launch profiles in this folder (sourced by them, never run on its own).
#
# A profile sets PROFILE, ZT_CONCURRENCY_MAX, MODEL and the ARGS array, then calls
# `zt_launch "$@"`, which either prints something (--print, --settings, --help) or execs vLLM.
# exec matters: the manager writes the pid of the process it launched, and after exec that pid
# IS vLLM, so stopping it by pid stops vLLM (not a shell that would leave vLLM running).

# Per-host overrides, loaded before the defaults below so they win: VLLM_BIN, MODEL, VLLM_HOST,
# VLLM_PORT, and VLLM_API_KEY. vLLM reads VLLM_API_KEY from its environment, so the key never
# shows up on a command line (which the GPU status API reports to anyone holding its token).
zt_env_file="${ZT_VLLM_ENV:-$HOME/.config/zotero-translate/vllm.env}"
if [[ -f $zt_env_file ]]; then
  set -a
  # shellcheck disable=SC1090
  source "$zt_env_file"
  set +a
fi

# Absolute paths: a Jupyter terminal runs a login shell that resets PATH.
: "${VLLM_BIN:=$HOME/vllm/.venv/bin/vllm}"
# 127.0.0.1 when the translation server runs on this machine. When it runs elsewhere (the
# cluster, another PC) set VLLM_HOST=0.0.0.0 so the Windows port proxy can reach vLLM, and set
# VLLM_API_KEY (and the same value as ZT_LLM_API_KEY on the server side).
: "${VLLM_HOST:=127.0.0.1}"
: "${VLLM_PORT:=8000}"

zt_quote() {
  # Shell-quote one word for display, leaving plain words bare.
  if [[ $1 =~ ^[A-Za-z0-9_./:=,+@%-]+$ ]]; then
    printf '%s' "$1"
  else
    printf "'%s'" "${1//\'/\'\\\'\'}"
  fi
}

zt_launch() {
  local self cmd word sep=""
  self="$(readlink -f "$0")"
  cmd=("$VLLM_BIN" serve "$MODEL" "${ARGS[@]}")
  case "${1:-}" in
    --print)
      shift
      # stderr: stdout is the command line alone (scripts read it).
      printf '# weights: %s\n' "${WEIGHTS:-see deploy/README.md}" >&2
      cmd+=("$@")
      for word in "${cmd[@]}"; do
        printf '%s' "$sep"
        zt_quote "$word"
        sep=" "
      done
      printf '\n'
      return 0
      ;;
    --settings)
      local client_host=$VLLM_HOST
      [[ $client_host == 0.0.0.0 ]] && client_host=127.0.0.1
      printf '# %s: the matching settings (~/.config/zotero-translate/env)\n' "$PROFILE"
      printf 'ZT_VLLM_COMMAND=%s\n' "$self"
      printf 'ZT_LLM_MODEL=%s\n' "$SERVED_MODEL_NAME"
      printf 'ZT_LLM_BASE_URL=http://%s:%s/v1\n' "$client_host" "$VLLM_PORT"
      printf 'ZT_CONCURRENCY_MAX=%s\n' "$ZT_CONCURRENCY_MAX"
      return 0
      ;;
    -h | --help)
      printf 'usage: %s [--print | --settings | EXTRA_VLLM_FLAGS...]\n' "$0"
      printf '%s. Without an option it starts vLLM (exec), appending any extra flags.\n' \
        "$PROFILE"
      printf '  --print     show the command line, start nothing\n'
      printf '  --settings  print the matching ZT_* settings\n'
      printf 'Overrides: %s (VLLM_BIN, MODEL, VLLM_HOST, VLLM_PORT, VLLM_API_KEY)\n' \
        "$zt_env_file"
      return 0
      ;;
  esac
  cmd+=("$@")
  # --enable-sleep-mode serves /sleep, /wake_up and /is_sleeping only in vLLM's dev mode.
  if [[ " ${cmd[*]} " == *" --enable-sleep-mode "* ]]; then
    export VLLM_SERVER_DEV_MODE=1
  fi
  if [[ ! -x $VLLM_BIN ]]; then
    printf '%s: vLLM not found at %s; install it there or set VLLM_BIN in %s\n' \
      "$0" "$VLLM_BIN" "$zt_env_file" >&2
    exit 127
  fi
  if [[ $MODEL == /* && ! -e $MODEL ]]; then
    printf '%s: no model at %s; put the weights there or set MODEL in %s\n' \
      "$0" "$MODEL" "$zt_env_file" >&2
    printf 'weights: %s\n' "${WEIGHTS:-see deploy/README.md}" >&2
    exit 2
  fi
  printf 'starting vLLM (%s):' "$PROFILE" >&2
  printf ' %s' "${cmd[@]}" >&2
  printf '\n' >&2
  exec "${cmd[@]}"
}
