#!/usr/bin/env python3
"""A stand-in for pytest where it is not installed (the GPU machine has NumPy, PyTorch and CuPy but
may lack pytest, and reaches no package index): runs these tests with the part of pytest they use
(fixtures incl. yield fixtures and `request`, tmp_path, parametrize with ids, skipif, raises with
match, skip, approx, importorskip, module `pytestmark`).

    python3 python/tests/minipytest.py [-m "not dask"] python/tests/test_*.py
"""
import contextlib
import importlib.util
import inspect
import itertools
import math
import os
import re
import sys
import tempfile
import traceback
import types


class Skipped(Exception):
    pass


class _Mark:
    def __init__(self, name, args=(), kwargs=None):
        self.name, self.args, self.kwargs = name, args, kwargs or {}

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs and self.name not in ("skipif", "parametrize"):
            fn = args[0]
            fn.__dict__.setdefault("marks", []).append(self)
            return fn
        mark = _Mark(self.name, args, kwargs)

        def apply(fn):
            fn.__dict__.setdefault("marks", []).append(mark)
            return fn
        return apply


class _MarkFactory:
    def __getattr__(self, name):
        return _Mark(name)


def fixture(fn=None, **_):
    if fn is None:
        return lambda f: fixture(f)
    fn.is_fixture = True
    return fn


def skip(reason=""):
    raise Skipped(reason)


def importorskip(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        raise Skipped(f"{name} is not installed") from None


@contextlib.contextmanager
def raises(kind, match=None):
    try:
        yield
    except kind as e:
        if match and not re.search(match, str(e)):
            raise AssertionError(f"{kind.__name__} raised, but {str(e)!r} does not match {match!r}") from e
        return
    raise AssertionError(f"{kind.__name__} was not raised")


def approx(expected, rel=1e-6, abs=1e-12):
    class Approx:
        def __eq__(self, actual):
            return math.isclose(actual, expected, rel_tol=rel, abs_tol=abs)

        def __repr__(self):
            return f"approx({expected})"
    return Approx()


def install():
    module = types.ModuleType("pytest")
    module.fixture, module.skip, module.importorskip, module.raises, module.approx = fixture, skip, importorskip, raises, approx
    module.mark = _MarkFactory()
    sys.modules["pytest"] = module


def _selected(marks, expression):
    if not expression:
        return True
    names = {m.name for m in marks}
    negate = expression.startswith("not ")
    name = expression[4:].strip() if negate else expression.strip()
    return (name not in names) if negate else (name in names)


def _cases(fn):
    params = [m for m in getattr(fn, "marks", []) if m.name == "parametrize"]
    axes = []
    for m in reversed(params):  # the decorator nearest the function first, as pytest orders ids
        names = [n.strip() for n in (m.args[0].split(",") if isinstance(m.args[0], str) else m.args[0])]
        ids = m.kwargs.get("ids")
        values = list(m.args[1])
        axis = []
        for v in values:
            label = ids(v) if callable(ids) else str(v)
            axis.append((dict(zip(names, v if len(names) > 1 else (v,))), label))
        axes.append(axis)
    for combo in itertools.product(*axes) if axes else [()]:
        args, labels = {}, []
        for a, label in combo:
            args.update(a)
            labels.append(label)
        yield args, "-".join(labels)


class _Request:
    def __init__(self, name):
        self.node = types.SimpleNamespace(name=name)


def _fixture(name, fixtures, cache, teardowns, test_name, tmp):
    if name in cache:
        return cache[name]
    if name == "request":
        return _Request(test_name)
    if name == "tmp_path":
        import pathlib
        path = pathlib.Path(tempfile.mkdtemp(dir=tmp))
        cache[name] = path
        return path
    fn = fixtures.get(name)
    if fn is None:
        raise LookupError(f"fixture {name!r} not found")
    args = {p: _fixture(p, fixtures, cache, teardowns, test_name, tmp) for p in inspect.signature(fn).parameters}
    value = fn(**args)
    if inspect.isgenerator(value):
        gen = value
        value = next(gen)
        teardowns.append(gen)
    cache[name] = value
    return value


def run(paths, expression):
    install()
    sys.path.insert(0, os.path.dirname(os.path.abspath(paths[0])))
    import conftest
    passed = failed = skipped = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            name = os.path.splitext(os.path.basename(path))[0]
            try:
                spec = importlib.util.spec_from_file_location(name, path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            except Skipped as e:
                print(f"{name}: skipped ({e})")
                skipped += 1
                continue
            fixtures = {k: v for src in (conftest, module) for k, v in vars(src).items() if getattr(v, "is_fixture", False)}
            module_marks = getattr(module, "pytestmark", [])
            module_marks = module_marks if isinstance(module_marks, list) else [module_marks]
            for test_name, fn in vars(module).items():
                if not test_name.startswith("test_") or not callable(fn):
                    continue
                marks = module_marks + getattr(fn, "marks", [])
                if not _selected(marks, expression):
                    continue
                for args, label in _cases(fn):
                    full = f"{name}::{test_name}" + (f"[{label}]" if label else "")
                    reasons = [m.kwargs.get("reason", "") for m in marks if m.name == "skipif" and m.args[0]]
                    if reasons:
                        skipped += 1
                        print(f"SKIP {full}: {reasons[0]}")
                        continue
                    cache, teardowns = {}, []
                    try:
                        call = dict(args)
                        for p in inspect.signature(fn).parameters:
                            if p not in call:
                                call[p] = _fixture(p, fixtures, cache, teardowns, test_name + (f"[{label}]" if label else ""), tmp)
                        fn(**call)
                        passed += 1
                        print(f"PASS {full}")
                    except Skipped as e:
                        skipped += 1
                        print(f"SKIP {full}: {e}")
                    except Exception:
                        failed += 1
                        print(f"FAIL {full}\n{traceback.format_exc()}")
                    finally:
                        for gen in teardowns:
                            with contextlib.suppress(StopIteration):
                                next(gen)
    print(f"minipytest: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    argv = sys.argv[1:]
    expression = ""
    if len(argv) >= 2 and argv[0] == "-m":
        expression, argv = argv[1], argv[2:]
    sys.exit(run(argv, expression))
