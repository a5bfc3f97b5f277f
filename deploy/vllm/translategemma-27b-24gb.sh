#!/usr/bin/env bash
# vLLM launch profile: TranslateGemma 27B on a 24 GB card (RTX 4090, RTX 3090).
#
# Usage (--print, --settings, --help) and the flags every profile shares: _launch.sh.
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
# The same as --max-num-seqs (_launch.sh says why).
ZT_CONCURRENCY_MAX=16
# 4-bit weights (W4A16: int4 weights, 16-bit activations): ~16 GB; nothing larger fits on
# 24 GB (BF16 ~54 GB, FP8 ~28 GB). upshift publishes W4A16 builds of Infomaniak's vLLM-adapted
# TranslateGemma, GPTQ and AWQ; vLLM reads the quantization from the checkpoint. Infomaniak's
# template reads the language codes from delimiters in a plain string, hence PROMPT_FORMAT and
# CONTENT_FORMAT below. A W4A16 you make yourself from google/translategemma-27b-it with
# llm-compressor (deploy/README.md) keeps Google's template: set PROMPT_FORMAT=translategemma
# and CONTENT_FORMAT=openai in vllm.env with it.
: "${MODEL:=$HOME/models/infomaniak-translategemma-27b-it-W4A16}"
WEIGHTS="huggingface.co/upshift/infomaniak-translategemma-27b-it-W4A16 (GPTQ; or \
upshift/infomaniak-translategemma-27b-it-W4A16-awq), saved as $MODEL"
: "${PROMPT_FORMAT:=delimited}"
: "${CONTENT_FORMAT:=string}"

# The flags that depend on the card; _launch.sh adds the shared ones around them.
CARD_ARGS=(
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
)

zt_launch "$@"
