# syntax=docker/dockerfile:1
# topogate's image: the TypeScript sources run directly by Node's type stripping (no build step),
# with production dependencies only, as a non-root user, on a read-only root filesystem.
# Build: `npm run image` (podman; docs/install.md), or docker build -t topogate .

# Keep in step with the `node` dependency in package.json (a unit test checks it).
ARG NODE_VERSION=26.10.0
# The runtime base: any image with Node at /usr/local/bin/node. `npm run image` passes a local one
# made from Debian's libraries and the pinned Node (image/base.ts) where no registry can be reached.
ARG BASE=docker.io/library/node:${NODE_VERSION}-trixie-slim
# The base plus npm, for installing the dependencies.
ARG BUILD_BASE=${BASE}

FROM ${BUILD_BASE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# Exactly the locked production dependencies: not the optional pinned Node (the base has one),
# and no install scripts run.
RUN --mount=type=cache,target=/root/.npm ["npm", "ci", "--omit=dev", "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund"]
# Type declarations and source maps are 44 of node_modules' 97 MB and unused at run time (no shell in
# the local base, so Node does it).
RUN ["node", "-e", "const fs = require('node:fs'); for (const f of fs.globSync('node_modules/**/*.{d.ts,d.mts,d.cts,map}')) fs.rmSync(f)"]

FROM ${BASE}
WORKDIR /app
ENV NODE_ENV=production
# Two malloc arenas instead of eight per core: a flood of TLS connections then leaves far less free memory spread
# over arenas, and serve gives it back with malloc_trim (docs/reliability.md, "Memory after a flood").
ENV MALLOC_ARENA_MAX=2
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY manifests ./manifests
# What `serve` with no flags reads outside a cluster (the demo, as `npm start` serves it).
COPY policies ./policies
COPY examples ./examples
# Numeric, so the kubelet can verify runAsNonRoot; the files stay root-owned and read-only to it.
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["node", "bin/topogate.ts"]
# Inside a cluster (KUBERNETES_SERVICE_HOST set) serve watches it; elsewhere it serves the demo.
CMD ["serve"]
