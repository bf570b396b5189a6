import { logUnexpected } from '../../app/unexpected.ts'
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
import { isAppError } from '../../../core/errors.ts'
import { TOOLS, type ToolName } from '../../../core/mcp/tools.ts'
import type { Principal } from '../../../core/types.ts'
import type { AppDeps } from '../../app/deps.ts'

import { SERVICE_VERSION } from '../openapi-info.ts'
import { advertised, Inputs, Outputs } from './schemas.ts'
import { toolHandlers } from './handlers.ts'

const INSTRUCTIONS = [
  "Readlater is the person's read-later queue of saved web pages.",
  'Save pages with save_url; find them with list_saved_items (newest first; "unread" sort puts unread first);',
  'file them with list_folders, create_folder and move_to_folder; mark them read once read.',
  'Ids come from earlier results. A call may fail with a 403 when the person has not granted its scope:',
  'ask the person to approve the wider access when your client offers it.',
].join(' ')

// The SDK builds a fresh Ajv (with formats) for every server unless given one. It is used only for
// elicitation, which these tools never do; one per process is plenty.
const schemaValidator = new AjvJsonSchemaValidator()

/** tools/list's answer, the same for everyone: built once per process from the catalog and the schemas. */
const TOOL_LIST: Tool[] = TOOLS.map((tool) => ({
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

const toolError = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] })

/**
 * One MCP server per request, for one person (stateless Streamable HTTP: any instance can answer any
 * request). The SDK's low-level server, so the tools' schemas are the REST API's TypeBox schemas and are
 * checked by compiled validators (docs/mcp.md#tools); errors answer as the SDK's high-level server did.
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
  const handlers = toolHandlers(deps, principal) as unknown as Record<
    ToolName,
    (args: unknown) => Promise<{ structured: Record<string, unknown>; summary: string; checked?: boolean }>
  >
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LIST }))
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const name = request.params.name as ToolName
    const args = request.params.arguments ?? {}
    const input = inputChecks[name]
    if (!input) return toolError(new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`).message)
    if (!input.Check(args))
      return toolError(
        new McpError(
          ErrorCode.InvalidParams,
          `Input validation error: Invalid arguments for tool ${name}: ${firstFailure(input, args)}`,
        ).message,
      )
    try {
      const { structured, summary, checked } = await handlers[name](args)
      // A result that breaks its own schema is our bug (a corrupt row, say): logged, never sent.
      if (!checked && !outputChecks[name]!.Check(structured)) {
        deps.log('error', {
          msg: 'mcp tool result failed its schema',
          tool: name,
          error: firstFailure(outputChecks[name]!, structured),
        })
        return toolError('InternalError: the service failed to run this tool; retry later')
      }
      return { content: [{ type: 'text', text: summary }], structuredContent: structured }
    } catch (error) {
      // Domain refusals (not found, invalid URL, name taken…) are the model's to read and act on.
      if (isAppError(error)) return toolError(`${error._tag}: ${error.message}`)
      // Anything else stays in our log: a thrown message could carry SQL or stored values.
      logUnexpected(deps.log, 'mcp tool failed', error, { tool: name })
      return toolError('InternalError: the service failed to run this tool; retry later')
    }
  })
  return server
}
