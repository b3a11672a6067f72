import { type FormEvent, useCallback, useEffect, useState } from "react"
import { selectTarget } from "./browser.js"
import { call, list } from "./client.js"
import type { ConsoleView, Delivery, DeliveryDetail, SecretIssued, WebhookConfig } from "./types.js"
import { Button, ErrorAlert, Field, StatusNote, TableRegion, useAction, when } from "./ui.js"

/** The webhook: its URL and secret (shown once), the test delivery's result, and the delivery log with replay. */

const Issued = ({ issued }: { readonly issued: SecretIssued }) => (
  <section aria-labelledby="secret-title" className="card highlight">
    <h2 id="secret-title">Signing secret</h2>
    <p className="warning"><strong>Shown only once.</strong> Keep it to verify each delivery's signature; the previous secret stopped working.</p>
    <label htmlFor="webhook-secret">Secret</label>
    <input id="webhook-secret" className="secret" readOnly value={issued.secret} onFocus={selectTarget} />
    <p id="test-result" className={issued.test.delivered ? "ok" : "warning"}>
      Test delivery (webhook.test) to {issued.url}: {issued.test.delivered
        ? `delivered, answered HTTP ${issued.test.statusCode ?? "?"}.`
        : `not delivered (${issued.test.error ?? (issued.test.statusCode === null ? "no answer" : `HTTP ${issued.test.statusCode}`)}); it is retried on the usual schedule.`}
    </p>
  </section>
)

const UrlForm = ({ config, onIssued }: { readonly config: WebhookConfig | undefined; readonly onIssued: (issued: SecretIssued) => void }) => {
  const [url, setUrl] = useState(config?.url ?? "")
  const action = useAction()
  const save = async (event: FormEvent) => {
    event.preventDefault()
    const issued = await action.run(() => call<SecretIssued>("POST", "/partner/update-webhook", { url }))
    if (issued !== undefined) onIssued(issued)
  }
  const rotate = async () => {
    const issued = await action.run(() => call<SecretIssued>("POST", "/partner/webhook/rotate-secret"))
    if (issued !== undefined) onIssued(issued)
  }
  return (
    <form onSubmit={save} noValidate aria-labelledby="url-title" className="card">
      <h2 id="url-title">Webhook URL</h2>
      <ErrorAlert message={action.error} />
      <p>Now: {config?.url ?? "not set"}{config?.updatedAt ? ` (since ${when(config.updatedAt)})` : ""}.</p>
      <Field id="url" label="URL" type="url" required hint="Where events are sent. Saving mints a new signing secret and sends a test event." value={url} onChange={setUrl} error={action.fields.url} />
      <div className="row">
        <Button type="submit" busy={action.busy}>Save URL</Button>
        {config?.url != null && <Button kind="secondary" onClick={rotate} busy={action.busy}>Rotate the secret</Button>}
      </div>
    </form>
  )
}

const answerOf = (delivery: Delivery) =>
  delivery.lastResponseStatus !== null ? `HTTP ${delivery.lastResponseStatus}` : delivery.lastError ?? "—"

const DeliveryRows = ({ items, onView, onReplay }: { readonly items: ReadonlyArray<Delivery>; readonly onView: (id: string) => void; readonly onReplay: (id: string) => void }) => (
  <TableRegion label="Webhook deliveries">
    <table>
      <caption className="visually-hidden">Webhook deliveries, newest first</caption>
      <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Next attempt</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
      <tbody>
        {items.map((delivery) => (
          <tr key={delivery.id}>
            <td>{delivery.type}</td>
            <td><span className={`badge badge-${delivery.status.toLowerCase()}`}>{delivery.status}</span></td>
            <td>{delivery.attempts}</td>
            <td>{answerOf(delivery)}</td>
            <td>{when(delivery.nextAttemptAt)}</td>
            <td>{when(delivery.createdAt)}</td>
            <td className="actions">
              <button type="button" className="button button-secondary" onClick={() => onView(delivery.id)} aria-label={`View the payload of ${delivery.type} ${delivery.id}`}>Payload</button>
              <button type="button" className="button button-secondary" onClick={() => onReplay(delivery.id)} aria-label={`Replay ${delivery.type} ${delivery.id}`}>Replay</button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </TableRegion>
)

const Deliveries = ({ version }: { readonly version: number }) => {
  const [items, setItems] = useState<ReadonlyArray<Delivery>>([])
  const [detail, setDetail] = useState<DeliveryDetail | undefined>(undefined)
  const [note, setNote] = useState<string | undefined>(undefined)
  const action = useAction()
  const load = useCallback(() =>
    action.run(() => list<Delivery>("/partner/webhook/deliveries?limit=50")).then((page) => page !== undefined && setItems(page.items)), [action.run])
  useEffect(() => {
    void load()
  }, [load, version])
  const view = async (id: string) => {
    const found = await action.run(() => call<DeliveryDetail>("GET", `/partner/webhook/deliveries/${id}`))
    if (found !== undefined) setDetail(found)
  }
  const replay = async (id: string) => {
    const replayed = await action.run(() => call<Delivery>("POST", `/partner/webhook/deliveries/${id}/replay`))
    if (replayed === undefined) return
    setNote(`Replayed ${replayed.type}: ${replayed.status}, next attempt ${when(replayed.nextAttemptAt)}.`)
    await load()
  }
  return (
    <section aria-labelledby="deliveries-title" className="card">
      <h2 id="deliveries-title">Deliveries</h2>
      <ErrorAlert message={action.error} />
      <StatusNote message={note} />
      <Button kind="secondary" onClick={() => void load()} busy={action.busy}>Refresh the list</Button>
      {items.length === 0 ? <p>No delivery yet.</p> : <DeliveryRows items={items} onView={view} onReplay={replay} />}
      {detail !== undefined && (
        <section aria-labelledby="payload-title" className="payload">
          <h3 id="payload-title">Payload of {detail.type}</h3>
          <pre tabIndex={0} aria-label="Payload JSON">{JSON.stringify(detail.payload, null, 2)}</pre>
          <Button kind="secondary" onClick={() => setDetail(undefined)}>Close the payload</Button>
        </section>
      )}
    </section>
  )
}

export const WebhookPage = ({ view }: { readonly view: ConsoleView }) => {
  const [config, setConfig] = useState<WebhookConfig | undefined>(undefined)
  const [issued, setIssued] = useState<SecretIssued | undefined>(undefined)
  const [version, setVersion] = useState(0)
  const action = useAction()
  useEffect(() => {
    void action.run(() => call<WebhookConfig>("GET", "/partner/webhook")).then((found) => found !== undefined && setConfig(found))
  }, [action.run, version])
  if (view.partner.kybStatus !== "APPROVED") {
    return <p className="card">The webhook can be set once compliance approves your KYB. See <a href="#/company">Company and KYB</a>.</p>
  }
  const onIssued = (next: SecretIssued) => {
    setIssued(next)
    setVersion((current) => current + 1)
  }
  return (
    <>
      <ErrorAlert message={action.error} />
      {issued !== undefined && <Issued issued={issued} />}
      {config !== undefined && <UrlForm key={config.url ?? ""} config={config} onIssued={onIssued} />}
      <Deliveries version={version} />
    </>
  )
}
