#!/usr/bin/env bash
# vLLM launch profile: TranslateGemma 12B on a 16 GB card (RTX 4060 Ti 16 GB, RTX 4070 Ti
# Super, RTX 5070 Ti), or a second, smaller card beside a 27B host.
#
# Usage (--print, --settings, --help) and the flags every profile shares: _launch.sh.
#
# Budget (read the real figure from vLLM's startup line "GPU KV cache size: N tokens"):
#   16 GB x 0.90 = 14.4 GB = ~8 GB 4-bit weights (12B parameters at 4 bits plus the
#   unquantized embeddings) + ~1.5 GB activations and CUDA graphs + ~5 GB KV cache.
set -euo pipefail
# shellcheck source=deploy/vllm/_launch.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/_launch.sh"

PROFILE="TranslateGemma 12B, 16 GB card"
# The same as --max-num-seqs (_launch.sh says why).
ZT_CONCURRENCY_MAX=16
# 4-bit weights (W4A16, GPTQ) of Infomaniak's vLLM-adapted TranslateGemma 12B, published by
# upshift. Infomaniak's template reads the language codes from delimiters in a plain string.
: "${MODEL:=$HOME/models/infomaniak-translategemma-12b-it-W4A16}"
WEIGHTS="huggingface.co/upshift/infomaniak-translategemma-12b-it-W4A16 (GPTQ), saved as $MODEL"
SERVED_MODEL_NAME=google/translategemma-12b-it
: "${PROMPT_FORMAT:=delimited}"
: "${CONTENT_FORMAT:=string}"

# The flags that depend on the card; _launch.sh adds the shared ones around them.
CARD_ARGS=(
  # Context per request: the model's trained 2K input length plus the answer. Without this
  # flag vLLM reserves KV for the config's 128K and refuses to start.
  --max-model-len 4096
  # Sequences batched together; beyond what fits in the KV pool vLLM preempts (slows down,
  # never fails).
  --max-num-seqs 16
  # Tokens per engine step (chunked prefill): smaller steps, smaller activation peaks.
  --max-num-batched-tokens 4096
  # Share of the card's TOTAL memory vLLM takes; 0.90 leaves ~1.6 GB for the CUDA context and
  # the desktop. vLLM refuses to start when less than this is free.
  --gpu-memory-utilization 0.90
  # FP8 KV cache: half the bytes per token, twice the sequences. Native on Ada and Blackwell.
  --kv-cache-dtype fp8
)

zt_launch "$@"
