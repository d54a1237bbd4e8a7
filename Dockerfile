# An image for any Sluice service (docs/deploy.md, section 1). Services run as TypeScript
# sources: Node 24 strips the types of files outside node_modules, so services/<name>/main.ts
# and the lib/ sources it imports run as they do in the repository, and the chart's default
# command `node services/<service>/main.ts` works for every service.
#   docker build --network host -t sluice-local/sluice:dev .                    (docker/build-image.sh)
#   docker build --build-arg BASE_IMAGE=node:24-slim --build-arg SERVICE=fraud -t fraud .
# BASE_IMAGE: an image with Node 24 and npm. The default is built from this machine's files by
# docker/node-base.sh, for machines without a registry; elsewhere node:24-slim does the same.
ARG BASE_IMAGE=sluice-local/node:24.22.3

# 1. The compiled package (dist/): type-checks lib/ and gives `import "sluice"` and the CLI.
FROM ${BASE_IMAGE} AS build
WORKDIR /app
# An npm mirror or proxy of the build machine, passed on by docker/build-image.sh when set.
ARG NPM_CONFIG_REGISTRY
COPY package.json package-lock.json ./
# Only tsc runs in this stage, so no package's install script is needed.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY lib lib
RUN npm run build

# 2. Production dependencies only. better-sqlite3 ships N-API prebuilds for glibc (2.34 or
# later) and musl, valid for any Node 24, and loads them when nothing was compiled; without
# --ignore-scripts npm would run node-gyp on its binding.gyp, which needs Python and a C++
# compiler that neither base image has. No production dependency needs an install script.
FROM ${BASE_IMAGE} AS deps
WORKDIR /app
ARG NPM_CONFIG_REGISTRY
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# 3. What runs: Node 24, the production node_modules, dist/, lib/ and services/.
FROM ${BASE_IMAGE}
# The service `docker run <image>` starts; the chart and `docker run <image> services/x/main.ts`
# name theirs explicitly.
ARG SERVICE=orders
WORKDIR /app
COPY package.json ./
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY lib lib
COPY services services
# State stores live on the volume mounted here (the chart's stateDir). Owned by uid 1000 for
# `docker run`; in Kubernetes the pod's fsGroup makes the volume writable.
ENV STATE_DIR=/var/lib/sluice
# Node grows its young generation to 64 MB per semi-space under a streaming allocation rate;
# capped at 16 MB the peak RSS is 70-100 MB lower at the same or less CPU (docs/deploy.md).
ENV NODE_OPTIONS=--max-semi-space-size=16
RUN test -f "services/${SERVICE}/main.ts" || { echo "SERVICE=${SERVICE}: no services/${SERVICE}/main.ts" >&2; exit 1; } \
 && ln -s "services/${SERVICE}/main.ts" main.ts \
 && mkdir -p /var/lib/sluice && chown 1000:1000 /var/lib/sluice
# uid/gid 1000, as the chart's securityContext (runAsUser, runAsGroup, fsGroup).
USER 1000:1000
ENTRYPOINT ["node"]
# Node resolves the link to services/<SERVICE>/main.ts, so its relative imports work.
CMD ["main.ts"]
