import { logUnexpected } from '../../app/unexpected.ts'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { isAppError } from '../../../core/errors.ts'
import { TOOLS, type ToolName } from '../../../core/mcp/tools.ts'
import type { Principal } from '../../../core/types.ts'
import type { AppDeps } from '../../app/deps.ts'

import { SERVICE_VERSION } from '../openapi-info.ts'
import { Inputs, Outputs } from './schemas.ts'
import { toolHandlers } from './handlers.ts'

const INSTRUCTIONS = [
  "Readlater is the person's read-later queue of saved web pages.",
  'Save pages with save_url; find them with list_saved_items (newest first; "unread" sort puts unread first);',
  'file them with list_folders, create_folder and move_to_folder; mark them read once read.',
  'Ids come from earlier results. A call may fail with a 403 when the person has not granted its scope:',
  'ask the person to approve the wider access when your client offers it.',
].join(' ')

// The SDK builds a fresh Ajv (with formats) for every server unless given one: 14% of an MCP request's
// CPU in a profile. It is used only for elicitation, which these tools never do; one per process is plenty.
const schemaValidator = new AjvJsonSchemaValidator()

/**
 * One MCP server per request, for one person (stateless Streamable HTTP: any instance can answer any
 * request). Tools are the catalog of core/mcp/tools.ts with the handlers that call the REST operations.
 */
export function createMcpServer(deps: AppDeps, principal: Principal): McpServer {
  const server = new McpServer(
    { name: 'readlater', title: 'Readlater', version: SERVICE_VERSION },
    { instructions: INSTRUCTIONS, jsonSchemaValidator: schemaValidator },
  )
  const handlers = toolHandlers(deps, principal)
  for (const tool of TOOLS) {
    const name: ToolName = tool.name
    const run = handlers[name] as (
      args: Record<string, unknown>,
    ) => Promise<{ structured: Record<string, unknown>; summary: string }>
    server.registerTool(
      name,
      {
        title: tool.title,
        description: `${tool.description} Needs scope ${tool.scope}.`,
        inputSchema: Inputs[name],
        outputSchema: Outputs[name],
        annotations: { title: tool.title, ...tool.annotations },
      },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        try {
          const { structured, summary } = await run(args)
          return { content: [{ type: 'text', text: summary }], structuredContent: structured }
        } catch (error) {
          // Domain refusals (not found, invalid URL, name taken…) are the model's to read and act on.
          if (isAppError(error))
            return { isError: true, content: [{ type: 'text', text: `${error._tag}: ${error.message}` }] }
          // Anything else stays in our log: a thrown message could carry SQL or stored values.
          logUnexpected(deps.log, 'mcp tool failed', error, { tool: name })
          return {
            isError: true,
            content: [{ type: 'text', text: 'InternalError: the service failed to run this tool; retry later' }],
          }
        }
      },
    )
  }
  // The SDK announces tools.listChanged; a stateless server has no stream to send that notification on.
  server.server.registerCapabilities({ tools: { listChanged: false } })
  return server
}
