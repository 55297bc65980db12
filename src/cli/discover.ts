// `topogate discover`: the topology the network measures, offline (docs/discover.md): node-pair round
// trips → levels of groups, how sure each is, degraded nodes, wrong zone labels; or, with --export, the
// levels as node labels, a Kueue Topology or Volcano HyperNodes.

import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { discover } from '../discover/discover.ts';
import { kueueTopology } from '../discover/export/kueue.ts';
import { labelObjects } from '../discover/export/labels.ts';
import { volcanoHyperNodes } from '../discover/export/volcano.ts';
import { DiscoverInputError, parseNodeZones, parseRttPairs } from '../discover/parse.ts';
import type { Discovery } from '../discover/types.ts';
import { documentValue, parseKubectlYaml, stringifyForKubectl } from '../kube/yaml.ts';
import { type Command, EXIT, parseFlags } from './command.ts';

/** ~5 million pairs as JSON; more is a bigger fleet than discover takes (5,000 nodes). */
export const MAX_RTT_BYTES = 256 * 1024 * 1024;
export const MAX_NODES_BYTES = 64 * 1024 * 1024;

const EXPORTS: Readonly<Record<string, (discovery: Discovery) => readonly object[]>> = {
  labels: labelObjects,
  kueue: (discovery) => [kueueTopology(discovery)],
  volcano: volcanoHyperNodes,
};

const usage = `Usage: topogate discover --rtt FILE [--nodes FILE] [--output json|yaml] [--export KIND…]

Derives the network's hierarchy from measured round trips between nodes:
the levels (level 0 the coarsest), each node's group at each level, how sure
each level is, degraded nodes (a constant added to all their round trips),
and nodes whose topology.kubernetes.io/zone label disagrees with the group
they measure into.

  --rtt FILE          JSON {"pairs": [{"a": NODE, "b": NODE, "rttMs": N}, …]},
                      one typical (median) round trip per node pair; pairs may
                      be missing (at most ${MAX_RTT_BYTES / 1024 / 1024} MiB, 5,000 nodes)
  --nodes FILE        a NodeList (YAML or JSON; kubectl get nodes -o yaml), for
                      the zone labels to compare with
  --output json|yaml  output format (default json)
  --export KIND       print the levels as objects to apply instead (repeatable,
                      one kind: List): labels (partial Nodes with the labels
                      topogate.dev/tier-1 (the finest) … tier-K, for kubectl apply
                      --server-side), kueue (a Kueue Topology), volcano (Volcano
                      HyperNodes)

Exit 0 when done, 2 on bad input or usage.
`;

export const discoverCommand: Command = {
  summary: 'derives the topology from measured node-pair round trips',
  usage,
  async run(args, io) {
    const parsed = parseFlags('discover', usage, io, {
      args: [...args],
      options: {
        rtt: { type: 'string' },
        nodes: { type: 'string' },
        output: { type: 'string', default: 'json' },
        export: { type: 'string', multiple: true },
      },
    });
    if (parsed === undefined) return EXIT.usage;
    const { rtt, nodes, output, export: exports = [] } = parsed.values;
    const bad = (message: string) => {
      io.stderr.write(`topogate discover: ${message}\n`);
      return EXIT.usage;
    };
    if (rtt === undefined) return bad(`--rtt FILE is required\n\n${usage}`);
    if (output !== 'json' && output !== 'yaml') return bad(`--output must be json or yaml, not "${output}"`);
    const unknown = exports.find((kind) => !Object.hasOwn(EXPORTS, kind));
    if (unknown !== undefined)
      return bad(`--export must be one of ${Object.keys(EXPORTS).join(', ')}, not "${unknown}"`);
    let discovery: Discovery;
    try {
      const pairs = parseRttPairs(parseJson(await readBounded(resolve(io.cwd, rtt), MAX_RTT_BYTES), rtt));
      const zones =
        nodes === undefined
          ? []
          : parseNodeZones(parseDocuments(await readBounded(resolve(io.cwd, nodes), MAX_NODES_BYTES), nodes));
      discovery = discover(pairs, zones);
    } catch (error) {
      if (error instanceof DiscoverInputError) return bad(error.message);
      throw error;
    }
    const result =
      exports.length === 0
        ? discovery
        : {
            apiVersion: 'v1',
            kind: 'List',
            items: [...new Set(exports)].flatMap((kind) => EXPORTS[kind]!(discovery)),
          };
    io.stdout.write(output === 'json' ? `${JSON.stringify(result, null, 2)}\n` : stringifyForKubectl(result));
    return EXIT.ok;
  },
};

/** The file's text, refused past `limit` bytes before reading it (or as soon as it grows past). */
export async function readBounded(path: string, limit: number): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
    const { size } = await handle.stat();
    if (size > limit) throw new DiscoverInputError(`${path}: ${size} bytes, more than the ${limit} discover reads`);
    const buffer = Buffer.alloc(Math.min(size, limit) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length)
        throw new DiscoverInputError(`${path}: more than the ${limit} bytes discover reads`);
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.toString('utf8', 0, length);
  } catch (error) {
    if (error instanceof DiscoverInputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new DiscoverInputError(`${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  } finally {
    await handle?.close();
  }
}

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DiscoverInputError(`${name}: not JSON: ${(error as Error).message}`);
  }
}

/** YAML documents; a JSON object (kubectl get nodes -o json) by JSON.parse, many times faster on a big NodeList. */
function parseDocuments(text: string, name: string): unknown[] {
  if (text.trimStart().startsWith('{')) {
    try {
      return [JSON.parse(text)];
    } catch {
      // Not JSON after all (a YAML flow mapping): read it as YAML below.
    }
  }
  const documents = parseKubectlYaml(text);
  const broken = documents.find((document) => document.errors.length > 0);
  if (broken) throw new DiscoverInputError(`${name}: not YAML or JSON: ${broken.errors[0]!.message}`);
  return documents.map((document) => documentValue(document)).filter((value) => value !== null);
}
