"""The operations of the seeded random differential (random.json): run by regen.py in CPython and,
as the same text, inside a block on the VM by decimal.test.ts."""
import math
from decimal import (Clamped, Context, Decimal, DivisionByZero, FloatOperation, Inexact, InvalidOperation, Overflow, Rounded,
                     Subnormal, Underflow, getcontext, localcontext)


def apply(op, x, y, b):
    if op == "+": return x + y
    if op == "-": return x - y
    if op == "*": return x * y
    if op == "/": return x / y
    if op == "//": return x // y
    if op == "%": return x % y
    if op == "**": return x ** int(y)
    if op == "sqrt": return x.sqrt()
    if op == "quantize": return x.quantize(y)
    if op == "round": return round(x, int(y))
    if op == "fmt": return format(x, b)
    if op == "cmp": return [x < y, x == y, x > y]
    if op == "normalize": return x.normalize()
    if op == "hash": return hash(x)
    if op == "float": return repr(float(x))
    if op == "int": return int(x)
    if op == "cmpf": return [x < float(y), x == float(y), x > float(y)]
    if op == "neg": return [-x, +x, abs(x)]
    if op == "integral": return [x.to_integral_value(), round(x), math.floor(x), math.ceil(x)]
    if op == "exp": return x.exp()
    if op == "ln": return x.ln()
    if op == "log10": return x.log10()
    if op == "powr": return x ** y
    return "?" + op


def run(a, op, b, prec, rounding, emax, clamp):
    """str(result) of one case in its context, or the class of the exception it raises."""
    with localcontext() as ctx:
        ctx.prec = prec
        ctx.rounding = rounding
        ctx.Emax = emax
        ctx.Emin = -emax
        ctx.clamp = clamp
        x, y = Decimal(a), (Decimal(b) if op != "fmt" else None)
        try:
            return str(apply(op, x, y, b))
        except Exception as e:  # noqa: BLE001 - the class is the observation
            return type(e).__name__


SIGNALS = {"InvalidOperation": InvalidOperation, "FloatOperation": FloatOperation, "DivisionByZero": DivisionByZero,
           "Overflow": Overflow, "Underflow": Underflow, "Subnormal": Subnormal, "Inexact": Inexact, "Rounded": Rounded,
           "Clamped": Clamped}


def apply_flagged(op, x, y, b):
    if op == "divmod": return divmod(x, y)
    if op == "exact": return x.to_integral_exact()
    if op == "next_plus": return x.next_plus()
    if op == "next_minus": return x.next_minus()
    if op == "scaleb": return x.scaleb(int(b))
    if op == "fma": return x.fma(y, x)
    if op == "max": return x.max(y)
    if op == "min": return x.min(y)
    if op == "compare": return x.compare(y)
    if op == "create": return getcontext().create_decimal(b)
    if op == "fromfloat": return Decimal(float(b))
    if op == "feq": return [x == float(b), x != float(b)]
    if op == "flt": return x < float(b)
    if op == "text": return Decimal(b)
    return apply(op, x, y, b)


def run_flagged(a, op, b, prec, rounding, emax, clamp, traps):
    """[str(result) or 'Class: message', the flags set] of one case in a context with these traps."""
    ctx = Context(prec=prec, rounding=rounding, Emax=emax, Emin=-emax, clamp=clamp, flags=[],
                  traps=[SIGNALS[t] for t in traps])
    with localcontext(ctx) as c:
        try:
            x = Decimal(a)
            y = Decimal(b) if op not in ("fmt", "scaleb", "create", "fromfloat", "feq", "flt", "text") else None
            r = str(apply_flagged(op, x, y, b))
        except Exception as e:  # noqa: BLE001 - the class and message are the observation
            r = "%s: %s" % (type(e).__name__, e)
        return [r, [s for s in SIGNALS if c.flags[SIGNALS[s]]]]
