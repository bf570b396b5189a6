# Readlater: one container serving the API, OAuth, MCP and the web app on one port.
#
#   docker build -t readlater .
#   docker run -d -p 3000:3000 -v readlater-data:/data -e BASE_URL=https://readlater.example.com readlater
#   docker exec -it <container> bun server.ts user create --email you@example.com --password '…'
#
# Set BASE_URL (and APP_URL if the web app lives elsewhere) to the public URL: OAuth issuer, token
# audiences and Link headers are built from it. DATABASE_URL=libsql://… (+ DATABASE_AUTH_TOKEN) points the
# container at Turso / a libSQL server instead of the embedded file in /data.
#
# Debian-based Bun image, not Alpine: the native modules (@libsql/linux-*-gnu, @node-rs/argon2-linux-*-gnu)
# need glibc. Keep the tag equal to the `bun` version in package.json devDependencies.
ARG BUN_VERSION=1.4.4

# Production dependencies only. Bun reads the committed package-lock.json (migrating it in memory), so the
# versions are the locked ones; --frozen-lockfile fails the build instead of resolving anything new. The
# stage runs on the target platform, so the right native binaries (x64 or arm64) are picked.
FROM oven/bun:${BUN_VERSION}-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN bun install --production --frozen-lockfile

FROM oven/bun:${BUN_VERSION}-slim
WORKDIR /app

# A dedicated unprivileged user; the application files stay root-owned (read-only to it), only /data is its.
RUN groupadd --system --gid 10001 readlater \
 && useradd --system --uid 10001 --gid readlater --home-dir /app --shell /usr/sbin/nologin readlater \
 && mkdir -p /data \
 && chown readlater:readlater /data

COPY --from=deps /app/node_modules ./node_modules
# Sources run as TypeScript directly (see .dockerignore for what stays out: tests, bench, data, .git).
COPY . .

# NODE_ENV=production keeps the framework from echoing rejected input into validation messages.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=file:/data/readlater.db

# A named volume starts with /data's ownership above; a bind-mounted host directory must be writable by
# uid 10001. The database is created and migrated at start.
VOLUME /data
EXPOSE 3000
USER readlater

# Healthy = /health answers 200 {"ok":true} (it runs SELECT 1 against the database).
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["bun", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health', { signal: AbortSignal.timeout(4000) }).then(async (r) => process.exit(r.ok && (await r.json()).ok === true ? 0 : 1)).catch(() => process.exit(1))"]

# Exec form: bun is PID 1 and gets SIGTERM from `docker stop`; server.ts then closes the server and the database.
CMD ["bun", "server.ts"]
