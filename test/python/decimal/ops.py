"""The operations of the seeded random differential (random.json): run by regen.py in CPython and,
as the same text, inside a block on the VM by decimal.test.ts."""
import math
from decimal import Decimal, localcontext


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
