"""Run every benchmarks/bench_*.py module in turn."""
import importlib
import pkgutil

import benchmarks


def main():
    for info in sorted(pkgutil.iter_modules(benchmarks.__path__), key=lambda m: m.name):
        if info.name.startswith("bench_"):
            print(f"\n=== {info.name} ===")
            importlib.import_module(f"benchmarks.{info.name}").main()


if __name__ == "__main__":
    main()
