// The flags of one concern of `serve`: their node:util parseArgs options, their
// lines in --help, and how their values become that concern's part of the
// configuration. A new concern adds a group file and one line in ../args.ts.

export type FlagValue = string | boolean | (string | boolean)[] | undefined;
export type FlagValues = Readonly<Record<string, FlagValue>>;

export interface FlagOption {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly default?: string | boolean | string[] | boolean[];
}

export interface FlagContext {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** KUBERNETES_SERVICE_HOST is set: serve runs in a Pod. */
  readonly inCluster: boolean;
}

export type FlagResult<C> = { readonly config: C } | { readonly error: string };

export interface FlagGroup<C> {
  readonly options: Readonly<Record<string, FlagOption>>;
  /** Lines of the Flags: section of --help, already indented. */
  readonly help: string;
  /** Options whose values may also follow them as separate arguments (`--topology a b c`). */
  readonly takesPositionals?: readonly string[];
  parse(values: FlagValues, context: FlagContext): FlagResult<C>;
}

export function text(values: FlagValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function texts(values: FlagValues, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
