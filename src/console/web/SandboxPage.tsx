import { type FormEvent, useCallback, useEffect, useState } from "react"
import { call, list } from "./client.js"
import type { ClockReading, OperationAction, PendingOperation } from "./types.js"
import { Button, ErrorAlert, Field, StatusNote, TableRegion, useAction, when } from "./ui.js"

/**
 * Sandbox mode only: the partner's clock (read and advance) and the rails' pending operations, through the console's
 * sandbox routes. An operation's actions are the sandbox's own controls, which take an API key: the key taken in this
 * visit, or one pasted here (kept in this page's memory only).
 */

const presets = [
  { label: "1 minute", seconds: 60 },
  { label: "1 hour", seconds: 3600 },
  { label: "1 day", seconds: 86_400 }
] as const

const Clock = ({ onMoved }: { readonly onMoved: () => void }) => {
  const [reading, setReading] = useState<ClockReading | undefined>(undefined)
  const [seconds, setSeconds] = useState("3600")
  const action = useAction()
  useEffect(() => {
    void action.run(() => call<ClockReading>("GET", "/sandbox/console/clock")).then((found) => found !== undefined && setReading(found))
  }, [action.run])
  const advance = async (by: number) => {
    const next = await action.run(() => call<ClockReading>("POST", "/sandbox/console/clock/advance", { seconds: by }))
    if (next === undefined) return
    setReading(next)
    onMoved()
  }
  const submit = (event: FormEvent) => {
    event.preventDefault()
    void advance(Number(seconds))
  }
  return (
    <form onSubmit={submit} noValidate aria-labelledby="clock-title" className="card sandbox">
      <h2 id="clock-title">Your clock</h2>
      <ErrorAlert message={action.error} />
      <p role="status" id="clock-now">
        {reading === undefined ? "Reading the clock…" : `Now: ${when(reading.now)} (ahead of real time by ${Math.round(reading.offsetSeconds)} s).`}
      </p>
      <Field id="seconds" label="Advance by (seconds)" type="number" required hint="1 second to 400 days; jobs and webhook retries due by then run." value={seconds} onChange={setSeconds} error={action.fields.seconds} />
      <div className="row">
        <Button type="submit" busy={action.busy}>Advance the clock</Button>
        {presets.map((preset) => <Button key={preset.seconds} kind="secondary" busy={action.busy} onClick={() => void advance(preset.seconds)}>+{preset.label}</Button>)}
      </div>
    </form>
  )
}

const act = (action: OperationAction, apiKey: string, reason: string) =>
  call<unknown>(action.method, action.path.replace(/^\/api\/v1/, ""), action.reason === "required" ? { ...action.body, reason } : action.body ?? undefined, { apiKey })

const Operations = ({ apiKey, version }: { readonly apiKey: string; readonly version: number }) => {
  const [items, setItems] = useState<ReadonlyArray<PendingOperation>>([])
  const [reason, setReason] = useState("")
  const [note, setNote] = useState<string | undefined>(undefined)
  const action = useAction()
  const load = useCallback(() =>
    action.run(() => list<PendingOperation>("/sandbox/console/operations?limit=50")).then((page) => page !== undefined && setItems(page.items)), [action.run])
  useEffect(() => {
    void load()
  }, [load, version])
  const run = async (operation: PendingOperation, control: OperationAction) => {
    const done = await action.run(() => act(control, apiKey, reason))
    if (done === undefined) return
    setNote(`${control.label}: done for ${operation.kind} ${operation.id}.`)
    await load()
  }
  return (
    <section aria-labelledby="operations-title" className="card sandbox">
      <h2 id="operations-title">Pending rail operations</h2>
      <ErrorAlert message={action.error} />
      <StatusNote message={note} />
      <Field id="action-reason" label="Reason for a failing action" required={false} value={reason} onChange={setReason} />
      {apiKey === "" && <p className="hint">The actions need an API key: take one on the API keys page, or paste one above.</p>}
      <Button kind="secondary" onClick={() => void load()} busy={action.busy}>Refresh the list</Button>
      {items.length === 0 ? <p>No pending operation.</p> : (
        <TableRegion label="Operations, newest first">
          <table>
            <caption className="visually-hidden">Pending rail operations, newest first</caption>
            <thead><tr><th scope="col">What</th><th scope="col">Rail</th><th scope="col">Status</th><th scope="col">Due</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {items.map((operation) => (
                <tr key={operation.id}>
                  <td>{operation.summary}<br /><small>{operation.kind}</small></td>
                  <td>{operation.rail}</td>
                  <td>{operation.status}</td>
                  <td>{operation.dueAt === null ? "waits for an action" : when(operation.dueAt)}</td>
                  <td className="actions">
                    {operation.actions.map((control) => (
                      <button key={control.name} type="button" className="button button-secondary" disabled={apiKey === "" || action.busy} onClick={() => void run(operation, control)}>{control.label}</button>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </section>
  )
}

export const SandboxPage = ({ issuedKey }: { readonly issuedKey: string | undefined }) => {
  const [pasted, setPasted] = useState("")
  const [version, setVersion] = useState(0)
  const apiKey = pasted.trim() !== "" ? pasted.trim() : issuedKey ?? ""
  return (
    <>
      <Clock onMoved={() => setVersion((current) => current + 1)} />
      <section aria-labelledby="key-title" className="card sandbox">
        <h2 id="key-title">API key for the actions</h2>
        <p>{issuedKey !== undefined ? "The key you took in this visit is used, unless you paste another." : "Paste a sandbox API key to act on operations; it stays in this page's memory."}</p>
        <Field id="sandbox-key" label="Sandbox API key" type="password" required={false} autoComplete="off" value={pasted} onChange={setPasted} />
      </section>
      <Operations apiKey={apiKey} version={version} />
    </>
  )
}
