// Default paths are the topogate package's, whatever the cwd, so that `npm start` works anywhere.

import { fileURLToPath } from 'node:url';

export const packageRoot = fileURLToPath(new URL('../../../../', import.meta.url));
