import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Either } from "effect"
import * as MP from "multipasta"

/**
 * Reads a `multipart/form-data` request body with its limits enforced while the bytes arrive: a cap on the whole
 * body, on each file (bytes past it are counted, not kept), on the number of parts and on each text field, and a
 * time limit on the whole read. Every outcome answers: a body that ends before its closing boundary is a failure
 * (`Malformed`), never a wait. Parsing is multipasta's (the parser the platform itself uses).
 */

export interface MultipartLimits {
  /** The whole body, boundaries included; past it the read stops with `TooLarge`. */
  readonly bodyBytesMax: number
  /** A file's bytes kept at most; `size` still counts every byte, so a caller can tell it was too large. */
  readonly fileBytesKept: number
  readonly partsMax: number
  readonly fieldBytesMax: number
  readonly timeoutMs: number
}

export interface MultipartFile {
  readonly key: string
  readonly filename: string
  /** At most `fileBytesKept` bytes. */
  readonly bytes: Uint8Array
  readonly size: number
}

export interface MultipartForm {
  readonly fields: ReadonlyArray<{ readonly key: string; readonly value: string }>
  readonly files: ReadonlyArray<MultipartFile>
}

export type MultipartFailure =
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Timeout" }
  | { readonly _tag: "Malformed"; readonly message: string }
  | { readonly _tag: "Unreadable" }

/** RFC 2046 boundary: 1–70 characters from a small set, not ending with a space; optionally quoted. */
export const boundaryOf = (contentType: string): string | undefined => {
  const match = /;\s*boundary=(?:"([^"]*)"|([^;\s]*))/i.exec(contentType)
  const boundary = match?.[1] ?? match?.[2]
  return boundary !== undefined && /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/.test(boundary)
    ? boundary
    : undefined
}

const describeError = (error: MP.MultipartError): string => {
  switch (error._tag) {
    case "InvalidBoundary":
      return "the Content-Type needs a valid boundary parameter"
    case "BadHeaders":
      return "a part has malformed headers"
    case "InvalidDisposition":
      return "a part has no valid Content-Disposition: form-data; name=..."
    case "EndNotReached":
      return "the body ended before its closing boundary"
    case "ReachedLimit":
      return `a limit was reached (${error.limit})`
  }
}

export const readMultipart = (
  request: HttpServerRequest.HttpServerRequest,
  limits: MultipartLimits
): Effect.Effect<Either.Either<MultipartForm, MultipartFailure>> =>
  Effect.async<Either.Either<MultipartForm, MultipartFailure>>((resume) => {
    const raw = NodeHttpServerRequest.toIncomingMessage(request)
    const fields: Array<{ key: string; value: string }> = []
    const files: Array<{ key: string; filename: string; chunks: Array<Uint8Array>; kept: number; size: number }> = []
    let parts = 0
    let bytes = 0
    let done = false
    let failure: MultipartFailure | undefined
    let settled = false
    let timer: ReturnType<typeof setTimeout> | undefined

    const fail = (reason: MultipartFailure) => {
      failure ??= reason
    }
    const parser = MP.make({
      headers: { "content-type": raw.headers["content-type"] ?? "" },
      // Counted here, so that the message can name the part; the body cap bounds everything anyway.
      maxFieldSize: Number.MAX_SAFE_INTEGER,
      onField: (info, value) => {
        if (++parts > limits.partsMax) return fail({ _tag: "Malformed", message: `the form has more than ${limits.partsMax} parts` })
        if (value.length > limits.fieldBytesMax) {
          return fail({ _tag: "Malformed", message: `${info.name}: must be at most ${limits.fieldBytesMax} bytes` })
        }
        fields.push({ key: info.name, value: MP.decodeField(info, value) })
      },
      onFile: (info) => {
        if (++parts > limits.partsMax) fail({ _tag: "Malformed", message: `the form has more than ${limits.partsMax} parts` })
        const file = { key: info.name, filename: info.filename ?? "", chunks: [] as Array<Uint8Array>, kept: 0, size: 0 }
        files.push(file)
        return (chunk) => {
          if (chunk === null) return
          file.size += chunk.length
          const room = limits.fileBytesKept - file.kept
          if (room <= 0) return
          const kept = chunk.length <= room ? chunk : chunk.subarray(0, room)
          // multipasta may reuse its buffers: keep a copy.
          file.chunks.push(Uint8Array.from(kept))
          file.kept += kept.length
        }
      },
      onError: (error) => fail({ _tag: "Malformed", message: describeError(error) }),
      onDone: () => {
        done = true
      }
    })

    const cleanup = () => {
      clearTimeout(timer)
      raw.off("data", onData)
      raw.off("end", onEnd)
      raw.off("error", onError)
      raw.off("close", onError)
    }
    const settle = (result: Either.Either<MultipartForm, MultipartFailure>) => {
      if (settled) return
      settled = true
      cleanup()
      resume(Effect.succeed(result))
    }
    /** Stops reading: the rest of the body is read and dropped, so that the client gets the answer, not a reset. */
    const abandon = (reason: MultipartFailure) => {
      settle(Either.left(reason))
      raw.on("error", () => {})
      raw.resume()
    }
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes > limits.bodyBytesMax) return abandon({ _tag: "TooLarge" })
      if (failure === undefined && !done) parser.write(chunk)
      if (failure !== undefined) abandon(failure)
    }
    const onEnd = () => {
      if (failure === undefined && !done) parser.end()
      if (failure === undefined && !done) fail({ _tag: "Malformed", message: "the body ended before its closing boundary" })
      if (failure !== undefined) return settle(Either.left(failure))
      settle(Either.right({
        fields,
        files: files.map(({ chunks, filename, key, size }) => ({ key, filename, size, bytes: Buffer.concat(chunks) }))
      }))
    }
    const onError = () => settle(Either.left({ _tag: "Unreadable" }))

    if (failure !== undefined) {
      // The Content-Type was refused before any byte was read.
      abandon(failure)
    } else if (raw.readableEnded) {
      onEnd()
    } else {
      raw.on("data", onData)
      raw.once("end", onEnd)
      raw.once("error", onError)
      raw.once("close", onError)
      timer = setTimeout(() => abandon({ _tag: "Timeout" }), limits.timeoutMs)
    }
    return Effect.sync(cleanup)
  })
