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
  return error.line > 0 ? `${error.file}:${error.line}:${error.col}: ${error.message}` : `${error.file}: ${error.message}`;
}

/** The first error, and how many more: for one-line reasons (readiness, logs). */
export function summarizePolicyErrors(errors: readonly PolicyError[]): string {
  const [first] = errors;
  if (first === undefined) return 'no errors';
  const more = errors.length - 1;
  return more === 0 ? formatPolicyError(first) : `${formatPolicyError(first)} (and ${more} more)`;
}
