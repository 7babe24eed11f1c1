// The tenant portal in a real browser: headless Chromium from the machine's packages, driven
// by playwright-core. Run by the black-box test `portal_browser` (tests/blackbox/portal_browser.rs),
// which starts the service, makes the tenant and its two portal users, and reads what this
// prints (one JSON line) to check the audit trail afterwards.
//
// Environment: PORTAL_URL, API_URL, MAILBOX_URL (the sandbox's mailbox: JSON, or a page for a
// browser, whose link the script follows), CHROMIUM (the
// browser's path), SHOTS (where the screenshots go), ADMIN_EMAIL, MEMBER_EMAIL, LISTED_NAME
// (a name on the imported list), ASSISTANT_GRANT (a grant reading companies) and ORGNR (an
// active company the sandbox serves).
//
// Each step asserts what a person would see; any failure exits non-zero with the reason. Every
// page screenshotted is also checked by axe-core against WCAG 2.1 A and AA (labels, names,
// contrast, landmarks, ...): any violation fails the run.

import { chromium } from "playwright-core";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import assert from "node:assert/strict";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const PORTAL = env("PORTAL_URL");
const API = env("API_URL");
const MAILBOX = env("MAILBOX_URL");
const SHOTS = env("SHOTS");
const ADMIN = env("ADMIN_EMAIL");
const MEMBER = env("MEMBER_EMAIL");
const LISTED = env("LISTED_NAME");
const ASSISTANT_GRANT = env("ASSISTANT_GRANT");
const ORGNR = env("ORGNR");
mkdirSync(SHOTS, { recursive: true });

const browser = await chromium.launch({
  executablePath: env("CHROMIUM"),
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

let shot = 0;
async function screenshot(page, name) {
  shot += 1;
  const file = `${SHOTS}/${String(shot).padStart(2, "0")}-${name}.png`;
  await page.screenshot({ path: file, fullPage: true });
  await accessible(page, name);
}

/** axe-core's WCAG 2.1 A and AA rules on the page as shown: no violation. */
async function accessible(page, name) {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  assert.deepEqual(violations, [], `accessibility of ${name}`);
  checked += 1;
}
let checked = 0;

/** Opens the sandbox's mailbox page for `email` once a mail past the `seen` ones is there,
 *  and follows the newest mail's link, as a person reading their mail would. */
async function followMailedLink(page, email, seen, shots) {
  for (let i = 0; i < 50; i++) {
    if ((await mailCount(email)) > seen) {
      await page.goto(`${MAILBOX}?to=${encodeURIComponent(email)}`);
      if (shots) await screenshot(page, "mailbox");
      const link = page.locator("article").first().getByRole("link").first();
      const url = await link.getAttribute("href");
      assert.match(url, /\/sign-in\/complete\?link=pl_/);
      await link.click();
      await page.waitForURL(/\/sign-in\/complete/);
      return url;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`no mail reached ${email}`);
}

async function mailCount(email) {
  const r = await fetch(`${MAILBOX}?to=${encodeURIComponent(email)}`);
  return (await r.json()).messages.length;
}

/** Signs `email` in, in a fresh browser context (its own cookies): a phone-sized one when asked. */
async function signIn(email, { phone = false, shots = false } = {}) {
  // bypassCSP: the portal's policy allows no script, and axe-core is injected to check pages.
  const context = await browser.newContext({
    bypassCSP: true,
    ...(phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : {}),
  });
  const page = await context.newPage();
  const seen = await mailCount(email);
  await page.goto(`${PORTAL}/sign-in`);
  await page.getByLabel("Email address").fill(email);
  if (shots) await screenshot(page, "sign-in");
  await page.getByRole("button", { name: "Send me a sign-in link" }).click();
  await page.getByRole("status").waitFor();
  assert.match(await page.getByRole("status").innerText(), /sign-in link is on its way/);
  const url = await followMailedLink(page, email, seen, shots);
  if (shots) await screenshot(page, "sign-in-link");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${PORTAL}/grants`);
  return { context, page, url };
}

async function token(clientId, secret) {
  return fetch(`${API}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: secret,
    }),
  });
}

const out = {};

// 1. The admin signs in through the mailbox; the used link answers link_used.
const admin = await signIn(ADMIN, { shots: true });
const page = admin.page;
assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), "Grants");
assert.equal(await page.locator("#signed-in-as").innerText(), ADMIN, "the page names who is signed in");
const reused = await admin.context.newPage();
await reused.goto(admin.url);
await reused.getByRole("button", { name: "Sign in" }).click();
assert.equal(await reused.locator("#error-code").innerText(), "link_used");
await screenshot(reused, "link-used");
await reused.close();

// 2. A grant made in the portal, and its credentials used against the REST API.
await screenshot(page, "grants");
for (const scope of ["identity:read", "screening:run", "screening:read"]) {
  await page.getByRole("checkbox", { name: scope, exact: true }).first().check();
}
await page.getByRole("button", { name: "Create grant" }).click();
await page.locator("#client-secret").waitFor();
out.grant_id = await page.locator("#grant-id").innerText();
const clientId = await page.locator("#client-id").innerText();
const firstSecret = await page.locator("#client-secret").innerText();
await screenshot(page, "grant-secret");
let r = await token(clientId, firstSecret);
assert.equal(r.status, 200, "the new credentials mint a token");
let access = (await r.json()).access_token;
r = await fetch(`${API}/v1/screening/checks`, {
  method: "POST",
  headers: { authorization: `Bearer ${access}`, "content-type": "application/json" },
  body: JSON.stringify({ name: LISTED }),
});
assert.equal(r.status, 201, "a screening check through the new grant");
const check = await r.json();
out.check_id = check.id;
assert.ok(check.candidates.length > 0, "the listed name has candidates");

// 3. Rotating the secret: the old one fails at once, the new one works.
await page.goto(`${PORTAL}/grants`);
await page
  .locator(`article[data-grant="${out.grant_id}"]`)
  .getByRole("button", { name: "Rotate the secret" })
  .click();
await page.locator("#client-secret").waitFor();
const secondSecret = await page.locator("#client-secret").innerText();
assert.notEqual(secondSecret, firstSecret);
await screenshot(page, "rotated-secret");
r = await token(clientId, firstSecret);
assert.equal(r.status, 401, "the old secret fails");
assert.equal((await r.json()).error, "invalid_client");
r = await token(clientId, secondSecret);
assert.equal(r.status, 200, "the new secret works");

// 4. The screening check, read in the portal with its candidates and reasons.
await page.getByRole("link", { name: "Screening" }).click();
await page.getByRole("link", { name: out.check_id }).click();
assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), "Screening check");
assert.equal(await page.locator("#band").innerText(), check.band);
assert.equal(await page.locator("#policy-version").innerText(), check.policy_version_id);
assert.ok((await page.locator(".reasons li").count()) > 0, "reasons are shown");
await screenshot(page, "screening-check");
await page.goto(`${PORTAL}/screening`);
await screenshot(page, "screening");

// 5. The whitelist's four eyes: the admin proposes an entry from the check's first candidate
//    (the check page's own form), cannot approve their own entry; the member approves it on a
//    phone.
const candidate = check.candidates[0];
await page.goto(`${PORTAL}/screening/${out.check_id}`);
const first = page.locator("article.candidate").first();
await first.getByText("Not our customer? Propose a whitelist entry").click();
await first.getByLabel("Reason").fill("Not our customer: different person, checked by phone");
const expires = new Date(Date.now() + 30 * 86400e3).toISOString().slice(0, 10);
await first.getByLabel("Expires after (UTC)").fill(expires);
await screenshot(page, "whitelist-from-check");
await first.getByRole("button", { name: "Propose" }).click();
await page.waitForURL(`${PORTAL}/whitelist`);
const entry = page.locator("article.entry").first();
out.whitelist_id = await entry.getAttribute("data-entry");
assert.equal(await entry.locator(".state").innerText(), "proposed");
const card = await entry.innerText();
assert.ok(card.includes(`${candidate.source_id}:${candidate.source_entry_id}`), card);
assert.ok(card.includes(check.input_snapshot.input_hash), "an ad-hoc check's entry clears its input");
await screenshot(page, "whitelist-proposed");
await entry.getByRole("button", { name: "Approve" }).click();
assert.match(await page.locator("#error-message").innerText(), /four eyes/);
await screenshot(page, "whitelist-own-approval-refused");

const member = await signIn(MEMBER, { phone: true });
await member.page.getByRole("link", { name: "Whitelist" }).click();
const theirs = member.page.locator(`article[data-entry="${out.whitelist_id}"]`);
await theirs.getByRole("button", { name: "Approve" }).click();
await member.page.waitForURL(`${PORTAL}/whitelist`);
assert.equal(
  await member.page.locator(`article[data-entry="${out.whitelist_id}"] .state`).innerText(),
  "in effect",
);
await screenshot(member.page, "whitelist-approved-phone");
// A member manages no grants: the page has no form to make one.
await member.page.getByRole("link", { name: "Grants" }).click();
assert.equal(await member.page.getByRole("button", { name: "Create grant" }).count(), 0);
await screenshot(member.page, "grants-member-phone");

// 6. Usage, the audit log (filtered to the grant) and users.
await page.getByRole("link", { name: "Usage" }).click();
assert.match(await page.locator("#person-lookups").innerText(), /of/);
await screenshot(page, "usage");
await page.getByRole("link", { name: "Audit log" }).click();
await page.getByLabel("Grant", { exact: true }).selectOption(out.grant_id);
await page.getByRole("button", { name: "Filter" }).click();
const rows = await page.locator("#audit-rows tbody tr").allInnerTexts();
assert.ok(rows.some((t) => t.includes("/v1/screening/checks")), "the grant's request is logged");
assert.ok(rows.some((t) => t.includes("/grants/{id}/rotate")), "the rotation is logged");
await screenshot(page, "audit");
await page.getByRole("link", { name: "Users" }).click();
assert.equal(await page.locator("#users tbody tr").count(), 2);
await screenshot(page, "users");

// 6b. The assistant: a question whose answer streams in, with the tool it called and the
//     evidence it cites. Asked in a context that enforces the page's own content security
//     policy (the other pages are checked with it bypassed, to inject axe-core), so the
//     page's one script is proven to run under it; then the kept conversation is
//     axe-checked.
const strict = await browser.newContext();
await strict.addCookies(await page.context().cookies());
const ask = await strict.newPage();
const blocked = [];
ask.on("console", (m) => { if (/Content Security Policy/i.test(m.text())) blocked.push(m.text()); });
await ask.goto(`${PORTAL}/assistant`);
await ask.getByLabel("Under the grant").selectOption(ASSISTANT_GRANT);
await ask.getByRole("button", { name: "New conversation" }).click();
await ask.waitForURL(/\/assistant\?c=cv_/);
const conversationUrl = ask.url();
await ask.getByLabel("Your question").fill(`Is ${ORGNR} still active?`);
await ask.getByRole("button", { name: "Ask" }).click();
await ask.locator("#status", { hasText: "Answered." }).waitFor({ timeout: 30000 });
assert.equal(ask.url(), conversationUrl, "the answer streamed in: the page did not reload");
assert.equal(await ask.locator("#transcript").getAttribute("aria-busy"), "false");
const said = await ask.locator("#transcript").innerText();
assert.match(said, /Asked get_company_profile/);
assert.match(said, /Evidence: call_/);
assert.deepEqual(blocked, [], "the page's policy blocks nothing it serves");
await strict.close();
await page.goto(conversationUrl);
assert.match(await page.locator("#transcript").innerText(), /get_company_profile/);
await screenshot(page, "assistant");
await member.page.getByRole("link", { name: "Assistant" }).click();
assert.equal(await member.page.getByLabel("Under the grant").count(), 1);
await screenshot(member.page, "assistant-member-phone");

// 7. Keyboard: the skip link is the first stop and leads to the content.
await page.keyboard.press("Tab");
assert.equal(await page.evaluate(() => document.activeElement.textContent), "Skip to the content");

// 8. Signing out ends the session: the grants page sends the browser to sign in.
await page.getByRole("button", { name: "Sign out" }).click();
await page.waitForURL(`${PORTAL}/sign-in`);
await page.goto(`${PORTAL}/grants`);
assert.equal(new URL(page.url()).pathname, "/sign-in");

await browser.close();
out.accessibility_checked = checked;
console.log(JSON.stringify(out));
