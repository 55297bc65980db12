// Kubernetes resource quantities ("100m", "1Gi", "2", "1e3") as milli-units,
// rounded up as the API server rounds a quantity to its milli value, so that
// sums and comparisons are exact for every realistic amount.

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$/;

/** Milli-units of a quantity, or undefined when it is not a valid quantity. */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.ceil(value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  const match = QUANTITY.exec(value.trim());
  if (!match) return undefined;
  const [, digits, suffix, exponent] = match;
  const base = Number(digits);
  const scale = exponent !== undefined ? 10 ** Number(exponent) : suffix === undefined ? 1 : (BINARY[suffix] ?? DECIMAL[suffix]!);
  const milli = base * scale * 1000;
  return Number.isFinite(milli) ? Math.ceil(milli - 1e-9 * Math.abs(milli)) : undefined;
}

/** Milli-units back to a quantity string the API server accepts. */
export function formatQuantity(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}
