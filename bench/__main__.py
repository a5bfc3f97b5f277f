"""`python -m bench`: run every benchmark and print its table."""

from __future__ import annotations


def main() -> None:
    print("no benchmarks yet")


if __name__ == "__main__":
    main()
