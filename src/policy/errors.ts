// Every problem found in policy input, located in its source so editors and
// CI can jump to it: `file:line:col: message`.

export interface PolicyError {
  readonly file: string;
  /** 1-based; 0 when the input has no text (an object from the API server, a file that cannot be read). */
  readonly line: number;
  readonly col: number;
  readonly message: string;
}

export function formatPolicyError(error: PolicyError): string {
  return `${formatLocation(error)}: ${error.message}`;
}

/** `file:line:col`, or `file` alone when there is no line. */
export function formatLocation(at: { readonly file: string; readonly line: number; readonly col: number }): string {
  return at.line > 0 ? `${at.file}:${at.line}:${at.col}` : at.file;
}

/** The first error, and how many more: for one-line reasons (readiness, logs). */
export function summarizePolicyErrors(errors: readonly PolicyError[]): string {
  const [first] = errors;
  if (first === undefined) return 'no errors';
  const more = errors.length - 1;
  return more === 0 ? formatPolicyError(first) : `${formatPolicyError(first)} (and ${more} more)`;
}
