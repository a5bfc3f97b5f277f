#!/usr/bin/env bash
# Install the zotero-translate systemd USER units for the current user. Idempotent: run it again
# after `git pull` or after moving the checkout; unchanged files are left alone and the
# settings file is never overwritten.
#
#   deploy/systemd/install.sh                    # units into ~/.config/systemd/user
#   deploy/systemd/install.sh --with-jupyter     # also jupyterlab.service
#   deploy/systemd/install.sh --gpu-host --with-jupyter   # a second GPU host: no server
#   deploy/systemd/install.sh --dry-run          # say what would change, touch nothing
#
# What it does: copies the unit files with the paths of this checkout and its virtual
# environment filled in, creates ~/.config/zotero-translate/env (and jupyter.env) with fresh
# random tokens if missing, runs `systemctl --user daemon-reload`, and prints the next steps.
# It never enables or starts anything. With --gpu-host it installs only the GPU status API (and
# JupyterLab, through which the server on another machine starts this machine's vLLM), with
# the settings of env.gpu-host.example.
set -euo pipefail

REPO="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
SRC="$REPO/deploy/systemd"
CONFIG_HOME="${XDG_CONFIG_HOME:-$HOME/.config}"

venv="$REPO/.venv"
unit_dir="$CONFIG_HOME/systemd/user"
config_dir="$CONFIG_HOME/zotero-translate"
with_jupyter=0
gpu_host=0
jupyter=""
dry_run=0
reload=1

usage() {
  cat <<EOF
usage: $0 [options]
  --venv DIR         virtual environment with zotero-translate installed (default: $REPO/.venv)
  --with-jupyter     also install jupyterlab.service (JupyterLab for the vLLM manager)
  --gpu-host         a GPU host without the translation server: only the GPU status API
                     (and JupyterLab with --with-jupyter); the server runs on another machine
  --jupyter PATH     the jupyter executable (default: the one on PATH, else ~/.local/bin/jupyter)
  --unit-dir DIR     where the units go (default: $CONFIG_HOME/systemd/user)
  --config-dir DIR   where env and jupyter.env go (default: $CONFIG_HOME/zotero-translate)
  --no-reload        do not run \`systemctl --user daemon-reload\`
  --dry-run          print what would change; write nothing, reload nothing
EOF
}

die() {
  printf 'install.sh: %s\n' "$*" >&2
  exit 1
}

absolute() {
  # An absolute path for $1 (which may not exist yet): units must not contain relative paths.
  case $1 in
    /*) printf '%s' "$1" ;;
    *) printf '%s/%s' "$PWD" "$1" ;;
  esac
}

while (($#)); do
  case $1 in
    --venv) venv="$(absolute "${2:?--venv needs a directory}")"; shift 2 ;;
    --with-jupyter) with_jupyter=1; shift ;;
    --gpu-host) gpu_host=1; shift ;;
    --jupyter) jupyter="$(absolute "${2:?--jupyter needs a path}")"; with_jupyter=1; shift 2 ;;
    --unit-dir) unit_dir="$(absolute "${2:?--unit-dir needs a directory}")"; shift 2 ;;
    --config-dir) config_dir="$(absolute "${2:?--config-dir needs a directory}")"; shift 2 ;;
    --no-reload) reload=0; shift ;;
    --dry-run) dry_run=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done

venv="${venv%/}"
[[ -x $venv/bin/zotero-translate ]] ||
  die "no $venv/bin/zotero-translate: create the environment first (\`make venv\`) or pass --venv"
if ((with_jupyter)); then
  if [[ -z $jupyter ]]; then
    jupyter="$(command -v jupyter || true)"
    [[ -n $jupyter ]] || jupyter="$HOME/.local/bin/jupyter"
  fi
  [[ -x $jupyter ]] ||
    die "no jupyter at $jupyter: install JupyterLab (e.g. \`pipx install jupyterlab\`) or pass --jupyter"
fi

new_token() {
  od -An -tx1 -N24 /dev/urandom | tr -d ' \n'
}

render_unit() {
  # The unit file $1 with this machine's paths. The committed units use the default layout
  # (checkout in ~/zotero-translate, JupyterLab in ~/.local/bin) so they stay valid as they are.
  local text
  text="$(<"$SRC/$1")"$'\n'
  text="${text//"%h/zotero-translate/.venv"/"$venv"}"
  text="${text//"%h/zotero-translate"/"$REPO"}"
  text="${text//"%h/.config/zotero-translate"/"$config_dir"}"
  if [[ -n $jupyter ]]; then
    text="${text//"ExecStart=%h/.local/bin/jupyter "/"ExecStart=$jupyter "}"
    text="${text//"Environment=PATH=%h/.local/bin:"/"Environment=PATH=$(dirname "$jupyter"):"}"
  fi
  printf '%s' "$text"
}

render_env() {
  # The settings template $1 with fresh tokens; JupyterLab lines commented out without it.
  local text jupyter_token=$2
  text="$(<"$SRC/$1")"$'\n'
  text="${text//"@GPU_API_TOKEN@"/"$(new_token)"}"
  text="${text//"@JUPYTER_TOKEN@"/"$jupyter_token"}"
  text="${text//"@REPO@"/"$REPO"}"
  if ((!with_jupyter)); then
    text="${text//$'\n'"ZT_JUPYTER_URL="/$'\n'"#ZT_JUPYTER_URL="}"
    text="${text//$'\n'"ZT_JUPYTER_TOKEN="/$'\n'"#ZT_JUPYTER_TOKEN="}"
  fi
  printf '%s' "$text"
}

install_file() {
  # install_file TARGET CONTENT MODE: write only when the content differs.
  local target=$1 content=$2 mode=$3 state
  if [[ -f $target ]] && [[ "$(<"$target")"$'\n' == "$content" ]]; then
    printf '  unchanged  %s\n' "$target"
    return 0
  fi
  state=installed
  [[ -e $target ]] && state=updated
  if ((dry_run)); then
    printf '  would be %s  %s\n' "$state" "$target"
    return 0
  fi
  if [[ $mode == 600 ]]; then
    (umask 077 && mkdir -p "$(dirname "$target")")
  else
    mkdir -p "$(dirname "$target")"
  fi
  (umask 077 && printf '%s' "$content" >"$target.tmp.$$")
  chmod "$mode" "$target.tmp.$$"
  mv -f "$target.tmp.$$" "$target"
  printf '  %-9s  %s\n' "$state" "$target"
}

install_settings() {
  # Settings hold tokens and the user's edits: create once, never overwrite.
  local target=$1 content=$2
  if [[ -e $target ]]; then
    printf '  kept       %s (never overwritten)\n' "$target"
  else
    install_file "$target" "$content" 600
  fi
}

if ((gpu_host)); then
  units=(zotero-translate-gpu-api.service)
  env_template=env.gpu-host.example
else
  units=(zotero-translate-serve.service zotero-translate-gpu-api.service)
  env_template=env.example
fi
((with_jupyter)) && units+=(jupyterlab.service)

((dry_run)) && printf 'dry run: nothing is written\n'
printf 'units (%s):\n' "$unit_dir"
for unit in "${units[@]}"; do
  install_file "$unit_dir/$unit" "$(render_unit "$unit")"$'\n' 644
done

printf 'settings (%s):\n' "$config_dir"
jupyter_token="$(new_token)"
if ((with_jupyter && !gpu_host)) && [[ -e $config_dir/env ]] && [[ ! -e $config_dir/jupyter.env ]]; then
  # Adding JupyterLab to an existing install: reuse the server's token so both sides agree.
  existing="$(sed -n 's/^ZT_JUPYTER_TOKEN=//p' "$config_dir/env" | tail -n 1)"
  if [[ -n $existing ]]; then
    jupyter_token=$existing
  else
    printf '  note: set ZT_JUPYTER_TOKEN in %s to the JUPYTER_TOKEN of jupyter.env\n' \
      "$config_dir/env"
  fi
fi
install_settings "$config_dir/env" "$(render_env "$env_template" "$jupyter_token")"$'\n'
if ((with_jupyter)); then
  install_settings "$config_dir/jupyter.env" "$(render_env jupyter.env.example "$jupyter_token")"$'\n'
fi

if ((dry_run || !reload)); then
  printf 'systemd: not reloaded (%s)\n' "$( ((dry_run)) && echo dry run || echo --no-reload)"
elif ! command -v systemctl >/dev/null 2>&1; then
  die "systemctl not found: this system does not run systemd"
elif ! systemctl --user daemon-reload; then
  die "\`systemctl --user daemon-reload\` failed: no systemd user manager. Under WSL, enable
systemd in /etc/wsl.conf ([boot] systemd=true), run \`wsl --shutdown\` in Windows, reopen the
distro, and run this script again."
else
  printf 'systemd: user manager reloaded\n'
fi

if ((gpu_host)); then
  tokens="gpu_api_token = ZT_GPU_API_TOKEN of $config_dir/env"
  ((with_jupyter)) && tokens+=$'\n'"     jupyter_token = JUPYTER_TOKEN of $config_dir/jupyter.env"
  cat <<EOF

Next steps (a GPU host; the translation server runs on another machine):
  1. Review the settings: \$EDITOR $config_dir/env
  2. Let the server reach vLLM: VLLM_HOST=0.0.0.0 and VLLM_API_KEY (the server's
     ZT_LLM_API_KEY) in $config_dir/vllm.env, then look:
       $REPO/deploy/vllm/<profile>.sh --print
  3. Start the services now and at every boot:
       systemctl --user enable --now ${units[*]}
  4. Keep them running without an open login session: loginctl enable-linger ${USER:-$(id -un)}
  5. Check: curl -s http://127.0.0.1:8001/healthz
  6. This host's [[hosts]] table in the server's config (deploy/two-host/zotero-translate.toml):
     $tokens
     vllm_command = $REPO/deploy/vllm/<profile>.sh
EOF
else
  cat <<EOF

Next steps:
  1. Review the settings (hosts, ZT_VLLM_COMMAND for your card): \$EDITOR $config_dir/env
  2. Start the services now and at every boot:
       systemctl --user enable --now ${units[*]}
  3. Keep them running without an open login session: loginctl enable-linger ${USER:-$(id -un)}
  4. Check: curl -s http://127.0.0.1:8890/health ; journalctl --user -u zotero-translate-serve -f
EOF
fi
