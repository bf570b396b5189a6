// The wire shape lives in core, where the export (core/export) writes it too.
export { type SavedItemDto, toSavedItemDto } from '../../core/items/saved-item-dto.ts'
