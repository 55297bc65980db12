// `npm run image`: builds topogate's OCI image from the Dockerfile with podman. By default on local
// bases (image/base.ts), since no image registry can be reached here; `--base IMAGE` builds on another
// (the Dockerfile's default names the public Node image).

import { parseArgs } from 'node:util';
import { buildImage } from './image.ts';

const usage = `Usage: npm run image -- [--base IMAGE] [--build-base IMAGE] [--tag TAG] [--rebuild-base]

  --base IMAGE        the runtime base (default: a local one made from Debian's libraries and the pinned Node)
  --build-base IMAGE  the base for npm ci (default: --base when given, else the local one with npm)
  --tag TAG           the image's name (default: localhost/topogate:<version>)
  --rebuild-base      make the local bases again even when their inputs are unchanged
`;

try {
  const { values } = parseArgs({
    options: {
      base: { type: 'string' },
      'build-base': { type: 'string' },
      tag: { type: 'string' },
      'rebuild-base': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) process.stdout.write(usage);
  else {
    const built = await buildImage({
      base: values.base,
      buildBase: values['build-base'],
      tag: values.tag,
      rebuildBase: values['rebuild-base'],
      progress: process.stderr,
    });
    process.stdout.write(
      `${built.tag}: ${(built.bytes / 1e6).toFixed(1)} MB, built in ${(built.ms / 1000).toFixed(1)} s\n`,
    );
  }
} catch (error) {
  process.stderr.write(`npm run image: ${(error as Error).message}\n\n${usage}`);
  process.exitCode = 1;
}
