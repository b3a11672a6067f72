import { useCallback, useEffect, useState } from "react"
import { browserNavigator, selectTarget } from "./browser.js"
import { call } from "./client.js"
import type { ApiKeyView, ConsoleView } from "./types.js"
import { Button, ErrorAlert, StatusNote, TableRegion, useAction, when } from "./ui.js"

/**
 * The partner's API keys: the list (never a secret) and a new key, shown once in this page's memory until the person
 * leaves the page or hides it. Before KYB approval there is no key to take.
 */

const IssuedKey = ({ apiKey, onHide }: { readonly apiKey: string; readonly onHide: () => void }) => {
  const [copied, setCopied] = useState<string | undefined>(undefined)
  const copy = async () => {
    try {
      await browserNavigator().clipboard.writeText(apiKey)
      setCopied("Copied to the clipboard.")
    } catch {
      setCopied("The browser did not allow copying: select the key and copy it by hand.")
    }
  }
  return (
    <section aria-labelledby="new-key-title" className="card highlight">
      <h2 id="new-key-title">Your new API key</h2>
      <p className="warning"><strong>Shown only once.</strong> Store it now: it cannot be shown again. Every earlier key stopped working at once.</p>
      <label htmlFor="new-key">API key</label>
      <input id="new-key" className="secret" readOnly value={apiKey} onFocus={selectTarget} />
      <div className="row">
        <Button onClick={copy}>Copy key</Button>
        <Button kind="secondary" onClick={onHide}>I have stored it: hide the key</Button>
      </div>
      <StatusNote message={copied} />
    </section>
  )
}

const KeyTable = ({ keys }: { readonly keys: ReadonlyArray<ApiKeyView> }) =>
  keys.length === 0
    ? <p>No API key yet.</p>
    : (
      <TableRegion label="API keys">
        <table>
          <caption className="visually-hidden">API keys, newest first</caption>
          <thead><tr><th scope="col">Prefix</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Revoked</th></tr></thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id}>
                <td><code>{key.prefix}…</code></td>
                <td><span className={`badge badge-${key.status.toLowerCase()}`}>{key.status}</span></td>
                <td>{when(key.createdAt)}</td>
                <td>{key.lastUsedAt === null ? "Never" : when(key.lastUsedAt)}</td>
                <td>{when(key.revokedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
    )

export const KeysPage = ({ view, onIssued }: { readonly view: ConsoleView; readonly onIssued: (apiKey: string) => void }) => {
  const [keys, setKeys] = useState<ReadonlyArray<ApiKeyView>>([])
  const [issued, setIssued] = useState<string | undefined>(undefined)
  const action = useAction()
  const approved = view.partner.kybStatus === "APPROVED"
  const load = useCallback(() => action.run(() => call<ReadonlyArray<ApiKeyView>>("GET", "/partner/api-keys")).then((found) => found !== undefined && setKeys(found)), [action.run])
  useEffect(() => {
    void load()
  }, [load])
  const issue = async () => {
    const result = await action.run(() => call<{ apiKey: string; key: ApiKeyView }>("POST", "/partner/api-keys"))
    if (result === undefined) return
    setIssued(result.apiKey)
    onIssued(result.apiKey)
    await load()
  }
  const active = keys.some((key) => key.status === "ACTIVE")
  return (
    <>
      <ErrorAlert message={action.error} />
      {issued !== undefined && <IssuedKey apiKey={issued} onHide={() => setIssued(undefined)} />}
      <section aria-labelledby="take-key-title" className="card">
        <h2 id="take-key-title">{active ? "Rotate the API key" : "Take your API key"}</h2>
        {approved
          ? (
            <>
              <p className="warning">A new key replaces every earlier key: <strong>earlier keys stop working at once</strong>, so update your systems right after.</p>
              <Button onClick={issue} busy={action.busy}>{active ? "Rotate: issue a new key" : "Issue an API key"}</Button>
            </>
          )
          : <p>Your API key is available once compliance approves your KYB (stage now: {view.partner.kybStage.replace("_", " ")}). See <a href="#/company">Company and KYB</a>.</p>}
      </section>
      <section aria-labelledby="keys-title" className="card">
        <h2 id="keys-title">Keys</h2>
        <KeyTable keys={keys} />
      </section>
    </>
  )
}
