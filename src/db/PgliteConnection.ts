import type { PGlite } from "@electric-sql/pglite"
import { EventEmitter } from "node:events"
import { serialize } from "pg-protocol"

/**
 * What the connection needs of a PGlite (a `PGlite` is one): `execProtocolStream` hands PGlite a buffer of protocol
 * messages and answers the messages PGlite wrote back, parsed. (Its `execProtocolRaw` answers the bytes but parses them
 * all the same, for its notifications: reading them again with node-postgres's parser parsed every answer twice,
 * about 0.08 ms of CPU per row of a list page.)
 */
export interface PgliteEngine {
  readonly waitReady: Promise<void>
  readonly execProtocolStream: PGlite["execProtocolStream"]
}

/**
 * A node-postgres connection to an in-process PGlite that sends the messages of a statement together.
 *
 * PGlite's own adapter (`@electric-sql/pglite/node-postgres`, which this follows) hands every protocol message to
 * PGlite as it is written: for a statement with parameters that is five calls into the WebAssembly engine (parse,
 * bind, describe, execute, sync), each with its own turn of PGlite's mutex, its own response parse and its own
 * sync of the file system. This one buffers the messages node-postgres writes and hands them to PGlite as one buffer
 * when node-postgres ends a pipeline (`sync`, `flush`), runs a simple query, or copies — the way a socket delivers
 * them to PostgreSQL. PGlite processes a buffer of several messages like a server reading them from its socket
 * (`PostgresMainLoopOnce` per message); an error skips the rest up to the `Sync` as PostgreSQL does, and the
 * `ReadyForQuery` after it ends the exchange. test/db.pglite-connection.test.ts proves the error paths (parse, bind
 * and execute errors, in and out of transactions and savepoints) against the stock adapter's answers.
 *
 * Measured: docs/performance-startup.md "Batching the extended protocol".
 */
export class BatchingPgliteConnection extends EventEmitter {
  readonly #pglite: PgliteEngine
  #emitMessage = false
  #queue: Promise<void>
  /** Messages written since the last send. */
  #pending: Array<Buffer> = []

  /** Checked by pg's Client.end(), which skips connection.end() without it. */
  public _connecting = false
  /**
   * pg's Client.end() destroys the stream when a query is still active. While corked (pg corks around a statement's
   * messages), a send waits for the last uncork, so
   * everything written meanwhile reaches PGlite as one buffer.
   */
  public readonly stream = {
    destroy: () => this.end(),
    cork: () => {
      this.#corked++
    },
    uncork: () => {
      if (this.#corked === 0) return
      this.#corked--
      if (this.#corked === 0 && this.#sendAtUncork) {
        this.#sendAtUncork = false
        this.#send()
      }
    }
  }
  #corked = 0
  #sendAtUncork = false
  /** The 'end' listeners of the client that is ending, until the callback of its Client.end() is added. */
  #ending: Array<() => void> | undefined
  public parsedStatements: Record<string, string> = {}
  public submittedNamedStatements: Record<string, string> = {}

  constructor(pglite: PgliteEngine) {
    super()
    this.#pglite = pglite
    this.on("newListener", (eventName, listener) => {
      if (eventName === "message") this.#emitMessage = true
      if (eventName === "end" && this.#ending !== undefined) {
        // pg's Client.end(callback) listens for 'end' right after calling end(): the callback is the ending
        // client's (the pool's removal waits for it), not a next client's. It runs with the ended client's
        // listeners and is taken off this connection again once added.
        this.#ending.push(listener as () => void)
        this.#ending = undefined
        queueMicrotask(() => this.removeListener("end", listener as () => void))
      }
    })
    this.#queue = pglite.waitReady
  }

  /** Buffers a message; `send` hands everything buffered to PGlite. */
  #write(message: Buffer) {
    this.#pending.push(message)
  }

  #send() {
    if (this.#corked > 0) {
      this.#sendAtUncork = true
      return
    }
    if (this.#pending.length === 0) return
    const buffer = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending)
    this.#pending = []
    this.#queue = this.#queue
      .then(() => this.#pglite.execProtocolStream(buffer, { throwOnError: false }))
      .then((messages) => {
        for (const message of messages) {
          if (this.#emitMessage) this.emit("message", message)
          // node-postgres expects an ErrorResponse as 'errorMessage'
          this.emit(message.name === "error" ? "errorMessage" : message.name, message)
        }
      })
      .catch((error) => {
        this.emit("error", error)
      })
  }

  async connect(_port: number, _host: string) {
    this._connecting = true
    await this.#pglite.waitReady
    process.nextTick(() => {
      // No backend process to cancel: PGlite runs one statement at a time in this process. Said the way a server's
      // BackendKeyData says it, so that the client's processID is undefined rather than null, and @effect/sql-pg does
      // not try to cancel an interrupted statement with `SELECT pg_cancel_backend(...)` on the pool, whose one
      // connection is the statement's own: that waited out its 5 s time-out, at every shutdown that interrupted a
      // daemon's statement.
      this.emit("backendKeyData", { name: "backendKeyData", processID: undefined, secretKey: undefined })
      this.emit("readyForQuery")
    })
  }

  requestSsl() {}
  startup(_config: unknown) {}
  cancel(_processId: unknown, _secretKey: unknown) {}
  password(_password: string) {}
  ref() {}
  unref() {}

  sendSASLInitialResponseMessage(mechanism: string, initialResponse: string) {
    this.#write(serialize.sendSASLInitialResponseMessage(mechanism, initialResponse))
    this.#send()
  }

  sendSCRAMClientFinalMessage(additionalData: string) {
    this.#write(serialize.sendSCRAMClientFinalMessage(additionalData))
    this.#send()
  }

  query(text: string) {
    this.#write(serialize.query(text))
    this.#send()
  }

  parse(query: Parameters<typeof serialize.parse>[0]) {
    this.#write(serialize.parse(query))
  }

  bind(config: Parameters<typeof serialize.bind>[0]) {
    this.#write(serialize.bind(config))
  }

  execute(config: Parameters<typeof serialize.execute>[0]) {
    this.#write(serialize.execute(config))
  }

  describe(message: Parameters<typeof serialize.describe>[0]) {
    this.#write(serialize.describe(message))
  }

  close(message: Parameters<typeof serialize.close>[0]) {
    this.#write(serialize.close(message))
  }

  flush() {
    this.#write(serialize.flush())
    this.#send()
  }

  sync() {
    this.#write(serialize.sync())
    this.#send()
  }

  sendCopyFromChunk(chunk: Buffer) {
    this.#write(serialize.copyData(chunk))
    this.#send()
  }

  endCopyFrom() {
    this.#write(serialize.copyDone())
    this.#send()
  }

  sendCopyFail(message: string) {
    this.#write(serialize.copyFail(message))
    this.#send()
  }

  end() {
    // Like a socket closing: pg waits for 'end'. The PGlite instance is shared and owned by the caller, so it stays
    // open; anything still buffered goes first. Only the ending client hears its 'end': the pool may attach its next
    // client to this connection before the queue gets there (PGlite's own adapter emits it to whoever listens then,
    // and a client created after a discarded one fails with "Connection terminated unexpectedly").
    this.#send()
    const ended = this.listeners("end") as Array<() => void>
    this.#queue = this.#queue.then(() => {
      for (const listener of ended) listener.call(this)
    })
    this.#ending = ended
    queueMicrotask(() => {
      if (this.#ending === ended) this.#ending = undefined
    })
    // The pool reuses this connection for its next client: drop the ended client's listeners so that they do not
    // receive its messages.
    for (const name of this.eventNames()) {
      if (name !== "newListener") this.removeAllListeners(name)
    }
    this.#emitMessage = false
  }
}

/** A node-postgres pool configuration over PGlite with the batching connection (PGlite serves one connection). */
export const batchingPgConfig = (pglite: PgliteEngine) => ({
  connection: new BatchingPgliteConnection(pglite),
  max: 1,
  password: "dummy",
  user: "postgres",
  database: "postgres",
  port: 5432,
  host: "localhost"
})
