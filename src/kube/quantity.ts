// Kubernetes resource quantities ("100m", "1Gi", "2", "1e3") as milli-units,
// rounded up as the API server rounds a quantity to its milli value, so that
// sums and comparisons are exact for every realistic amount. The arithmetic
// is done on integers (BigInt) because "0.1" × 1000 is not 100 in floats.

const BINARY_POWER: Record<string, bigint> = { Ki: 10n, Mi: 20n, Gi: 30n, Ti: 40n, Pi: 50n, Ei: 60n };
const DECIMAL_POWER: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$/;

/**
 * Resource amounts in milli-units (cpu "1" = 1000, memory "1Ki" = 1024000),
 * so that every quantity compares exactly as an integer-valued number.
 */
export type ResourceList = Readonly<Record<string, number>>;

/** A whole number with at most one suffix: most quantities a cluster holds ("500m", "110", "32861396Ki"). */
const WHOLE = /^(\d{1,15})(Ki|Mi|Gi|Ti|[mkMGT])?$/;
/** Milli-units per unit of each suffix WHOLE allows (none: 1000). */
const MILLI_PER: Readonly<Record<string, number>> = {
  '': 1_000,
  m: 1,
  k: 1e6,
  M: 1e9,
  G: 1e12,
  T: 1e15,
  Ki: 1_024_000,
  Mi: 1_048_576_000,
  Gi: 1_073_741_824_000,
  Ti: 1_099_511_627_776_000,
};

/** Milli-units of a quantity, or undefined when it is not a valid quantity. */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? parseQuantity(String(value)) : undefined;
  if (typeof value !== 'string' || value.length > 64) return undefined;
  // Two integers whose exact product is a safe integer multiply exactly in floats: no BigInt needed.
  const plain = WHOLE.exec(value);
  if (plain) {
    const milli = Number(plain[1]) * MILLI_PER[plain[2] ?? '']!;
    if (milli <= Number.MAX_SAFE_INTEGER) return milli;
  }
  const match = QUANTITY.exec(value.trim());
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix, exponent] = match;
  if (whole === '' && fraction === '') return undefined;
  let numerator = BigInt(whole + fraction || '0');
  const power10 =
    3 - fraction.length + (exponent !== undefined ? Number(exponent) : (DECIMAL_POWER[suffix ?? ''] ?? 0));
  if (suffix !== undefined && suffix in BINARY_POWER) numerator <<= BINARY_POWER[suffix]!;
  if (Math.abs(power10) > 40) return undefined;
  let milli: bigint;
  if (power10 >= 0) milli = numerator * 10n ** BigInt(power10);
  else {
    const divisor = 10n ** BigInt(-power10);
    milli = (numerator + divisor - 1n) / divisor;
  }
  const result = Number(milli);
  return sign === '-' ? -result : result;
}

/** Milli-units back to a quantity string the API server accepts. */
export function formatQuantity(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** Quantities parsed before, by their text; emptied when full. */
const remembered = new Map<string, number>();
const REMEMBERED_LIMIT = 4_096;

/**
 * parseQuantity for what repeats a few quantities over and over: the Nodes of a cluster their allocatable amounts
 * (parsing each again was a third of reading a Node), its Pods their requests ("500m", "1Gi"). The map is emptied
 * when full, so a stream of one-off quantities costs the others only a parse each, once. A Pod's facts are read
 * through it (podFacts.ts), once per Pod: a least-recently-used map per snapshot cost decisions more in its
 * bookkeeping than the parses it saved.
 */
export function parseRepeatedQuantity(value: unknown): number | undefined {
  if (typeof value !== 'string' || value.length > 64) return parseQuantity(value);
  let milli = remembered.get(value);
  if (milli === undefined) {
    milli = parseQuantity(value) ?? Number.NaN;
    if (remembered.size >= REMEMBERED_LIMIT) remembered.clear();
    remembered.set(value, milli);
  }
  return Number.isNaN(milli) ? undefined : milli;
}
