import { describe, expect, test } from 'bun:test'
import { socketAddressOf, type ConnectionInfo, type RequestHandler } from '../../adapters/runtime/connection.ts'

// The fetch handler's second argument is what Bun.serve or Deno.serve pass, or `{ clientIp }`; a bare
// address string (the old signature, which Bun's Server object silently filled) no longer compiles
// (docs/operations.md#embedding). `tsc -p .` in `npm test` checks the expect-error lines below.

declare const handler: RequestHandler
const request = new Request('http://localhost/x')

function compileTimeChecks(): void {
  // @ts-expect-error a bare string is not connection info
  void handler(request, '127.0.0.1')
  // @ts-expect-error neither is an arbitrary object
  void handler(request, { address: '127.0.0.1' })
  void handler(request, { clientIp: '127.0.0.1' })
  void handler(request)
  // What Bun.serve passes: its Server. This line compiles only if the handler fits Bun's `fetch`.
  const options: Parameters<typeof Bun.serve>[0] = { fetch: handler }
  void options
}
void compileTimeChecks

describe('socketAddressOf()', () => {
  test('reads Bun, Deno and plain connection info', () => {
    const bun: ConnectionInfo = { requestIP: () => ({ address: '203.0.113.9' }) }
    const deno: ConnectionInfo = { remoteAddr: { hostname: '198.51.100.7' } }
    expect(socketAddressOf(request, bun)).toBe('203.0.113.9')
    expect(socketAddressOf(request, deno)).toBe('198.51.100.7')
    expect(socketAddressOf(request, { clientIp: '192.0.2.1' })).toBe('192.0.2.1')
    expect(socketAddressOf(request, undefined)).toBeNull()
    expect(socketAddressOf(request, { requestIP: () => null })).toBeNull()
    expect(socketAddressOf(request, { remoteAddr: {} })).toBeNull()
  })

  test('reads an IPv4 peer on a dual-stack socket as the IPv4 address', () => {
    expect(socketAddressOf(request, { requestIP: () => ({ address: '::ffff:127.0.0.1' }) })).toBe('127.0.0.1')
    expect(socketAddressOf(request, { remoteAddr: { hostname: '::FFFF:10.1.2.3' } })).toBe('10.1.2.3')
    expect(socketAddressOf(request, { requestIP: () => ({ address: '::ffff:7f00:1' }) })).toBe('::ffff:7f00:1')
    expect(socketAddressOf(request, { requestIP: () => ({ address: '2001:db8::1' }) })).toBe('2001:db8::1')
  })
})
