// Kubernetes name and label syntax, as the API server checks it
// (k8s.io/apimachinery/pkg/util/validation), plus the glob syntax of policies.
// Each check returns what is wrong, or undefined.

const dnsLabel = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dnsSubdomain = `${dnsLabel}(\\.${dnsLabel})*`;
const labelName = '[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?';

const dnsLabelRe = new RegExp(`^${dnsLabel}$`);
const dnsSubdomainRe = new RegExp(`^${dnsSubdomain}$`);
const labelNameRe = new RegExp(`^${labelName}$`);

const labelRules = "at most 63 characters: alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric";

export function checkDnsLabel(text: string): string | undefined {
  if (text.length <= 63 && dnsLabelRe.test(text)) return undefined;
  return `${JSON.stringify(text)} is not a valid DNS-1123 label (at most 63 characters: lowercase alphanumerics or '-', starting and ending with an alphanumeric)`;
}

export function checkDnsSubdomain(text: string): string | undefined {
  if (text.length <= 253 && dnsSubdomainRe.test(text)) return undefined;
  return `${JSON.stringify(text)} is not a valid DNS-1123 name (at most 253 characters: lowercase alphanumerics, '-' or '.', starting and ending with an alphanumeric)`;
}

/** A label key (also a resource name): an optional DNS subdomain prefix and '/', then a name. */
export function checkLabelKey(text: string): string | undefined {
  const slash = text.indexOf('/');
  const prefix = slash === -1 ? undefined : text.slice(0, slash);
  const name = slash === -1 ? text : text.slice(slash + 1);
  const prefixOk = prefix === undefined || (prefix.length > 0 && prefix.length <= 253 && dnsSubdomainRe.test(prefix));
  if (prefixOk && name.length <= 63 && labelNameRe.test(name)) return undefined;
  return `${JSON.stringify(text)} is not a valid label key (an optional DNS subdomain prefix and '/', then a name of ${labelRules})`;
}

export function checkLabelValue(text: string): string | undefined {
  if (text === '' || (text.length <= 63 && labelNameRe.test(text))) return undefined;
  return `${JSON.stringify(text)} is not a valid label value (empty, or ${labelRules})`;
}

export const nonEmptyLabelValue = (text: string): string | undefined =>
  text === '' ? 'must not be empty' : checkLabelValue(text);

/** NAMESPACE/NAME of a Service. */
export function checkService(text: string): string | undefined {
  const parts = text.split('/');
  if (parts.length !== 2) return `${JSON.stringify(text)} must be NAMESPACE/NAME`;
  const problems = parts.map(checkDnsLabel).filter((problem) => problem !== undefined);
  return problems.length ? `${JSON.stringify(text)} must be NAMESPACE/NAME: ${problems.join('; ')}` : undefined;
}

const attributeName = '[A-Za-z_][A-Za-z0-9_]{0,31}';
const qualifiedNameRe = new RegExp(`^(${dnsSubdomain}/)?${attributeName}$`);

/** A DRA device attribute name: an optional DNS subdomain and '/', then a C identifier of at most 32 characters. */
export function checkQualifiedName(text: string): string | undefined {
  const slash = text.indexOf('/');
  if (qualifiedNameRe.test(text) && (slash === -1 || slash <= 253)) return undefined;
  return `${JSON.stringify(text)} is not a valid device attribute name (an optional DNS subdomain and '/', then a C identifier of at most 32 characters, such as resource.kubernetes.io/pcieRoot)`;
}

/** Globs match whole strings; `*` is any run of characters and `?` one character. */
export function checkGlob(text: string, allowed: RegExp, what: string): string | undefined {
  const bad = [...text].find((char) => char !== '*' && char !== '?' && !allowed.test(char));
  if (text.length === 0) return 'must not be empty';
  if (bad === undefined) return undefined;
  const hint = '[]{}!^\\'.includes(bad) ? ' (globs have only the wildcards * and ?)' : '';
  return `${JSON.stringify(text)} is not a valid ${what} glob: ${JSON.stringify(bad)} is not allowed${hint}`;
}

export const namespaceGlob = (text: string): string | undefined => checkGlob(text, /[a-z0-9-]/, 'namespace');
export const labelValueGlob = (text: string): string | undefined => checkGlob(text, /[A-Za-z0-9._-]/, 'label value');

/** JSON Schema approximations, for editors (the loader's checks above are exact). */
export const jsonPatterns = {
  dnsLabel: { pattern: `^${dnsLabel}$`, maxLength: 63 },
  dnsSubdomain: { pattern: `^${dnsSubdomain}$`, maxLength: 253 },
  labelKey: { pattern: `^(${dnsSubdomain}/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`, maxLength: 317 },
  labelValue: { pattern: `^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$`, maxLength: 63 },
  service: { pattern: `^${dnsLabel}/${dnsLabel}$`, maxLength: 127 },
  namespaceGlob: { pattern: '^[-a-z0-9*?]+$' },
  labelValueGlob: { pattern: '^[-A-Za-z0-9_.*?]+$' },
  qualifiedName: { pattern: `^(${dnsSubdomain}/)?${attributeName}$`, maxLength: 286 },
} as const satisfies Record<string, { pattern: string; maxLength?: number }>;

/** Turns a glob into an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  const body = [...glob]
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.\\^$+()[\]{}|]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}
