# syntax=docker/dockerfile:1
# The query service in one container: the bundled server, Node.js and the committed snapshot.
# Build and run: docs/deploy.md. test/deploy/container.slow.test.ts reproduces the runtime stage
# (the files its COPY lines bring, the user, the command and the HEALTHCHECK) without Docker.

# The Node.js major of both stages: 24, a long-term support line (20, the lowest package.json
# allows, reached its end of life in April 2026). Both images exist for 20, 22 and 24 too.
ARG NODE_MAJOR=24

# Build stage: bundle the server and the sync CLI with esbuild into dist/ (npm run build).
FROM node:${NODE_MAJOR}-bookworm AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json schema.graphql ./
COPY server ./server
COPY sync ./sync
COPY tracing ./tracing
RUN npm run build
# STATE_DIR for the booking sandbox's journal must exist and belong to the runtime user; the
# runtime image has no shell to make it.
RUN mkdir -p /staging/state

# Runtime stage: Node.js and the bundle only. No shell, no package manager, no node_modules.
FROM gcr.io/distroless/nodejs${NODE_MAJOR}-debian12:nonroot
WORKDIR /app
ENV NODE_ENV=production \
    PORT=4000 \
    DATA_DIR=/app/data \
    STATE_DIR=/app/state
COPY --from=build /build/dist ./dist
# The snapshot is baked in, read-only to the server. To serve newer ones without a new image,
# mount a volume and point DATA_DIR at it (docs/deploy.md). It is deliberately not a VOLUME:
# Docker would copy this snapshot into every new volume, and a named volume would keep serving
# that copy after the image has moved on.
COPY data ./data
COPY --from=build --chown=65532:65532 /staging/state ./state
VOLUME ["/app/state"]
# The distroless "nonroot" user, numeric so that Kubernetes can check runAsNonRoot.
USER 65532:65532
EXPOSE 4000
# Liveness from inside: Node's fetch, so no shell or curl is needed.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["/nodejs/bin/node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1 and gets SIGTERM: it stops accepting, drains and exits 0. The same image
# runs the sync CLI: `docker run … IMAGE dist/sync.mjs tours`.
ENTRYPOINT ["/nodejs/bin/node"]
CMD ["dist/server.mjs"]
