// Policy files caught mid-rewrite: their last policies stay in force, said in the log and in readiness.

import type { Logger } from 'pino';
import type { SchedulingPolicy } from '../../policy/types.ts';
import type { LoadedPolicies } from './files.ts';

export interface HeldPolicies {
  /** The policies read, and those kept from files caught mid-rewrite. */
  readonly policies: SchedulingPolicy[];
  /** The files whose last policies are kept: `emptied` and `cut`. */
  readonly held: string[];
  readonly emptied: string[];
  readonly cut: string[];
}

/** What `loaded` holds once the files it found empty or cut keep their `previous` policies. */
export function holdFilesMidRewrite(loaded: LoadedPolicies, previous: readonly SchedulingPolicy[]): HeldPolicies {
  const { policies, held } = keepFilesMidRewrite(loaded.policies, [...loaded.empty, ...loaded.cut], previous);
  const emptied = held.filter((file) => loaded.empty.includes(file));
  const cut = held.filter((file) => loaded.cut.includes(file));
  return { policies, held, emptied, cut };
}

/**
 * A file that held policies and now holds none, or holds fewer and ends at a `---`, is more likely caught mid-rewrite (an editor's or a shell's
 * truncate-then-write, a full disk) than emptied on purpose: its last policies stay, unless a policy of the same
 * name is now defined elsewhere. Deleting the file is how its policies are removed.
 */
export function keepFilesMidRewrite(
  loaded: readonly SchedulingPolicy[],
  heldFiles: readonly string[],
  previous: readonly SchedulingPolicy[],
): { policies: SchedulingPolicy[]; held: string[] } {
  const empty = new Set(heldFiles);
  const names = new Set(loaded.map((policy) => policy.name));
  const kept = previous.filter(
    (policy) => policy.source !== undefined && empty.has(policy.source.file) && !names.has(policy.name),
  );
  return { policies: [...loaded, ...kept], held: [...new Set(kept.map((policy) => policy.source!.file))] };
}

/** The warnings for files held, and for files that hold no policy and never did. */
export function warnHeldFiles(log: Logger, dir: string, empty: readonly string[], held: HeldPolicies): void {
  const { emptied, cut } = held;
  if (emptied.length > 0)
    log.warn(
      { dir, files: emptied },
      'policy files became empty: their last policies stay in force until the files are deleted or valid again',
    );
  else if (empty.length > 0) log.warn({ dir, files: empty }, 'policy files hold no policy');
  if (cut.length > 0)
    log.warn(
      { dir, files: cut },
      'policy files end at a "---" and lost policies they held: those stay in force until the files are whole again',
    );
}

/** The readiness reason for files whose last policies are held, or undefined when none are. */
export function heldFilesReason({ emptied, cut }: HeldPolicies): string | undefined {
  const parts = [
    ...(emptied.length > 0 ? [`emptied: ${emptied.join(', ')}`] : []),
    ...(cut.length > 0 ? [`cut at a "---": ${cut.join(', ')}`] : []),
  ];
  return parts.length === 0
    ? undefined
    : `policies held from files caught mid-rewrite (${parts.join('; ')}); delete a file or make it whole to end this`;
}
