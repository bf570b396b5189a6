import type { HighlightDto } from '../highlights/highlight.ts'
import { type SavedItemDto, toSavedItemDto } from '../items/saved-item-dto.ts'

/**
 * A highlight as an export carries it (docs/import-export.md#highlights): the API's highlight without
 * `savedItemId` (it sits in its item), `id` kept so a second import into the same account knows it.
 */
export type ExportHighlight = Omit<HighlightDto, 'savedItemId'>

/**
 * One saved item as an export carries it: exactly the API's saved item (docs/api.md#endpoints), in the
 * same order, so an export reads like a page of `GET /saved-items` and the import can read it back
 * (docs/import-export.md#export). Timestamps are RFC 3339 strings (`toTimestamp`). The JSON and Markdown
 * exports also carry its `highlights`, in text order (the other formats have no place for them).
 */
export type ExportItem = SavedItemDto & { highlights?: readonly ExportHighlight[] }

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
export const exportRecord = (item: ExportItem): ExportItem =>
  item.highlights === undefined
    ? toSavedItemDto(item)
    : { ...toSavedItemDto(item), highlights: item.highlights.map(exportHighlight) }

/** A highlight's export fields, in the export's order, off whatever object holds them. */
export function exportHighlight(highlight: ExportHighlight): ExportHighlight {
  const { quote, position } = highlight
  return {
    id: highlight.id,
    quote: { exact: quote.exact, prefix: quote.prefix, suffix: quote.suffix },
    position: position === null ? null : { start: position.start, end: position.end },
    color: highlight.color,
    note: highlight.note,
    createdAt: highlight.createdAt,
    updatedAt: highlight.updatedAt,
  }
}
