/**
 * The few browser objects the web console uses, typed here: the repository's TypeScript program is a Node one (no
 * DOM library, which would change the types of `fetch`, `Headers` and streams for the server's code), so the page
 * reaches `document`, `window` and `navigator` through these narrow types instead.
 */

export interface Focusable {
  focus(): void
}

interface BrowserDocument {
  cookie: string
  title: string
  getElementById(id: string): (Focusable & object) | null
  querySelector(selector: string): { getAttribute(name: string): string | null } | null
}

interface BrowserWindow {
  location: { hash: string }
  addEventListener(type: "hashchange", listener: () => void): void
  removeEventListener(type: "hashchange", listener: () => void): void
}

interface BrowserNavigator {
  clipboard: { writeText(text: string): Promise<void> }
}

const scope = globalThis as unknown as { document: BrowserDocument; window: BrowserWindow; navigator: BrowserNavigator }

export const browserDocument = (): BrowserDocument => scope.document
export const browserWindow = (): BrowserWindow => scope.window
export const browserNavigator = (): BrowserNavigator => scope.navigator

/** The value of the input or text area an event came from. */
export const valueOf = (event: { readonly target: unknown }): string => (event.target as { value: string }).value

/** Selects the text of the input an event came from. */
export const selectTarget = (event: { readonly target: unknown }): void => (event.target as { select(): void }).select()
