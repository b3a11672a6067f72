import { type FormEvent, useState } from "react"
import { call } from "./client.js"
import type { ConsoleView, Session } from "./types.js"
import { Button, ErrorAlert, Field, useAction } from "./ui.js"

/** Sign-in and sign-up; each hands the new session to `onSession`. Lockouts and waits arrive as words (client.ts). */

export const SignInPage = ({ onSession }: { readonly onSession: (session: Session) => void }) => {
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const action = useAction()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const session = await action.run(() => call<Session>("POST", "/partner/sign-in", { email, password }))
    if (session !== undefined) onSession(session)
  }
  return (
    <form onSubmit={submit} noValidate aria-labelledby="page-title">
      <ErrorAlert message={action.error} />
      <Field id="email" label="Email" type="email" autoComplete="username" required value={email} onChange={setEmail} error={action.fields.email} />
      <Field id="password" label="Password" type="password" autoComplete="current-password" required value={password} onChange={setPassword} error={action.fields.password} />
      <Button type="submit" busy={action.busy}>Sign in</Button>
      <p className="aside">New here? <a href="#/sign-up">Create an account</a></p>
    </form>
  )
}

export const SignUpPage = ({ onSession }: { readonly onSession: (session: Session) => void }) => {
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const [companyName, setCompanyName] = useState("")
  const action = useAction()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const result = await action.run(() =>
      call<{ session: Session; console: ConsoleView }>("POST", "/partner/sign-up", { email, password, companyName }))
    if (result !== undefined) onSession(result.session)
  }
  return (
    <form onSubmit={submit} noValidate aria-labelledby="page-title">
      <ErrorAlert message={action.error} />
      <Field id="companyName" label="Company name" required autoComplete="organization" value={companyName} onChange={setCompanyName} error={action.fields.companyName} />
      <Field id="email" label="Email" type="email" autoComplete="email" required value={email} onChange={setEmail} error={action.fields.email} />
      <Field
        id="password"
        label="Password"
        type="password"
        autoComplete="new-password"
        required
        hint="12 to 128 characters; not a common password."
        value={password}
        onChange={setPassword}
        error={action.fields.password}
      />
      <Button type="submit" busy={action.busy}>Create account</Button>
      <p className="aside">Already have an account? <a href="#/sign-in">Sign in</a></p>
    </form>
  )
}
