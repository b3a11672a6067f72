import { type FormEvent, useState } from "react"
import { call } from "./client.js"
import type { Company, ConsoleView, KybStage } from "./types.js"
import { Button, ErrorAlert, Field, StatusNote, useAction, when } from "./ui.js"

/** The company details, KYB's stage and reason, the submission and (sandbox) compliance's decision. */

const stageWords: Record<KybStage, string> = {
  DRAFT: "Draft: fill in the company details, then submit them for review",
  UNDER_REVIEW: "Under review by compliance",
  APPROVED: "Approved: you can take your API key",
  REJECTED: "Rejected"
}

const emptyCompany: Company = { legalName: "", registrationNumber: "", country: "", address: "", website: "", contactEmail: "" }

const KybSummary = ({ view }: { readonly view: ConsoleView }) => (
  <section aria-labelledby="kyb-title" className="card">
    <h2 id="kyb-title">Verification (KYB)</h2>
    <dl className="facts">
      <dt>Stage</dt>
      <dd><span className={`badge badge-${view.partner.kybStage.toLowerCase()}`}>{view.partner.kybStage.replace("_", " ")}</span> {stageWords[view.partner.kybStage]}</dd>
      {view.partner.kybSubmittedAt !== null && <><dt>Submitted</dt><dd>{when(view.partner.kybSubmittedAt)}</dd></>}
      {view.partner.kybReason !== null && <><dt>Compliance's reason</dt><dd>{view.partner.kybReason}</dd></>}
    </dl>
  </section>
)

const CompanyForm = ({ view, onView }: { readonly view: ConsoleView; readonly onView: (view: ConsoleView) => void }) => {
  const [company, setCompany] = useState<Company>({ ...emptyCompany, ...view.partner.company })
  const [saved, setSaved] = useState<string | undefined>(undefined)
  const action = useAction()
  const editable = view.partner.kybStage === "DRAFT"
  const set = (key: keyof Company) => (value: string) => setCompany((current) => ({ ...current, [key]: value }))
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setSaved(undefined)
    const { website, ...rest } = company
    const body = website === undefined || website.trim() === "" ? rest : { ...rest, website: website.trim() }
    const next = await action.run(() => call<ConsoleView>("PUT", "/partner/company", body))
    if (next !== undefined) {
      onView(next)
      setSaved("Company details saved.")
    }
  }
  const field = (key: keyof Company, label: string, extra: Partial<Parameters<typeof Field>[0]> = {}) => (
    <Field id={key} label={label} required value={company[key] ?? ""} onChange={set(key)} error={action.fields[key]} disabled={!editable} {...extra} />
  )
  return (
    <form onSubmit={submit} noValidate aria-labelledby="company-title" className="card">
      <h2 id="company-title">Company details</h2>
      {!editable && <p className="hint">The details can be changed only while KYB is a draft.</p>}
      <ErrorAlert message={action.error} />
      <StatusNote message={saved} />
      {field("legalName", "Legal name", { autoComplete: "organization" })}
      {field("registrationNumber", "Registration number", { hint: "As on the certificate of incorporation, e.g. RC 1234567." })}
      {field("country", "Country", { hint: "Two letters (ISO 3166), e.g. NG.", autoComplete: "country" })}
      {field("address", "Registered address", { multiline: true })}
      {field("website", "Website", { required: false, type: "url", hint: "An https:// address." })}
      {field("contactEmail", "Compliance contact email", { type: "email", autoComplete: "email" })}
      {editable && <Button type="submit" busy={action.busy}>Save company details</Button>}
    </form>
  )
}

const Submission = ({ view, onView }: { readonly view: ConsoleView; readonly onView: (view: ConsoleView) => void }) => {
  const action = useAction()
  if (view.partner.kybStage !== "DRAFT") return null
  const submit = async () => {
    const next = await action.run(() => call<ConsoleView>("POST", "/partner/kyb/submit"))
    if (next !== undefined) onView(next)
  }
  return (
    <section aria-labelledby="submit-title" className="card">
      <h2 id="submit-title">Submit for review</h2>
      <ErrorAlert message={action.error} />
      <p>Compliance reviews the saved company details. You cannot change them while they are under review.</p>
      <Button onClick={submit} busy={action.busy} disabled={view.partner.company === null}>Submit KYB for review</Button>
      {view.partner.company === null && <p className="hint">Save the company details first.</p>}
    </section>
  )
}

const decisions = [
  { value: "APPROVED", label: "Approve" },
  { value: "REJECTED", label: "Reject" },
  { value: "RESUBMISSION_REQUESTED", label: "Request a resubmission" }
] as const

/** Sandbox mode: the tester plays compliance for their own partner (POST /sandbox/console/kyb-decision). */
const SandboxDecision = ({ onView }: { readonly onView: (view: ConsoleView) => void }) => {
  const [decision, setDecision] = useState<(typeof decisions)[number]["value"]>("APPROVED")
  const [reason, setReason] = useState("")
  const action = useAction()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const body = reason.trim() === "" ? { decision } : { decision, reason }
    const next = await action.run(() => call<ConsoleView>("POST", "/sandbox/console/kyb-decision", body))
    if (next !== undefined) onView(next)
  }
  return (
    <form onSubmit={submit} noValidate aria-labelledby="decision-title" className="card sandbox">
      <h2 id="decision-title">Compliance's decision (sandbox)</h2>
      <ErrorAlert message={action.error} />
      <fieldset>
        <legend>Decision</legend>
        {decisions.map((option) => (
          <label key={option.value} className="choice">
            <input type="radio" name="decision" value={option.value} checked={decision === option.value} onChange={() => setDecision(option.value)} />
            {option.label}
          </label>
        ))}
      </fieldset>
      <Field id="reason" label="Reason" required={decision !== "APPROVED"} multiline hint="Required to reject or to request a resubmission." value={reason} onChange={setReason} error={action.fields.reason} />
      <Button type="submit" busy={action.busy}>Record decision</Button>
    </form>
  )
}

export const CompanyPage = ({ view, sandbox, onView }: { readonly view: ConsoleView; readonly sandbox: boolean; readonly onView: (view: ConsoleView) => void }) => (
  <>
    <KybSummary view={view} />
    <CompanyForm key={view.partner.kybStage} view={view} onView={onView} />
    <Submission view={view} onView={onView} />
    {sandbox && view.partner.kybStage === "UNDER_REVIEW" && <SandboxDecision onView={onView} />}
  </>
)
