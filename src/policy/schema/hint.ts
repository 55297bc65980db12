// "Did you mean" hints for misspelt field names and enum values.

/** ` (did you mean "x"?)` when one candidate is a likely typo of `word`, else empty. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.floor(word.length / 3) + 1);
  for (const candidate of candidates) {
    const distance = candidate.toLowerCase() === lower ? 0 : editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best === undefined ? '' : ` (did you mean "${best}"?)`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
