# A tiny test runner for MicroPython scripts: `micropython mp_x.py [name ...]`
# runs the named test_ functions (all when none named), prints PASS/FAIL
# lines, and exits 1 if any failed. tests/firmware/test_micropython.py drives it.
import sys


def run(g):
    if "--import" in sys.argv:
        return  # imported by a debugging or benchmark script: run nothing
    names = sys.argv[1:] or sorted(k for k in g if k.startswith("test_"))
    failed = 0
    for name in names:
        try:
            g[name]()
            print("PASS", name)
        except Exception as e:  # noqa: BLE001
            failed += 1
            print("FAIL", name)
            sys.print_exception(e)
    if failed:
        sys.exit(1)


def eq(a, b, what=""):
    if a != b:
        raise AssertionError("%s: %r != %r" % (what, a, b))
