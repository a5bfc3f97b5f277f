#!/usr/bin/env bash
# vLLM launch profile: TranslateGemma 27B on a 32 GB card (RTX 5090). THE DEFAULT.
# The same command as DEFAULT_VLLM_COMMAND in common/settings.py (a test keeps them equal).
#
# Usage (--print, --settings, --help) and the flags every profile shares: _launch.sh.
#
# Budget (read the real figure from vLLM's startup line "GPU KV cache size: N tokens"):
#   32 GB x 0.90 = 28.8 GB = ~16.5 GB 4-bit weights + ~2 GB activations and CUDA graphs
#   + ~10 GB KV cache. In FP8 a 1K-token sequence needs ~0.25 GB of KV (Gemma 3 keeps only
#   1024 tokens for its sliding-window layers), so ~40 typical sequences fit at once.
set -euo pipefail
# shellcheck source=deploy/vllm/_launch.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/_launch.sh"

PROFILE="TranslateGemma 27B, 32 GB card"
# The same as --max-num-seqs (_launch.sh says why).
ZT_CONCURRENCY_MAX=32
# 4-bit weights: ~17 GB instead of ~54 GB in BF16 or ~28 GB in FP8, the only form of the 27B
# that leaves room for a KV cache on 32 GB. NVFP4A16 (FP4 weights, 16-bit activations) is
# published and FP4 is native on Blackwell (RTX 5090); a W4A16 (GPTQ int4) made with
# llm-compressor works the same (deploy/README.md). vLLM reads the quantization from the
# checkpoint's config: no --quantization flag needed.
: "${MODEL:=$HOME/models/translategemma-27b-it-nvfp4a16}"
WEIGHTS="huggingface.co/henry1477/translategemma-27b-it-NVFP4A16 (17.3 GB, text only; or \
ShinePixelOrg/translategemma-27b-it-NVFP4), saved as $MODEL; or make a W4A16 with \
llm-compressor (deploy/README.md)"

# The flags that depend on the card; _launch.sh adds the shared ones around them.
CARD_ARGS=(
  # Context per request. The model config says 128K; without this flag vLLM reserves KV for
  # 128K and refuses to start. The model was trained on 2K-token inputs; 4096 leaves room for
  # a long paragraph plus its translation.
  --max-model-len 4096
  # Sequences batched together. vLLM admits a request only while its KV fits and preempts
  # (slows down, never fails) beyond that; 32 keeps CUDA-graph capture short.
  --max-num-seqs 32
  # Tokens processed per engine step (chunked prefill): one full-length prompt per step.
  --max-num-batched-tokens 4096
  # Share of the card's TOTAL memory vLLM takes (weights + activations + KV + CUDA graphs).
  # 0.90 leaves ~3 GB for the CUDA context and the Windows desktop. vLLM refuses to start when
  # less than this is free, so a start while ComfyUI holds memory fails at once, not later.
  --gpu-memory-utilization 0.90
  # FP8 KV cache: half the bytes per token, so twice the concurrent sequences in the same
  # memory; negligible effect on translation quality. Native on Ada and Blackwell.
  --kv-cache-dtype fp8
)

zt_launch "$@"
