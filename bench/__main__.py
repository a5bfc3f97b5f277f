"""`python -m bench` (`make bench`): run every benchmark and print its table."""

from __future__ import annotations

import importlib

#: Benchmark modules; each has ``run() -> str`` returning a printed table.
BENCHMARKS = [
    "bench.pdf_bench",
    "bench.previews",
    "bench.ocr",
    "bench.requests",
    "bench.corpus",
    "bench.budget",
    "bench.outside_model",
    "bench.tables",
    "bench.throughput",
    "bench.fairness",
    "bench.interactive",
    "bench.sleep",
    "bench.hosts",
]


def main() -> None:
    for name in BENCHMARKS:
        module = importlib.import_module(name)
        print(module.run(), flush=True)
        print()


if __name__ == "__main__":
    main()
