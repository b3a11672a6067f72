import { createContext, useContext } from "react"
import type { Backend } from "../Backend.js"

/** What every pane may use from the App: the backend, the footer prompt and status line, details, the clock. */
export interface Ui {
  readonly backend: Backend
  /** Opens the footer prompt; the pane's own keys are off until it is submitted or cancelled. */
  readonly ask: (label: string, initial: string, onSubmit: (value: string) => void) => void
  /** A message on the status line (errors in red). */
  readonly say: (message: string, kind?: "info" | "error") => void
  /** Opens the details view of an event: payload, resource, ledger transactions, delivery, related events. */
  readonly openDetails: (eventId: string) => void
  /** The service clock now (last reading plus real time since). */
  readonly now: () => Date
  /** Changes after every event of the live feed (debounced), every few seconds, and after each action. */
  readonly refresh: number
  /** Asks every pane and the header to reload now. */
  readonly bump: () => void
}

export const UiContext = createContext<Ui | undefined>(undefined)

export const useUi = (): Ui => {
  const ui = useContext(UiContext)
  if (ui === undefined) throw new Error("useUi outside the App")
  return ui
}
