#!/usr/bin/env bash
# vLLM launch profile: TranslateGemma 27B on a 24 GB card (RTX 4090, RTX 3090).
#
#   deploy/vllm/translategemma-27b-24gb.sh              start vLLM (exec; extra flags are appended)
#   deploy/vllm/translategemma-27b-24gb.sh --print      show the command line, start nothing
#   deploy/vllm/translategemma-27b-24gb.sh --settings   the matching ZT_* settings
#
# With the manager: ZT_VLLM_COMMAND=<absolute path of this file>, ZT_CONCURRENCY_MAX=16.
# Per-host overrides (VLLM_BIN, MODEL, VLLM_HOST, VLLM_PORT, VLLM_API_KEY) go in
# ~/.config/zotero-translate/vllm.env on the GPU machine.
#
# Budget (read the real figure from vLLM's startup line "GPU KV cache size: N tokens"):
#   24 GB x 0.92 = 22.1 GB = ~16.5 GB 4-bit weights + ~1.5 GB activations and CUDA graphs
#   + ~4 GB KV cache: ~16 typical sequences in FP8. Tight: nothing else may use the GPU
#   while it runs. If vLLM stops with "Free memory on device ... less than desired GPU memory
#   utilization", the desktop holds more than ~2 GB: lower --gpu-memory-utilization to 0.88
#   and --max-num-seqs to 8. If it says "No available memory for the cache blocks", append
#   --enforce-eager (no CUDA graphs: ~1 GB back, somewhat slower decoding).
set -euo pipefail
# shellcheck source=deploy/vllm/_launch.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/_launch.sh"

PROFILE="TranslateGemma 27B, 24 GB card"
SERVED_MODEL_NAME=google/translategemma-27b-it
# Client-side concurrency cap for ZT_CONCURRENCY_MODE=adaptive: the same as --max-num-seqs;
# more requests in flight than vLLM batches would only queue inside vLLM.
ZT_CONCURRENCY_MAX=16
# 4-bit weights (W4A16: GPTQ int4 weights, 16-bit activations): ~16 GB; nothing larger fits
# on 24 GB (BF16 ~54 GB, FP8 ~28 GB). No W4A16 build is published: make it with llm-compressor
# (deploy/README.md). vLLM reads the quantization from the checkpoint.
: "${MODEL:=$HOME/models/translategemma-27b-it-w4a16}"
WEIGHTS="make a W4A16 of google/translategemma-27b-it with llm-compressor \
(deploy/README.md) and save it as $MODEL"

ARGS=(
  # The name clients ask for (ZT_LLM_MODEL), whatever the local folder is called.
  --served-model-name "$SERVED_MODEL_NAME"
  --host "$VLLM_HOST" --port "$VLLM_PORT"
  # Context per request: the model's trained 2K input length. Without this flag vLLM reserves
  # KV for the config's 128K and refuses to start. Keep source chunks under ~1K tokens.
  --max-model-len 2048
  # Sequences batched together; ~16 typical sequences fit in the ~4 GB KV pool. Beyond what
  # fits vLLM preempts (slows down, never fails).
  --max-num-seqs 16
  # Tokens per engine step (chunked prefill): smaller steps, smaller activation peaks.
  --max-num-batched-tokens 2048
  # Share of the card's TOTAL memory vLLM takes (weights + activations + KV + CUDA graphs).
  # 0.92 leaves ~2 GB for the CUDA context and the desktop. vLLM refuses to start when less
  # than this is free, so a start while ComfyUI holds memory fails at once, not later.
  --gpu-memory-utilization 0.92
  # FP8 KV cache: half the bytes per token, twice the sequences; on 24 GB it is the difference
  # between ~8 and ~16. Native on Ada (RTX 4090). On Ampere (RTX 3090) it depends on the vLLM
  # attention backend: if vLLM rejects it, drop this flag and halve --max-num-seqs.
  --kv-cache-dtype fp8
  # TranslateGemma is a Gemma 3 vision model; text only here: no image profiling, no image
  # memory budget (on 24 GB this matters).
  --limit-mm-per-prompt '{"image":0}'
  # Passes the content part's source_lang_code/target_lang_code through to the chat template
  # (vLLM with PR #41599, May 2026, or later).
  --chat-template-content-format openai
  # Ignore the checkpoint's generation_config.json: its Gemma 3 defaults (top_k 64, top_p 0.95)
  # would make vLLM sample whenever a client omits temperature. Translation wants greedy.
  --generation-config vllm
  # Sleep mode (issue 11): when idle the manager moves the weights to host RAM (level 1) and
  # hands the card back with ~1 GiB left, then wakes in seconds instead of a cold start.
  # _launch.sh sets VLLM_SERVER_DEV_MODE=1, without which the /sleep routes are not mounted;
  # they are admin routes: keep vLLM on localhost or a trusted LAN (VLLM_HOST).
  --enable-sleep-mode
)

zt_launch "$@"
