#!/usr/bin/env bash
# vLLM launch profile: TranslateGemma 27B on a 48 GB or larger card (RTX 6000 Ada, L40S,
# A6000; on 80-96 GB cards raise --max-num-seqs and ZT_CONCURRENCY_MAX to 128).
#
#   deploy/vllm/translategemma-27b-48gb.sh              start vLLM (exec; extra flags are appended)
#   deploy/vllm/translategemma-27b-48gb.sh --print      show the command line, start nothing
#   deploy/vllm/translategemma-27b-48gb.sh --settings   the matching ZT_* settings
#
# With the manager: ZT_VLLM_COMMAND=<absolute path of this file>, ZT_CONCURRENCY_MAX=48.
# Per-host overrides (VLLM_BIN, MODEL, VLLM_HOST, VLLM_PORT, VLLM_API_KEY) go in
# ~/.config/zotero-translate/vllm.env on the GPU machine.
#
# Budget (read the real figure from vLLM's startup line "GPU KV cache size: N tokens"):
#   48 GB x 0.90 = 43 GB = ~28.5 GB 8-bit weights + ~2 GB activations and CUDA graphs
#   + ~12 GB KV cache: ~48 typical sequences in FP8.
set -euo pipefail
# shellcheck source=deploy/vllm/_launch.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/_launch.sh"

PROFILE="TranslateGemma 27B, 48 GB or larger card"
SERVED_MODEL_NAME=google/translategemma-27b-it
# Client-side concurrency cap for ZT_CONCURRENCY_MODE=adaptive: the same as --max-num-seqs;
# more requests in flight than vLLM batches would only queue inside vLLM.
ZT_CONCURRENCY_MAX=48
# 8-bit weights (FP8 W8A8, ~28 GB): closer to BF16 quality than 4-bit, and on 48 GB they fit
# with room for the KV cache. Native FP8 compute on Ada/Hopper/Blackwell; vLLM falls back to
# weight-only FP8 on Ampere (A6000). For about twice the KV pool (more parallel paragraphs),
# point MODEL at the 4-bit W4A16 checkpoint instead. vLLM reads the quantization from the
# checkpoint's config: no --quantization flag needed.
: "${MODEL:=$HOME/models/translategemma-27b-it-fp8}"
WEIGHTS="make the FP8 of google/translategemma-27b-it with llm-compressor \
(QuantizationModifier FP8_DYNAMIC, deploy/README.md) and save it as $MODEL"

ARGS=(
  # The name clients ask for (ZT_LLM_MODEL), whatever the local folder is called.
  --served-model-name "$SERVED_MODEL_NAME"
  --host "$VLLM_HOST" --port "$VLLM_PORT"
  # Context per request. The model config says 128K; without this flag vLLM reserves KV for
  # 128K. The model was trained on 2K-token inputs; 4096 leaves room for a long paragraph plus
  # its translation.
  --max-model-len 4096
  # Sequences batched together; ~48 typical sequences fit in the ~12 GB FP8 KV pool. Beyond
  # what fits vLLM preempts (slows down, never fails).
  --max-num-seqs 48
  # Tokens per engine step (chunked prefill): bigger steps fill a big card better (faster
  # time to first token) at the cost of some activation memory, which there is here.
  --max-num-batched-tokens 8192
  # Share of the card's TOTAL memory vLLM takes (weights + activations + KV + CUDA graphs).
  # 0.90 leaves ~5 GB for the CUDA context and whatever else shares the card. vLLM refuses to
  # start when less than this is free, so a start while ComfyUI holds memory fails at once.
  --gpu-memory-utilization 0.90
  # FP8 KV cache: half the bytes per token, twice the concurrent sequences. Use auto (BF16)
  # instead if you would rather trade half the concurrency for exact attention.
  --kv-cache-dtype fp8
  # TranslateGemma is a Gemma 3 vision model; text only here: no image profiling, no image
  # memory budget.
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
