// The demo walk-through, through the client that @hey-api/openapi-ts generated from the
// service's OpenAPI document (generated/, untouched). Only the generated SDK functions and
// the generated client are used to talk to the service; the base URL and the credentials are
// set at run time. run.mjs generates, compiles (tsc, strict) and runs this file.
//
//   node build/js/walk.js --url http://127.0.0.1:8080 --client-id ID --client-secret SECRET
//
// One `PASS <step>` or `FAIL <step>: <why>` line per step; `PASS: all` and exit 0 at the
// end, or exit 1.

import { parseArgs } from 'node:util';

import { client } from './generated/client.gen.js';
import {
  getCompany,
  getDocument,
  getPersonProfile,
  getScreeningCheck,
  getSubject,
  getUsage,
  issueToken,
  listEvents,
  resolveSubject,
  screenSubject,
} from './generated/sdk.gen.js';
import type { Evidence, TokenResponse } from './generated/types.gen.js';

const COMPANY = '5561890038';
const COMPANY_REF = 'customer-42';
const PERSON = '19570413-3106';
const SCREENED = { name: 'Badege Eric', birth_date: '1971-06-15', nationalities: ['CD'] };

const SUBJECT_ID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const IDENTIFIER_REF = /^idr_[0-9A-Za-z]{26}$/;
const CHECK_ID = /^chk_[0-9A-Za-z]{26}$/;

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.IDREG_URL },
    'client-id': { type: 'string', default: process.env.IDREG_CLIENT_ID },
    'client-secret': { type: 'string', default: process.env.IDREG_CLIENT_SECRET },
  },
});
const baseUrl = args.url?.replace(/\/+$/, '');
const clientId = args['client-id'];
const clientSecret = args['client-secret'];
if (!baseUrl || !clientId || !clientSecret) {
  console.error('--url, --client-id and --client-secret are required');
  process.exit(2);
}

class StepFailure extends Error {}

/** Fails the current step with `why` unless `ok`. */
function expect(ok: boolean, why: string): asserts ok {
  if (!ok) throw new StepFailure(why);
}

/** What a generated SDK function resolves to (the client's default `fields` style). */
type Outcome<T> = { data?: T; error?: unknown; response?: Response };

/** The body of a 2xx answer of `status`, or a step failure naming what came instead. */
function answer<T>(outcome: Outcome<T>, status: number): T {
  const got = outcome.response?.status;
  if (got !== status || outcome.data === undefined) {
    const body = outcome.error === undefined ? '' : ` ${JSON.stringify(outcome.error)}`;
    throw new StepFailure(`expected HTTP ${status}, got ${got ?? 'no response'}${body}`);
  }
  return outcome.data;
}

function checkEvidence(evidence: Evidence | undefined, where: string): void {
  expect(evidence !== undefined && evidence !== null, `${where}: no evidence`);
  expect(typeof evidence.source === 'string' && evidence.source.length > 0, `${where}: evidence has no source`);
  expect(typeof evidence.call_ref === 'string' && evidence.call_ref.length > 0, `${where}: evidence has no call_ref`);
  expect(!Number.isNaN(Date.parse(evidence.retrieved_at)), `${where}: evidence.retrieved_at ${evidence.retrieved_at}`);
}

let failed = 0;
async function step(name: string, body: () => Promise<string | void>): Promise<boolean> {
  try {
    const detail = await body();
    console.log(`PASS ${name}${detail ? ` (${detail})` : ''}`);
    return true;
  } catch (e) {
    failed += 1;
    const why = e instanceof StepFailure ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    console.log(`FAIL ${name}: ${why}`);
    return false;
  }
}

/** What the generated client put on the wire for the token requests. */
type Sent = { contentType: string | null; authorization: string | null; body: string };
let lastSent: Sent | undefined;
const recordSent = async (request: Request): Promise<Request> => {
  lastSent = {
    contentType: request.headers.get('content-type'),
    authorization: request.headers.get('authorization'),
    body: await request.clone().text(),
  };
  return request;
};

function checkToken(token: TokenResponse): void {
  expect(token.token_type === 'Bearer', `token_type ${JSON.stringify(token.token_type)}`);
  const mode = clientId?.startsWith('cid_test_') ? 'test' : 'live';
  expect(token.mode === mode, `mode ${JSON.stringify(token.mode)}, expected "${mode}" for client ${clientId}`);
  expect(typeof token.access_token === 'string' && token.access_token.length > 20, 'no access_token');
  expect(Number.isInteger(token.expires_in) && token.expires_in > 0, `expires_in ${token.expires_in}`);
  expect(token.scope.split(' ').includes('kyb:read'), `scope ${JSON.stringify(token.scope)} lacks kyb:read`);
  expect(Array.isArray(token.countries) && token.countries.includes('SE'), `countries ${JSON.stringify(token.countries)}`);
}

client.setConfig({ baseUrl });

let accessToken: string | undefined;

// --- token -------------------------------------------------------------------------------
// `issue_token` declares its body as application/x-www-form-urlencoded (the service takes JSON
// too, described but not declared); what is sent is recorded and checked.
client.interceptors.request.use(recordSent);

await step('token: client_secret_post (credentials in the body)', async () => {
  const outcome = await issueToken({
    body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
  });
  const token = answer(outcome, 200);
  checkToken(token);
  const modeHeader = outcome.response?.headers.get('idreg-mode');
  // `Idreg-Mode: test` on a test-mode answer; no such header on a live one.
  expect(modeHeader === (token.mode === 'test' ? 'test' : null), `Idreg-Mode header ${modeHeader}, body mode ${token.mode}`);
  expect(lastSent !== undefined, 'the request was not seen');
  expect(lastSent.authorization === null, 'an Authorization header was sent with credentials in the body');
  accessToken = token.access_token;
  return `sent as ${lastSent.contentType}; mode ${token.mode}, scope ${token.scope}`;
});

if (lastSent?.contentType?.startsWith('application/x-www-form-urlencoded')) {
  await step('token: body is form-encoded', async () => {
    const form = new URLSearchParams(lastSent?.body ?? '');
    expect(form.get('grant_type') === 'client_credentials', `grant_type in ${lastSent?.body}`);
    expect(form.get('client_id') === clientId, 'client_id not in the form body');
  });
} else {
  console.log(
    `NOTE token: the generated issueToken sends ${lastSent?.contentType ?? 'nothing'}, not a form:` +
      ' the document offers application/json for the token request body, which the generator prefers',
  );
}

// `client_basic` (type http, scheme basic) is the security requirement the generator kept for
// issue_token; the client's `auth` callback answers it with `id:secret`, which it base64-encodes
// into `Authorization: Basic ...`. (RFC 6749 §2.3.1 would form-encode id and secret first; the
// test credentials hold no character that changes.)
await step('token: client_secret_basic (HTTP Basic, client_basic scheme)', async () => {
  const token = answer(
    await issueToken({
      body: { grant_type: 'client_credentials' },
      auth: (scheme) => (scheme.type === 'http' && scheme.scheme === 'basic' ? `${clientId}:${clientSecret}` : undefined),
    }),
    200,
  );
  checkToken(token);
  expect(lastSent !== undefined, 'the request was not seen');
  const basic = lastSent.authorization?.match(/^Basic (.+)$/)?.[1];
  expect(basic !== undefined, `Authorization ${lastSent.authorization}`);
  expect(Buffer.from(basic, 'base64').toString() === `${clientId}:${clientSecret}`, 'Basic credentials are not id:secret');
  expect(!lastSent.body.includes(clientSecret), 'the secret was sent in the body too');
  return `sent as ${lastSent.contentType} with Authorization: Basic`;
});

client.interceptors.request.eject(recordSent);

if (accessToken === undefined) {
  console.log('FAIL walk: no access token, the other steps cannot run');
  process.exit(1);
}

// --- everything else with the bearer token -----------------------------------------------
// The `oauth2` scheme reaches the generated functions as an http bearer requirement; the
// client's `auth` callback supplies the token and the client writes `Authorization: Bearer`.
const bearer = accessToken;
client.setConfig({ auth: (scheme) => (scheme.scheme === 'bearer' ? bearer : undefined) });

let companySubjectId: string | undefined;
await step('resolve company (orgnr, with customer ref) -> subject_id', async () => {
  const resolved = answer(
    await resolveSubject({ body: { type: 'orgnr', value: COMPANY, ref: COMPANY_REF } }),
    200,
  );
  expect(SUBJECT_ID.test(resolved.subject_id), `subject_id ${resolved.subject_id}`);
  expect(IDENTIFIER_REF.test(resolved.identifier_ref), `identifier_ref ${resolved.identifier_ref}`);
  expect(Array.isArray(resolved.aliases), 'no aliases array');
  companySubjectId = resolved.subject_id;
  return resolved.subject_id;
});

await step('get subject by id', async () => {
  expect(companySubjectId !== undefined, 'no subject_id from the resolve step');
  const subject = answer(await getSubject({ path: { id: companySubjectId } }), 200);
  expect(subject.subject_id === companySubjectId, `subject_id ${subject.subject_id}`);
  expect(subject.kind === 'company', `kind ${subject.kind}`);
  expect(
    subject.identifiers.some((i) => i.type === 'orgnr' && i.country === 'SE' && IDENTIFIER_REF.test(i.identifier_ref)),
    `identifiers ${JSON.stringify(subject.identifiers)}`,
  );
  expect(subject.refs.some((r) => r.ref === COMPANY_REF), `refs ${JSON.stringify(subject.refs)} lack ${COMPANY_REF}`);
  checkEvidence(subject.evidence, 'subject');
  return `kind ${subject.kind}, refs ${subject.refs.map((r) => r.ref).join(',')}`;
});

let annualReportRef: string | undefined;
await step(`get company profile ${COMPANY}`, async () => {
  const envelope = answer(await getCompany({ path: { orgnr: COMPANY } }), 200);
  expect(typeof envelope.stale === 'boolean', `stale ${JSON.stringify(envelope.stale)}`);
  const company = envelope.data;
  expect(company.orgnr.replace(/\D/g, '').endsWith(COMPANY), `orgnr ${company.orgnr}`);
  expect(company.country === 'SE', `country ${company.country}`);
  expect(company.name.trim().length > 0, 'no name');
  expect(company.subject_id === companySubjectId, `subject_id ${company.subject_id}, resolved ${companySubjectId}`);
  checkEvidence(company.evidence, 'company');
  expect(
    company.latest_annual_report !== null,
    `latest_annual_report is null (unchecked: ${JSON.stringify(company.unchecked)})`,
  );
  expect(company.latest_annual_report.ref.length > 0, 'latest_annual_report.ref is empty');
  annualReportRef = company.latest_annual_report.ref;
  return `${company.name}, stale ${envelope.stale}, annual report ${company.latest_annual_report.year} -> ${annualReportRef}`;
});

await step('get document by latest_annual_report.ref', async () => {
  expect(annualReportRef !== undefined, 'no annual report ref from the company step');
  const envelope = answer(await getDocument({ path: { id: annualReportRef } }), 200);
  expect(typeof envelope.stale === 'boolean', `stale ${JSON.stringify(envelope.stale)}`);
  const document = envelope.data;
  expect(document.document_id === annualReportRef, `document_id ${document.document_id}`);
  expect(document.subject_id === companySubjectId, `subject_id ${document.subject_id}`);
  expect(document.content_type.length > 0 && document.filename.length > 0, 'no content_type or filename');
  const bytes = Buffer.from(document.content_base64, 'base64');
  expect(bytes.length > 0, 'empty content');
  if (document.content_type === 'application/zip') {
    expect(bytes.subarray(0, 4).toString('latin1') === 'PK\x03\x04', 'application/zip content is not a zip');
  }
  checkEvidence(document.evidence, 'document');
  return `${document.filename}, ${document.content_type}, ${bytes.length} bytes`;
});

let personRef: string | undefined;
let personSubjectId: string | undefined;
await step('resolve person (personnummer) -> identifier_ref', async () => {
  const resolved = answer(await resolveSubject({ body: { type: 'personnummer', value: PERSON } }), 200);
  expect(IDENTIFIER_REF.test(resolved.identifier_ref), `identifier_ref ${resolved.identifier_ref}`);
  expect(SUBJECT_ID.test(resolved.subject_id), `subject_id ${resolved.subject_id}`);
  expect(resolved.subject_id !== companySubjectId, 'the person resolved to the company subject');
  personRef = resolved.identifier_ref;
  personSubjectId = resolved.subject_id;
  return resolved.identifier_ref;
});

await step('get person profile by identifier_ref', async () => {
  expect(personRef !== undefined, 'no identifier_ref from the resolve step');
  const envelope = answer(await getPersonProfile({ path: { ref: personRef } }), 200);
  expect(envelope.stale === false, `stale ${JSON.stringify(envelope.stale)} (documented as always false)`);
  const person = envelope.data;
  expect(person.subject_id === personSubjectId, `subject_id ${person.subject_id}, resolved ${personSubjectId}`);
  expect(person.country === 'SE', `country ${person.country}`);
  expect(person.birth_date === null || person.birth_date.startsWith('1957-04-13'), `birth_date ${person.birth_date}`);
  const names = person.names;
  expect(Boolean(names.given_name || names.surname), `names ${JSON.stringify(names)}`);
  checkEvidence(person.evidence, 'person');
  return `${names.given_name ?? ''} ${names.surname ?? ''}`.trim();
});

let checkId: string | undefined;
let checkBand: string | undefined;
await step('screening check (ad hoc name, birth date, nationality): 201', async () => {
  const check = answer(await screenSubject({ body: SCREENED }), 201);
  expect(CHECK_ID.test(check.id), `id ${check.id}`);
  expect(['clear', 'review', 'hit'].includes(check.band), `band ${check.band}`);
  expect(check.input_kind === 'adhoc', `input_kind ${check.input_kind}`);
  expect(check.subject_id === null, `subject_id ${check.subject_id}`);
  expect(check.candidates.length > 0, `no candidates (band ${check.band})`);
  expect(check.candidate_count >= check.candidates.length, `candidate_count ${check.candidate_count}`);
  for (const candidate of check.candidates) {
    expect(['clear', 'review', 'hit'].includes(candidate.band), `candidate band ${candidate.band}`);
    expect(candidate.score >= 0 && candidate.score <= 1, `candidate score ${candidate.score}`);
    expect(candidate.source_id.length > 0 && candidate.entity_id.length > 0, 'candidate without source or entity');
  }
  const best = check.candidates[0];
  expect(best !== undefined, 'no first candidate');
  checkId = check.id;
  checkBand = check.band;
  return `${check.id}, band ${check.band}, ${check.candidate_count} candidate(s), best ${best.source_id} ${best.score}`;
});

await step('get screening check by id', async () => {
  expect(checkId !== undefined, 'no check id from the screening step');
  const check = answer(await getScreeningCheck({ path: { id: checkId } }), 200);
  expect(check.id === checkId, `id ${check.id}`);
  expect(check.band === checkBand, `band ${check.band}, was ${checkBand}`);
  expect(check.candidates.length > 0, 'no candidates');
  return `band ${check.band}`;
});

await step('list events from cursor 0', async () => {
  const page = answer(await listEvents({ query: { cursor: '0' } }), 200);
  expect(Array.isArray(page.events), 'no events array');
  expect(Number.isInteger(page.next_cursor) && page.next_cursor >= 0, `next_cursor ${page.next_cursor}`);
  // A tenant's log holds monitoring's events (a fresh demo tenant may have none yet); with
  // nothing beyond the cursor, next_cursor is the cursor asked with.
  let previous = 0;
  for (const event of page.events) {
    expect(event.seq > previous, `seq ${event.seq} after ${previous}`);
    expect(typeof event.type === 'string' && event.type.length > 0, 'event without type');
    expect(!Number.isNaN(Date.parse(event.recorded_at)), `event ${event.seq}: recorded_at ${event.recorded_at}`);
    checkEvidence(event.evidence, `event ${event.seq}`);
    previous = event.seq;
  }
  expect(page.next_cursor === previous || page.next_cursor > previous, `next_cursor ${page.next_cursor} before the last seq ${previous}`);
  if (page.events.length === 0) expect(page.next_cursor === 0, `an empty page from cursor 0 with next_cursor ${page.next_cursor}`);
  const types = [...new Set(page.events.map((e) => e.type))].join(',');
  return `${page.events.length} event(s)${types ? ` [${types}]` : ''}, next_cursor ${page.next_cursor}`;
});

await step('get usage', async () => {
  const usage = answer(await getUsage(), 200);
  expect(/^\d{4}-\d{2}-\d{2}$/.test(usage.day), `day ${usage.day}`);
  expect(usage.time_zone.length > 0, 'no time_zone');
  expect(!Number.isNaN(Date.parse(usage.resets_at)), `resets_at ${usage.resets_at}`);
  expect(usage.reset_seconds >= 0, `reset_seconds ${usage.reset_seconds}`);
  const lookups = usage.person_lookups;
  expect(lookups.used >= 1, `person_lookups.used ${lookups.used} though the walk read a person`);
  expect(lookups.used + lookups.remaining === lookups.limit, `person_lookups ${JSON.stringify(lookups)}`);
  const onDemand = usage.paid_calls.on_demand;
  expect(onDemand.used + onDemand.remaining === onDemand.limit, `paid_calls.on_demand ${JSON.stringify(onDemand)}`);
  for (const quota of usage.quotas) {
    expect(quota.remaining >= 0 && quota.remaining <= quota.quota, `quota ${JSON.stringify(quota)}`);
  }
  const lookupQuota = usage.quotas.find((q) => q.policy === 'person_lookups');
  expect(lookupQuota !== undefined, `no person_lookups quota in ${JSON.stringify(usage.quotas)}`);
  expect(lookupQuota.remaining === lookups.remaining, `quota ${lookupQuota.remaining} vs person_lookups ${lookups.remaining}`);
  return `${usage.day} ${usage.time_zone}, person lookups ${lookups.used}/${lookups.limit}`;
});

if (failed > 0) {
  console.log(`FAIL: ${failed} step(s)`);
  process.exit(1);
}
console.log('PASS: all');
