import { test } from 'node:test'
import assert from 'node:assert/strict'
import { validateClientRegistration } from '../../../core/oauth/client-registration.ts'

function rejects(input: unknown, error: string, description: RegExp): void {
  assert.throws(
    () => validateClientRegistration(input),
    (thrown: unknown) => {
      assert.equal((thrown as { _tag?: string })._tag, 'OAuthError')
      assert.equal((thrown as { error?: string }).error, error)
      assert.match((thrown as Error).message, description)
      return true
    },
  )
}

test('validateClientRegistration() fills RFC 7591 defaults for a minimal public client', () => {
  assert.deepEqual(validateClientRegistration({ redirect_uris: ['http://127.0.0.1/cb'] }), {
    clientName: 'Unnamed client',
    redirectUris: ['http://127.0.0.1/cb'],
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    scope: null,
  })
})

test('validateClientRegistration() keeps what a full request declares', () => {
  assert.deepEqual(
    validateClientRegistration({
      client_name: '  My Agent ',
      redirect_uris: ['https://agent.example/cb', 'com.example.agent:/cb', 'https://agent.example/cb'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'offline_access saved-items:read',
      application_type: 'native',
    }),
    {
      clientName: 'My Agent',
      redirectUris: ['https://agent.example/cb', 'com.example.agent:/cb'],
      grantTypes: ['authorization_code'],
      responseTypes: ['code'],
      scope: 'saved-items:read offline_access',
    },
  )
})

test('validateClientRegistration() refuses confidential clients', () => {
  for (const method of ['client_secret_basic', 'client_secret_post', 'private_key_jwt']) {
    rejects(
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: method },
      'invalid_client_metadata',
      /public clients/,
    )
  }
})

test('validateClientRegistration() refuses bad redirect URIs with invalid_redirect_uri', () => {
  rejects({}, 'invalid_redirect_uri', /required/)
  rejects({ redirect_uris: [] }, 'invalid_redirect_uri', /at least one/)
  rejects({ redirect_uris: 'https://a.example/cb' }, 'invalid_redirect_uri', /array of strings/)
  rejects({ redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri', /javascript/)
  rejects({ redirect_uris: ['https://a.example/cb', 'data:text/html,x'] }, 'invalid_redirect_uri', /data/)
  rejects({ redirect_uris: ['file:///tmp/x'] }, 'invalid_redirect_uri', /file/)
  rejects({ redirect_uris: ['https://a.example/cb#x'] }, 'invalid_redirect_uri', /fragment/)
  rejects({ redirect_uris: ['http://a.example/cb'] }, 'invalid_redirect_uri', /http: on a host/)
  rejects(
    { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) },
    'invalid_redirect_uri',
    /at most 10/,
  )
})

test('validateClientRegistration() refuses unknown grants, response types and scopes', () => {
  const uris = ['https://a.example/cb']
  rejects({ redirect_uris: uris, grant_types: ['client_credentials'] }, 'invalid_client_metadata', /client_credentials/)
  rejects(
    { redirect_uris: uris, grant_types: ['refresh_token'] },
    'invalid_client_metadata',
    /must include authorization_code/,
  )
  rejects({ redirect_uris: uris, response_types: ['token'] }, 'invalid_client_metadata', /response_types/)
  rejects({ redirect_uris: uris, scope: 'saved-items:read admin' }, 'invalid_client_metadata', /"admin"/)
  rejects({ redirect_uris: uris, scope: ['saved-items:read'] }, 'invalid_client_metadata', /space-separated string/)
})

test('validateClientRegistration() bounds client_name', () => {
  const uris = ['https://a.example/cb']
  assert.equal(validateClientRegistration({ redirect_uris: uris, client_name: 'x'.repeat(100) }).clientName.length, 100)
  rejects({ redirect_uris: uris, client_name: 'x'.repeat(101) }, 'invalid_client_metadata', /at most 100/)
  rejects({ redirect_uris: uris, client_name: '   ' }, 'invalid_client_metadata', /blank/)
  rejects({ redirect_uris: uris, client_name: 42 }, 'invalid_client_metadata', /string/)
  rejects({ redirect_uris: uris, client_name: 'Good\u202eevil' }, 'invalid_client_metadata', /control/)
  // Zero-width characters make look-alike names ("Claude\u200bDesktop" is not "Claude Desktop").
  for (const name of ['Claude\u200bDesktop', 'Cur\u200dsor', 'VS\u2060Code', 'Agent\u2067x']) {
    rejects(
      { redirect_uris: uris, client_name: name },
      'invalid_client_metadata',
      /invisible or bidirectional characters \(found U\+/,
    )
  }
})

test('validateClientRegistration() refuses a client_name with no visible character', () => {
  const uris = ['https://a.example/cb']
  // The consent page would read "Allow ㅤ to use your account?" (docs/oauth.md#registration).
  for (const name of ['\u3164', '\u3164\u2800 ', '\u115f\u1160', '\uffa0', '\u034f', '\u2800']) {
    rejects(
      { redirect_uris: uris, client_name: name },
      'invalid_client_metadata',
      /^client_name must contain at least one visible character$/,
    )
  }
  assert.equal(
    validateClientRegistration({ redirect_uris: uris, client_name: 'Read \u3164later' }).clientName,
    'Read \u3164later',
  )
})

test('validateClientRegistration() wants a JSON object', () => {
  for (const input of [null, [], 'x', 1]) rejects(input, 'invalid_client_metadata', /JSON object/)
})
