"""translation.model.metrics: vLLM's /metrics text in, load figures out (pure)."""

from __future__ import annotations

from translation.model.metrics import VLLMLoad, parse_load, parse_series

# The shape of a vLLM V1 exposition (names, labels, HELP/TYPE lines, a histogram, the newer
# by-reason series), two engines (data parallel), as prometheus_client writes it.
VLLM_V1 = """\
# HELP python_gc_objects_collected_total Objects collected during gc
# TYPE python_gc_objects_collected_total counter
python_gc_objects_collected_total{generation="0"} 12345.0
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="google/translategemma-27b-it"} 30.0
vllm:num_requests_running{engine="1",model_name="google/translategemma-27b-it"} 2.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="google/translategemma-27b-it"} 3.0
vllm:num_requests_waiting{engine="1",model_name="google/translategemma-27b-it"} 0.0
# HELP vllm:num_requests_waiting_by_reason Number of requests waiting, by reason.
# TYPE vllm:num_requests_waiting_by_reason gauge
vllm:num_requests_waiting_by_reason{engine="0",model_name="m",reason="capacity"} 3.0
vllm:num_requests_waiting_by_reason{engine="0",model_name="m",reason="deferred"} 40.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="google/translategemma-27b-it"} 0.62
vllm:kv_cache_usage_perc{engine="1",model_name="google/translategemma-27b-it"} 0.1
# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0",model_name="google/translategemma-27b-it"} 7.0
vllm:num_preemptions_total{engine="1",model_name="google/translategemma-27b-it"} 1.0
# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="google/translategemma-27b-it"} 1.5e+04
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="google/translategemma-27b-it"} 9000.0
# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="fp8",num_gpu_blocks="2560"} 1.0
# HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{engine="0",le="0.3",model_name="m"} 2.0
vllm:e2e_request_latency_seconds_count{engine="0",model_name="m"} 41.0
"""


def test_a_v1_exposition_gives_every_figure_summed_over_engines() -> None:
    assert parse_load(VLLM_V1) == VLLMLoad(
        running=32,
        waiting=3,  # the by-reason series (with 40 "deferred") is not counted
        kv_usage=0.62,  # the busiest engine
        preemptions_total=8,
        kv_capacity_tokens=2560 * 16,
        prompt_tokens_total=15000,
        generation_tokens_total=9000,
    )


def test_the_old_kv_name_and_a_percentage_are_read_as_a_fraction() -> None:
    old = (
        'vllm:num_requests_running{model_name="m"} 4\n'
        'vllm:num_requests_waiting{model_name="m"} 0\n'
        'vllm:gpu_cache_usage_perc{model_name="m"} 45.0\n'
    )
    load = parse_load(old)
    assert load is not None
    assert load.kv_usage == 0.45
    assert load.preemptions_total is None and load.kv_capacity_tokens is None


def test_the_current_kv_name_wins_over_the_old_one() -> None:
    both = 'vllm:gpu_cache_usage_perc{engine="0"} 0.9\nvllm:kv_cache_usage_perc{engine="0"} 0.3\n'
    load = parse_load(both)
    assert load is not None and load.kv_usage == 0.3


def test_absent_figures_are_none_and_text_without_vllm_series_is_not_vllm() -> None:
    only_waiting = parse_load("vllm:num_requests_waiting 2\n")
    assert only_waiting == VLLMLoad(waiting=2)
    assert parse_load("# HELP up Up.\nup 1\nprocess_cpu_seconds_total 3.2\n") is None
    assert parse_load("") is None
    assert parse_load("<html>404 Not Found</html>") is None


def test_nan_values_bad_lines_and_timestamps_are_tolerated() -> None:
    text = (
        "vllm:num_requests_running NaN\n"
        'vllm:num_requests_running{engine="0"} 5 1700000000000\n'
        'vllm:num_requests_waiting{engine="0" 3\n'  # unterminated labels: skipped
        "garbage line without a value\n"
        'vllm:kv_cache_usage_perc{engine="0"} +Inf\n'
    )
    assert parse_load(text) == VLLMLoad(running=5)


def test_label_values_may_hold_quotes_braces_and_commas() -> None:
    line = 'vllm:num_requests_running{model_name="a \\"b\\" {c}, d",engine="0"} 3.0'
    (series,) = parse_series(line)
    assert series.name == "vllm:num_requests_running"
    assert series.labels == {"model_name": 'a "b" {c}, d', "engine": "0"}
    assert series.value == 3.0
