import { type ExportContext, type ExportItem, exportRecord } from './export-item.ts'

/**
 * The JSON export (docs/import-export.md#export), streamed:
 *
 * ```
 * {"format":"readlater","version":1,"exportedAt":"…","savedItems":[
 * {…item…},
 * {…item…}
 * ]}
 * ```
 *
 * Yields the head, then one chunk per item (the item as `JSON.stringify` writes it, after the separator
 * that comes before it), then the tail; the whole is one JSON document for any number of items, 0 included.
 * Each item is read only when the chunk before it has been taken, so memory holds one item, not the library.
 */
export async function* jsonExportChunks(
  items: AsyncIterable<ExportItem>,
  context: ExportContext,
): AsyncGenerator<string, void, undefined> {
  yield `{"format":"readlater","version":1,"exportedAt":${JSON.stringify(context.exportedAt)},"savedItems":[`
  let first = true
  for await (const item of items) {
    // The separator goes before an item, not after it: the generator cannot know which item is the last.
    yield `${first ? '\n' : ',\n'}${JSON.stringify(exportRecord(item))}`
    first = false
  }
  yield '\n]}\n'
}
