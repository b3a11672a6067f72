import { useCallback, useEffect, useRef, useState } from "react"
import { SignInPage, SignUpPage } from "./AuthPages.js"
import { browserDocument, browserWindow, type Focusable } from "./browser.js"
import { call, mayResume, refresh, setAccessToken, setSignedOutListener } from "./client.js"
import { CompanyPage } from "./CompanyPage.js"
import { KeysPage } from "./KeysPage.js"
import { SandboxPage } from "./SandboxPage.js"
import type { ConsoleView, Session } from "./types.js"
import { Button } from "./ui.js"
import { WebhookPage } from "./WebhookPage.js"

/**
 * The web console (docs/console.md "The web console"): hash routes (`#/company`, ...), so the service serves one page.
 * The sandbox extras appear only when the page says the service runs in sandbox mode.
 */

const sandbox = browserDocument().querySelector('meta[name="pmm-mode"]')?.getAttribute("content") === "sandbox"

const pages = {
  "sign-in": "Sign in",
  "sign-up": "Create an account",
  company: "Company and KYB",
  keys: "API keys",
  webhook: "Webhook",
  sandbox: "Sandbox"
} as const
type Route = keyof typeof pages
const signedInRoutes: ReadonlyArray<Route> = sandbox ? ["company", "keys", "webhook", "sandbox"] : ["company", "keys", "webhook"]

const routeOf = (hash: string): Route => {
  const name = hash.replace(/^#\/?/, "")
  return name in pages ? (name as Route) : "company"
}

const useRoute = () => {
  const [route, setRoute] = useState<Route>(routeOf(browserWindow().location.hash))
  useEffect(() => {
    const listener = () => setRoute(routeOf(browserWindow().location.hash))
    browserWindow().addEventListener("hashchange", listener)
    return () => browserWindow().removeEventListener("hashchange", listener)
  }, [])
  return route
}

const go = (route: Route) => {
  browserWindow().location.hash = `#/${route}`
}

/** The session: resumed from the refresh cookie on load, started by sign-in or sign-up, ended by sign-out. */
const useSession = () => {
  const [view, setView] = useState<ConsoleView | undefined>(undefined)
  const [phase, setPhase] = useState<"loading" | "out" | "in">("loading")
  const signedOut = useCallback(() => {
    setAccessToken(undefined)
    setView(undefined)
    setPhase("out")
  }, [])
  const load = useCallback(async () => {
    try {
      setView(await call<ConsoleView>("GET", "/partner/me"))
      setPhase("in")
    } catch {
      signedOut()
    }
  }, [signedOut])
  useEffect(() => {
    setSignedOutListener(signedOut)
    if (!mayResume()) return setPhase("out")
    void refresh().then((resumed) => (resumed ? load() : signedOut()))
  }, [load, signedOut])
  const start = async (session: Session) => {
    setAccessToken(session.accessToken)
    await load()
    go("company")
  }
  const end = async () => {
    try {
      await call("POST", "/partner/sign-out")
    } finally {
      signedOut()
      go("sign-in")
    }
  }
  return { view, setView, phase, start, end } as const
}

const Header = ({ view, onSignOut, route }: { readonly view: ConsoleView | undefined; readonly onSignOut: () => void; readonly route: Route }) => (
  <header className="top">
    <a className="skip" href="#main" onClick={(event) => { event.preventDefault(); browserDocument().getElementById("page-title")?.focus() }}>Skip to content</a>
    <div className="brand">Partner console {sandbox && <span className="badge badge-sandbox">Sandbox</span>}</div>
    {view !== undefined && (
      <>
        <nav aria-label="Console">
          <ul>
            {signedInRoutes.map((name) => (
              <li key={name}><a href={`#/${name}`} aria-current={route === name ? "page" : undefined}>{pages[name]}</a></li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>{view.partner.name} · {view.user.email}</span>
          <Button kind="secondary" onClick={onSignOut}>Sign out</Button>
        </div>
      </>
    )}
  </header>
)

export const App = () => {
  const route = useRoute()
  const session = useSession()
  const [issuedKey, setIssuedKey] = useState<string | undefined>(undefined)
  const title = useRef<HTMLHeadingElement>(null)
  const signedIn = session.phase === "in" && session.view !== undefined
  const shown: Route = signedIn
    ? (signedInRoutes.includes(route) ? route : "company")
    : (route === "sign-up" ? "sign-up" : "sign-in")
  useEffect(() => {
    browserDocument().title = `${pages[shown]} · Partner console`
    ;(title.current as Focusable | null)?.focus()
  }, [shown])
  const end = () => {
    setIssuedKey(undefined)
    void session.end()
  }
  return (
    <>
      <Header view={signedIn ? session.view : undefined} onSignOut={end} route={shown} />
      <main id="main">
        <h1 id="page-title" tabIndex={-1} ref={title}>{pages[shown]}</h1>
        {session.phase === "loading" && <p role="status">Loading…</p>}
        {session.phase === "out" && shown === "sign-in" && <SignInPage onSession={session.start} />}
        {session.phase === "out" && shown === "sign-up" && <SignUpPage onSession={session.start} />}
        {signedIn && shown === "company" && <CompanyPage view={session.view!} sandbox={sandbox} onView={session.setView} />}
        {signedIn && shown === "keys" && <KeysPage view={session.view!} onIssued={setIssuedKey} />}
        {signedIn && shown === "webhook" && <WebhookPage view={session.view!} />}
        {signedIn && shown === "sandbox" && <SandboxPage issuedKey={issuedKey} />}
      </main>
    </>
  )
}
