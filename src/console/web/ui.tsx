import { type ReactNode, useCallback, useState } from "react"
import { valueOf } from "./browser.js"
import { ApiError, describe, type FieldProblem } from "./client.js"

/** Shared pieces of the console's pages: labelled fields with their messages, announced alerts, busy buttons. */

export interface FieldProps {
  readonly id: string
  readonly label: string
  readonly value: string
  readonly onChange: (value: string) => void
  readonly error?: string | undefined
  readonly hint?: string | undefined
  readonly type?: "text" | "email" | "password" | "url" | "number"
  readonly autoComplete?: string
  readonly required?: boolean
  readonly disabled?: boolean
  readonly multiline?: boolean
}

export const Field = (props: FieldProps) => {
  const describedBy = [props.hint !== undefined ? `${props.id}-hint` : "", props.error !== undefined ? `${props.id}-error` : ""]
    .filter((id) => id !== "")
    .join(" ")
  const common = {
    id: props.id,
    name: props.id,
    value: props.value,
    required: props.required,
    disabled: props.disabled,
    "aria-invalid": props.error !== undefined ? true : undefined,
    "aria-describedby": describedBy === "" ? undefined : describedBy
  }
  return (
    <div className={props.error !== undefined ? "field invalid" : "field"}>
      <label htmlFor={props.id}>{props.label}{props.required === true ? "" : " (optional)"}</label>
      {props.hint !== undefined && <p id={`${props.id}-hint`} className="hint">{props.hint}</p>}
      {props.multiline === true
        ? <textarea {...common} rows={3} onChange={(event) => props.onChange(valueOf(event))} />
        : <input {...common} type={props.type ?? "text"} autoComplete={props.autoComplete} onChange={(event) => props.onChange(valueOf(event))} />}
      {props.error !== undefined && <p id={`${props.id}-error`} className="field-error">{props.error}</p>}
    </div>
  )
}

/** An error announced as it appears (role=alert); nothing shown when there is none. */
export const ErrorAlert = ({ message }: { readonly message: string | undefined }) => (
  <div role="alert" className={message === undefined ? "alert-slot" : "alert alert-error"}>{message}</div>
)

/** A polite announcement of an outcome (role=status). */
export const StatusNote = ({ message }: { readonly message: string | undefined }) => (
  <div role="status" className={message === undefined ? "alert-slot" : "alert alert-ok"}>{message}</div>
)

export const Button = (
  props: { readonly children: ReactNode; readonly onClick?: () => void; readonly busy?: boolean; readonly kind?: "primary" | "secondary" | "danger"; readonly type?: "button" | "submit"; readonly disabled?: boolean }
) => (
  <button
    type={props.type ?? "button"}
    className={`button button-${props.kind ?? "primary"}`}
    onClick={props.onClick}
    disabled={props.disabled === true || props.busy === true}
    aria-busy={props.busy === true ? true : undefined}
  >
    {props.children}
  </button>
)

/** The field problems of a 400 by field name (`details.fields`), for the messages next to the fields. */
export const fieldErrors = (problems: ReadonlyArray<FieldProblem>): Record<string, string> => {
  const byField: Record<string, string> = {}
  for (const problem of problems) {
    const name = problem.field.split(".")[0] ?? problem.field
    byField[name] ??= problem.message
  }
  return byField
}

/**
 * Runs an action with a busy flag, an error message for the alert and the field problems of a 400; resolves with the
 * action's value, or undefined after a refusal.
 */
export const useAction = () => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const [fields, setFields] = useState<Record<string, string>>({})
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true)
    setError(undefined)
    setFields({})
    try {
      return await action()
    } catch (caught) {
      const problems = caught instanceof ApiError ? fieldErrors(caught.fields) : {}
      setFields(problems)
      const fieldCount = Object.keys(problems).length
      setError(fieldCount > 0 ? `Please correct ${fieldCount === 1 ? "the field" : `${fieldCount} fields`} marked below.` : describe(caught))
      return undefined
    } finally {
      setBusy(false)
    }
  }, [])
  return { busy, error, fields, run, setError } as const
}

export const when = (iso: string | null | undefined) => (iso === null || iso === undefined ? "—" : new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "medium" }))

/** A table that scrolls sideways on a narrow screen: a focusable region, so keyboard users can scroll it. */
export const TableRegion = ({ label, children }: { readonly label: string; readonly children: ReactNode }) => (
  <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>{children}</div>
)
