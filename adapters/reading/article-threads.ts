import type { Article } from '../../core/reading/extract-article.ts'
import { startModuleThread, type ThreadHandle } from './module-thread.ts'
import type { ExtractedPage, ThreadAnswer, ThreadRequest } from './thread-messages.ts'

export type { ExtractedPage } from './thread-messages.ts'

/** A page or article the thread did not finish within its time budget; the thread was replaced. */
export class ExtractionTimeoutError extends Error {
  override readonly name = 'ExtractionTimeoutError'
}
/** The thread failed on this input (the error's name only). */
export class ExtractionFailedError extends Error {
  override readonly name = 'ExtractionFailedError'
}

export interface ArticleThreads {
  /** Metadata and article of a page: raw bytes with their Content-Type, or text already decoded. */
  extract(page: Uint8Array | string, contentType: string | null, url: string): Promise<ExtractedPage>
  /** Markdown of sanitized article HTML. */
  markdown(html: string): Promise<string>
  /** The article with its archived images pointing at our copies (source → copy URL). */
  withImages(article: Article, pageUrl: string, copies: ReadonlyMap<string, string>): Promise<Article>
  /** Ends the thread; work still queued is refused. */
  close(): void
}

export interface ArticleThreadOptions {
  /** Per piece of work, from when the thread starts on it (a new thread's start-up is not counted). */
  timeoutMs: number
  /** An idle thread ends after this long (a new one starts with the next piece of work). */
  idleMs: number
}

export const DEFAULT_THREAD_OPTIONS: ArticleThreadOptions = { timeoutMs: 10_000, idleMs: 30_000 }

type Work = { request: ThreadRequest; resolve(value: unknown): void; reject(error: Error): void }
type Payload<R> = R extends unknown ? Omit<R, 'id'> : never

/**
 * One worker thread for extraction and Markdown (docs/reading.md#extraction), fed one piece of work at a
 * time in order. A piece that runs past `timeoutMs` or crashes the thread fails alone: the thread is
 * terminated and the next piece gets a fresh one. The thread ends when idle, so an idle server holds no
 * parsed-page memory.
 */
export function startArticleThreads(options: ArticleThreadOptions = DEFAULT_THREAD_OPTIONS): ArticleThreads {
  const queue: Work[] = []
  let thread: ThreadHandle | null = null
  let current: Work | null = null
  let timer: ReturnType<typeof setTimeout> | undefined
  let idle: ReturnType<typeof setTimeout> | undefined
  let nextId = 1
  let closed = false
  // A new thread loads its modules first; the current piece is sent (and its clock started) once it says so.
  let ready = false

  const spawn = (): ThreadHandle => {
    const handle = startModuleThread('article-thread')
    ready = false
    handle.onmessage = (event: MessageEvent) => {
      if ((event.data as { ready?: true }).ready) {
        ready = true
        dispatch()
        return
      }
      const answer = event.data as ThreadAnswer
      if (!current || answer.id !== current.request.id) return
      const work = current
      settle()
      if (answer.ok) work.resolve(answer.value)
      else work.reject(new ExtractionFailedError(answer.error))
      pump()
    }
    handle.onerror = (event: Event) => {
      event.preventDefault?.()
      fail(new ExtractionFailedError('the extraction thread crashed'))
    }
    return handle
  }

  const settle = () => {
    clearTimeout(timer)
    current = null
  }

  /** The current piece fails and its thread goes; the queue goes on with a fresh one. */
  const fail = (error: Error) => {
    const work = current
    settle()
    thread?.terminate()
    thread = null
    work?.reject(error)
    pump()
  }

  const pump = () => {
    if (current || closed) return
    const work = queue.shift()
    if (!work) {
      clearTimeout(idle)
      idle = setTimeout(() => {
        if (!current && queue.length === 0) {
          thread?.terminate()
          thread = null
        }
      }, options.idleMs)
      ;(idle as { unref?: () => void }).unref?.()
      return
    }
    clearTimeout(idle)
    current = work
    thread ??= spawn()
    dispatch()
  }

  const dispatch = () => {
    if (!current || !thread || !ready) return
    timer = setTimeout(() => fail(new ExtractionTimeoutError('extraction ran past its time budget')), options.timeoutMs)
    thread.postMessage(current.request)
  }

  const submit = <T>(request: Payload<ThreadRequest>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (closed) return reject(new ExtractionFailedError('extraction threads are closed'))
      queue.push({
        request: { ...request, id: nextId++ } as ThreadRequest,
        resolve: resolve as (value: unknown) => void,
        reject,
      })
      pump()
    })

  return {
    extract: (page, contentType, url) => submit<ExtractedPage>({ kind: 'extract', page, contentType, url }),
    markdown: (html) => submit<string>({ kind: 'markdown', html }),
    withImages: (article, pageUrl, copies) =>
      submit<Article>({ kind: 'images', article, pageUrl, copies: [...copies] }),
    close() {
      closed = true
      clearTimeout(idle)
      clearTimeout(timer)
      thread?.terminate()
      thread = null
      const pending = current ? [current, ...queue] : [...queue]
      current = null
      queue.length = 0
      for (const work of pending) work.reject(new ExtractionFailedError('extraction threads are closed'))
    },
  }
}

const shared = new Map<ThreadPurpose, ArticleThreads>()

/**
 * `enrichment` parses fetched pages; `requests` makes Markdown for the content endpoint and the MCP tool,
 * on a thread of its own so a reader never waits behind a 2 MiB page.
 */
export type ThreadPurpose = 'enrichment' | 'requests'

/** This process's thread for `purpose`, started on first use (and again after it idled out). */
export function sharedArticleThreads(purpose: ThreadPurpose): ArticleThreads {
  let threads = shared.get(purpose)
  if (!threads) shared.set(purpose, (threads = startArticleThreads()))
  return threads
}

/** Ends the shared threads (server shutdown); a later use starts them again. */
export function closeSharedArticleThreads(): void {
  for (const threads of shared.values()) threads.close()
  shared.clear()
}
