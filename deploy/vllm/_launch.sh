# shellcheck shell=bash
# Shared by the launch profiles in this folder (sourced by them, never run on its own):
# everything the profiles have in common. Each profile is used the same way:
#
#   deploy/vllm/<profile>.sh              start vLLM (exec; extra flags are appended)
#   deploy/vllm/<profile>.sh --print      show the command line, start nothing
#   deploy/vllm/<profile>.sh --settings   the matching ZT_* settings
#
# With the manager: ZT_VLLM_COMMAND=<absolute path of the profile>, and ZT_CONCURRENCY_MAX as
# --settings prints it: the client-side concurrency cap for ZT_CONCURRENCY_MODE=adaptive, the
# same as the profile's --max-num-seqs (more requests in flight than vLLM batches would only
# queue inside vLLM). Per-host overrides (VLLM_BIN, MODEL, VLLM_HOST, VLLM_PORT,
# VLLM_API_KEY) go in ~/.config/zotero-translate/vllm.env on the GPU machine.
#
# A profile sets PROFILE, ZT_CONCURRENCY_MAX, MODEL, WEIGHTS and the CARD_ARGS array (the flags
# that depend on the card), then calls `zt_launch "$@"`, which either prints something
# (--print, --settings, --help) or execs vLLM. exec matters: the manager writes the pid of the
# process it launched, and after exec that pid IS vLLM, so stopping it by pid stops vLLM (not a
# shell that would leave vLLM running).

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

# A profile may set, before zt_launch (defaults: Google's checkpoint and its template):
#   SERVED_MODEL_NAME  the name clients ask for (ZT_LLM_MODEL), whatever the weights' folder is
#                      called; default google/translategemma-27b-it
#   PROMPT_FORMAT      ZT_PROMPT_FORMAT the checkpoint's chat template needs: translategemma
#                      (Google's template: a content part with the language codes) or
#                      delimited (Infomaniak's vLLM builds: <<<source>>>..<<<target>>>..<<<text>>>)
#   CONTENT_FORMAT     --chat-template-content-format: openai passes the content part's
#                      language codes through (Google's template); string hands the template
#                      the plain string it expects (Infomaniak's)

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
  : "${SERVED_MODEL_NAME:=google/translategemma-27b-it}"
  : "${PROMPT_FORMAT:=translategemma}"
  : "${CONTENT_FORMAT:=openai}"
  # The shared flags around the profile's CARD_ARGS, in this order so that the 32 GB profile
  # prints DEFAULT_VLLM_COMMAND of common/settings.py exactly (a test keeps them equal).
  cmd=(
    "$VLLM_BIN" serve "$MODEL"
    --served-model-name "$SERVED_MODEL_NAME"
    --host "$VLLM_HOST" --port "$VLLM_PORT"
    "${CARD_ARGS[@]}"
    # TranslateGemma is a Gemma 3 vision model; text only here: no image profiling, no image
    # memory budget.
    --limit-mm-per-prompt '{"image":0}'
    # How message content reaches the chat template: openai passes the content part's
    # source_lang_code/target_lang_code through (vLLM with PR #41599, May 2026, or later);
    # string keeps a plain string for the Infomaniak builds' template (CONTENT_FORMAT above).
    --chat-template-content-format "$CONTENT_FORMAT"
    # Ignore the checkpoint's generation_config.json: its Gemma 3 defaults (top_k 64, top_p
    # 0.95) would make vLLM sample whenever a client omits temperature. Translation wants
    # greedy.
    --generation-config vllm
    # A reader's selection (request priority 0) goes ahead of a paper's paragraphs (priority
    # 1, ZT_LLM_PAPER_PRIORITY) waiting inside vLLM; among equals first come first served.
    --scheduling-policy priority
    # Sleep mode (issue 11): when idle the manager moves the weights to host RAM (level 1) and
    # hands the card back with ~1 GiB left, then wakes in seconds instead of a cold start.
    # zt_launch sets VLLM_SERVER_DEV_MODE=1, without which the /sleep routes are not mounted;
    # they are admin routes: keep vLLM on localhost or a trusted LAN (VLLM_HOST).
    --enable-sleep-mode
  )
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
      printf 'ZT_PROMPT_FORMAT=%s\n' "$PROMPT_FORMAT"
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
