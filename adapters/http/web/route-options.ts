import { t } from 'elysia'

/**
 * Route options of the web app's pages. A page is kept out of OpenAPI; a form post reads its own body
 * (the guard's `form` option: the capped form read and the CSRF check, guard.ts).
 */
export const hidden = { detail: { hide: true } }
export const formRoute = { ...hidden, parse: 'none' as const, form: true as const }

/**
 * A page's `:id` (params are declared, not sliced from the path). An id that is not valid percent-encoding
 * (`%zz`) reaches Elysia undecoded as null; it is '' here, which no item, key or webhook has, so the page
 * answers its own not-found, never a validation error.
 */
export const idParam = {
  params: t.Object({ id: t.String() }),
  transform({ params }: { params: Record<string, unknown> }) {
    if (typeof params.id !== 'string') params.id = ''
  },
}

/** What a page at an address with an `:id` gets ({@link idParam}). */
export type WithId = { params: { id: string } }

/** An agent's `:grantId`, under the same rule as {@link idParam}. */
export const grantIdParam = {
  params: t.Object({ grantId: t.String() }),
  transform({ params }: { params: Record<string, unknown> }) {
    if (typeof params.grantId !== 'string') params.grantId = ''
  },
}

/** An item's `:id` and the `:n` of one of its archived images, under the same rule as {@link idParam}. */
export const imageParams = {
  params: t.Object({ id: t.String(), n: t.String() }),
  transform({ params }: { params: Record<string, unknown> }) {
    if (typeof params.id !== 'string') params.id = ''
    if (typeof params.n !== 'string') params.n = ''
  },
}

/** What a page at an archived image's address gets ({@link imageParams}). */
export type WithImage = { params: { id: string; n: string } }

/** An item's `:id` and one of its highlights' `:highlightId`, under the same rule as {@link idParam}. */
export const highlightParams = {
  params: t.Object({ id: t.String(), highlightId: t.String() }),
  transform({ params }: { params: Record<string, unknown> }) {
    if (typeof params.id !== 'string') params.id = ''
    if (typeof params.highlightId !== 'string') params.highlightId = ''
  },
}

/** What a page at an item's highlight's address gets ({@link highlightParams}). */
export type WithHighlight = { params: { id: string; highlightId: string } }
