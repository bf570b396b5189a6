/** `ts` when run from the source, `js` from the built package (dist/): a thread's file is beside this one. */
const SOURCE_EXTENSION = import.meta.url.endsWith('.ts') ? 'ts' : 'js'

/** The parts of a Web Worker that the thread pools use (Bun and Deno). */
export interface ThreadHandle {
  postMessage(message: unknown, transfer?: Transferable[]): void
  terminate(): void
  onmessage: ((event: MessageEvent) => void) | null
  onerror: ((event: Event) => void) | null
  unref?: () => void
}

/**
 * Starts the worker thread of the module `name` of this folder (`article-thread`, `import-thread`), which
 * does not keep the process alive on its own (Bun; Deno has no unref, and the pools end their threads).
 */
export function startModuleThread(name: string): ThreadHandle {
  const handle = new Worker(new URL(`./${name}.${SOURCE_EXTENSION}`, import.meta.url).href, {
    type: 'module',
  }) as unknown as ThreadHandle
  handle.unref?.()
  return handle
}
