// idreg's MCP endpoint against the official MCP TypeScript SDK client
// (`@modelcontextprotocol/client`, pinned in package.json).
//
// From nothing but the MCP URL, a client id and a secret, the SDK's ClientCredentialsProvider
// finds the token endpoint by itself (the 401's challenge, the protected resource metadata,
// the authorization server metadata), in each version-negotiation mode: `legacy` (the
// initialize handshake), `auto` (probes, and stays on 2026-07-28 with this dual-era server)
// and pinned to 2026-07-28. In each it lists tools and calls `get_company_profile`, whose
// content[1] must be the REST body byte for byte.
//
//   node test_ts_sdk.mjs --url http://127.0.0.1:8080/mcp --client-id ID --client-secret SECRET
//
// The client's grant must carry `kyb:read` and SE. Prints one PASS/FAIL line per check and a
// summary; exits 1 on any failure.

import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { parseArgs } from 'node:util';

const TEST_COMPANY = '5560021361';
const MODERN = '2026-07-28';
const HANDSHAKE = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.IDREG_MCP_URL },
    'client-id': { type: 'string', default: process.env.IDREG_CLIENT_ID },
    'client-secret': { type: 'string', default: process.env.IDREG_CLIENT_SECRET },
  },
});
if (!args.url || !args['client-id'] || !args['client-secret']) {
  console.error('--url, --client-id and --client-secret are required');
  process.exit(2);
}
const origin = new URL(args.url).origin;

let passed = 0;
const failures = [];
function check(name, ok, detail = '') {
  if (ok) {
    passed += 1;
    console.log(`PASS  ${name}`);
  } else {
    failures.push(name);
    console.log(`FAIL  ${name}${detail ? `: ${detail}` : ''}`);
  }
  return ok;
}

async function runMode(label, mode, speaks, expectedIssuer) {
  // Every HTTP exchange the SDK makes: method, path, status.
  const seen = [];
  const observed = async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    seen.push([(init?.method ?? 'GET').toUpperCase(), url.pathname, response.status]);
    return response;
  };
  const authProvider = new ClientCredentialsProvider({
    clientId: args['client-id'],
    clientSecret: args['client-secret'],
    ...(expectedIssuer ? { expectedIssuer } : {}),
  });
  const transport = new StreamableHTTPClientTransport(new URL(args.url), { authProvider, fetch: observed });
  const client = new Client({ name: 'idreg-ts-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  try {
    await client.connect(transport);
    check(`[${label}] connect: speaks ${speaks.join('|')}`, speaks.includes(transport.protocolVersion), transport.protocolVersion);
    const tools = (await client.listTools()).tools;
    const names = tools.map((t) => t.name);
    check(`[${label}] tools/list holds get_company_profile`, names.includes('get_company_profile'), names.join(','));
    check(`[${label}] tools/list is ordered by name`, names.join() === [...names].sort().join(), names.join(','));
    check(
      `[${label}] every tool has a title and annotations`,
      tools.every((t) => t.title && t.annotations && t.annotations.destructiveHint === false),
      JSON.stringify(tools.find((t) => !t.title || !t.annotations)),
    );
    const result = await client.callTool({ name: 'get_company_profile', arguments: { orgnr: TEST_COMPANY } });
    const token = authProvider.tokens()?.access_token;
    const rest = await fetch(`${origin}/v1/companies/${TEST_COMPANY}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await rest.text();
    check(
      `[${label}] get_company_profile is the REST body byte for byte`,
      rest.status === 200 && result.isError === false && result.content?.[1]?.text === body,
      `${rest.status} ${JSON.stringify(result.content?.[0])}`,
    );
    const steps = seen.map((s) => s.join(' '));
    check(
      `[${label}] discovered the token endpoint from a 401`,
      seen.length > 0 &&
        seen[0][2] === 401 &&
        steps.includes('GET /.well-known/oauth-protected-resource/mcp 200') &&
        steps.includes('GET /.well-known/oauth-authorization-server 200') &&
        steps.includes('POST /oauth/token 200'),
      steps.join('; '),
    );
  } catch (error) {
    check(`[${label}] ran`, false, `${error?.stack ?? error}; ${seen.map((s) => s.join(' ')).join('; ')}`);
  } finally {
    await client.close().catch(() => {});
  }
}

await runMode('legacy', 'legacy', HANDSHAKE);
await runMode('auto', 'auto', [MODERN]);
await runMode(MODERN, { pin: MODERN }, [MODERN]);
await runMode(`${MODERN} with expectedIssuer`, { pin: MODERN }, [MODERN], origin);

const total = passed + failures.length;
if (failures.length > 0) {
  console.log(`FAIL: ${failures.length} of ${total} checks failed: ${failures.join(', ')}`);
  process.exit(1);
}
console.log(`PASS: all ${total} checks passed (MCP TypeScript SDK client against ${args.url})`);
