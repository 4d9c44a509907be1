/**
 * The modules a program of the extended profile may import, and what each offers: a function
 * (called as `py$modcall('math.sqrt', args, kw)`, a value through `py$builtin`), a constant, a
 * class-like constructor, or a name that only annotations use (typing). Anything else is refused.
 */
export type ModuleMember = 'fn' | 'const' | 'decorator' | 'annotation' | 'prelude'

const fns = (names: string): Record<string, ModuleMember> => Object.fromEntries(names.split(' ').map((n) => [n, 'fn' as const]))
const consts = (names: string): Record<string, ModuleMember> => Object.fromEntries(names.split(' ').map((n) => [n, 'const' as const]))

export const MODULES: Readonly<Record<string, Readonly<Record<string, ModuleMember>>>> = {
  math: {
    ...fns('sqrt floor ceil trunc fabs exp log log2 log10 pow sin cos tan asin acos atan atan2 hypot dist degrees radians isclose isfinite isinf isnan gcd lcm factorial comb perm prod fsum copysign fmod isqrt'),
    ...consts('pi e tau inf nan'),
  },
  json: { ...fns('loads dumps'), JSONDecodeError: 'const' },
  re: { ...fns('compile match search fullmatch findall finditer sub subn split escape'), ...consts('IGNORECASE I MULTILINE M DOTALL S ASCII A') },
  collections: fns('Counter defaultdict OrderedDict deque namedtuple'),
  itertools: { ...fns('chain chain.from_iterable product permutations combinations combinations_with_replacement islice zip_longest repeat pairwise count cycle'), groupby: 'prelude', takewhile: 'prelude', dropwhile: 'prelude', filterfalse: 'prelude', starmap: 'prelude', accumulate: 'prelude' },
  string: consts('ascii_lowercase ascii_uppercase ascii_letters digits hexdigits octdigits punctuation whitespace printable'),
  datetime: { ...fns('date datetime timedelta timezone date.today date.fromisoformat date.fromordinal datetime.now datetime.utcnow datetime.fromisoformat datetime.fromtimestamp'), 'timezone.utc': 'const' },
  random: fns('seed random uniform getrandbits randrange randint choice shuffle choices'),
  heapq: Object.fromEntries('heappush heappop heapify heapreplace heappushpop nlargest nsmallest'.split(' ').map((n) => [n, 'prelude' as const])),
  functools: { reduce: 'prelude', partial: 'fn', lru_cache: 'decorator', cache: 'decorator' },
  dataclasses: { dataclass: 'decorator', field: 'decorator', ...fns('asdict astuple') },
  bisect: fns('bisect_left bisect_right bisect insort_left insort_right insort'),
  operator: fns('add sub mul truediv floordiv mod pow concat eq ne lt le gt ge contains getitem neg pos not_ truth itemgetter attrgetter'),
  typing: Object.fromEntries('Any List Dict Set Tuple Optional Union Callable Iterable Iterator Sequence Mapping TypedDict Literal'.split(' ').map((n) => [n, 'annotation' as const])),
}
