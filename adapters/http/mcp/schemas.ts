import { z } from 'zod'
import { MAX_PAGE_SIZE } from '../../../core/items/list-order.ts'
import { CAPTURE_CHANNELS, ENRICHMENT_STATUSES, ITEM_TYPES, SORTS, TAGS } from '../../../core/types.ts'

// The MCP SDK takes zod. Outputs mirror the REST DTOs of adapters/http/schemas.ts field for field (tests
// compare each tool's structuredContent with the REST answer for the same data); inputs are the REST
// request fields, with ids as arguments instead of path segments. Optional inputs are plain optional
// (no null) and the only nullable one is move_to_folder's folderId: `anyOf` in tool inputs trips up some clients.

const id = (what: string) => z.string().min(1).max(100).describe(`The ${what} id (as returned by the other tools)`)
// Nullable outputs as `anyOf [T, null]`: zod's `type: [T, "null"]` form is what the Inspector's portability
// check flags (some clients, Gemini-style schema readers among them, do not take type arrays). zod folds a
// bare string branch into that form; a no-op `minLength: 0` keeps it a branch of its own.
const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()])
const text = orNull(z.string().min(0))

export const FolderSchema = z.object({ id: z.string(), name: z.string() }).strict()

export const SavedItemSchema = z
  .object({
    id: z.string(),
    originalUrl: z.string(),
    normalizedUrl: z.string(),
    host: z.string(),
    title: text,
    description: text,
    siteName: text,
    faviconUrl: text,
    faviconLightUrl: text,
    faviconDarkUrl: text,
    imageUrl: text,
    canonicalUrl: text,
    previewSummary: text,
    type: z.enum(ITEM_TYPES),
    tags: z.array(z.enum(TAGS)),
    enrichmentStatus: z.enum(ENRICHMENT_STATUSES),
    sourceName: text,
    captureChannel: orNull(z.enum(CAPTURE_CHANNELS)),
    folder: orNull(FolderSchema),
    isRead: z.boolean(),
    lastSavedAt: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .strict()

export const Inputs = {
  save_url: {
    url: z.string().min(1).max(8192).describe('The page to save: an absolute http or https URL'),
    sourceName: z.string().max(200).optional().describe('Where the link was found, e.g. a newsletter name'),
    tags: z.array(z.enum(TAGS)).max(50).optional().describe('Tags to add; kept alongside any the item already has'),
    folderId: z.string().min(1).max(100).optional().describe('Put the item in this folder (id from list_folders)'),
    captureChannel: z.enum(CAPTURE_CHANNELS).optional().describe('The channel to record; default "api"'),
  },
  list_saved_items: {
    sort: z.enum(SORTS).optional().describe('newest (default), oldest, title, or unread (unread first)'),
    folder: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('Only items in this folder id, or "none" for items in no folder'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_PAGE_SIZE)
      .optional()
      .describe(`Page size, 1 to ${MAX_PAGE_SIZE}; default 50`),
    cursor: z.string().min(1).max(2000).optional().describe('nextCursor from the previous page, with the same sort'),
  },
  mark_read: { id: id('saved item') },
  mark_unread: { id: id('saved item') },
  open_saved_item: { id: id('saved item') },
  move_to_folder: {
    id: id('saved item'),
    folderId: orNull(z.string().min(1).max(100)).describe('The folder id, or null to take the item out of its folder'),
  },
  delete_saved_item: { id: id('saved item') },
  list_folders: {},
  create_folder: { name: z.string().max(1000).describe('The folder name: 1 to 100 characters after trimming') },
  rename_folder: {
    id: id('folder'),
    name: z.string().max(1000).describe('The new name: 1 to 100 characters after trimming'),
  },
  delete_folder: { id: id('folder') },
  whoami: {},
} as const

const deleted = z.object({ deleted: z.literal(true), id: z.string() }).strict()

export const Outputs = {
  save_url: z.object({ savedItem: SavedItemSchema, captureResult: z.enum(['created', 'updated']) }).strict(),
  list_saved_items: z
    .object({
      savedItems: z.array(SavedItemSchema),
      nextCursor: orNull(z.string().min(1)).describe('Pass as cursor for the next page; null on the last page'),
    })
    .strict(),
  mark_read: SavedItemSchema,
  mark_unread: SavedItemSchema,
  open_saved_item: SavedItemSchema,
  move_to_folder: SavedItemSchema,
  delete_saved_item: deleted,
  list_folders: z.object({ folders: z.array(FolderSchema) }).strict(),
  create_folder: FolderSchema,
  rename_folder: FolderSchema,
  delete_folder: deleted,
  whoami: z.object({ id: z.string(), email: z.string() }).strict(),
} as const
