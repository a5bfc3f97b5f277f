#!/usr/bin/env bash
# vLLM launch profile: TranslateGemma 27B on a 48 GB or larger card (RTX 6000 Ada, L40S,
# A6000; on 80-96 GB cards raise --max-num-seqs and ZT_CONCURRENCY_MAX to 128).
#
# Usage (--print, --settings, --help) and the flags every profile shares: _launch.sh.
#
# Budget (read the real figure from vLLM's startup line "GPU KV cache size: N tokens"):
#   48 GB x 0.90 = 43 GB = ~28.5 GB 8-bit weights + ~2 GB activations and CUDA graphs
#   + ~12 GB KV cache: ~48 typical sequences in FP8.
set -euo pipefail
# shellcheck source=deploy/vllm/_launch.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/_launch.sh"

PROFILE="TranslateGemma 27B, 48 GB or larger card"
# The same as --max-num-seqs (_launch.sh says why).
ZT_CONCURRENCY_MAX=48
# 8-bit weights (FP8 W8A8, ~28 GB): closer to BF16 quality than 4-bit, and on 48 GB they fit
# with room for the KV cache. Native FP8 compute on Ada/Hopper/Blackwell; vLLM falls back to
# weight-only FP8 on Ampere (A6000). For about twice the KV pool (more parallel paragraphs),
# point MODEL at the 4-bit W4A16 checkpoint instead. vLLM reads the quantization from the
# checkpoint's config: no --quantization flag needed.
: "${MODEL:=$HOME/models/translategemma-27b-it-fp8}"
WEIGHTS="make the FP8 of google/translategemma-27b-it with llm-compressor \
(QuantizationModifier FP8_DYNAMIC, deploy/README.md) and save it as $MODEL"

# The flags that depend on the card; _launch.sh adds the shared ones around them.
CARD_ARGS=(
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
)

zt_launch "$@"
