// `readlater/mcp`: the MCP tool table (names, scopes, descriptions), for embedders and clients that list
// what an agent may do (docs/mcp.md#tools).
export { TOOLS, findTool, scopesNeededFor, MCP_DEFAULT_SCOPE, type ToolSpec, type ToolName } from './tools.ts'
