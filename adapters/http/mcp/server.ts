import { describeFailure } from '../../app/unexpected.ts'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { INTERNAL_ERROR, isAppError } from '../../../core/errors.ts'
import { TOOLS, type ToolName } from '../../../core/mcp/tools.ts'
import type { Principal } from '../../../core/types.ts'
import type { AppDeps } from '../../app/deps.ts'

import { SERVICE_VERSION } from '../openapi-info.ts'
import { advertised, Inputs, Outputs } from './schemas.ts'
import { toolHandlers, type PageResult } from './handlers.ts'

const INSTRUCTIONS = [
  "Readlater is the person's read-later queue of saved web pages.",
  'Save pages with save_url; find them with list_saved_items (newest first; "unread" sort puts unread first);',
  'file them with list_folders, create_folder and move_to_folder; mark them read once read.',
  'Passages the person marked, and their notes, are listed by list_highlights and found by search_saved_items;',
  'add_highlight marks a passage of an article (its exact text, as read_saved_item shows it).',
  'Ids come from earlier results. A call may fail with a 403 when the person has not granted its scope:',
  'ask the person to approve the wider access when your client offers it.',
].join(' ')

// The SDK builds a fresh Ajv (with formats) for every server unless given one. It is used only for
// elicitation, which these tools never do; one per process is plenty.
const schemaValidator = new AjvJsonSchemaValidator()

/** tools/list's answer, the same for everyone: built once per process from the catalog and the schemas. */
export const TOOL_LIST: Tool[] = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: `${tool.description} Needs scope ${tool.scope}.`,
  inputSchema: advertised(Inputs[tool.name]) as Tool['inputSchema'],
  outputSchema: advertised(Outputs[tool.name]) as Tool['outputSchema'],
  annotations: { title: tool.title, ...tool.annotations },
}))

// Compiled once: checking a 50-item page takes microseconds, where zod's parse took about 260 µs.
const inputChecks = Object.fromEntries(TOOLS.map((tool) => [tool.name, TypeCompiler.Compile(Inputs[tool.name])]))
const outputChecks = Object.fromEntries(TOOLS.map((tool) => [tool.name, TypeCompiler.Compile(Outputs[tool.name])]))

type Check = (typeof inputChecks)[string]

/** The first place `value` breaks the schema, as `field.path: rule` (never the value itself). */
function firstFailure(check: Check, value: unknown): string {
  const error = check.Errors(value).First()
  if (!error) return 'does not match the schema'
  const field = error.path.replace(/^\//, '').replace(/\//g, '.')
  return field ? `${field}: ${error.message}` : error.message
}

// Keys in the order the SDK's result schema writes them, so the direct path answers byte for byte as it does.
const toolError = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true })

/**
 * A tool's answer: the result, or for a list page (written by SQLite) the result's JSON text, made when asked
 * (not at all for a page whose answer is kept: runToolHead), and the page, which its answer is kept with.
 */
type ToolRun = { result: CallToolResult } | { resultJson: () => string; page: object }

/** A run's result as an object, for the SDK's path (direct.ts answers with the text). */
const resultOf = (run: ToolRun): CallToolResult =>
  'result' in run ? run.result : (JSON.parse(run.resultJson()) as CallToolResult)

/**
 * MCP's error boundary for a failure that is ours, not the model's: a bug, a dead database, a result that
 * breaks its own schema (a corrupt row, say). One error log line, `msg` saying what failed and `error` how
 * (never the values: a thrown message could carry SQL or stored data), then a generic tool error.
 */
function internalToolError(log: AppDeps['log'], msg: string, tool: string, error: string): ToolRun {
  log('error', { msg, tool, error })
  return { result: toolError(`${INTERNAL_ERROR._tag}: the service failed to run this tool; retry later`) }
}

type ToolHandler = (args: unknown) => Promise<{ structured: Record<string, unknown>; summary: string } | PageResult>

/** Runs a tool for a person: what tools/call answers (docs/mcp.md#tools), errors included as tool errors. */
async function executeTool(deps: AppDeps, principal: Principal, name: string, args: unknown): Promise<ToolRun> {
  const input = inputChecks[name]
  if (!input) return { result: toolError(new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`).message) }
  if (!input.Check(args))
    return {
      result: toolError(
        new McpError(
          ErrorCode.InvalidParams,
          `Input validation error: Invalid arguments for tool ${name}: ${firstFailure(input, args)}`,
        ).message,
      ),
    }
  const tool = name as ToolName
  try {
    const handler = (toolHandlers(deps, principal) as unknown as Record<ToolName, ToolHandler>)[tool]
    const run = await handler(args)
    if ('structuredJson' in run)
      return {
        // Keys in the order of the object below, as the SDK writes them.
        resultJson: () =>
          `{"content":[{"type":"text","text":${run.summaryJson()}}],"structuredContent":${run.structuredJson()}}`,
        page: run.page,
      }
    const { structured, summary } = run
    // A result that breaks its own schema is our bug (a corrupt row, say): logged, never sent.
    if (!outputChecks[tool]!.Check(structured))
      return internalToolError(
        deps.log,
        'mcp tool result failed its schema',
        tool,
        firstFailure(outputChecks[tool]!, structured),
      )
    return { result: { content: [{ type: 'text', text: summary }], structuredContent: structured } }
  } catch (error) {
    // Domain refusals (not found, invalid URL, name taken…) are the model's to read and act on.
    if (isAppError(error)) return { result: toolError(`${error._tag}: ${error.message}`) }
    return internalToolError(deps.log, 'mcp tool failed', tool, describeFailure(error))
  }
}

// A cached list page is served to MCP as often as to REST: its answer's head is serialized once, and encoded
// once it is served a second time. A page read for one answer (LIST_CACHE_MB=0, every other tool) stays
// text, which the server encodes as it sends it: encoding it here first was a copy of the whole answer.
const pageHeads = new WeakMap<object, Uint8Array | string>()
const encoder = new TextEncoder()

/** The head of a direct answer (direct.ts), `{"result":<the tools/call result>`: text, or UTF-8 bytes when kept. */
export async function runToolHead(
  deps: AppDeps,
  principal: Principal,
  name: string,
  args: unknown,
): Promise<Uint8Array | string> {
  const run = await executeTool(deps, principal, name, args)
  if ('result' in run) return answerHead(JSON.stringify(run.result))
  const head = pageHeads.get(run.page)
  if (head === undefined) {
    const text = answerHead(run.resultJson())
    pageHeads.set(run.page, text)
    return text
  }
  if (typeof head !== 'string') return head
  const bytes = encoder.encode(head)
  pageHeads.set(run.page, bytes)
  return bytes
}

/** `{"result":<json>`: the SDK's answer starts with its result (direct.ts). */
export const answerHead = (resultJson: string): string => `{"result":${resultJson}`

/**
 * An MCP server for one request, for one person (stateless Streamable HTTP: any instance can answer any
 * request), for the messages the direct path leaves to the SDK (direct.ts). The SDK's low-level server,
 * so the tools' schemas are the REST API's TypeBox schemas and are checked by compiled validators
 * (docs/mcp.md#tools); errors answer as the SDK's high-level server did.
 */
export function createMcpServer(deps: AppDeps, principal: Principal): Server {
  const server = new Server(
    { name: 'readlater', title: 'Readlater', version: SERVICE_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: schemaValidator,
    },
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LIST }))
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request): Promise<CallToolResult> =>
      resultOf(await executeTool(deps, principal, request.params.name, request.params.arguments ?? {})),
  )
  return server
}
