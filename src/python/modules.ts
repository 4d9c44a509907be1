/**
 * The modules a program of the extended profile may import, and what each offers: a function
 * (called as `py$modcall('math.sqrt', args, kw)`, a value through `py$builtin`), a constant, a
 * class-like constructor, or a name that only annotations use (typing). Anything else is refused.
 */
export type ModuleMember = 'fn' | 'const' | 'decorator' | 'annotation' | 'prelude'

const fns = (names: string): Record<string, ModuleMember> => Object.fromEntries(names.split(' ').map((n) => [n, 'fn' as const]))
const consts = (names: string): Record<string, ModuleMember> => Object.fromEntries(names.split(' ').map((n) => [n, 'const' as const]))

/** The rewrite to suggest for a member a module here leaves out on purpose (else the hint lists the module's members). */
export const MISSING_MEMBER_FIX: Readonly<Record<string, string>> = {
  'statistics.geometric_mean': 'CPython computes it with the platform\'s exp and log, whose last digit cannot be reproduced exactly here; write it out: `math.exp(statistics.fmean([math.log(x) for x in data]))` (math.exp and math.log may differ from CPython\'s in the last digit).',
  'statistics.NormalDist': 'Use `statistics.fmean(data)` and `statistics.stdev(data)` for its mu and sigma.',
}

export const MODULES: Readonly<Record<string, Readonly<Record<string, ModuleMember>>>> = {
  math: {
    ...fns('sqrt floor ceil trunc fabs exp log log2 log10 pow sin cos tan asin acos atan atan2 hypot dist degrees radians isclose isfinite isinf isnan gcd lcm factorial comb perm prod fsum copysign fmod isqrt'),
    ...consts('pi e tau inf nan'),
  },
  json: { ...fns('loads dumps'), JSONDecodeError: 'const' },
  re: { ...fns('compile match search fullmatch findall finditer sub subn split escape'), ...consts('IGNORECASE I MULTILINE M DOTALL S ASCII A error') },
  collections: fns('Counter defaultdict OrderedDict deque namedtuple'),
  itertools: { ...fns('chain chain.from_iterable product permutations combinations combinations_with_replacement islice zip_longest repeat pairwise count cycle'), groupby: 'prelude', takewhile: 'prelude', dropwhile: 'prelude', filterfalse: 'prelude', starmap: 'prelude', accumulate: 'prelude' },
  string: consts('ascii_lowercase ascii_uppercase ascii_letters digits hexdigits octdigits punctuation whitespace printable'),
  datetime: { ...fns('date datetime timedelta timezone date.today date.fromisoformat date.fromordinal datetime.now datetime.utcnow datetime.fromisoformat datetime.fromtimestamp datetime.strptime datetime.combine time time.fromisoformat'), 'timezone.utc': 'const', ...consts('date.min date.max date.resolution datetime.min datetime.max datetime.resolution time.min time.max time.resolution timedelta.min timedelta.max timedelta.resolution') },
  random: fns('seed random uniform getrandbits randrange randint choice shuffle choices'),
  heapq: Object.fromEntries('heappush heappop heapify heapreplace heappushpop nlargest nsmallest'.split(' ').map((n) => [n, 'prelude' as const])),
  functools: { reduce: 'prelude', partial: 'fn', lru_cache: 'decorator', cache: 'decorator', cmp_to_key: 'prelude' },
  copy: fns('copy deepcopy'),
  dataclasses: { dataclass: 'decorator', field: 'decorator', ...fns('asdict astuple') },
  bisect: fns('bisect_left bisect_right bisect insort_left insort_right insort'),
  operator: fns('add sub mul truediv floordiv mod pow concat eq ne lt le gt ge contains getitem neg pos not_ truth itemgetter attrgetter'),
  statistics: { ...fns('mean fmean harmonic_mean median median_low median_high median_grouped mode multimode quantiles variance pvariance stdev pstdev covariance correlation linear_regression'), StatisticsError: 'const' },
  fractions: fns('Fraction Fraction.from_float'),
  decimal: {
    ...fns('Decimal Decimal.from_float getcontext setcontext localcontext Context'),
    ...consts('ROUND_DOWN ROUND_HALF_UP ROUND_HALF_EVEN ROUND_CEILING ROUND_FLOOR ROUND_UP ROUND_HALF_DOWN ROUND_05UP MAX_PREC MAX_EMAX MIN_EMIN MIN_ETINY DefaultContext BasicContext ExtendedContext'),
    ...consts('DecimalException Clamped InvalidOperation ConversionSyntax DivisionImpossible DivisionUndefined InvalidContext DivisionByZero Inexact Rounded Subnormal Overflow Underflow FloatOperation'),
  },
  typing: Object.fromEntries('Any List Dict Set Tuple Optional Union Callable Iterable Iterator Generator Sequence Mapping TypedDict Literal Type DefaultDict Deque FrozenSet NoReturn'.split(' ').map((n) => [n, 'annotation' as const])),
}
