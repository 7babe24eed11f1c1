// idreg's authorization-code flow against the official MCP TypeScript SDK client
// (`@modelcontextprotocol/client`, pinned in package.json), as an app connecting for a person.
//
// The app implements the SDK's OAuthClientProvider interface as its docs describe (tokens,
// client information, the PKCE verifier and discovery state kept in memory; a loopback
// redirect listener). `client.connect` finds everything from the MCP URL, registers (dynamic
// registration, or a Client ID Metadata Document this script serves over https) and calls
// `redirectToAuthorization`, which runs the person (`tests/browser/consent.mjs`: headless
// Chromium signs in through the sandbox's mailbox and allows). The listener gets `code`,
// `state` and `iss`; the app checks `state`, calls `transport.finishAuth`, connects a fresh
// transport, lists and calls tools, in the handshake and the 2026-07-28 eras.
//
//   node test_ts_oauth.mjs --url .../mcp --consent .../consent.mjs --email PERSON
//        [--doc-cert PEM --doc-key PEM]
//
// Environment for the person: CHROMIUM, MAILBOX_URL, PORTAL_URL, SHOTS (optional).

import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';

const TEST_COMPANY = '5560021361';
const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    consent: { type: 'string' },
    email: { type: 'string' },
    'doc-cert': { type: 'string' },
    'doc-key': { type: 'string' },
  },
});
if (!args.url || !args.consent || !args.email) {
  console.error('--url, --consent and --email are required');
  process.exit(2);
}

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

const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

/** The app's loopback redirect listener: resolves with the first callback's query. */
async function listener() {
  let deliver;
  const got = new Promise((resolve) => { deliver = resolve; });
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/callback') deliver(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('You may close this window.');
  });
  const port = await listen(server);
  return { server, got, redirectUrl: `http://127.0.0.1:${port}/callback` };
}

/** A Client ID Metadata Document over https on loopback. */
async function documentServer(redirectUrl, name) {
  let fetched = 0;
  let url;
  const server = createHttpsServer(
    { cert: readFileSync(args['doc-cert']), key: readFileSync(args['doc-key']) },
    (req, res) => {
      fetched += 1;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' });
      res.end(JSON.stringify({
        client_id: url,
        client_name: name,
        redirect_uris: [redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }));
    },
  );
  const port = await listen(server);
  url = `https://127.0.0.1:${port}/oauth/client.json`;
  return { server, url, fetched: () => fetched };
}

class Provider {
  constructor(redirectUrl, name, metadataUrl) {
    this._redirect = redirectUrl;
    this._name = name;
    if (metadataUrl) this.clientMetadataUrl = metadataUrl;
    this._state = `st-${Math.random().toString(36).slice(2)}`;
    this.person = null;
  }
  get redirectUrl() { return this._redirect; }
  get clientMetadata() {
    return {
      client_name: this._name,
      redirect_uris: [this._redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() { return this._state; }
  clientInformation() { return this._client; }
  saveClientInformation(info) { this._client = info; }
  tokens() { return this._tokens; }
  saveTokens(tokens) { this._tokens = tokens; }
  saveCodeVerifier(v) { this._verifier = v; }
  codeVerifier() { return this._verifier; }
  saveDiscoveryState(s) { this._discovery = s; }
  discoveryState() { return this._discovery; }
  redirectToAuthorization(url) {
    check(`[${this._name}] the authorization URL asks for S256`, url.searchParams.get('code_challenge_method') === 'S256', url.href);
    this.person = new Promise((resolve) => {
      const run = spawn('node', [args.consent, url.href], {
        cwd: dirname(args.consent),
        env: { ...process.env, EMAIL: args.email, REDIRECT_PREFIX: this._redirect, WITHHOLD: 'kyc:read' },
      });
      let out = '';
      run.stdout.on('data', (d) => { out += d; });
      run.stderr.on('data', (d) => { out += d; });
      run.on('close', (code) => resolve({ code, out }));
    });
  }
}

async function connectAs(label, mode, metadataDocument) {
  const name = `TypeScript SDK agent (${label})`;
  const cb = await listener();
  const doc = metadataDocument ? await documentServer(cb.redirectUrl, name) : null;
  const provider = new Provider(cb.redirectUrl, name, doc?.url);
  const versionNegotiation = { mode };
  try {
    const first = new StreamableHTTPClientTransport(new URL(args.url), { authProvider: provider });
    const client = new Client({ name: 'idreg-ts-oauth-test', version: '1.0.0' }, { versionNegotiation });
    let redirected = false;
    try {
      await client.connect(first);
    } catch (e) {
      redirected = e instanceof UnauthorizedError;
      if (!redirected) throw e;
    }
    check(`[${label}] the SDK sent the person to authorize`, redirected && provider.person !== null);
    const query = await Promise.race([cb.got, new Promise((_, no) => setTimeout(() => no(new Error('no callback')), 90000))]);
    const person = await provider.person;
    check(`[${label}] the person signed in and allowed`, person.code === 0, person.out.slice(-2000));
    check(`[${label}] the answer carries our state`, query.get('state') === provider.state(), query.toString());
    check(`[${label}] the answer names the issuer`, query.get('iss') === new URL(args.url).origin, query.toString());
    await first.finishAuth(query);
    await client.close().catch(() => {});
    const transport = new StreamableHTTPClientTransport(new URL(args.url), { authProvider: provider });
    const connected = new Client({ name: 'idreg-ts-oauth-test', version: '1.0.0' }, { versionNegotiation });
    await connected.connect(transport);
    const names = (await connected.listTools()).tools.map((t) => t.name);
    check(`[${label}] tools/list holds get_company_profile`, names.includes('get_company_profile'), names.join(','));
    check(`[${label}] tools/list holds no person tool (the person withheld kyc:read)`, !names.includes('get_person_profile'), names.join(','));
    const result = await connected.callTool({ name: 'get_company_profile', arguments: { orgnr: TEST_COMPANY } });
    check(`[${label}] get_company_profile answers`, result.isError === false, JSON.stringify(result.content?.[0]));
    check(`[${label}] a refresh token was issued`, Boolean(provider.tokens()?.refresh_token));
    if (doc) {
      check(`[${label}] the client id is the document's URL`, provider.clientInformation()?.client_id === doc.url, JSON.stringify(provider.clientInformation()));
      check(`[${label}] idreg read the document`, doc.fetched() >= 1);
    } else {
      check(`[${label}] registered dynamically`, String(provider.clientInformation()?.client_id ?? '').startsWith('mcp_'), JSON.stringify(provider.clientInformation()));
    }
    await connected.close().catch(() => {});
  } catch (error) {
    check(`[${label}] ran`, false, `${error?.stack ?? error}`);
  } finally {
    cb.server.close();
    doc?.server.close();
  }
}

await connectAs('dynamic, legacy', 'legacy', false);
await connectAs('dynamic, 2026-07-28', { pin: '2026-07-28' }, false);
if (args['doc-cert']) {
  await connectAs('metadata document, legacy', 'legacy', true);
  await connectAs('metadata document, 2026-07-28', { pin: '2026-07-28' }, true);
}

const total = passed + failures.length;
if (failures.length > 0) {
  console.log(`FAIL: ${failures.length} of ${total} checks failed: ${failures.join(', ')}`);
  process.exit(1);
}
console.log(`PASS: all ${total} checks passed (MCP TypeScript SDK authorization code against ${args.url})`);
