"""Regenerates expected.json for test/python/decimal.test.ts: each line of exprs.txt evaluated in CPython
(a fresh default decimal context for each), as `repr(value)` or `ExceptionClass: message`.
Run: python3 test/python/decimal/regen.py   (CPython 3.11)"""
import json
import math
import os
import subprocess
import sys
from decimal import (Context, MAX_PREC, MAX_EMAX, MIN_EMIN, MIN_ETINY, Decimal, InvalidOperation, DivisionByZero, ROUND_05UP, ROUND_CEILING, ROUND_DOWN,
                     ROUND_FLOOR, ROUND_HALF_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, ROUND_UP, getcontext, localcontext,
                     setcontext)
from fractions import Fraction

from ops import SIGNALS, run, run_flagged

HERE = os.path.dirname(os.path.abspath(__file__))


def evaluate(expr):
    setcontext(Context())
    try:
        return repr(eval(expr))
    except Exception as e:  # noqa: BLE001 - the class and message are the observation
        return "%s: %s" % (type(e).__name__, e)


ROUNDINGS = [ROUND_DOWN, ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_CEILING, ROUND_FLOOR, ROUND_UP, ROUND_HALF_DOWN, ROUND_05UP]
SPECS = [".2f", ",.2f", ".3e", ".4g", "%", ".1%", "", ">12.3f", "015,.2f", "+.1f", "g", ".0f", "e"]


def random_number(rng, max_digits=30):
    digits = str(rng.randrange(10 ** rng.randint(1, max_digits)))
    exp = rng.randint(-20, 20)
    sign = rng.choice(["", "-"])
    return "%s%sE%d" % (sign, digits, exp) if rng.random() < 0.5 else str(Decimal("%s%sE%d" % (sign, digits, exp)))


def random_case(rng):
    op = rng.choice(["+", "-", "*", "/", "//", "%", "**", "sqrt", "quantize", "round", "fmt", "cmp", "normalize", "+", "*", "/", "hash", "float", "int", "cmpf", "neg", "integral", "exp", "ln", "log10", "powr"])
    a = random_number(rng)
    if op == "**":
        a = random_number(rng, 8)
        b = str(rng.randint(-25, 60))
    elif op == "round":
        b = str(rng.randint(-3, 6))
    elif op == "quantize":
        b = "1E%d" % rng.randint(-12, 4)
    elif op == "fmt":
        b = rng.choice(SPECS)
    elif op in ("sqrt", "normalize", "hash", "float", "int", "neg", "integral", "ln", "log10"):
        b = "0"
    elif op == "exp":
        a = "%s%dE%d" % (rng.choice(["", "-"]), rng.randrange(10 ** rng.randint(1, 12)), rng.randint(-14, 0))
        b = "0"
    elif op == "powr":
        a = "%dE%d" % (rng.randrange(1, 10 ** rng.randint(1, 10)), rng.randint(-8, 4))
        b = "%s%dE%d" % (rng.choice(["", "-"]), rng.randrange(1, 10 ** rng.randint(1, 6)), rng.randint(-6, -1))
    elif op in ("+", "-") and rng.random() < 0.3:
        # Operands far apart and close cancellations.
        b = str(-Decimal(a) + Decimal(random_number(rng, 3)).scaleb(rng.randint(-40, 0)))
    else:
        b = random_number(rng)
    prec = rng.randint(1, 40) if rng.random() < 0.9 else rng.randint(41, 120)
    rounding = rng.choice(ROUNDINGS)
    # Mostly the default exponent limits; some small ones (overflow, underflow, subnormals, clamping).
    emax = 999999 if rng.random() < 0.8 else rng.randint(prec, prec + 30)
    clamp = 1 if emax != 999999 and rng.random() < 0.5 else 0
    return [a, op, b, prec, rounding, emax, clamp, run(a, op, b, prec, rounding, emax, clamp)]


SPECIAL = ["NaN", "-NaN", "sNaN", "NaN12", "Infinity", "-Infinity", "0", "-0", "0E-30", "1E+30"]
FLAG_OPS = ["+", "-", "*", "/", "//", "%", "**", "sqrt", "quantize", "round", "cmp", "normalize", "neg", "integral", "exp",
            "ln", "log10", "powr", "divmod", "exact", "next_plus", "next_minus", "scaleb", "fma", "max", "min", "compare",
            "create", "fromfloat", "feq", "flt", "text", "cmpf", "float", "int"]


def flag_case(rng):
    """One operation in a random context with random traps: [a, op, b, prec, rounding, Emax, clamp, traps, CPython's [result, flags]]."""
    a, op, b, prec, rounding, emax, clamp, _ = random_case(rng)
    op = rng.choice(FLAG_OPS)
    if rng.random() < 0.15: a = rng.choice(SPECIAL)
    if op in ("scaleb",): b = str(rng.randint(-40, 40))
    elif op == "create": b = random_number(rng, 40)
    elif op in ("fromfloat", "feq", "flt"): b = rng.choice([repr(rng.uniform(-100, 100)), "nan", "inf", "0.5", "1e300", "5e-324"])
    elif op == "text": b = rng.choice(["1.5", "abc", "1e999999999999999999999", "NaN" + "1" * rng.randint(1, 40), "-sNaN", " 1_000 ", "1,5"])
    elif op == "**": b = str(rng.randint(-30, 60)); a = random_number(rng, 6) if rng.random() < 0.8 else a
    elif op in ("exp",): a = "%s%dE%d" % (rng.choice(["", "-"]), rng.randrange(10 ** rng.randint(1, 8)), rng.randint(-10, 2)) if rng.random() < 0.9 else a
    elif op in ("quantize", "round", "fmt", "powr") or op in ("sqrt", "normalize", "neg", "integral", "ln", "log10", "exact", "next_plus", "next_minus", "int", "float"): pass
    else: b = random_number(rng) if rng.random() < 0.85 else rng.choice(SPECIAL)
    if op in ("quantize",) and rng.random() < 0.2: b = rng.choice(SPECIAL)
    # Small exponent limits often: overflow, underflow, subnormals, clamping.
    if rng.random() < 0.4:
        emax = rng.randint(1, 40)
        clamp = rng.randint(0, 1)
        prec = min(prec, rng.randint(1, 12))
    traps = [s for s in SIGNALS if rng.random() < 0.3]
    return [a, op, b, prec, rounding, emax, clamp, traps, run_flagged(a, op, b, prec, rounding, emax, clamp, traps)]


SIGNAL_IMPORTS = ("from decimal import Clamped, ConversionSyntax, DecimalException, DivisionByZero, FloatOperation, Inexact, "
                  "InvalidOperation, Overflow, Rounded, Subnormal, Underflow, DefaultContext, BasicContext, ExtendedContext\nimport math")


def signal_programs():
    """The programs of signals.txt (a function body each)."""
    with open(os.path.join(HERE, "signals.txt")) as f:
        text = "".join(line for line in f if not line.startswith("#"))
    return [p.strip("\n") for p in text.split("\n---\n")]


def run_program(body):
    """repr(program()) or 'Class: message', in a fresh interpreter (a program may change decimal's templates)."""
    code = (SIGNAL_IMPORTS + "\nfrom decimal import *\ndef program():\n" + "\n".join("    " + l for l in body.split("\n"))
            + "\ntry:\n    r = repr(program())\nexcept Exception as e:\n    r = '%s: %s' % (type(e).__name__, e)\nprint(r, end='')")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def special_case(rng):
    """A flag_case leaning on specials, tiny numbers and tiny exponent limits (subnormals, clamping, NaN payloads)."""
    a, op, b, prec, rounding, emax, clamp, traps, _ = flag_case(rng)
    edges = SPECIAL + ["1E-%d" % rng.randint(1, 60), "9.99E+%d" % rng.randint(1, 60)]
    if rng.random() < 0.5: a = rng.choice(edges)
    if op not in ("scaleb", "create", "fromfloat", "feq", "flt", "text", "**", "round", "fmt") and rng.random() < 0.5:
        b = rng.choice(edges + ["-1", "1", "0.5"])
    if rng.random() < 0.5: emax, prec = rng.randint(1, 12), rng.randint(1, 8)
    return [a, op, b, prec, rounding, emax, clamp, traps, run_flagged(a, op, b, prec, rounding, emax, clamp, traps)]


def tiny_case(rng):
    """exp, ln, log10, sqrt and powers whose results fall near or below Emin (subnormal, Underflow, no double rounding)."""
    op = rng.choice(["exp", "ln", "log10", "powr", "sqrt"])
    b = "0"
    if op == "exp": a = "-%d.%d" % (rng.randint(0, 160), rng.randint(0, 9999))
    elif op in ("ln", "log10"): a = "1.%s%d" % ("0" * rng.randint(0, 70), rng.randint(1, 999))
    elif op == "sqrt": a = "%dE-%d" % (rng.randint(1, 9999), rng.randint(1, 130))
    else: a, b = "0.%d" % rng.randint(1, 999), "%d.%d" % (rng.randint(1, 120), rng.randint(1, 99))
    prec, rounding, emax, clamp = rng.randint(1, 12), rng.choice(ROUNDINGS), rng.randint(1, 60), rng.randint(0, 1)
    traps = [s for s in SIGNALS if rng.random() < 0.2]
    return [a, op, b, prec, rounding, emax, clamp, traps, run_flagged(a, op, b, prec, rounding, emax, clamp, traps)]


# Cases larger random runs found while the flags were written (kept: the seeded runs above may miss them).
REGRESSIONS = [
    ["1E-4", "neg", "sNaN", 8, "ROUND_FLOOR", 1, 1, ["Overflow"]],
    ["0", "exp", "2.871792540280038493", 10, "ROUND_HALF_DOWN", 7, 1, ["FloatOperation", "Clamped"]],
    ["9E-9", "-", "-0", 12, "ROUND_FLOOR", 1, 1, ["InvalidOperation", "Underflow", "Clamped"]],
    ["NaN12", "max", "NaN12", 1, "ROUND_05UP", 7, 0, ["InvalidOperation", "FloatOperation", "DivisionByZero", "Inexact"]],
    ["-35176861701968364047397998590.0", "round", "0", 46, "ROUND_UP", 999999, 0, ["Underflow", "Subnormal"]],
    ["-7.9814141E+12", "powr", "0", 12, "ROUND_HALF_DOWN", 8, 1, ["Overflow", "Underflow", "Subnormal", "Rounded", "Clamped"]],
    ["-811570E-1", "quantize", "-0", 17, "ROUND_DOWN", 999999, 0, ["Overflow", "Underflow"]],
    ["-8612E-2", "exp", "3205E-3", 2, "ROUND_CEILING", 37, 1, ["DivisionByZero", "Rounded"]],
]


def write(name, cases, compact=False):
    """One of the files the test reads: CPython's version and the cases."""
    with open(os.path.join(HERE, name), "w") as f:
        out = {"python": sys.version.split()[0], "cases": cases}
        json.dump(out, f, separators=(",", ":")) if compact else json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")


def main():
    import random
    with open(os.path.join(HERE, "exprs.txt")) as f:
        exprs = [line.rstrip("\n") for line in f if line.strip()]
    write("expected.json", [[e, evaluate(e)] for e in exprs])
    rng = random.Random(20261127)
    write("random.json", [random_case(rng) for _ in range(6000)], compact=True)
    write("signals.json", [[p, run_program(p)] for p in signal_programs()])
    rng = random.Random(20261128)
    flagged = [flag_case(rng) for _ in range(4000)]
    rng = random.Random(20261129)
    regressions = [c + [run_flagged(*c)] for c in REGRESSIONS]
    flagged += [special_case(rng) for _ in range(3000)]
    rng = random.Random(20261130)
    write("flags.json", flagged + [tiny_case(rng) for _ in range(600)] + regressions, compact=True)


if __name__ == "__main__":
    main()
