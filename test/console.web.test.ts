import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"
import * as NodePath from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as ConsoleWeb from "../src/console/web/Serve.js"
import { customerBody, startTestApp, type TestApp } from "./support/TestApp.js"
import { eventually, type Receiver, startReceiver } from "./support/WebhookReceiver.js"

/**
 * The web console (/console, docs/console.md "The web console") in headless Chromium against a running sandbox: a
 * business's whole journey from sign-up to sign-out, the key shown once and used on the partner API, the webhook and
 * a replay, the lockout in words, keyboard-only sign-in, an axe-core scan of every page, the page's security headers
 * and cookies, and not one request to another origin. One server and one browser for the file (contexts are cheap).
 *
 * Screenshots of each page at 1280 and 390 px go to .tmp/console-screenshots/, or to docs/console/ with
 * UPDATE_SCREENSHOTS=1 (what docs/console.md shows). Needs Debian's /usr/bin/chromium, as test/docs.page.test.ts.
 */

const chromiumPath = "/usr/bin/chromium"
const installed = NodeFs.existsSync(chromiumPath)
const underCi = process.env.CI === "true"
const skip = !installed && !underCi
if (skip) console.warn(`test/console.web.test.ts skipped: ${chromiumPath} is not installed (apt-get install chromium)`)

const root = NodePath.resolve(__dirname, "..")
const shotsDir = process.env.UPDATE_SCREENSHOTS === "1" ? NodePath.join(root, "docs", "console") : NodePath.join(root, ".tmp", "console-screenshots")
const axeSource = NodeFs.readFileSync(NodePath.join(root, "node_modules", "axe-core", "axe.min.js"), "utf8")

const password = "plum-orbit-kettle-42"
const company = {
  legalName: "Obi Payments Ltd",
  registrationNumber: "RC 1234567",
  country: "NG",
  address: "12 Marina Road, Lagos",
  website: "https://obipay.example.com",
  contactEmail: "compliance@obipay.example.com"
}

interface AxeViolation {
  readonly id: string
  readonly impact: string | null
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<string> }>
}

describe.skipIf(skip)(skip ? `the web console (skipped: no ${chromiumPath})` : "the web console in Chromium", () => {
  let app: TestApp
  let receiver: Receiver
  let browser: Browser
  let origin: string
  const foreign: Array<string> = []
  const pageErrors: Array<string> = []

  beforeAll(async () => {
    if (!installed) throw new Error(`${chromiumPath} is missing: under CI the web console must be checked (.ci/run installs Debian's chromium)`)
    ;[app, receiver, browser] = await Promise.all([
      startTestApp(),
      startReceiver(),
      chromium.launch({
        executablePath: chromiumPath,
        headless: true,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
      })
    ])
    origin = new URL(app.baseUrl).origin
    NodeFs.mkdirSync(shotsDir, { recursive: true })
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await receiver?.close()
    await app?.close()
    // Checked once every test has run: whatever a page did, it asked nothing of another origin and broke no policy.
    expect(foreign).toEqual([])
    expect(pageErrors).toEqual([])
  })

  const newContext = async (width: number): Promise<BrowserContext> => {
    const context = await browser.newContext({ viewport: { width, height: 900 }, permissions: ["clipboard-read", "clipboard-write"] })
    context.setDefaultTimeout(15_000)
    context.on("request", (request) => {
      const url = request.url()
      if (!url.startsWith("data:") && new URL(url).origin !== origin) foreign.push(url)
    })
    context.on("page", (page) => {
      page.on("console", (message) => {
        // Refusals the page shows (400, 401, 429) log "Failed to load resource"; a policy violation or a crash is a failure.
        if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) pageErrors.push(message.text())
      })
      page.on("pageerror", (error) => pageErrors.push(String(error)))
    })
    return context
  }

  const openConsole = async (context: BrowserContext, hash = "") => {
    const page = await context.newPage()
    await page.goto(`${origin}/console${hash}`)
    await page.locator("h1").waitFor()
    return page
  }

  /** axe-core on the page as it is: no serious or critical violation. Evaluated (not a script tag: the CSP forbids inline scripts). */
  const scan = async (page: Page, name: string) => {
    if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(axeSource)
    const violations = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run: (options: object) => Promise<{ violations: Array<AxeViolation> }> } }).axe
      const result = await axe.run({ resultTypes: ["violations"] })
      return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, nodes: violation.nodes.map((node) => ({ target: node.target })) }))
    })
    const grave = violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    expect(grave, `${name}: ${JSON.stringify(grave)}`).toEqual([])
  }

  const shoot = (page: Page, name: string) => page.screenshot({ path: NodePath.join(shotsDir, `${name}.png`), fullPage: true })

  const heading = (page: Page, text: string) => page.getByRole("heading", { level: 1, name: text }).waitFor()

  it("serves the page with its policy: same-origin scripts and styles only, no framing, no sniffing", async () => {
    for (const path of [ConsoleWeb.paths.page, ConsoleWeb.paths.script, ConsoleWeb.paths.style]) {
      const response = await fetch(origin + path)
      expect(response.status, path).toBe(200)
      const policy = response.headers.get("content-security-policy") ?? ""
      expect(policy).toContain("script-src 'self'")
      expect(policy).toContain("style-src 'self'")
      expect(policy).toContain("frame-ancestors 'none'")
      expect(policy).not.toContain("unsafe-inline")
      expect(policy).not.toContain("unsafe-eval")
      expect(response.headers.get("x-content-type-options")).toBe("nosniff")
      const body = await response.text()
      if (path === ConsoleWeb.paths.page) {
        expect(response.headers.get("content-type")).toContain("text/html")
        expect(body).toContain('<meta name="pmm-mode" content="sandbox">')
        // Nothing inline: the one script and the one stylesheet are files of this origin.
        expect(body).not.toMatch(/<script(?![^>]*\bsrc=)/)
        expect(body).not.toContain("<style")
        expect(body).not.toMatch(/https?:\/\//)
      }
    }
    expect((await fetch(origin + ConsoleWeb.paths.script)).headers.get("content-type")).toContain("javascript")
    expect(ConsoleWeb.pageHtml("production")).toContain('content="production"')
    // A path under /console that is not the page: the API's own 404.
    expect((await fetch(`${origin}/console/nothing.js`)).status).toBe(404)
  })

  it("takes a business from sign-up to sign-out: company, KYB approved, a key used once shown, a webhook and a replay", async () => {
    const context = await newContext(1280)
    const page = await openConsole(context)
    await heading(page, "Sign in")
    await scan(page, "sign-in")
    await shoot(page, "sign-in-1280")

    await page.getByRole("link", { name: "Create an account" }).click()
    await heading(page, "Create an account")
    await page.getByLabel("Company name").fill("Obi Payments")
    await page.getByLabel("Email").fill("owner@obipay.example.com")
    // The password rule's message next to its field.
    await page.getByLabel("Password").fill("short")
    await page.getByRole("button", { name: "Create account" }).click()
    await expect.poll(() => page.locator("#password-error").innerText()).toContain("must be 12 to 128 characters")
    expect(await page.getByLabel("Password").getAttribute("aria-invalid")).toBe("true")
    await page.getByRole("alert").filter({ hasText: "Please correct" }).waitFor()
    await scan(page, "sign-up (refused)")
    await shoot(page, "sign-up-1280")
    await page.getByLabel("Password").fill(password)
    await page.getByRole("button", { name: "Create account" }).click()

    await heading(page, "Company and KYB")
    await page.getByText("Draft: fill in the company details").waitFor()
    // The rules' messages next to their fields, from the 400's details.fields.
    await page.getByLabel("Legal name").fill(company.legalName)
    await page.getByLabel("Registration number").fill(company.registrationNumber)
    await page.getByLabel("Country").fill("Nigeria")
    await page.getByLabel("Registered address").fill(company.address)
    await page.getByLabel("Website (optional)").fill("http://obipay.example.com")
    await page.getByLabel("Compliance contact email").fill(company.contactEmail)
    await page.getByRole("button", { name: "Save company details" }).click()
    await page.locator("#country-error").waitFor()
    expect(await page.locator("#website-error").innerText()).toContain("https://")
    expect(await page.getByLabel("Country").getAttribute("aria-invalid")).toBe("true")
    await scan(page, "company (refused)")
    await page.getByLabel("Country").fill(company.country)
    await page.getByLabel("Website (optional)").fill(company.website)
    await page.getByRole("button", { name: "Save company details" }).click()
    await page.getByRole("status").filter({ hasText: "Company details saved." }).waitFor()
    await shoot(page, "company-1280")

    await page.getByRole("button", { name: "Submit KYB for review" }).click()
    await page.getByText("Under review by compliance").waitFor()
    await page.getByRole("heading", { name: "Compliance's decision (sandbox)" }).waitFor()
    await scan(page, "company (under review)")
    await page.getByLabel("Approve").check()
    await page.getByRole("button", { name: "Record decision" }).click()
    await page.getByText("Approved: you can take your API key").waitFor()
    await shoot(page, "company-approved-1280")

    await page.getByRole("link", { name: "API keys" }).click()
    await heading(page, "API keys")
    await page.getByText("earlier keys stop working at once").waitFor()
    await page.getByRole("button", { name: "Issue an API key" }).click()
    const keyField = page.getByLabel("API key", { exact: true })
    await keyField.waitFor()
    const apiKey = await keyField.inputValue()
    expect(apiKey).toMatch(/^sk_sandbox_/)
    await page.getByText("Shown only once.").waitFor()
    await page.getByRole("button", { name: "Copy key" }).click()
    await page.getByText("Copied to the clipboard.").waitFor()
    expect(await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())).toBe(apiKey)
    await scan(page, "keys (new key)")
    await shoot(page, "keys-1280")
    // The key works on the partner API.
    const customers = await app.request("GET", "/partner/v1/customers", { apiKey })
    expect(customers.status).toBe(200)

    await page.getByRole("link", { name: "Webhook" }).click()
    await heading(page, "Webhook")
    // Shown once: back on the keys page the key is gone; the list shows its prefix.
    await page.getByRole("link", { name: "API keys" }).click()
    await heading(page, "API keys")
    await page.getByRole("region", { name: "API keys" }).waitFor()
    expect(await page.getByLabel("API key", { exact: true }).count()).toBe(0)
    const rowText = await page.getByRole("region", { name: "API keys" }).innerText()
    expect(rowText).toContain("ACTIVE")
    expect(rowText).toContain(apiKey.slice(0, 12))
    expect(await page.locator("body").innerText()).not.toContain(apiKey)

    await page.getByRole("link", { name: "Webhook" }).click()
    await heading(page, "Webhook")
    await page.getByRole("textbox", { name: "URL" }).fill(receiver.url)
    await page.getByRole("button", { name: "Save URL" }).click()
    await page.locator("#test-result").filter({ hasText: "delivered, answered HTTP 200" }).waitFor()
    expect(await page.getByRole("textbox", { name: "Secret" }).inputValue()).toMatch(/^whsec_/)
    expect(receiver.received.some((delivery) => delivery.type === "webhook.test")).toBe(true)
    const deliveries = page.getByRole("region", { name: "Webhook deliveries" })
    await deliveries.getByText("webhook.test").waitFor()
    expect(await deliveries.innerText()).toContain("DELIVERED")
    await deliveries.getByRole("button", { name: /View the payload of webhook\.test/ }).click()
    await page.getByLabel("Payload JSON").filter({ hasText: '"type": "webhook.test"' }).waitFor()
    await scan(page, "webhook")
    await shoot(page, "webhook-1280")
    const before = receiver.received.length
    await deliveries.getByRole("button", { name: /Replay webhook\.test/ }).click()
    await page.getByRole("status").filter({ hasText: "Replayed webhook.test" }).waitFor()
    await eventually(async () => (receiver.received.length > before ? true : undefined), "the replayed delivery")

    await page.getByRole("link", { name: "Sandbox" }).click()
    await heading(page, "Sandbox")
    await page.locator("#clock-now").filter({ hasText: "Now:" }).waitFor()
    const clockBefore = await page.locator("#clock-now").innerText()
    await page.getByRole("button", { name: "+1 day" }).click()
    await expect.poll(() => page.locator("#clock-now").innerText()).not.toBe(clockBefore)
    // A funding charge waiting for its payer: a pending operation, settled from the page with the key of this visit.
    const customer = await app.request("POST", "/partner/v1/customers", { apiKey, body: customerBody() })
    expect(customer.status).toBe(201)
    const charge = await app.request("POST", `/partner/v1/customers/${customer.body.data.id}/funding/charge`, { apiKey, body: { amount: 50000 } })
    expect(charge.status).toBe(201)
    await page.getByRole("button", { name: "Refresh the list" }).click()
    const operations = page.getByRole("region", { name: "Operations, newest first" })
    await operations.waitFor()
    await scan(page, "sandbox")
    await shoot(page, "sandbox-1280")
    await operations.getByRole("button").first().click()
    await page.getByRole("status").filter({ hasText: `done for funding_charge ${charge.body.data.id}` }).waitFor()
    await page.getByText("No pending operation.").waitFor()

    // The refresh cookie: HttpOnly, SameSite=Strict, only for the refresh route; not Secure on loopback.
    const cookies = await context.cookies(origin + "/api/v1/partner/token/refresh")
    const refresh = cookies.find((cookie) => cookie.name === "pmm_console_refresh")
    expect(refresh).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/api/v1/partner/token/refresh", secure: false })
    expect(cookies.find((cookie) => cookie.name === "pmm_console_csrf")).toMatchObject({ httpOnly: false, sameSite: "Strict", path: "/" })
    expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).not.toContain("pmm_console_refresh")
    // A reload keeps the session: the access token was in memory only, the cookie refreshes it.
    await page.reload()
    await heading(page, "Sandbox")
    await page.getByText("owner@obipay.example.com").waitFor()

    await page.getByRole("button", { name: "Sign out" }).click()
    await heading(page, "Sign in")
    const after = await context.cookies(origin + "/api/v1/partner/token/refresh")
    expect(after.filter((cookie) => cookie.name === "pmm_console_refresh" && cookie.value !== "")).toEqual([])
    await page.reload()
    await heading(page, "Sign in")
    await context.close()
  }, 40_000)

  it("refuses a cookie refresh without the CSRF header, and answers a body refresh as before", async () => {
    const signedUp = await app.request("POST", "/partner/sign-up", { body: { email: "csrf@obipay.example.com", password, companyName: "Csrf Ltd" } })
    expect(signedUp.status).toBe(201)
    const setCookies = signedUp.headers.getSetCookie()
    const refreshCookie = setCookies.find((cookie) => cookie.startsWith("pmm_console_refresh="))!
    const csrfCookie = setCookies.find((cookie) => cookie.startsWith("pmm_console_csrf="))!
    expect(refreshCookie).toMatch(/HttpOnly/)
    expect(refreshCookie).toMatch(/SameSite=Strict/)
    expect(refreshCookie).toMatch(/Path=\/api\/v1\/partner\/token\/refresh/)
    expect(refreshCookie).not.toMatch(/Secure/)
    const pair = (cookie: string) => cookie.slice(0, cookie.indexOf(";"))
    const cookieHeader = `${pair(refreshCookie)}; ${pair(csrfCookie)}`
    const csrf = pair(csrfCookie).slice("pmm_console_csrf=".length)
    const without = await app.request("POST", "/partner/token/refresh", { body: {}, headers: { cookie: cookieHeader } })
    expect(without.status).toBe(401)
    // another token: its first character changed (to "x", or to "y" when it was "x": one token in 64 starts with "x")
    const other = (csrf.startsWith("x") ? "y" : "x") + csrf.slice(1)
    const wrong = await app.request("POST", "/partner/token/refresh", { body: {}, headers: { cookie: cookieHeader, "x-csrf-token": other } })
    expect(wrong.status).toBe(401)
    const right = await app.request("POST", "/partner/token/refresh", { body: {}, headers: { cookie: cookieHeader, "x-csrf-token": csrf } })
    expect(right.status).toBe(200)
    expect(right.body.data.accessToken).toEqual(expect.any(String))
    // The body's token (API clients) still works, and needs no header.
    const byBody = await app.request("POST", "/partner/token/refresh", { body: { refreshToken: right.body.data.refreshToken } })
    expect(byBody.status).toBe(200)
    // A host that is not loopback gets Secure cookies.
    // (node:http: fetch sends its own Host.)
    const remote = await new Promise<NodeHttp.IncomingMessage>((resolve, reject) => {
      const request = NodeHttp.request(`${app.baseUrl}/partner/sign-in`, {
        method: "POST",
        headers: { host: "console.example.com", "content-type": "application/json" }
      }, resolve)
      request.on("error", reject)
      request.end(JSON.stringify({ email: "csrf@obipay.example.com", password }))
    })
    remote.resume()
    expect(remote.statusCode).toBe(200)
    const remoteCookies = remote.headers["set-cookie"] ?? []
    expect(remoteCookies).toHaveLength(2)
    expect(remoteCookies.every((cookie) => /; Secure/.test(cookie))).toBe(true)
  })

  it("signs in with the keyboard alone, with a visible focus, and shows the lockout's wait in words", async () => {
    const email = "keys@obipay.example.com"
    expect((await app.request("POST", "/partner/sign-up", { body: { email, password, companyName: "Keys Ltd" } })).status).toBe(201)
    const context = await newContext(390)
    const page = await openConsole(context, "#/sign-in")
    await heading(page, "Sign in")
    await shoot(page, "sign-in-390")
    const focused = async () => page.evaluate(() => {
      const active = (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement
      return active?.id ?? ""
    })
    await page.keyboard.press("Tab")
    let guard = 0
    while ((await focused()) !== "email" && guard++ < 10) await page.keyboard.press("Tab")
    expect(await focused()).toBe("email")
    const outline = await page.locator("#email").evaluate((element) =>
      (globalThis as unknown as { getComputedStyle: (e: unknown) => { outlineStyle: string } }).getComputedStyle(element).outlineStyle)
    expect(outline).not.toBe("none")
    await page.keyboard.type(email)
    await page.keyboard.press("Tab")
    expect(await focused()).toBe("password")
    // Five wrong passwords, then the lock, even with the right one: in words, announced.
    for (let attempt = 0; attempt < 5; attempt++) {
      await page.locator("#password").fill(`wrong-password-${attempt}`)
      await page.keyboard.press("Enter")
      await page.getByRole("alert").filter({ hasText: /The email or the password is wrong|Too many attempts/ }).waitFor()
      await page.getByRole("button", { name: "Sign in" }).and(page.locator(":not([disabled])")).waitFor()
    }
    await page.locator("#password").fill(password)
    await page.keyboard.press("Enter")
    const alert = page.getByRole("alert").filter({ hasText: "Too many attempts, try again in" })
    await alert.waitFor()
    expect(await alert.innerText()).toMatch(/Too many attempts, try again in \d+ seconds \(about 15 minutes\)/)
    await scan(page, "sign-in (locked)")
    await shoot(page, "sign-in-locked-390")

    // Another account signs in by keyboard alone: type, Tab, type, Enter.
    const other = "keyboard@obipay.example.com"
    expect((await app.request("POST", "/partner/sign-up", { body: { email: other, password, companyName: "Keyboard Ltd" } })).status).toBe(201)
    await page.locator("#email").focus()
    await page.locator("#email").fill("")
    await page.keyboard.type(other)
    await page.keyboard.press("Tab")
    await page.keyboard.type(password)
    await page.keyboard.press("Enter")
    await heading(page, "Company and KYB")
    await shoot(page, "company-390")
    await scan(page, "company (390 px)")
    for (const [link, title, shot] of [["API keys", "API keys", "keys-390"], ["Webhook", "Webhook", "webhook-390"], ["Sandbox", "Sandbox", "sandbox-390"]] as const) {
      await page.getByRole("link", { name: link }).click()
      await heading(page, title)
      await page.waitForLoadState("networkidle")
      await shoot(page, shot)
    }
    // Not approved: no key to take.
    await page.getByRole("link", { name: "API keys" }).click()
    await page.getByText("Your API key is available once compliance approves your KYB").waitFor()
    expect(await page.getByRole("button", { name: /Issue an API key/ }).count()).toBe(0)
    await scan(page, "keys (not approved)")
    await context.close()
  }, 30_000)

  it("shows no sandbox extras when the service says production", async () => {
    const context = await newContext(1280)
    // The production page (ConsoleWeb.pageHtml("production")) over this sandbox's API: the app hides its sandbox parts.
    await context.route(`${origin}/console`, (route) =>
      route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", headers: { "content-security-policy": ConsoleWeb.contentSecurityPolicy }, body: ConsoleWeb.pageHtml("production") }))
    const page = await openConsole(context)
    await heading(page, "Sign in")
    await page.getByLabel("Email").fill("keyboard@obipay.example.com")
    await page.getByLabel("Password").fill(password)
    await page.getByRole("button", { name: "Sign in" }).click()
    await heading(page, "Company and KYB")
    expect(await page.getByRole("link", { name: "Sandbox" }).count()).toBe(0)
    expect(await page.locator("body").innerText()).not.toContain("Sandbox")
    await context.close()
  })
})
