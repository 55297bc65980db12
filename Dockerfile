# syntax=docker/dockerfile:1
# topogate's image: the TypeScript sources run directly by Node's type stripping (no build step),
# with production dependencies only, as a non-root user. Build: docker build -t topogate .

# Keep in step with the `node` dependency in package.json (a unit test checks it).
ARG NODE_VERSION=26.10.0

FROM node:${NODE_VERSION}-trixie-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# Exactly the locked production dependencies; no install scripts run.
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:${NODE_VERSION}-trixie-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY manifests ./manifests
# Numeric, so the kubelet can verify runAsNonRoot; the files stay root-owned and read-only to it.
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["node", "bin/topogate.ts"]
CMD ["serve", "--topology", "kube"]
