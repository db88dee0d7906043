# The demo app. Build context: the repository root.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY libs/a2a/package.json libs/a2a/tsconfig.lib.json libs/a2a/
RUN npm ci --no-audit --no-fund
COPY libs/a2a/src libs/a2a/src
COPY src src
RUN npm run build
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
CMD ["node", "dist/main.js"]
