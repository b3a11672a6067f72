import type { EftOutcome } from "../../src/funding/FundingCharges.js"

/**
 * The simulated EFT provider's page: what a South African customer sees after following a charge's
 * `redirectUrl`. While the charge is PENDING it offers two buttons, each an empty form posted back to the
 * sandbox (`.../authorize`, `.../cancel`); otherwise it shows the outcome.
 */
const escape = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

export const renderEftPage = (outcome: EftOutcome, pagePath: string): string => {
  const { charge, partnerName, notice } = outcome
  const amount = `${charge.currency} ${charge.amount.toFixed(2)}`
  const actions = charge.status === "PENDING"
    ? `<form method="post" action="${escape(pagePath)}/authorize"><button type="submit" id="authorize">Authorise payment of ${escape(amount)}</button></form>
  <form method="post" action="${escape(pagePath)}/cancel"><button type="submit" id="cancel">Cancel</button></form>`
    : ""
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Instant EFT - ${escape(partnerName)}</title>
  <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
  dt{color:#555}dd{margin:0 0 .6rem;font-weight:600}button{font-size:1rem;padding:.6rem 1rem;margin:.3rem 0;width:100%}
  .notice{padding:.6rem;background:#eef;border-radius:4px}</style>
</head>
<body>
  <h1>Instant EFT (sandbox)</h1>
  ${notice === null ? "" : `<p class="notice" id="notice">${escape(notice)}</p>`}
  <dl>
    <dt>Pay to</dt><dd>${escape(partnerName)}</dd>
    <dt>Amount</dt><dd id="amount">${escape(amount)}</dd>
    <dt>Payment reference</dt><dd>${escape(charge.narration)}</dd>
    <dt>Status</dt><dd id="status">${escape(charge.status)}</dd>
    <dt>Expires</dt><dd>${escape(charge.expiresAt.toISOString())}</dd>
  </dl>
  ${actions}
</body>
</html>
`
}
