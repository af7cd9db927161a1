"""Run every benchmarks/bench_*.py module in turn (or those named: ``python -m benchmarks coins sgd``),
then print one table of every figure: project, baseline, paired ratio, goal, met."""
import importlib
import pkgutil
import sys
import traceback

import benchmarks
from benchmarks import paired


def main(argv):
    names = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    if argv:
        unknown = [a for a in argv if f"bench_{a}" not in names]
        if unknown:
            raise SystemExit(f"no benchmark {unknown}: expected some of {[n[6:] for n in names]}")
        names = [f"bench_{a}" for a in argv]
    failed = []
    for name in names:
        print(f"\n=== {name} ===", flush=True)
        try:
            importlib.import_module(f"benchmarks.{name}").main()
        except Exception:  # one broken benchmark does not hide the others' figures
            traceback.print_exc()
            failed.append(name)
    paired.print_table()
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
        raise SystemExit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
