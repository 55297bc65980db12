// Group names: opaque, valid as label values and object names, and stable while a group keeps its first
// member (by name): `t<tier>-<8 hex digits>`, tier 1 the finest level.

import { fnv1a } from '../kube/fnv1a.ts';

/** Per level (0 the coarsest), per slot, its group's name. `roots[level][slot]` is its group's first slot. */
export function groupNames(roots: readonly Int32Array[], names: readonly string[]): string[][] {
  const levels = roots.length;
  return roots.map((root, level) => {
    const tier = levels - level;
    const byRoot = new Map<number, string>();
    const taken = new Set<string>();
    return Array.from(root, (first) => {
      let name = byRoot.get(first);
      if (name === undefined) {
        const base = `t${tier}-${fnv1a(`${tier}:${names[first]}`).toString(16).padStart(8, '0')}`;
        name = base;
        for (let suffix = 2; taken.has(name); suffix++) name = `${base}-${suffix}`;
        taken.add(name);
        byRoot.set(first, name);
      }
      return name;
    });
  });
}
