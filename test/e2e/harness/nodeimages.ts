// The nodes' own images, made locally because no registry is reachable: the pause image every Pod sandbox
// runs and the small web server tests deploy, each one static binary in a FROM scratch image, built with
// podman and saved as docker archives in the binary cache (rebuilt when the binary changes).

import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { podmanOk } from '../../../image/podman.ts';
import { pauseImage, webImage } from './nodeconfig.ts';
import type { NodeBinaries } from './versions.ts';
import { binDir } from './versions.ts';

interface ImageRecipe {
  readonly ref: string;
  readonly binary: string;
  readonly lines: readonly string[];
}

/** The docker archives of the pause and web images, built if missing or stale. */
export async function ensureNodeImages(bins: NodeBinaries): Promise<{ pause: string; web: string }> {
  const pause = await ensureImage({ ref: pauseImage, binary: bins.pause, lines: ['ENTRYPOINT ["/pause"]'] });
  const web = await ensureImage({
    ref: webImage,
    binary: bins.web,
    lines: ['USER 65534:65534', 'EXPOSE 8080', 'ENTRYPOINT ["/web"]'],
  });
  return { pause, web };
}

async function ensureImage(recipe: ImageRecipe): Promise<string> {
  const name = recipe.ref.split('/').pop()?.replace(':', '-') ?? 'image';
  const dir = join(binDir(), 'images');
  mkdirSync(dir, { recursive: true });
  const archive = join(dir, `${name}.tar`);
  const stampFile = join(dir, `${name}.stamp`);
  const stamp = createHash('sha256').update(readFileSync(recipe.binary)).update(recipe.lines.join('\n')).digest('hex');
  if (existsSync(archive) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return archive;
  const context = mkdtempSync(join(tmpdir(), 'topogate-e2e-image-'));
  try {
    const program = recipe.binary.split('/').pop() ?? 'program';
    copyFileSync(recipe.binary, join(context, program));
    writeFileSync(
      join(context, 'Containerfile'),
      ['FROM scratch', `COPY ${program} /${program}`, ...recipe.lines].join('\n'),
    );
    await podmanOk(['build', '--quiet', '--tag', recipe.ref, '--file', join(context, 'Containerfile'), context]);
    rmSync(archive, { force: true });
    await podmanOk(['save', '--quiet', '--format', 'docker-archive', '--output', archive, recipe.ref]);
    writeFileSync(stampFile, stamp);
    return archive;
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

/** A podman image (e.g. localhost/topogate:0.1.0) saved as a docker archive in a temp file; remove it after. */
export async function saveImage(ref: string): Promise<{ archive: string; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'topogate-e2e-load-'));
  const archive = join(dir, 'image.tar');
  await podmanOk(['save', '--quiet', '--format', 'docker-archive', '--output', archive, ref]);
  return { archive, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
