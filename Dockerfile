# The demo app. Build context: the repository root.
# Two stages: the build stage compiles the library and the demo with every dependency; the image
# that runs has the production dependencies only, runs as the unprivileged `node` user, and checks
# its own health by fetching the Agent Card.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY libs/a2a/package.json libs/a2a/tsconfig.lib.json libs/a2a/
RUN npm ci --no-audit --no-fund
COPY libs/a2a/src libs/a2a/src
COPY src src
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/a2a/package.json libs/a2a/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/libs/a2a/dist libs/a2a/dist
COPY --from=build /app/dist dist
USER node
EXPOSE 3000
# the card is public and answers only once the app is ready (the demo gets /health later)
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
