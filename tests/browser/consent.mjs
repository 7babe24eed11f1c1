// A person connecting an agent: the official MCP SDKs' redirect handlers run this with the
// authorization URL they would open in a browser. Headless Chromium from the machine's
// packages (playwright-core) opens it, follows idreg to the portal, signs EMAIL in through the
// sandbox's mailbox as a person reading their mail would, allows the connection on the consent
// page with what it offers, and waits until the browser reaches the app's redirect URI (the
// SDK's loopback listener). The consent page and the connected apps list are screenshotted and
// checked by axe-core (WCAG 2.1 A and AA) like every portal page.
//
// Usage: node consent.mjs <authorization URL>
// Environment: CHROMIUM, MAILBOX_URL, EMAIL, REDIRECT_PREFIX (where the browser must end),
// SHOTS (optional: where the screenshots go), PORTAL_URL (for the connected apps page),
// WITHHOLD (optional: scopes the person unticks, space-separated).

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
const url = process.argv[2];
if (!url) throw new Error("usage: node consent.mjs <authorization URL>");
const MAILBOX = env("MAILBOX_URL");
const EMAIL = env("EMAIL");
const REDIRECT = env("REDIRECT_PREFIX");
const SHOTS = process.env.SHOTS;
const PORTAL = process.env.PORTAL_URL;
if (SHOTS) mkdirSync(SHOTS, { recursive: true });

const browser = await chromium.launch({
  executablePath: env("CHROMIUM"),
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

async function check(page, name) {
  if (!SHOTS) return;
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  assert.deepEqual(violations, [], `accessibility of ${name}`);
}

async function mails() {
  const r = await fetch(`${MAILBOX}?to=${encodeURIComponent(EMAIL)}`);
  return (await r.json()).messages;
}

let page = null;
try {
  // bypassCSP: the portal's policy allows no script, and axe-core is injected to check pages.
  const context = await browser.newContext({ bypassCSP: true });
  page = await context.newPage();
  let reached = null;
  page.on("request", (r) => {
    if (r.isNavigationRequest() && r.url().startsWith(REDIRECT)) reached = r.url();
  });
  // The app's redirect URI is the SDK's listener; the browser must not need its answer.
  await page.route(`${REDIRECT}**`, async (route) => {
    reached = route.request().url();
    // Hand the code to the SDK's listener as the browser would, then show a blank page.
    try { await fetch(reached); } catch (e) { /* the listener may close at once */ }
    await route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>done</title>" });
  });
  await page.goto(url);
  // The portal moves a browser that came from another site on by itself; without a session
  // it asks for a sign-in.
  // From another site the portal's page moves the browser on by itself: to the consent page
  // with a live session, else to sign in.
  const where = await Promise.race([
    page.waitForURL((u) => u.pathname === "/sign-in").then(() => "sign-in"),
    page.locator("#client-name").waitFor().then(() => "consent"),
  ]);
  if (where === "sign-in") {
    const seen = (await mails()).length;
    await page.getByLabel("Email address").fill(EMAIL);
    await page.getByRole("button", { name: "Send me a sign-in link" }).click();
    await page.getByRole("status").waitFor();
    let link = null;
    for (let i = 0; i < 100 && !link; i++) {
      const all = await mails();
      if (all.length > seen) link = all[all.length - 1].text.match(/https?:\/\/\S+link=pl_\S+/)[0];
      else await new Promise((res) => setTimeout(res, 100));
    }
    assert.ok(link, `no mail reached ${EMAIL}`);
    await page.goto(link);
    await page.getByRole("button", { name: "Sign in" }).click();
  }
  await page.waitForURL(/\/connect\/ar_/);
  await page.locator("#client-name").waitFor();
  await check(page, "consent");
  for (const scope of (process.env.WITHHOLD ?? "").split(/\s+/).filter(Boolean)) {
    const box = page.locator(`input[name="scopes"][value="${scope}"]`);
    if (await box.count()) await box.uncheck();
  }
  await page.getByRole("button", { name: "Allow" }).click();
  for (let i = 0; i < 100 && !reached; i++) await new Promise((res) => setTimeout(res, 100));
  assert.ok(reached, `the browser never reached ${REDIRECT} (at ${page.url()})`);
  if (PORTAL) {
    await page.goto(`${PORTAL}/grants`);
    await page.locator(".connection").first().waitFor();
    await check(page, "connected-apps");
  }
  console.log(JSON.stringify({ reached: true }));
  await browser.close();
} catch (e) {
  console.error(e);
  if (page) console.error(`at ${page.url()}:\n${(await page.locator("main").innerText().catch(() => "")).slice(0, 2000)}`);
  await browser.close();
  process.exit(1);
}
