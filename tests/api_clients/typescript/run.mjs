// idreg's REST API through a TypeScript client generated from the service's own OpenAPI
// document by @hey-api/openapi-ts (pinned in package.json), used as generated.
//
//   node run.mjs --url http://127.0.0.1:8080 --client-id ID --client-secret SECRET
//
// 1. fetches <url>/openapi.json to build/openapi.json;
// 2. runs the generator on it into generated/ (wiped first; the output is never edited);
// 3. compiles walk.ts with the generated code by tsc (tsconfig.json, strict), so the walk is
//    type-checked against the generated types, into build/js/;
// 4. runs the compiled walk with the same arguments; its output and exit code are this
//    script's.
//
// The walk prints one PASS/FAIL line per step and ends with `PASS: all` (exit 0) or exits 1.
// A failure of steps 1-3 prints `FAIL <stage>: ...` and exits 1; missing arguments exit 2.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.IDREG_URL },
    'client-id': { type: 'string', default: process.env.IDREG_CLIENT_ID },
    'client-secret': { type: 'string', default: process.env.IDREG_CLIENT_SECRET },
  },
});
if (!args.url || !args['client-id'] || !args['client-secret']) {
  console.error('--url, --client-id and --client-secret are required');
  process.exit(2);
}
const base = args.url.replace(/\/+$/, '');

function fail(stage, why) {
  console.log(`FAIL ${stage}: ${why}`);
  process.exit(1);
}

// 1. The document, as the running server serves it.
const buildDir = join(here, 'build');
rmSync(buildDir, { recursive: true, force: true });
mkdirSync(buildDir, { recursive: true });
const specPath = join(buildDir, 'openapi.json');
try {
  const response = await fetch(`${base}/openapi.json`);
  if (!response.ok) fail('fetch openapi.json', `HTTP ${response.status}`);
  const text = await response.text();
  const doc = JSON.parse(text);
  if (typeof doc.openapi !== 'string' || typeof doc.paths !== 'object') {
    fail('fetch openapi.json', 'not an OpenAPI document');
  }
  writeFileSync(specPath, text);
  console.log(`PASS fetch openapi.json (OpenAPI ${doc.openapi}, ${doc.info?.title} ${doc.info?.version})`);
} catch (e) {
  fail('fetch openapi.json', e instanceof Error ? e.message : String(e));
}

// 2. The client, generated. The plugins are the generator's defaults, named so that a change
// of defaults in a later version shows here. The input is an absolute path: the generator reads
// a relative `a/b` as a shorthand for its own registry. `module.extension` makes the relative imports end
// in `.js`, as Node's ES module loader (and tsc's NodeNext resolution) require.
const generatedDir = join(here, 'generated');
try {
  const { createClient } = await import('@hey-api/openapi-ts');
  await createClient({
    input: specPath,
    output: { path: generatedDir, clean: true, module: { extension: '.js' } },
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
    logs: { file: false, level: 'silent' },
  });
  const { version } = JSON.parse(readFileSync(join(here, 'node_modules/@hey-api/openapi-ts/package.json'), 'utf8'));
  console.log(`PASS generate client (@hey-api/openapi-ts ${version}, into generated/)`);
} catch (e) {
  // The generator wraps what went wrong in a JobError carrying `originalError`.
  const cause = e?.originalError ?? e;
  fail('generate client', cause instanceof Error ? cause.stack ?? cause.message : String(cause));
}

// 3. Type-check and compile the walk together with the generated code.
const tsc = require.resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.json')], {
  cwd: here,
  encoding: 'utf8',
});
if (compiled.status !== 0) {
  process.stdout.write(compiled.stdout ?? '');
  process.stderr.write(compiled.stderr ?? '');
  fail('compile walk.ts (tsc, strict)', `tsc exited ${compiled.status ?? compiled.signal}`);
}
console.log('PASS compile walk.ts with the generated client (tsc, strict)');

// 4. The walk itself.
const walked = spawnSync(
  process.execPath,
  [join(buildDir, 'js', 'walk.js'), '--url', base, '--client-id', args['client-id'], '--client-secret', args['client-secret']],
  { cwd: here, stdio: 'inherit' },
);
if (walked.error) fail('run walk', walked.error.message);
process.exit(walked.status ?? 1);
