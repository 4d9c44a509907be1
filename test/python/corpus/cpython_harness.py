"""Runs code-block bodies in CPython the way the Block Runtime Contract does, for the differential corpus.

Reads JSON from stdin: [{"name", "body", "params", "initial", "input"}, ...]. Each body is wrapped as
`def _block(<params>): <body>` and executed with exactly the contract's builtins (plus the exception
classes a block can raise and catch), called as `_block(initial=..., **input)`. Writes JSON to stdout:
{name: {"json": json.dumps(result, sort_keys=True)} | {"error": "<exception class>"}}.
"""
import ast
import builtins
import decimal
import json
import sys

ALLOWED = "abs bool dict enumerate float int isinstance len list max min range reversed round set sorted str sum tuple zip".split()
EXCEPTIONS = [
    "BaseException", "Exception", "ArithmeticError", "ZeroDivisionError", "OverflowError", "LookupError",
    "KeyError", "IndexError", "ValueError", "UnicodeError", "TypeError", "NameError", "UnboundLocalError",
    "AttributeError", "RuntimeError", "RecursionError", "NotImplementedError", "AssertionError",
    "StopIteration", "MemoryError",
]
SAFE = {name: getattr(builtins, name) for name in ALLOWED + EXCEPTIONS}
# The extended profile's builtins (print is captured and compared as the run's log).
EXTENDED = "any all map filter repr ascii divmod pow hash iter next chr ord hex bin oct type format getattr hasattr setattr slice frozenset GeneratorExit".split()
# The extended profile's exception classes beyond the contract's (runtime/values.ts EXTENDED_EXCEPTION_TREE).
EXTENDED += ("OSError ConnectionError BrokenPipeError ConnectionAbortedError ConnectionRefusedError ConnectionResetError "
             "FileExistsError FileNotFoundError InterruptedError IsADirectoryError NotADirectoryError PermissionError "
             "ProcessLookupError TimeoutError BlockingIOError ChildProcessError EOFError FloatingPointError BufferError Warning UserWarning DeprecationWarning "
             "RuntimeWarning IOError EnvironmentError").split()
SAFE_EXTENDED = dict(SAFE, **{name: getattr(builtins, name) for name in EXTENDED})
# Classes and the modules the extended profile imports.
SAFE_EXTENDED.update(super=super, object=object, NotImplemented=NotImplemented, property=property, staticmethod=staticmethod, classmethod=classmethod)
MODULES = {"math", "json", "collections", "itertools", "string", "dataclasses", "typing", "re", "functools", "datetime", "heapq", "random", "operator", "bisect", "statistics", "fractions", "decimal", "copy"}
# Imported here first: a module first imported from a block would get the block's restricted builtins
# (and fail on its own imports, e.g. datetime's `import time`).
for _m in sorted(MODULES):
    __import__(_m)


def restricted_import(name, globals=None, locals=None, fromlist=(), level=0):
    # The modules' own lazy imports (datetime's strftime imports time from C) see the block's builtins
    # too; no corpus body imports these itself (the frontend refuses them).
    if name in ("time", "_strptime") and not level:
        return __import__(name, globals, locals, fromlist, level)
    if name not in MODULES or level:
        raise ImportError("No module named %r" % name)
    return __import__(name, globals, locals, fromlist, level)


def run(case):
    params = case["params"]
    extended = case.get("profile") == "extended"
    printed = []

    def capture(*args, sep=" ", end="\n", flush=False):
        printed.append((" " if sep is None else sep).join(str(a) for a in args) + ("\n" if end is None else end))

    if extended:
        safe = dict(SAFE_EXTENDED, print=capture, __build_class__=builtins.__build_class__, __import__=restricted_import)
    else:
        safe = dict(SAFE, __build_class__=None)
    env = {"__builtins__": safe, "__name__": "__main__"}
    # Each block starts from the default decimal context, as each run on the VM does.
    decimal.setcontext(decimal.Context())
    out = run_in(case, params, env)
    if extended and printed:
        out["log"] = "".join(printed)
    return out


def run_in(case, params, env):
    try:
        # The body becomes the function's body statement by statement (string literals are not re-indented).
        wrapper = ast.parse("def _block(%s):\n    pass\n" % ", ".join(params))
        body = ast.parse(case["body"]).body
        wrapper.body[0].body = body or wrapper.body[0].body
        exec(compile(wrapper, "<block>", "exec"), env)
        result = env["_block"](initial=case["initial"], **case["input"])
        if not isinstance(result, dict):
            raise TypeError("a code block must return a dict, not %s" % type(result).__name__)
        return {"json": json.dumps(result, sort_keys=True)}
    except RecursionError:
        return {"error": "RecursionError"}
    except BaseException as e:  # noqa: BLE001 - the class is the observation
        out = {"error": type(e).__name__}
        if case.get("messages"):
            # As a traceback's last line prints it (`KeyError: 'b'`).
            out["message"] = "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__
        return out


def main():
    sys.setrecursionlimit(1000)
    cases = json.load(sys.stdin)
    out = {case["name"]: run(case) for case in cases}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
