import * as NodeCluster from "node:cluster"

/**
 * `serve` as several processes on one machine (WORKERS, docs/operations.md "Both cores"): the first process forks
 * that many workers (node:cluster) and only supervises; each worker is a whole instance of the service — its own
 * pool, actors, daemons and event relay — and they share the listening port (the primary accepts connections and
 * hands them round-robin to the workers). The instances coordinate through PostgreSQL exactly as separate machines do
 * (docs/operations.md "Several instances"), which is why WORKERS needs DATABASE_URL.
 *
 * The primary: SIGTERM or SIGINT is passed on to every worker and the primary exits once they have all stopped (0,
 * or the first non-zero code a worker stopped with); a worker that exits while the service is not stopping is started
 * again after a second, except one that exits with 78 (a configuration error, such as another ENCRYPTION_KEY):
 * another start would fail the same way, so the primary stops the rest and exits 78.
 */

const cluster = NodeCluster.default

/** Whether this process is a worker of `serve` (it serves; the primary only supervises). */
export const isWorker = (): boolean => cluster.isWorker

/** The variable the primary gives each worker its number in (read as `AppConfig.workerNumber`). */
export const workerNumberVariable = "PMM_WORKER_NUMBER"

/** Runs the primary until every worker has stopped; resolves with the exit code for the primary. */
export const supervise = (count: number, log: (line: string) => void): Promise<number> =>
  new Promise((resolve) => {
    let stopping = false
    let code = 0
    const alive = new Map<number, number>() // cluster worker id -> worker number
    const start = (number: number) => {
      const worker = cluster.fork({ [workerNumberVariable]: String(number) })
      alive.set(worker.id, number)
    }
    const stopAll = (signal: NodeJS.Signals) => {
      stopping = true
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal)
      if (alive.size === 0) resolve(code) // between a worker's exit and its start again
    }
    cluster.on("exit", (worker, exitCode, signal) => {
      const number = alive.get(worker.id) ?? 0
      alive.delete(worker.id)
      const status = exitCode ?? (signal === null ? 1 : 128)
      if (status !== 0 && code === 0) code = status
      if (!stopping && status === 78) {
        log(`worker ${number} exited with 78 (a configuration error): stopping the others`)
        stopAll("SIGTERM")
      } else if (!stopping) {
        log(`worker ${number} exited (${signal ?? `code ${exitCode}`}); starting it again in 1 s`)
        code = 0
        setTimeout(() => (stopping ? undefined : start(number)), 1_000)
      }
      if (stopping && alive.size === 0) resolve(code)
    })
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => stopAll("SIGTERM"))
    for (let number = 1; number <= count; number++) start(number)
  })
