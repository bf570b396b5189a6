import { type SavedItemDto, toSavedItemDto } from '../items/saved-item-dto.ts'

/**
 * One saved item as an export carries it: exactly the API's saved item (docs/api.md#endpoints), in the
 * same order, so an export reads like a page of `GET /saved-items` and the import can read it back
 * (docs/import-export.md#export). Timestamps are RFC 3339 strings (`toTimestamp`).
 */
export type ExportItem = SavedItemDto

/** What the head of an export says about the export itself. */
export interface ExportContext {
  /** When the export was made: an RFC 3339 timestamp. */
  exportedAt: string
}

/**
 * Copies the export's fields, in the export's order, off whatever object the caller holds (the API's own
 * mapping). The JSON export writes this copy rather than the object it was given, so a caller that passes
 * a whole stored record (with `userId`, `openedAt`, …) or builds its objects in another key order still
 * writes the documented shape, field for field.
 */
export const exportRecord = (item: ExportItem): ExportItem => toSavedItemDto(item)
