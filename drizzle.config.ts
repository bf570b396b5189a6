import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'turso',
  schema: './adapters/storage/schema.ts',
  out: './adapters/storage/migrations',
  dbCredentials: { url: 'file:./data/drizzle-kit.db' },
})
