// Builds the image from the repository's Dockerfile with podman, on the local bases unless told
// otherwise, and reports its size and how long the build took.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureLocalBases, repoRoot } from './base.ts';
import { podmanOk } from './podman.ts';

export interface ImageOptions {
  readonly base?: string | undefined;
  readonly buildBase?: string | undefined;
  readonly tag?: string | undefined;
  readonly rebuildBase?: boolean | undefined;
  readonly progress: NodeJS.WritableStream;
}

export interface BuiltImage {
  readonly tag: string;
  /** The image's size as podman reports it (all layers, uncompressed). */
  readonly bytes: number;
  readonly ms: number;
}

export function defaultTag(): string {
  const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  return `localhost/topogate:${version}`;
}

export async function buildImage(options: ImageOptions): Promise<BuiltImage> {
  const started = Date.now();
  const tag = options.tag ?? defaultTag();
  const local =
    options.base === undefined
      ? await ensureLocalBases({ progress: options.progress, rebuild: options.rebuildBase })
      : undefined;
  const base = options.base ?? local!.base;
  const buildBase = options.buildBase ?? local?.buildBase ?? base;
  await podmanOk(
    [
      'build',
      // npm ci reaches the npm registry the way this machine does.
      '--network',
      'host',
      '--build-arg',
      `BASE=${base}`,
      '--build-arg',
      `BUILD_BASE=${buildBase}`,
      '--tag',
      tag,
      '--file',
      join(repoRoot, 'Dockerfile'),
      repoRoot,
    ],
    { progress: options.progress },
  );
  const bytes = Number((await podmanOk(['image', 'inspect', '--format', '{{.Size}}', tag])).trim());
  return { tag, bytes, ms: Date.now() - started };
}
